package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/registry"
	"github.com/panestate/panestate/session"
	"github.com/panestate/panestate/settings"
)

// app is the host application's name: it makes Herdr's source custom:demo and
// the agent label "demo", and the settings folders .demo/.
const app = "demo"

// Exit codes.
const (
	exitOK          = 0
	exitFailed      = 1   // a step did not show in time, or setup failed
	exitUsage       = 2   // bad flags, or --real outside Herdr
	exitInterrupted = 130 // SIGINT, as a shell reports it
)

func main() {
	// When the emulated Herdr runs its fake CLI, it re-executes this very
	// binary under the name herdr; Main serves that call and exits.
	herdrtest.Main()

	// The demo handles the interrupt itself, through ctx, rather than with
	// registry.DetachOnSignal: it must also remove its temporary directory,
	// and run's deferred Detach releases the pane either way.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// errBadUsage is returned by parseFlags after it printed what is wrong.
var errBadUsage = errors.New("demo: bad usage")

// config is what the flags say.
type config struct {
	real    bool
	pace    time.Duration
	timeout time.Duration
	verbose bool
	version string // the emulated Herdr's version
	resume  string // the session to resume; "" sets no resume command
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&c.real, "real", false, "report to the real Herdr pane this runs in instead of an emulated one")
	fs.DurationVar(&c.pace, "pace", 0, "pause between steps (default 0, or 1.5s with -real)")
	fs.DurationVar(&c.timeout, "timeout", 3*time.Second, "how long a step may take to show")
	fs.BoolVar(&c.verbose, "v", false, "print the registry's and adapters' debug logs on stderr")
	fs.StringVar(&c.version, "herdr-version", herdrtest.Version082, "the Herdr version to emulate: "+herdrtest.Version082+" or "+herdrtest.Version093)
	fs.StringVar(&c.resume, "resume", "", "play session `ID` and give Herdr the command that reopens it (demo --resume ID), which Herdr 0.9.2 and later keep")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: go run ./examples/demo [-real] [-herdr-version V] [-resume ID] [-pace D] [-timeout D] [-v]\n\n"+
			"Plays a scripted chat session through panestate and prints what a Herdr pane shows.\n\n")
		fs.PrintDefaults()
	}
	// The flag package has already printed its error and the usage.
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "demo: unexpected argument %q\n", fs.Arg(0))
		return c, errBadUsage
	}
	paceSet, versionSet := false, false
	fs.Visit(func(f *flag.Flag) {
		paceSet = paceSet || f.Name == "pace"
		versionSet = versionSet || f.Name == "herdr-version"
	})
	switch {
	case c.real && versionSet:
		fmt.Fprintln(stderr, "demo: -herdr-version sets the emulated Herdr's version; with -real the pane's own Herdr answers")
		return c, errBadUsage
	case c.version != herdrtest.Version082 && c.version != herdrtest.Version093:
		fmt.Fprintf(stderr, "demo: -herdr-version %q: the emulator runs %s or %s\n", c.version, herdrtest.Version082, herdrtest.Version093)
		return c, errBadUsage
	}
	if c.resume != "" {
		// The same check a host makes before it hands out a command line:
		// the argv must be what the demo itself would accept again.
		if _, err := resumeArgv(c.resume); err != nil {
			fmt.Fprintf(stderr, "demo: -resume: %v\n", err)
			return c, errBadUsage
		}
	}
	if c.real && !paceSet {
		c.pace = 1500 * time.Millisecond // slow enough to watch the sidebar
	}
	if c.timeout <= 0 {
		fmt.Fprintln(stderr, "demo: -timeout must be positive")
		return c, errBadUsage
	}
	return c, nil
}

// run is the whole program, minus the process: it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		return exitUsage // parseFlags said why
	}
	if cfg.real && os.Getenv("HERDR_ENV") != "1" {
		fmt.Fprintln(stderr, "demo: --real must run inside a Herdr pane (HERDR_ENV is not 1).\n"+
			"Start it from a shell in a Herdr pane, or run it without --real to use the emulated Herdr.")
		return exitUsage
	}

	root, err := os.MkdirTemp("", "panestate-demo-")
	if err != nil {
		fmt.Fprintf(stderr, "demo: %v\n", err)
		return exitFailed
	}
	defer os.RemoveAll(root)

	d := &demo{cfg: cfg, out: stdout, root: root, store: session.NewStore()}
	if err := d.setup(); err != nil {
		fmt.Fprintf(stderr, "demo: %v\n", err)
		return exitFailed
	}
	defer d.close()

	var logger hclog.Logger // nil: silent
	if cfg.verbose {
		logger = hclog.New(&hclog.LoggerOptions{Name: app, Level: hclog.Debug, Output: stderr})
	}
	d.reg, err = registry.New(registry.Options{
		App:          app,
		Logger:       logger,
		Host:         d.host,
		Env:          d.env,
		OnDiagnostic: d.diags.add,
		Settings: settings.Options{
			Home:        d.home,
			ProjectRoot: d.projectRoot,
			// A host asks its own trust store; the demo trusts its
			// temporary project.
			Trust: func(string) (bool, error) { return true, nil },
		},
	})
	if err != nil {
		fmt.Fprintf(stderr, "demo: %v\n", err)
		return exitFailed
	}
	// Whatever happens below, hand the pane back before leaving.
	defer func() {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = d.reg.Detach(dctx)
	}()

	d.printHeader()
	if err := d.play(ctx, script()); err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "demo: interrupted; releasing the pane")
			return exitInterrupted
		}
		fmt.Fprintf(stderr, "\ndemo: %v\n", err)
		for _, dg := range d.diags.all() {
			fmt.Fprintf(stderr, "  diagnostic: %s\n", dg)
		}
		var inactive *inactiveError
		if errors.As(err, &inactive) || d.cfg.verbose {
			fmt.Fprintf(stderr, "\nregistry.Explain():\n%s\n", d.reg.Explain())
		}
		return exitFailed
	}
	if !d.printSummary() {
		fmt.Fprintln(stderr, "demo: the adapter reported diagnostics; see the summary")
		return exitFailed
	}
	return exitOK
}

// demo holds one run's moving parts.
type demo struct {
	cfg   config
	out   io.Writer
	root  string // temporary directory, removed at exit
	store *session.Store
	reg   *registry.Registry
	diags diagnostics

	home        string // settings home: <home>/.demo/agent/settings.json
	projectRoot string // project: <projectRoot>/.demo/settings.json
	globalFile  string
	projectFile string
	host        session.Host
	env         []string

	emu  *herdrtest.Herdr // nil with -real
	pane paneReader

	// Set while playing.
	start   time.Time
	enabled bool              // herdr.enabled in the project file
	shown   adapter.Report    // the last report delivered: what the pane shows
	sawDone bool              // Herdr showed "done" at least once
	details map[string]string // the Herdr adapter's last Explain details
}

// defaultSession is the session id the demo plays without -resume.
const defaultSession = "demo-session-1"

// resumeArgv is the command that reopens session id: this demo, run again
// with -resume id. Herdr 0.9.2 and later keep it for after a restart.
func resumeArgv(id string) ([]string, error) {
	if id == "" || id[0] == '-' || strings.ContainsFunc(id, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	}) || len(id) > 64 {
		return nil, fmt.Errorf("session id %q: use at most 64 letters, digits, '-', '_' or '.', not starting with '-'", id)
	}
	return []string{app, "--resume", id}, nil
}

// Settings file contents. The global file belongs to the host and holds its
// own keys; panestate reads only its adapters' sections and ignores the rest.
const (
	globalSettings  = `{"theme": "dark", "model": "some-model"}`
	projectSettings = `{"herdr": {"enabled": %t}}`
)

// setup creates the settings files, the emulated Herdr (unless -real) and the
// environment the registry is given.
func (d *demo) setup() error {
	d.home = filepath.Join(d.root, "home")
	d.projectRoot = filepath.Join(d.root, "project")
	d.globalFile = filepath.Join(d.home, "."+app, "agent", "settings.json")
	d.projectFile = filepath.Join(d.projectRoot, "."+app, "settings.json")
	if err := writeFile(d.globalFile, globalSettings); err != nil {
		return err
	}
	if err := writeFile(d.projectFile, fmt.Sprintf(projectSettings, true)); err != nil {
		return err
	}
	d.enabled = true
	id := cmp.Or(d.cfg.resume, defaultSession)
	d.host = session.Host{
		Interactive: true, Root: true,
		Identity: session.Identity{ID: id, Path: filepath.Join(d.root, "sessions", id+".jsonl")},
	}
	if d.cfg.resume != "" {
		words, err := resumeArgv(d.cfg.resume)
		if err == nil {
			d.host.Identity, err = d.host.Identity.WithResume(words...)
		}
		if err != nil {
			return err
		}
	}

	if d.cfg.real {
		// The real environment: HERDR_* of this pane, and the real HOME, so
		// that the Herdr adapter keeps its per-pane sequence high-water
		// mark where it always does ($XDG_STATE_HOME/panestate/herdr). That
		// file is what keeps a later run in the same pane above this run's
		// sequence numbers; a temporary one would be forgotten.
		d.env = os.Environ()
		d.pane = realPane(d.env)
		return nil
	}

	h, err := herdrtest.Start(herdrtest.Options{Dir: filepath.Join(d.root, "herdr"), Version: d.cfg.version})
	if err != nil {
		return fmt.Errorf("start the emulated Herdr: %w", err)
	}
	d.emu = h
	d.pane = emulatedPane(h)
	// This process's environment without any real pane's HERDR_* variables
	// (the demo may run inside Herdr), then the emulated pane's, and the
	// adapter's state directory inside the temporary directory, so nothing
	// is written to the real home.
	state := filepath.Join(d.root, "state")
	d.env = append(scrubbed(os.Environ()), h.Env()...)
	d.env = append(d.env, "XDG_STATE_HOME="+state, "HOME="+d.home, "LOCALAPPDATA="+state)
	return nil
}

func (d *demo) close() {
	if d.emu != nil {
		_ = d.emu.Close()
	}
}

// writeFile replaces path's content the way editors save: a temporary file
// in the same directory, renamed over the old one.
func writeFile(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content+"\n"), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// diagnostics collects what the registry's OnDiagnostic receives. Its add
// method is called from the adapters' goroutines.
type diagnostics struct {
	mu   sync.Mutex
	list []adapter.Diagnostic
}

func (s *diagnostics) add(d adapter.Diagnostic) {
	s.mu.Lock()
	s.list = append(s.list, d)
	s.mu.Unlock()
}

func (s *diagnostics) all() []adapter.Diagnostic {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]adapter.Diagnostic(nil), s.list...)
}

// short shows a path of the temporary directory as $TMP/...
func (d *demo) short(path string) string {
	if rel, err := filepath.Rel(d.root, path); err == nil {
		return filepath.Join("$TMP", rel)
	}
	return path
}

func (d *demo) printHeader() {
	w := d.out
	if d.emu != nil {
		fmt.Fprintln(w, "panestate demo: a scripted chat session, reported live to an emulated Herdr pane")
		fmt.Fprintln(w)
		fmt.Fprintf(w, "  herdr     emulated Herdr %s (herdrtest, socket protocol %d), pane %s, not in view\n", d.emu.Version(), d.emu.Protocol(), d.emu.Pane)
	} else {
		fmt.Fprintln(w, "panestate demo: a scripted chat session, reported live to this Herdr pane")
		fmt.Fprintln(w)
		fmt.Fprintf(w, "  herdr     %s, pane %s\n", os.Getenv("HERDR_BIN_PATH"), os.Getenv("HERDR_PANE_ID"))
	}
	fmt.Fprintf(w, "  reporter  app %q: source custom:%s, agent label %q; host tui, with UI, root session %s\n", app, app, app, d.host.Identity.ID)
	if r := d.host.Identity.Resume(); r != nil {
		fmt.Fprintf(w, "  resume    %s (session.Identity.Resume)\n", argvText(r))
	}
	fmt.Fprintf(w, "  settings  global   %-40s %s\n", d.short(d.globalFile), globalSettings)
	fmt.Fprintf(w, "            project  %-40s %s (trusted)\n", d.short(d.projectFile), fmt.Sprintf(projectSettings, true))
	fmt.Fprintf(w, "            ($TMP is %s, removed at exit)\n", d.root)
	fmt.Fprintln(w)
	d.row("time", "host event", "reduced report", "herdr shows")
}

func (d *demo) printSummary() (clean bool) {
	w := d.out
	st := d.herdrStatus()
	diags := d.diags.all()
	warnings := d.reg.Explain().Warnings

	fmt.Fprintln(w)
	fmt.Fprintln(w, "summary")
	fmt.Fprintf(w, "  transport     %s\n", transportText(d.details))
	var firstReport, approval *herdrtest.Call
	var calls []herdrtest.Call
	if d.emu != nil {
		var err error
		calls, err = d.emu.Calls()
		if err != nil {
			fmt.Fprintf(w, "  herdr calls   cannot read the emulator's log: %v\n", err)
		} else {
			// The log lists calls as they finished; the server's arrival
			// order is what counts here.
			slices.SortStableFunc(calls, func(a, b herdrtest.Call) int { return cmp.Compare(a.Arrival, b.Arrival) })
			var socket, processes, pings, reports, releases, other, failed int
			for i, c := range calls {
				switch c.Transport {
				case herdrtest.TransportSocket:
					socket++
				default:
					processes++
				}
				switch c.Command {
				case "ping":
					pings++
				case "pane report-agent":
					reports++
					if firstReport == nil {
						firstReport = &calls[i]
					}
					if m, _ := c.Flag("message"); approval == nil && m == adapter.MessageWaitingForApproval.String() {
						approval = &calls[i]
					}
				case "pane release-agent":
					releases++
				default:
					other++
				}
				if c.Exit != 0 {
					failed++
				}
			}
			fmt.Fprintf(w, "  herdr calls   %d over the socket, %d CLI processes: %d ping, %d report-agent, %d release-agent",
				socket, processes, pings, reports, releases)
			if other > 0 {
				fmt.Fprintf(w, ", %d other", other)
			}
			fmt.Fprintf(w, "; %d failed\n", failed)
		}
	} else {
		fmt.Fprintln(w, "  herdr calls   (a real Herdr keeps no call log; run with -v to see each call)")
	}
	c := st.Counters
	fmt.Fprintf(w, "  reports       %d delivered, %d unchanged (not resent), %d unknown (nothing to send), %d failed\n",
		c.Delivered, c.Unchanged, c.Unknown, c.Failed)
	switch {
	case len(diags) == 0:
		fmt.Fprintln(w, "  diagnostics   0")
	default:
		fmt.Fprintf(w, "  diagnostics   %d\n", len(diags))
		for _, dg := range diags {
			fmt.Fprintf(w, "                %s\n", dg)
		}
	}
	for _, warn := range warnings {
		fmt.Fprintf(w, "  settings      warning: %s\n", warn)
	}
	if firstReport != nil {
		fmt.Fprintf(w, "  first report  %s\n", d.requestText(*firstReport))
	}
	if approval != nil {
		fmt.Fprintf(w, "  approval      %s\n", d.requestText(*approval))
		fmt.Fprintf(w, "                (the prompt's own text, %q, never leaves the process)\n", approvalTitle)
	}
	if d.host.Identity.Resume() != nil {
		d.printResume(calls)
	}
	if d.sawDone {
		fmt.Fprintln(w)
		fmt.Fprintln(w, `  * Herdr shows a finished turn as "done" until the person looks at the pane; panestate sent "idle".`)
		if d.emu != nil {
			fmt.Fprintln(w, "    The emulated pane is not in view, as when you work in another tab (herdrtest Options.InView).")
		}
	}
	if d.emu != nil {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Inside a Herdr pane, `go run ./examples/demo --real` plays the same session on that pane.")
	}
	return len(diags) == 0
}

// inactiveError says that the Herdr adapter did not start; run prints
// registry.Explain with it.
type inactiveError struct{ state, why string }

func (e *inactiveError) Error() string {
	return fmt.Sprintf("the herdr adapter is %s: %s", e.state, cmp.Or(e.why, "no reason given"))
}

// scrubbed returns env without any workspace's pane variables, as a
// registry with every driver scrubs them.
func scrubbed(env []string) []string {
	reg, err := registry.New(registry.Options{App: app, Env: env})
	if err != nil {
		panic(err) // app is a constant, valid name
	}
	return reg.ScrubEnv(env)
}
