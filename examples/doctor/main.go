// Command doctor answers "why does my pane show nothing?". It prints what
// panestate's registry would do for a chat session started here, with these
// settings: for every adapter, whether it is enabled and by which settings
// file, whether it applies and if not why (which variable is missing, which
// host condition fails, which loaded reporter it defers to). Inside Herdr
// it also probes the installation: the binary, the server and the pane.
//
// Its first line says which application's settings files it read (--app,
// default chat: ~/.chat/agent/settings.json). It ends with a verdict: the
// adapters that would report, or none and why. The verdict follows the
// probe: an adapter the registry would open does not count when the probe
// found that its workspace cannot take reports (no Herdr server running,
// HERDR_PANE_ID naming a pane that does not exist, an incompatible server).
//
// It never attaches, so it never claims or releases a pane: the registry's
// Explain, called before Attach, reads the settings once and asks each
// adapter whether it would apply, without opening anything.
//
// # Running it
//
//	go run ./examples/doctor                       # would a tui root session of "chat" report here?
//	go run ./examples/doctor --app atomic --trust-project
//	go run ./examples/doctor --mode print          # ... and a print run?
//	go run ./examples/doctor --json | jq .explanation.adapters
//	go run ./examples/doctor -q && echo reporting  # in a script
//
// # Exit status
//
//	0  at least one adapter would report
//	1  no adapter would report (the output says why)
//	2  bad flags or options
//
// # Flags
//
// The host flags are those of the chat example, so that the same flags ask
// about the same session:
//
//	--app NAME               application name (default chat)
//	--project DIR            project root (default: the working directory)
//	--trust-project          apply the project's settings file
//	--mode tui|print|json|rpc  (default tui)
//	--no-ui                  the host has no UI
//	--role root|subagent|workflow-stage  (default root)
//	--loaded-extension PATH  an extension the host loaded (repeatable)
//
// and:
//
//	--json     print one JSON object: {"app": ..., "explanation": ...,
//	           "would_report": [...], "herdr_probe": ..., "verdict": ...}
//	           (the explanation is registry.Explanation's JSON)
//	--probe    look at the Herdr installation (default: on inside Herdr,
//	           that is when HERDR_ENV is set)
//	-q         print nothing; only the exit status answers
//	--terminal ask as a host that hands its terminal to the registry
//	           (registry.Options.Terminal), as the chat example does when
//	           its stdout is a terminal (default: whether the doctor's
//	           stdout is one)
//
// # The Herdr probe
//
// The probe lists the HERDR_* variables present (with the values of those
// the reporter reads) and every one of those that is missing, says whether
// HERDR_BIN_PATH is an executable file, and runs through it `herdr
// --version`, `herdr status --json` and, when a server runs, `herdr pane
// get $HERDR_PANE_ID`, with a 2 s deadline each. These only read: it never
// reports or releases.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/panestate/panestate/examples/internal/hostflags"
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

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr, os.Environ(), isTerminal(os.Stdout)))
}

// isTerminal reports whether f looks like a terminal (a character device),
// as a host deciding whether to hand its stdout to the registry would ask.
func isTerminal(f *os.File) bool {
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
	Verdict     string      `json:"verdict"`
}

// run is the whole program, with its inputs and outputs as parameters so
// that tests can run it in-process. env is the environment to explain;
// terminal is the default of --terminal. It returns the exit status (see
// the package comment).
func run(ctx context.Context, args []string, stdout, stderr io.Writer, env []string, terminal bool) int {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	host := hostflags.Register(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	_, inHerdr := lookup(env, "HERDR_ENV")
	probe := fs.Bool("probe", inHerdr,
		"look at the Herdr installation: variables, binary, version, server and pane (default: on inside Herdr)")
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
	if *probe {
		rep.Probe = probeHerdr(ctx, env)
	}
	var blocked []string // why an adapter the registry would open cannot report
	for _, a := range rep.Explanation.Adapters {
		if !wouldOpen(a) {
			continue
		}
		if a.Name == "herdr" && rep.Probe != nil && len(rep.Probe.Problems) > 0 {
			blocked = append(blocked, "herdr would be opened, but the probe found: "+strings.Join(rep.Probe.Problems, "; "))
			continue
		}
		rep.WouldReport = append(rep.WouldReport, a.Name)
	}
	switch {
	case len(rep.WouldReport) > 0:
		rep.Verdict = fmt.Sprintf("this %s session would report to %s", host.App, strings.Join(rep.WouldReport, ", "))
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
		fmt.Fprintf(stdout, "%s\n", out)
	default:
		fmt.Fprintf(stdout, "doctor: app %q: %s\n\n", host.App, filesRead(rep.Explanation))
		fmt.Fprint(stdout, rep.Explanation.String())
		if rep.Probe != nil {
			fmt.Fprintf(stdout, "\n%s", rep.Probe)
		}
		fmt.Fprintf(stdout, "\nverdict: %s\n", rep.Verdict)
	}
	return status
}

// wouldOpen reports whether the registry would open the adapter on Attach.
// Before Attach, Explain shows an adapter that is enabled and applies here
// as "not attached"; every other state says why it would not run.
//
// This is the one place that reads Explain's lifecycle: adapt it when
// AdapterStatus changes.
func wouldOpen(a registry.AdapterStatus) bool {
	return a.Enabled && a.State == registry.StateNotAttached
}

// filesRead names the settings files of the explanation and their states,
// for the first line.
func filesRead(e registry.Explanation) string {
	var files []string
	for _, f := range e.Files {
		if f.TrustStore {
			continue
		}
		files = append(files, fmt.Sprintf("%s (%s)", f.Path, f.State))
	}
	if len(files) == 0 {
		return "no settings file; pass --app to check another app"
	}
	return "settings from " + strings.Join(files, " and ") + "; pass --app to check another app"
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
	// Problems are the findings that keep Herdr from taking reports, in
	// the order found. Empty means none was found.
	Problems []string `json:"problems,omitempty"`
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

// probeHerdr looks at the Herdr installation env points to. It runs only
// read-only commands.
func probeHerdr(ctx context.Context, env []string) *herdrProbe {
	p := &herdrProbe{Variables: map[string]string{}}
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
	bin, _ := lookup(env, "HERDR_BIN_PATH")
	if p.BinProblem = checkExecutable(bin); p.BinProblem != "" {
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
		if code := errorCode(stderr); code != "" {
			p.PaneError = code
		}
		p.Problems = append(p.Problems, fmt.Sprintf("HERDR_PANE_ID %q: the server does not know that pane (%s)", bound(pane, 80), p.PaneError))
	} else {
		p.PaneFound = true
	}
	return p
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
	return bound(e.Error.Code, 64)
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

// herdr runs the Herdr binary with args (an argument vector, never a
// shell) and returns its standard output and error, bounded.
func herdr(ctx context.Context, env []string, bin string, args ...string) (stdout, stderr string, err error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	cmd.WaitDelay = probeTimeout / 4 // do not wait for a child holding the pipes
	var out, errOut capped
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		if first, _, _ := strings.Cut(strings.TrimSpace(errOut.String()), "\n"); first != "" {
			return out.String(), errOut.String(), fmt.Errorf("herdr %s: %w: %s", strings.Join(args, " "), err, bound(first, 200))
		}
		return out.String(), errOut.String(), fmt.Errorf("herdr %s: %w", strings.Join(args, " "), err)
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
	b.WriteString("herdr probe (read-only: --version, status --json, pane get):\n")
	if len(p.Variables) == 0 {
		b.WriteString("  no HERDR_* variable is set: this is not a Herdr pane\n")
	}
	for _, k := range slices.Sorted(maps.Keys(p.Variables)) {
		fmt.Fprintf(&b, "  %s=%q\n", k, p.Variables[k])
	}
	if len(p.Missing) > 0 {
		fmt.Fprintf(&b, "  missing: %s\n", strings.Join(p.Missing, ", "))
	}
	if p.BinProblem != "" {
		fmt.Fprintf(&b, "  binary: %s\n", p.BinProblem)
	} else {
		b.WriteString("  binary: executable\n")
		if p.VersionError != "" {
			fmt.Fprintf(&b, "  herdr --version: failed: %s\n", p.VersionError)
		} else {
			fmt.Fprintf(&b, "  herdr --version: %s\n", p.Version)
		}
		switch s := p.Server; {
		case p.StatusError != "":
			fmt.Fprintf(&b, "  herdr status --json: failed: %s\n", p.StatusError)
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
			fmt.Fprintf(&b, "  pane %s: found\n", p.Pane)
		case p.PaneError != "":
			fmt.Fprintf(&b, "  pane %s: not found: %s\n", p.Pane, p.PaneError)
		}
	}
	for _, pr := range p.Problems {
		fmt.Fprintf(&b, "  problem: %s\n", pr)
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
	return s
}

func strOrUnknown(s *string) string {
	if s == nil {
		return "(unknown)"
	}
	return *s
}

func intOrUnknown(n *int) string {
	if n == nil {
		return "(unknown)"
	}
	return strconv.Itoa(*n)
}

// bound returns s on one line, cut to at most n bytes.
func bound(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
