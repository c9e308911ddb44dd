// Command herdremu runs a program inside an emulated Herdr pane and prints
// what the pane showed.
//
//	go run github.com/panestate/panestate/adapters/herdr/herdrtest/cmd/herdremu [flags] -- ./mychat --flag
//
// It starts the emulated Herdr of package herdrtest (a server on a socket
// and a fake herdr CLI), runs the command with the pane's environment
// (HERDR_ENV, HERDR_SOCKET_PATH, HERDR_BIN_PATH, HERDR_PANE_ID and the
// rest, any outer HERDR_* and TMUX* variables removed) and its own stdin,
// stdout and stderr, and when the command exits prints to stderr a
// timeline of the requests the pane received (elapsed time, transport,
// request, "+resume" when it carried a resume command, state reported,
// status shown ("no agent" once the pane has none, as after a release),
// sequence number, message, answer), with every ping and status call that
// got no normal answer (a reporter that pings first sends nothing more
// when its ping hangs or fails, so that is where its reports went; when
// no report was sent at all, a line after the rows names that call and
// its answer) and a one-line summary (the counts, what the pane shows at the end, the
// resume command a 0.9.3 server accepted, how the command ended). Its
// exit status is the command's (128 plus the signal number for a command
// killed by a signal; 127 when it cannot be started; 2 for a usage error).
// Under go run, the go command reports any non-zero status as 1 and prints
// "exit status N" (see go help run); build or install herdremu to script
// on its status.
//
// Flags:
//
//	-version 0.8.2|0.9.3  the Herdr version to emulate (default 0.8.2)
//	-in-view              the pane is in the focused tab, so idle after working shows idle, not done
//	-fault hang|fail|slow every request (pings and status included) hangs, fails with server_unavailable, or is answered after -slow
//	-slow duration        the delay of -fault slow (default 300ms)
//	-private-home         give the command a new, empty HOME and XDG directories (Go caches kept)
//	-keep                 keep the emulator's directory and print its path
//	-release-wait duration how long to wait, after the command exits, for the pane's release (default 3s)
//
// A host may release the pane after the command exits: a hook agent's
// bridge, a detached process, releases once it sees the agent gone, also
// after a crash. While the pane still has an agent when the command exits,
// herdremu waits for that release, at most -release-wait, before it prints
// the timeline, and says so when none came.
//
// With -private-home the command reads and writes its settings and state
// under a new, empty home that is removed when it exits, never your real
// ~/.<app> files. Only the Go build and module caches stay yours, so that
// "herdremu -private-home -- go run ./mychat" does not rebuild everything
// from empty caches: GOMODCACHE, GOCACHE and GOPATH are set to the values
// "go env" gives herdremu when the go command is on PATH, or else to those
// in herdremu's environment, or else to Go's defaults under your real home
// and user cache directory. No other setting stored under your real home
// carries over (a GOPROXY set with "go env -w", say); variables in
// herdremu's environment still pass through, as without -private-home.
//
// Ctrl-C reaches the command through the terminal; herdremu itself waits
// for the command to exit and then prints the timeline. SIGTERM and SIGHUP
// sent to herdremu are passed on to the command.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/panestate/panestate/adapters/herdr/herdrtest"
)

func main() {
	herdrtest.Main() // herdremu is also the emulator's fake herdr binary
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

type config struct {
	version     string
	inView      bool
	fault       string
	slow        time.Duration
	privateHome bool
	keep        bool
	releaseWait time.Duration
	argv        []string
}

func parse(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("herdremu", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: herdremu [flags] -- command [args...]")
		fs.PrintDefaults()
	}
	fs.StringVar(&c.version, "version", herdrtest.Version082, "Herdr version to emulate: "+herdrtest.Version082+" or "+herdrtest.Version093)
	fs.BoolVar(&c.inView, "in-view", false, "the pane is in view: idle after working shows idle, not done")
	fs.StringVar(&c.fault, "fault", "", "make every request hang, fail or slow")
	fs.DurationVar(&c.slow, "slow", 300*time.Millisecond, "the delay of -fault slow")
	fs.BoolVar(&c.privateHome, "private-home", false, "give the command a new, empty HOME and XDG directories, keeping the Go caches")
	fs.BoolVar(&c.keep, "keep", false, "keep the emulator's directory")
	fs.DurationVar(&c.releaseWait, "release-wait", 3*time.Second, "how long to wait, after the command exits, for the pane's release")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	c.argv = fs.Args()
	switch {
	case len(c.argv) == 0:
		fs.Usage()
		return c, errors.New("herdremu: no command to run")
	case c.fault != "" && c.fault != "hang" && c.fault != "fail" && c.fault != "slow":
		return c, fmt.Errorf("herdremu: -fault %q: want hang, fail or slow", c.fault)
	}
	return c, nil
}

func (c config) faultValue() herdrtest.Fault {
	switch c.fault {
	case "hang":
		return herdrtest.Fault{Hang: true}
	case "fail":
		return herdrtest.Fault{FailAll: true}
	case "slow":
		return herdrtest.Fault{SleepMs: int(c.slow / time.Millisecond)}
	}
	return herdrtest.Fault{}
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c, err := parse(args, stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, err)
		}
		return 2
	}
	opts := herdrtest.Options{Version: c.version}
	if c.keep {
		dir, err := os.MkdirTemp("", "herdremu-")
		if err != nil {
			fmt.Fprintln(stderr, "herdremu:", err)
			return 1
		}
		opts.Dir = dir
		defer fmt.Fprintln(stderr, "herdremu: emulator directory kept:", dir)
	}
	h, err := herdrtest.Start(opts)
	if err != nil {
		fmt.Fprintln(stderr, "herdremu:", err)
		return 2
	}
	defer h.Close()
	if err := h.SetInView(h.Pane, c.inView); err != nil {
		fmt.Fprintln(stderr, "herdremu:", err)
		return 1
	}
	if err := h.SetFault(c.faultValue()); err != nil {
		fmt.Fprintln(stderr, "herdremu:", err)
		return 1
	}
	env := paneEnv(h)
	if c.privateHome {
		home, err := os.MkdirTemp("", "herdremu-home-")
		if err != nil {
			fmt.Fprintln(stderr, "herdremu:", err)
			return 1
		}
		defer os.RemoveAll(home)
		env = setVars(h.PaneEnv(home), goCaches())
	}

	cmd := exec.Command(c.argv[0], c.argv[1:]...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(stderr, "herdremu:", err)
		return 127
	}
	stop := forwardSignals(cmd.Process)
	err = cmd.Wait()
	stop()
	code, how := exitStatus(cmd, err)
	note := waitRelease(h, c.releaseWait, time.Now())

	calls, cerr := h.Calls()
	if cerr != nil {
		fmt.Fprintln(stderr, "herdremu:", cerr)
		return code
	}
	info, _ := h.Agent(h.Pane)
	printTimeline(stderr, calls, start)
	if note != "" {
		fmt.Fprintln(stderr, note)
	}
	resume, _ := h.ResumeArgv(h.Pane)
	fmt.Fprintln(stderr, summary(h, calls, info, resume, c.argv[0], how))
	return code
}

// waitRelease waits, at most wait from exited (when the command exited),
// for the pane to have no agent, and says what came: "" when the pane had
// none when the command exited.
func waitRelease(h *herdrtest.Herdr, wait time.Duration, exited time.Time) string {
	if info, err := h.Agent(h.Pane); err != nil || !info.Found || info.Agent == "" {
		return ""
	}
	ctx, cancel := context.WithDeadline(context.Background(), exited.Add(wait))
	defer cancel()
	if _, err := h.Wait(ctx, h.Pane, func(a herdrtest.AgentInfo) bool { return a.Agent == "" }); err != nil {
		return fmt.Sprintf("herdremu: the pane still had an agent when the command exited; no release came in the %v after (-release-wait)", wait)
	}
	released := time.Since(exited)
	// The CLI call that released has its answer logged as it exits.
	_, _ = h.WaitCalls(ctx, func(calls []herdrtest.Call) bool {
		return !slices.ContainsFunc(calls, func(c herdrtest.Call) bool { return c.Unfinished && !c.Hung })
	})
	return fmt.Sprintf("herdremu: the pane was released %s after the command exited", elapsed(released))
}

// paneEnv is this process's environment with any outer pane's variables
// replaced by the emulated pane's.
func paneEnv(h *herdrtest.Herdr) []string {
	env := make([]string, 0, len(os.Environ())+8)
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if up := strings.ToUpper(k); strings.HasPrefix(up, "HERDR_") || strings.HasPrefix(up, "TMUX") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, h.Env()...)
}

// goCacheVars are the Go variables a private home keeps: the caches that
// make a build in the command fast, none of the user's other settings.
var goCacheVars = []string{"GOMODCACHE", "GOCACHE", "GOPATH"}

// goCaches returns goCacheVars as KEY=value entries, as the go command on
// PATH resolves them for this process, or else as this process's
// environment sets them, or else Go's defaults (GOPATH ~/go, GOMODCACHE
// its first element's pkg/mod, GOCACHE the user cache directory's
// go-build). A variable with no value is left out.
func goCaches() []string {
	vals := map[string]string{}
	if gobin, err := exec.LookPath("go"); err == nil {
		cmd := exec.Command(gobin, append([]string{"env", "-json"}, goCacheVars...)...)
		// A go.mod asking for a newer Go must not make go env download one.
		cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
		out, err := cmd.Output()
		if err != nil || json.Unmarshal(out, &vals) != nil {
			vals = map[string]string{}
		}
	}
	if len(vals) == 0 {
		vals = goCacheDefaults()
	}
	var env []string
	for _, k := range goCacheVars {
		if v := vals[k]; v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// goCacheDefaults is what the go command would use for goCacheVars in this
// process's environment.
func goCacheDefaults() map[string]string {
	gopath := os.Getenv("GOPATH")
	if gopath == "" {
		if home, err := os.UserHomeDir(); err == nil {
			gopath = filepath.Join(home, "go")
		}
	}
	mod := os.Getenv("GOMODCACHE")
	if list := filepath.SplitList(gopath); mod == "" && len(list) > 0 && list[0] != "" {
		mod = filepath.Join(list[0], "pkg", "mod")
	}
	cache := os.Getenv("GOCACHE")
	if cache == "" {
		if dir, err := os.UserCacheDir(); err == nil {
			cache = filepath.Join(dir, "go-build")
		}
	}
	return map[string]string{"GOPATH": gopath, "GOMODCACHE": mod, "GOCACHE": cache}
}

// setVars returns env with the KEY=value entries of vars in place of any
// earlier ones of the same keys.
func setVars(env, vars []string) []string {
	keys := map[string]bool{}
	for _, kv := range vars {
		k, _, _ := strings.Cut(kv, "=")
		keys[strings.ToUpper(k)] = true
	}
	env = slices.DeleteFunc(env, func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return keys[strings.ToUpper(k)]
	})
	return append(env, vars...)
}

// forwardSignals passes the signals herdremu is sent on to p until stop is
// called; an interrupt from the terminal reaches p directly, so herdremu
// only keeps itself alive for it.
func forwardSignals(p *os.Process) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, forwarded...)
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for {
			select {
			case s := <-ch:
				if s != os.Interrupt {
					_ = p.Signal(s)
				}
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
		<-finished
	}
}

// agentCommands are the requests that change what a pane shows.
var agentCommands = map[string]bool{
	"pane report-agent": true, "pane release-agent": true, "pane report-agent-session": true,
}

// inTimeline reports whether c is a timeline row: an agent request, or a
// ping or status call that got no normal answer.
func inTimeline(c herdrtest.Call) bool {
	if agentCommands[c.Command] {
		return true
	}
	if c.Command != "ping" && !strings.HasPrefix(c.Command, "status") {
		return false
	}
	a := answer(c)
	return a != "applied" && a != "ignored" && a != "exit 0"
}

func printTimeline(w io.Writer, calls []herdrtest.Call, start time.Time) {
	if !slices.ContainsFunc(calls, inTimeline) {
		fmt.Fprintln(w, "herdremu: no report reached the pane")
		return
	}
	if !slices.ContainsFunc(calls, func(c herdrtest.Call) bool { return agentCommands[c.Command] }) {
		fmt.Fprintln(w, "herdremu: no report reached the pane; the calls before them:")
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ELAPSED\tTRANSPORT\tREQUEST\tSTATE\tSHOWS\tSEQ\tMESSAGE\tANSWER")
	for _, c := range calls {
		if !inTimeline(c) {
			continue
		}
		state, _ := c.Flag("state")
		seq, _ := c.Flag("seq")
		msg, _ := c.Flag("message")
		request := strings.TrimPrefix(c.Command, "pane ")
		if len(c.ResumeArgv()) > 0 {
			request += "+resume" // it carried a resume command (0.9.2+)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", elapsed(c.Start.Sub(start)), c.Transport,
			request, dash(state), shows(c), dash(seq), quote(msg), answer(c))
	}
	_ = tw.Flush()
	if note := waitedNote(calls, start); note != "" {
		fmt.Fprintln(w, note)
	}
}

// reportCommands are the requests that carry a state.
var reportCommands = map[string]bool{"pane report-agent": true, "pane report-agent-session": true}

// waitedNote says where a turn's reports went when none was sent: a
// reporter sends nothing until its ping (or the CLI's status call) is
// answered, so the first such call that got no normal answer is where they
// stopped. It is "" when a report was sent, or no ping failed.
func waitedNote(calls []herdrtest.Call, start time.Time) string {
	if slices.ContainsFunc(calls, func(c herdrtest.Call) bool { return reportCommands[c.Command] }) {
		return ""
	}
	i := slices.IndexFunc(calls, func(c herdrtest.Call) bool { return inTimeline(c) && !agentCommands[c.Command] })
	if i < 0 {
		return ""
	}
	c := calls[i]
	return fmt.Sprintf("herdremu: no report was sent: a reporter sends none until its %s is answered, and the %s at %s was not (%s)",
		c.Command, c.Command, elapsed(c.Start.Sub(start)), answer(c))
}

// shows is what the call's pane showed right after the server handled
// it: its status, "no agent" when it had no agent label (after a release,
// or before any report took), as the summary says, or "-" when the call
// never reached the pane.
func shows(c herdrtest.Call) string {
	switch {
	case c.Arrival == 0 || c.Status == "":
		return "-"
	case c.Agent == "":
		return "no agent"
	}
	return string(c.Status)
}

func elapsed(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	return fmt.Sprintf("%.3fs", d.Seconds())
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func quote(s string) string {
	if s == "" {
		return "-"
	}
	return fmt.Sprintf("%q", s)
}

// answer is what became of a request: applied, ignored (ok, but without
// effect: a stale seq, say), the error code, or how the call ended without
// one.
func answer(c herdrtest.Call) string {
	switch {
	case c.Hung:
		return "hung"
	case c.Code != "":
		return c.Code
	case c.Arrival == 0 && c.Transport == herdrtest.TransportCLI:
		if c.Unfinished {
			return "killed"
		}
		return fmt.Sprintf("exit %d", c.Exit)
	case c.Exit == -1:
		return "no answer"
	case c.Applied:
		return "applied"
	}
	return "ignored"
}

// summary is the last line: the requests, what the pane shows, the resume
// command Herdr 0.9.2+ keeps for it, and how the command ended.
func summary(h *herdrtest.Herdr, calls []herdrtest.Call, info herdrtest.AgentInfo, resume []string, name, how string) string {
	var n, cli, socket, applied, failed int
	for _, c := range calls {
		if !agentCommands[c.Command] {
			continue
		}
		n++
		if c.Transport == herdrtest.TransportCLI {
			cli++
		} else {
			socket++
		}
		switch a := answer(c); a {
		case "applied":
			applied++
		case "ignored":
		default:
			failed++
		}
	}
	shows := "no agent"
	if info.Found {
		shows = fmt.Sprintf("%s (%s)", info.AgentStatus, info.Agent)
	}
	if resume != nil {
		shows += fmt.Sprintf("; the server keeps the resume command %q", resume)
	}
	return fmt.Sprintf("herdremu: Herdr %s, pane %s: %d requests (%d cli, %d socket), %d applied, %d ignored, %d failed; the pane shows %s; %s %s",
		h.Version(), h.Pane, n, cli, socket, applied, n-applied-failed, failed, shows, name, how)
}
