// Package owner is pane ownership for adapters with a per-pane target
// (Herdr, tmux): one set of rules, in one process and across the processes
// that share a pane, and the take-back that the adapters share.
//
// # The rules
//
//   - The newest claim owns the pane. In a process, every [Owner] made by
//     [New] is newer than every earlier one (a settings reload opens a
//     successor; a host builds a second registry). Across processes, the
//     report that starts a claim (the first after New or a Release, or a
//     take-back) takes the pane from the process that held it.
//   - A stale claim (another one owns the pane) sends nothing: [Owner.Begin]
//     refuses its call (Send is false), the adapter reports one stale_owner
//     diagnostic, and its release is not sent either, so it never clears the
//     owner's state.
//   - A stale claim takes the pane back within 200 ms of it being free (the
//     owner released it, was closed, or its process exited), whether or not
//     its own state changed meanwhile: [Owner.Want] records the report to
//     send again and starts the claim's one goroutine, which is told at once
//     by a newer claim of the process and reads the pane file every 200 ms
//     to learn it of another process, and then calls [Options.Resend]. A
//     claim whose host stopped reporting ([Owner.Forget]) never takes the
//     pane back.
//   - Calls on a pane never cross. In a process one call at a time; across
//     processes the pane file's lock, which a call holds from Begin to
//     [Call.End], across the workspace call itself. A holder that does not
//     let go within the caller's wait (a process stopped with Ctrl-Z or
//     SIGSTOP in the middle of a call) is bypassed: the call goes on
//     without the lock ([Call.Bypassed]: the adapter reports one timeout
//     diagnostic), with a sequence number above every number in the file.
//     Herdr drops whatever the stopped holder sends late, its number being
//     lower; a holder that resumes reads the file before each later number
//     and sends nothing more once another process owns the pane. tmux has no
//     numbers: its adapter leaves the pane right by a later write or clear.
//
// # The pane file
//
// One file per pane, in the user's state directory ([StateDir]), named by a
// hash of the [Key], holds one fixed-size line: the newest sequence number
// any process took for the pane and the claim that owns it (process, pid,
// generation). It is written in place at offset 0, with one write, so that
// a reader never needs the lock to see a whole line. The directory is
// created 0700 and must be this user's and closed to others; the file is
// opened without following a link and must be a regular 0600 file of this
// user with one link. Anything else is refused (the adapter reports
// persist_failed) and the claim then holds within the process only.
//
// # Cost
//
// A call costs one lock, one read and one write of the pane file, and one
// unlock at End. A claim that wants the pane reads it every 200 ms (one
// pread of one line) and otherwise sleeps on channels.
package owner
