// Package cmdrun runs a workspace's command-line tool for an adapter: one
// short-lived child process per call, bounded in time and in output, with
// every failure classified into the [adapter.Kind] an adapter reports.
//
// It is what the Herdr CLI transport and the tmux adapter use, and what a
// third-party adapter that drives a CLI (a terminal multiplexer, a window
// manager's IPC tool) should use instead of os/exec directly.
//
// # Running a call
//
// A [Runner] names an absolute executable, the child's whole environment
// (the adapter's captured one, never the host's by accident) and a deadline
// per call. [Runner.Run] starts the program with an argv slice (never a
// shell, so no argument is ever re-parsed), waits for it, and returns what it
// wrote, at most [Runner.MaxOutput] bytes of each stream:
//
//	r := &cmdrun.Runner{Path: bin, Env: env, Timeout: 2 * time.Second}
//	out, err := r.Run(ctx, "set-option", "-p", "-t", pane, "@x", "1")
//
// Run returns nil when the child exited 0; an error wrapping ctx's error,
// and nothing else, when ctx ended first (the caller gave up: that is not
// the workspace's fault, and no diagnostic is due); or an [*Error] whose
// Kind says what went wrong:
//
//   - [adapter.KindSpawnFailed]: the program could not be started (missing,
//     not executable, a relative Path).
//   - [adapter.KindTimeout]: the call outlived the Runner's own deadline and
//     was killed.
//   - [adapter.KindProtocolRejected]: the program exited non-zero or was
//     killed by a signal it did not get from us. [Error.Stdout] and
//     [Error.Stderr] hold the captured output, so that the adapter can
//     recognise the program's own error messages; [Runner.Recognize] does
//     that in one place and puts a fixed code in [Error.Code].
//
// # Withdrawn reports
//
// When reporting stops, the registry withdraws the report in flight
// ([adapter.Withdrawn]) rather than cancelling it. Run honours that: a call
// whose report was withdrawn before its child started starts nothing and
// returns an error wrapping [adapter.ErrWithdrawn] (no [*Error], no
// diagnostic), while a child already started is waited for as if nothing
// happened, because it may already have told the workspace, and killing it
// would not take that back (a tmux client's command still runs in the
// server; a Herdr request already written is still applied). The release
// the registry sends next then comes after it.
//
// An adapter whose Close must kill an in-flight call derives the call's
// context from both the caller's and its own: for example
// context.AfterFunc(done, cancel) on a context.WithCancel of the caller's.
// Run then reports the cancellation like any other end of ctx, and the
// adapter tells the two apart by asking which one ended.
//
// Captured output is the workspace's, and may echo what the adapter sent:
// never log it raw. [Error.Detail] is the bounded, fixed-vocabulary account
// meant for a diagnostic.
//
// # What is killed, and when
//
// When the deadline passes or ctx ends, the child is killed, and on Unix
// systems so is every process it started: the child runs in a process group
// of its own (Setpgid) and the whole group gets SIGKILL. After the child has
// been waited for, whatever is left of its group is killed too, whether it
// exited zero or not, so no helper outlives the call. [Runner.WaitDelay]
// bounds the wait for a grandchild that still holds the child's output pipes
// (os/exec's Cmd.WaitDelay); a call whose child exited 0 counts as
// delivered even when a grandchild had to be cut off that way.
//
// On Linux the child also gets a parent-death signal (SIGKILL, through
// prctl PR_SET_PDEATHSIG): if the host is killed with SIGKILL while a call
// runs, the child dies with it instead of living on re-parented. Linux sends
// that signal when the thread that forked the child exits, not the process,
// so Run keeps its goroutine on one OS thread from before the fork until the
// child has been waited for. The signal is not inherited by the child's own
// children; those die with the group at the next kill, or live on if the
// host itself is gone.
//
// FreeBSD has the same signal (procctl PROC_PDEATHSIG_CTL), tied to the
// parent process rather than a thread, and it is set there too. On macOS,
// OpenBSD and NetBSD there is no parent-death signal: a child whose host was
// killed outright runs to its own end, re-parented to launchd or init.
// The process group is still killed at the deadline. On Windows there are no
// process groups to signal: at the deadline the direct child is terminated
// (TerminateProcess), a grandchild it started lives on (WaitDelay still
// closes the pipes it holds), and nothing kills the child if the host dies;
// the child's console window is hidden. Elsewhere only the direct child is
// killed.
//
// # Finding the program
//
// [LookPath] searches the PATH of a captured environment, as an adapter
// must when it opens (the host's own PATH may differ, and a later change
// must not move the program), and returns an absolute path. [CheckExecutable]
// tells whether a given path may be run by this user.
//
// # Timeout settings
//
// [ParseTimeout] reads an adapter's "timeout" setting (a Go duration string
// or a number of milliseconds) and clamps it to [MinTimeout, MaxTimeout], so
// every CLI-based adapter takes the same form.
package cmdrun
