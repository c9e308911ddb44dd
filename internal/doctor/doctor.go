package doctor

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/internal/hostflags"
	"github.com/panestate/panestate/internal/safetext"
	"github.com/panestate/panestate/registry"
)

// probeTimeout bounds each herdr command the probe runs.
const probeTimeout = 2 * time.Second

// maxOutput bounds what is kept of a probed command's output.
const maxOutput = 64 << 10

// The exit statuses.
const (
	exitReports = 0 // at least one adapter would report
	exitNone    = 1 // no adapter would report
	exitUsage   = 2 // bad flags or options
)

// The variables the Herdr reporter needs; the probe shows their values and
// names each one that is missing. Other HERDR_* variables are only said to
// be set.
var herdrVariables = []string{"HERDR_ENV", "HERDR_BIN_PATH", "HERDR_PANE_ID", "HERDR_SOCKET_PATH"}

// Run is the doctor command: args are its flags (the package
// documentation of examples/doctor lists them), env the environment to
// explain, terminal the default of --terminal. It prints on stdout, and on
// stderr for bad flags, and returns the exit status: 0 when at least one
// adapter would report, 1 when none would, 2 for bad flags or options.
// ctx bounds the probes.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer, env []string, terminal bool) int {
	return run(ctx, Config{}, args, stdout, stderr, env, terminal)
}

// Config changes what [RunConfig] asks about.
type Config struct {
	// App is the default of --app; "" is hostflags.DefaultApp.
	App string
	// NoProject: the app's hosts read no project settings (panestate's
	// hooks), so none is read or shown unless --app names another app.
	NoProject bool
}

// RunConfig is [Run] as c sets it.
func RunConfig(ctx context.Context, c Config, args []string, stdout, stderr io.Writer, env []string, terminal bool) int {
	return run(ctx, c, args, stdout, stderr, env, terminal)
}

// IsTerminal reports whether f looks like a terminal (a character device),
// as a host deciding whether to hand its stdout to the registry would ask.
func IsTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// report is everything the doctor found, and its JSON output.
type report struct {
	App         string               `json:"app"`
	Explanation registry.Explanation `json:"explanation"`
	// WouldReport are the adapters that would report: the registry would
	// open them and, where probed, their workspace can take reports.
	WouldReport []string    `json:"would_report"`
	Probe       *herdrProbe `json:"herdr_probe,omitempty"`
	TmuxProbe   *tmuxProbe  `json:"tmux_probe,omitempty"`
	Verdict     string      `json:"verdict"`
}

// run is the whole program, with its inputs and outputs as parameters so
// that tests can run it in-process. env is the environment to explain;
// terminal is the default of --terminal. It returns the exit status (see
// the package comment).
func run(ctx context.Context, c Config, args []string, stdout, stderr io.Writer, env []string, terminal bool) int {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	host := hostflags.RegisterApp(fs, cmp.Or(c.App, hostflags.DefaultApp))
	asJSON := fs.Bool("json", false, "print JSON")
	_, inHerdr := lookup(env, "HERDR_ENV")
	tmuxVar, _ := lookup(env, "TMUX")
	probe := fs.Bool("probe", true,
		"probe the workspaces the environment names: Herdr's binary, server and pane (inside Herdr; outside too when given), tmux's server and pane (inside tmux)")
	quiet := fs.Bool("q", false, "print nothing: only the exit status answers")
	handTerminal := fs.Bool("terminal", terminal,
		"ask as a host that hands its terminal to the registry (Options.Terminal), as chat does when its stdout is one (default: whether stdout is a terminal)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "doctor: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	opts, err := host.Options(env, nil)
	if err != nil {
		fmt.Fprintf(stderr, "doctor: %v\n", err)
		return exitUsage
	}
	if c.NoProject && host.App == cmp.Or(c.App, hostflags.DefaultApp) {
		opts.Settings.ProjectRoot = ""
	}
	if *handTerminal {
		// Explain before Attach only asks whether an adapter would apply;
		// nothing is written. A writer that drops everything makes sure.
		opts.Terminal = io.Discard
	}
	reg, err := registry.New(opts)
	if err != nil {
		fmt.Fprintf(stderr, "doctor: %v\n", err)
		return exitUsage
	}

	// Explain before Attach: nothing is opened, nothing is claimed.
	rep := report{App: host.App, Explanation: reg.Explain(), WouldReport: []string{}}
	probeGiven, appGiven := false, false
	fs.Visit(func(f *flag.Flag) {
		probeGiven = probeGiven || f.Name == "probe"
		appGiven = appGiven || f.Name == "app"
	})
	// What the adapters would do comes from the explanation (their
	// drivers' previews); the probes only ask the workspaces.
	if *probe && (inHerdr || probeGiven) {
		rep.Probe = probeHerdr(ctx, env, routeOf(details(rep.Explanation, "herdr")))
	}
	if *probe && tmuxVar != "" {
		rep.TmuxProbe = probeTmux(ctx, env, cmp.Or(details(rep.Explanation, "tmux")["prefix"], defaultTmuxPrefix))
	}
	// The problems each probe found, by adapter name.
	problems := map[string][]string{}
	if rep.Probe != nil {
		problems["herdr"] = rep.Probe.Problems
	}
	if rep.TmuxProbe != nil {
		problems["tmux"] = rep.TmuxProbe.Problems
	}
	var blocked []string // why an adapter the registry would open cannot report
	for _, a := range rep.Explanation.Adapters {
		if failsToOpen(a) {
			blocked = append(blocked, a.Name+": "+a.Why)
			continue
		}
		if !wouldOpen(a) {
			continue
		}
		if p := problems[a.Name]; len(p) > 0 {
			blocked = append(blocked, a.Name+" would be opened, but the probe found: "+strings.Join(p, "; "))
			continue
		}
		rep.WouldReport = append(rep.WouldReport, a.Name)
	}
	switch {
	case len(rep.WouldReport) > 0:
		rep.Verdict = fmt.Sprintf("this %s session would report to %s", host.App, strings.Join(rep.WouldReport, ", "))
		if t := rep.TmuxProbe; t != nil && t.FormatsRead && len(t.Formats) == 0 && slices.Contains(rep.WouldReport, "tmux") {
			rep.Verdict += fmt.Sprintf(", but no tmux status or border format shows @%s_*, so nothing shows it (see the tmux probe)", t.Prefix)
		}
	case len(blocked) > 0:
		rep.Verdict = fmt.Sprintf("this %s session would report nowhere: %s", host.App, strings.Join(blocked, "; "))
	default:
		rep.Verdict = fmt.Sprintf("this %s session would report nowhere (see why above)", host.App)
	}
	status := exitReports
	if len(rep.WouldReport) == 0 {
		status = exitNone
	}

	switch {
	case *quiet:
	case *asJSON:
		out, err := json.MarshalIndent(rep, "", "  ")
		if err != nil { // plain data: cannot happen
			fmt.Fprintf(stderr, "doctor: %v\n", err)
			return exitUsage
		}
		fmt.Fprintf(stdout, "%s\n", safetext.JSON(out))
	default:
		fmt.Fprintf(stdout, "doctor: app %q: %s\n\n", host.App, filesRead(rep.Explanation, appGiven))
		fmt.Fprint(stdout, rep.Explanation.String())
		if rep.Probe != nil {
			fmt.Fprintf(stdout, "\n%s", rep.Probe)
		}
		if rep.TmuxProbe != nil {
			fmt.Fprintf(stdout, "\n%s", rep.TmuxProbe)
		}
		fmt.Fprintf(stdout, "\nverdict: %s\n", Safe(rep.Verdict))
	}
	return status
}

// wouldOpen reports whether the registry would open the adapter on Attach.
// Before Attach, Explain shows an adapter that is enabled and applies here
// as "not attached"; every other state says why it would not run.
//
// This and failsToOpen are the places that read Explain's lifecycle: adapt
// them when AdapterStatus changes.
func wouldOpen(a registry.AdapterStatus) bool {
	return a.Enabled && a.Lifecycle == registry.LifecycleNotAttached
}

// failsToOpen reports whether the registry would try to open the adapter on
// Attach and fail: it is enabled and applies, but its settings are bad (Why
// says how). Explain shows such an adapter as "open failed" before Attach.
func failsToOpen(a registry.AdapterStatus) bool {
	return a.Enabled && a.Lifecycle == registry.LifecycleOpenFailed
}

// filesRead names the settings files of the explanation and their conditions,
// for the first line; unless --app was given, it says how to check another
// app.
func filesRead(e registry.Explanation, appGiven bool) string {
	var files []string
	for _, f := range e.Files {
		if f.TrustStore {
			continue
		}
		files = append(files, fmt.Sprintf("%s (%s)", Safe(f.Path), f.Condition))
	}
	read := "no settings file"
	if len(files) > 0 {
		read = "settings from " + strings.Join(files, " and ")
	}
	if !appGiven {
		read += "; pass --app to check another app"
	}
	return read
}

// herdrProbe is what the doctor found out about the Herdr installation.
type herdrProbe struct {
	// Variables maps each HERDR_* variable present to its value, or to
	// "(set)" for those whose value is not shown.
	Variables map[string]string `json:"variables"`
	// Missing names every variable the reporter needs that is unset or
	// empty.
	Missing []string `json:"missing,omitempty"`
	// BinProblem says why HERDR_BIN_PATH cannot be run; empty when it can.
	BinProblem string `json:"bin_problem,omitempty"`
	// Version and Status are the outputs of `herdr --version` and `herdr
	// status --json`; VersionError and StatusError say why one is missing.
	Version      string          `json:"version,omitempty"`
	VersionError string          `json:"version_error,omitempty"`
	Status       json.RawMessage `json:"status,omitempty"`
	StatusError  string          `json:"status_error,omitempty"`
	// Server is what the status says of the server, when it could be read.
	Server *serverStatus `json:"server,omitempty"`
	// Pane is HERDR_PANE_ID; PaneFound says whether the server knows it
	// (`herdr pane get`), and PaneError why not. Both are empty when the
	// pane was not looked up (no server, or no pane id).
	Pane      string `json:"pane,omitempty"`
	PaneFound bool   `json:"pane_found,omitempty"`
	PaneError string `json:"pane_error,omitempty"`
	// Ping is what the server answered to the doctor's own ping on
	// HERDR_SOCKET_PATH (the question the reporter asks once per claim);
	// nil when that variable is unset.
	Ping *serverPing `json:"ping,omitempty"`
	// Transport is the "transport" setting (auto, socket or cli), as the
	// herdr adapter's details in the explanation show it; TransportUsed the
	// route the reporter would take with it and this server ("socket",
	// "cli", "none" when every report would fail, "" when the explanation
	// shows no route), and TransportWhy why.
	Transport     string `json:"transport"`
	TransportUsed string `json:"transport_used,omitempty"`
	TransportWhy  string `json:"transport_why,omitempty"`
	// Problems are the findings that keep Herdr from taking reports, in
	// the order found. Empty means none was found.
	Problems []string `json:"problems,omitempty"`
}

// details returns the details the explanation shows for the adapter name:
// before Attach, the setup its driver previews (adapter.Previewer); nil
// when it shows none (the adapter does not apply here, or its settings
// would make it fail to open: the explanation says why).
func details(e registry.Explanation, name string) map[string]string {
	for _, a := range e.Adapters {
		if a.Name == name {
			return a.Details
		}
	}
	return nil
}

// herdrRoute is how the Herdr adapter picks its transport, as its details
// say: the "transport" setting, the socket protocols it speaks, and the
// route it takes when the server answers a ping in one of them and
// otherwise ("socket", "cli", or "none": every report fails). known is
// false when the details say nothing of it.
type herdrRoute struct {
	setting, speaks, otherwise string
	protocols                  []int
	known                      bool
}

// routeOf reads the Herdr adapter's route from its details.
func routeOf(d map[string]string) herdrRoute {
	r := herdrRoute{setting: d["transport"], speaks: d["route_speaks"], otherwise: d["route_otherwise"]}
	for f := range strings.FieldsSeq(d["transport_protocols"]) {
		if n, err := strconv.Atoi(f); err == nil {
			r.protocols = append(r.protocols, n)
		}
	}
	r.known = r.setting != "" && r.speaks != "" && r.otherwise != ""
	return r
}

// routeNone is the route of a report that would fail.
const routeNone = "none"

// transportInUse says which route the reporter would take, by the rule
// its details give, with the server's answer to the doctor's ping, and
// why; problem is set when no route would deliver.
func transportInUse(r herdrRoute, pong serverPing) (used, why, problem string) {
	if !r.known {
		return "", "the explanation shows no route for the herdr adapter (see why above)", ""
	}
	spoken := make([]string, len(r.protocols))
	for i, n := range r.protocols {
		spoken[i] = strconv.Itoa(n)
	}
	speaks := strings.Join(spoken, " or ")
	switch {
	case r.speaks == r.otherwise:
		used, why = r.speaks, "the setting; the server's answer does not change it"
	case pong.Error == "" && slices.Contains(r.protocols, pong.Protocol):
		used, why = r.speaks, fmt.Sprintf("protocol %d is one it speaks", pong.Protocol)
	case pong.Error != "":
		used, why = r.otherwise, "the ping failed ("+pong.Error+")"
	default:
		used, why = r.otherwise, fmt.Sprintf("protocol %d is not one it speaks (%s)", pong.Protocol, speaks)
	}
	if used == routeNone {
		problem = fmt.Sprintf("transport %s: %s: every report would fail", adapter.Bound(r.setting, 40), why)
	}
	return used, why, problem
}

// serverStatus is the part of `herdr status --json` the doctor reads.
type serverStatus struct {
	Status     string  `json:"status"` // running, not_running, ...
	Running    bool    `json:"running"`
	Version    *string `json:"version"`
	Protocol   *int    `json:"protocol"`
	Compatible *bool   `json:"compatible"`
	Socket     string  `json:"socket"`
}

// probeHerdr looks at the Herdr installation env points to, and says
// which transport the reporter would take by route, the rule the adapter's
// details give. It runs only read-only commands.
func probeHerdr(ctx context.Context, env []string, route herdrRoute) *herdrProbe {
	p := &herdrProbe{Variables: map[string]string{}, Transport: route.setting}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(k, "HERDR_") {
			continue
		}
		if slices.Contains(herdrVariables, k) {
			p.Variables[k] = v
		} else {
			p.Variables[k] = "(set)"
		}
	}
	for _, k := range herdrVariables {
		if v, _ := lookup(env, k); v == "" {
			p.Missing = append(p.Missing, k)
		}
	}
	if len(p.Missing) > 0 {
		p.Problems = append(p.Problems, "missing "+strings.Join(p.Missing, ", "))
	}
	if socket, _ := lookup(env, "HERDR_SOCKET_PATH"); socket != "" {
		pong := ping(ctx, socket)
		p.Ping = &pong
		var problem string
		p.TransportUsed, p.TransportWhy, problem = transportInUse(route, pong)
		if problem != "" {
			p.Problems = append(p.Problems, problem)
		}
	}
	bin, _ := lookup(env, "HERDR_BIN_PATH")
	p.BinProblem = checkExecutable(bin)
	if bin != "" && !filepath.IsAbs(bin) {
		// Run, a relative path would be looked up in PATH (a bare name) or
		// in the working directory, which may be an untrusted repository:
		// neither is the file Herdr meant. The reporter refuses it too.
		p.BinProblem = fmt.Sprintf("%q is not an absolute path (Herdr always sets one); not run", adapter.Bound(bin, 200))
	}
	if p.BinProblem != "" {
		if bin != "" {
			p.Problems = append(p.Problems, "HERDR_BIN_PATH: "+p.BinProblem)
		}
		return p
	}
	if out, _, err := herdr(ctx, env, bin, "--version"); err != nil {
		p.VersionError = err.Error()
	} else {
		p.Version = strings.TrimSpace(out)
	}
	out, _, err := herdr(ctx, env, bin, "status", "--json")
	var st struct {
		Server *serverStatus `json:"server"`
	}
	switch {
	case err != nil:
		p.StatusError = err.Error()
	case !json.Valid([]byte(out)):
		p.StatusError = fmt.Sprintf("not JSON (%d bytes)", len(out))
	default:
		p.Status = json.RawMessage(strings.TrimSpace(out))
		if json.Unmarshal(p.Status, &st) == nil && st.Server != nil {
			p.Server = st.Server
		}
	}
	switch s := p.Server; {
	case p.StatusError != "":
		p.Problems = append(p.Problems, "herdr status failed: "+p.StatusError)
	case s == nil:
		p.Problems = append(p.Problems, "herdr status says nothing of the server")
	case !s.Running:
		p.Problems = append(p.Problems, fmt.Sprintf("no Herdr server is running at %s (status %s)", orUnknown(s.Socket), orUnknown(s.Status)))
	case s.Compatible != nil && !*s.Compatible:
		p.Problems = append(p.Problems, fmt.Sprintf("the Herdr server (protocol %s) is not compatible with its CLI: restart the server", intOrUnknown(s.Protocol)))
	}
	pane, _ := lookup(env, "HERDR_PANE_ID")
	if pane == "" || p.Server == nil || !p.Server.Running {
		return p
	}
	p.Pane = pane
	if _, stderr, err := herdr(ctx, env, bin, "pane", "get", pane); err != nil {
		p.PaneError = err.Error()
		code := errorCode(stderr)
		if code != "" {
			p.PaneError = code
		}
		if code == "pane_not_found" {
			p.Problems = append(p.Problems, fmt.Sprintf("HERDR_PANE_ID %q: the server does not know that pane (%s)", adapter.Bound(pane, 80), p.PaneError))
		} else {
			// A hung or failing CLI says nothing about the pane itself.
			p.Problems = append(p.Problems, fmt.Sprintf("herdr pane get %q failed: %s", adapter.Bound(pane, 80), p.PaneError))
		}
	} else {
		p.PaneFound = true
	}
	return p
}

// tmuxProbe is what the doctor found out about the tmux server and pane
// the environment names.
type tmuxProbe struct {
	// Socket is the server's socket, the first field of TMUX; Pane is
	// TMUX_PANE.
	Socket string `json:"socket,omitempty"`
	Pane   string `json:"pane,omitempty"`
	// Binary is the tmux executable found in the environment's PATH.
	Binary string `json:"binary,omitempty"`
	// PaneFound says whether the server lists the pane; Error says why it
	// could not be asked.
	PaneFound bool   `json:"pane_found,omitempty"`
	Error     string `json:"error,omitempty"`
	// Prefix is the "prefix" setting: the adapter sets the pane options
	// @<prefix>_state, _message and _agent.
	Prefix string `json:"prefix,omitempty"`
	// FormatsRead says whether the server's formats could be read (the
	// pane's options, as show-options -A gives them); FormatsError why
	// not. Formats names each status or border format that tmux draws and
	// that shows an @<prefix>_ option: none means the state is set on the
	// pane but nothing shows it.
	FormatsRead  bool     `json:"formats_read,omitempty"`
	FormatsError string   `json:"formats_error,omitempty"`
	Formats      []string `json:"formats,omitempty"`
	// Problems are the findings that keep tmux from taking reports.
	Problems []string `json:"problems,omitempty"`
}

// probeTmux asks the tmux server of TMUX whether it has the pane of
// TMUX_PANE and whether a format it draws shows the pane options of prefix
// (see readFormats). It runs two read-only commands, list-panes and
// show-options, against that server only (-S), never the default one.
func probeTmux(ctx context.Context, env []string, prefix string) *tmuxProbe {
	p := &tmuxProbe{Prefix: prefix}
	tmuxVar, _ := lookup(env, "TMUX")
	p.Socket, _, _ = strings.Cut(tmuxVar, ",")
	p.Pane, _ = lookup(env, "TMUX_PANE")
	switch {
	case p.Socket == "":
		p.Problems = append(p.Problems, fmt.Sprintf("TMUX %q names no server socket", adapter.Bound(tmuxVar, 80)))
		return p
	case p.Pane == "":
		p.Problems = append(p.Problems, "missing TMUX_PANE")
		return p
	}
	path, _ := lookup(env, "PATH")
	if p.Binary = lookPath("tmux", path); p.Binary == "" {
		p.Problems = append(p.Problems, "no tmux executable in PATH")
		return p
	}
	out, stderr, err := command(ctx, env, p.Binary, "-S", p.Socket, "list-panes", "-a", "-F", "#{pane_id}")
	if err != nil {
		p.Error = err.Error()
		switch first, _, _ := strings.Cut(strings.TrimSpace(stderr), "\n"); {
		case strings.HasPrefix(first, "no server running"), strings.HasPrefix(first, "error connecting"),
			strings.HasPrefix(first, "server exited unexpectedly"), strings.HasPrefix(first, "lost server"):
			// The last two: a server that was shutting down as we asked.
			p.Problems = append(p.Problems, fmt.Sprintf("no tmux server is running at %s", p.Socket))
		default:
			p.Problems = append(p.Problems, "tmux list-panes failed: "+p.Error)
		}
		return p
	}
	p.PaneFound = slices.Contains(strings.Fields(out), p.Pane)
	if !p.PaneFound {
		p.Problems = append(p.Problems, fmt.Sprintf("TMUX_PANE %q: the tmux server has no such pane", adapter.Bound(p.Pane, 40)))
		return p
	}
	// The session options (status line) and window options (borders,
	// window list) in effect for the pane, inherited ones included (-A).
	out, _, err = command(ctx, env, p.Binary, "-S", p.Socket, "show-options", "-A", "-t", p.Pane, ";", "show-options", "-wA", "-t", p.Pane)
	if err != nil {
		p.FormatsError = err.Error()
		return p
	}
	p.FormatsRead, p.Formats = true, readFormats(out, prefix)
	return p
}

// The formats that show what the tmux adapter sets: the status line's
// (shown while the status option is not off) and the pane border's (shown
// while pane-border-status is not off).
var (
	statusFormats = []string{"status-left", "status-right", "window-status-format", "window-status-current-format", "status-format"}
	borderFormats = []string{"pane-border-format"}
)

// readFormats returns the status and border formats of show-options
// output (lines "name[*] value"; status-format[N] for the array) that tmux
// draws and that name an @<prefix>_ option.
func readFormats(out, prefix string) []string {
	values := map[string]string{}
	var names []string
	for line := range strings.Lines(out) {
		name, value, _ := strings.Cut(strings.TrimRight(line, "\r\n"), " ")
		name = strings.TrimSuffix(name, "*") // inherited
		values[name] = value
		names = append(names, name)
	}
	statusOn, borderOn := values["status"] != "off", values["pane-border-status"] != "off" && values["pane-border-status"] != ""
	var shown []string
	for _, name := range names {
		base, _, _ := strings.Cut(name, "[")
		drawn := statusOn && slices.Contains(statusFormats, base) || borderOn && slices.Contains(borderFormats, base)
		if drawn && strings.Contains(values[name], "@"+prefix+"_") && !slices.Contains(shown, name) {
			shown = append(shown, name)
		}
	}
	return shown
}

// defaultTmuxPrefix is the tmux adapter's default prefix
// (tmux.DefaultPrefix), for when the explanation shows no tmux details
// (the adapter does not apply here; the probe still looks).
const defaultTmuxPrefix = "panestate"

// tmuxConfLines are what the doctor suggests when no format shows the
// state: the first block of docs/tmux.md's "tmux.conf" section, with the
// prefix in place of "panestate" (a test checks that the doc has them).
var tmuxConfLines = []string{
	`set -g window-status-format '#{?#{==:#{@panestate_state},blocked},#[fg=black bg=yellow],}#I:#W#{window_flags}#{?#{@panestate_state}, (#{@panestate_state}),}#[default]'`,
	`set -g window-status-current-format '#{?#{==:#{@panestate_state},blocked},#[fg=black bg=yellow],#[reverse]}#I:#W#{window_flags}#{?#{@panestate_state}, (#{@panestate_state}),}#[default]'`,
}

// lookPath finds an executable named file in the directories of path (a
// PATH value), as the tmux adapter does with the captured environment. It
// returns an absolute path, or "".
func lookPath(file, path string) string {
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue // a relative PATH entry could run a program of the working directory
		}
		candidate := filepath.Join(dir, file)
		if runtime.GOOS == "windows" {
			candidate += ".exe"
		}
		if checkExecutable(candidate) == "" {
			return candidate
		}
	}
	return ""
}

// String renders the tmux probe for people.
func (p *tmuxProbe) String() string {
	var b strings.Builder
	b.WriteString("tmux probe (read-only: list-panes, show-options):\n")
	fmt.Fprintf(&b, "  server: %s\n  pane: %s\n", orUnknown(p.Socket), orUnknown(p.Pane))
	switch {
	case p.PaneFound:
		fmt.Fprintf(&b, "  pane %s: found\n", Safe(p.Pane))
	case p.Error != "":
		fmt.Fprintf(&b, "  tmux list-panes: failed: %s\n", Safe(p.Error))
	}
	switch {
	case p.FormatsError != "":
		fmt.Fprintf(&b, "  tmux show-options: failed: %s\n", Safe(p.FormatsError))
	case !p.FormatsRead:
	case len(p.Formats) > 0:
		fmt.Fprintf(&b, "  formats showing @%s_*: %s\n", Safe(p.Prefix), strings.Join(p.Formats, ", "))
	default:
		fmt.Fprintf(&b, "  no status or border format tmux draws shows @%s_*: the pane's state is set, but nothing shows it. Add to ~/.tmux.conf, then run tmux source-file ~/.tmux.conf (docs/tmux.md, \"tmux.conf\", has a border and a status-line count too):\n", Safe(p.Prefix))
		for _, line := range tmuxConfLines {
			fmt.Fprintf(&b, "    %s\n", strings.ReplaceAll(line, "@panestate_", "@"+Safe(p.Prefix)+"_"))
		}
	}
	for _, pr := range p.Problems {
		fmt.Fprintf(&b, "  problem: %s\n", Safe(pr))
	}
	return b.String()
}

// errorCode returns the error.code of a Herdr JSON error line, or "".
func errorCode(stderr string) string {
	var e struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	first, _, _ := strings.Cut(strings.TrimSpace(stderr), "\n")
	if json.Unmarshal([]byte(first), &e) != nil {
		return ""
	}
	return adapter.Bound(e.Error.Code, 64)
}

// checkExecutable says why path is not an executable file, or "".
func checkExecutable(path string) string {
	if path == "" {
		return "HERDR_BIN_PATH is not set"
	}
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return err.Error()
	case !fi.Mode().IsRegular():
		return path + " is not a regular file"
	case runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0:
		return path + " is not executable"
	}
	return ""
}

// herdr runs the Herdr binary with args; see command.
func herdr(ctx context.Context, env []string, bin string, args ...string) (stdout, stderr string, err error) {
	return command(ctx, env, bin, args...)
}

// command runs bin with args (an argument vector, never a shell) and the
// environment env, within probeTimeout, and returns its standard output and
// error, bounded.
func command(ctx context.Context, env []string, bin string, args ...string) (stdout, stderr string, err error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	cmd.WaitDelay = probeTimeout / 4 // do not wait for a child holding the pipes
	var out, errOut capped
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		if first, _, _ := strings.Cut(strings.TrimSpace(errOut.String()), "\n"); first != "" {
			return out.String(), errOut.String(), fmt.Errorf("%s %s: %w: %s", filepath.Base(bin), strings.Join(args, " "), err, adapter.Bound(first, 200))
		}
		return out.String(), errOut.String(), fmt.Errorf("%s %s: %w", filepath.Base(bin), strings.Join(args, " "), err)
	}
	return out.String(), errOut.String(), nil
}

// capped keeps the first maxOutput bytes written to it.
type capped struct{ bytes.Buffer }

func (c *capped) Write(p []byte) (int, error) {
	if room := maxOutput - c.Len(); room > 0 {
		c.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// String renders the probe for people.
func (p *herdrProbe) String() string {
	var b strings.Builder
	b.WriteString("herdr probe (read-only: a ping on the socket, --version, status --json, pane get):\n")
	if len(p.Variables) == 0 {
		b.WriteString("  no HERDR_* variable is set: this is not a Herdr pane\n")
	}
	for _, k := range slices.Sorted(maps.Keys(p.Variables)) {
		fmt.Fprintf(&b, "  %s=%q\n", k, p.Variables[k])
	}
	if len(p.Missing) > 0 {
		fmt.Fprintf(&b, "  missing: %s\n", strings.Join(p.Missing, ", "))
	}
	switch {
	case p.Ping == nil:
	case p.Ping.Error != "":
		fmt.Fprintf(&b, "  ping: failed: %s\n", Safe(p.Ping.Error))
	default:
		fmt.Fprintf(&b, "  ping: Herdr %s, protocol %d\n", orUnknown(p.Ping.Version), p.Ping.Protocol)
	}
	if p.Ping != nil {
		used := p.TransportUsed
		if used == "" || used == routeNone {
			used = "nothing"
		}
		fmt.Fprintf(&b, "  transport: %s, so the reporter would use %s: %s\n", Safe(cmp.Or(p.Transport, "(unknown)")), Safe(used), Safe(p.TransportWhy))
	}
	if p.BinProblem != "" {
		fmt.Fprintf(&b, "  binary: %s\n", Safe(p.BinProblem))
	} else {
		b.WriteString("  binary: executable\n")
		if p.VersionError != "" {
			fmt.Fprintf(&b, "  herdr --version: failed: %s\n", Safe(p.VersionError))
		} else {
			fmt.Fprintf(&b, "  herdr --version: %s\n", Safe(p.Version))
		}
		switch s := p.Server; {
		case p.StatusError != "":
			fmt.Fprintf(&b, "  herdr status --json: failed: %s\n", Safe(p.StatusError))
		case s == nil:
			b.WriteString("  server: not described by herdr status\n")
		case !s.Running:
			fmt.Fprintf(&b, "  server: %s at %s\n", orUnknown(s.Status), orUnknown(s.Socket))
		default:
			fmt.Fprintf(&b, "  server: running at %s, version %s, protocol %s", orUnknown(s.Socket), strOrUnknown(s.Version), intOrUnknown(s.Protocol))
			if s.Compatible != nil && !*s.Compatible {
				b.WriteString(", NOT compatible with the CLI")
			}
			b.WriteByte('\n')
		}
		switch {
		case p.PaneFound:
			fmt.Fprintf(&b, "  pane %s: found\n", Safe(p.Pane))
		case p.PaneError == "pane_not_found":
			fmt.Fprintf(&b, "  pane %s: not found: %s\n", Safe(p.Pane), p.PaneError)
		case p.PaneError != "":
			fmt.Fprintf(&b, "  herdr pane get %s: failed: %s\n", Safe(p.Pane), Safe(p.PaneError))
		}
	}
	for _, pr := range p.Problems {
		fmt.Fprintf(&b, "  problem: %s\n", Safe(pr))
	}
	return b.String()
}

// lookup returns the value of key in env and whether it is set; the last
// setting wins, as in os/exec.
func lookup(env []string, key string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

func orUnknown(s string) string {
	if s == "" {
		return "(unknown)"
	}
	return Safe(s)
}

func strOrUnknown(s *string) string {
	if s == nil {
		return "(unknown)"
	}
	return orUnknown(*s)
}

func intOrUnknown(n *int) string {
	if n == nil {
		return "(unknown)"
	}
	return strconv.Itoa(*n)
}

// maxShown bounds each outside string the doctor prints.
const maxShown = 4096

// Safe returns s, a string from outside the doctor (the environment, a
// settings file, a workspace's answer, a command's output), as the doctor
// prints it: as [adapter.Bound] leaves it, one line without control or
// bidirectional characters, so that the report can neither run escape
// sequences on the terminal nor reorder what it shows. `panestate doctor`
// prints its per-agent lines through it too.
func Safe(s string) string { return adapter.Bound(s, maxShown) }
