// Package owner is pane ownership for adapters with a per-pane target
// (Herdr, tmux): one set of rules, in one process and across the processes
// that share a pane, and the take-back the adapters share. The rules, and
// why the lock is held across the call, are in docs/architecture.md
// ("One owner per pane"); in short:
//
//   - The newest claim owns the pane: every [Owner] made by [New] is newer
//     than every earlier one of the process, and across processes the
//     report that starts a claim takes the pane.
//   - A stale claim sends nothing: [Owner.Begin] refuses its call (Send is
//     false) and the adapter reports one stale_owner diagnostic.
//   - A stale claim takes the pane back within 200 ms of it being free:
//     [Owner.Want] records the report and starts the claim's one goroutine,
//     which reads the pane file every 200 ms and calls [Options.Resend].
//     After [Owner.Forget] it never does.
//   - Calls on a pane never cross: one at a time in a process, and across
//     processes the pane file's lock, held from Begin to [Call.End]. A
//     holder that does not let go within the wait (stopped) is bypassed
//     ([Call.Bypassed]) with a number above every number in the file.
//
// # The pane file
//
// One file per pane under [StateDir], named by a hash of the [Key], holds
// one fixed-size line (the newest sequence number any process took and the
// claim that owns it), written in place with one write, so that a reader
// needs no lock. The directory must be this user's 0700 one and the file
// a regular 0600 file of this user with one link, opened without following
// links; anything else is a [FileError] (persist_failed), and the claim
// then holds within the process only.
//
// # Cost
//
// A call costs one lock, one read and one write of the pane file, and one
// unlock at End; a claim that wants the pane reads one line every 200 ms.
package owner
