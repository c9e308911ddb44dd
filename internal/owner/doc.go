// Package owner is pane ownership for adapters with a per-pane target
// (Herdr, tmux): one set of rules, in one process and across the processes
// that share a pane, and the take-back that the adapters share. The rules,
// and why they are these, are in docs/architecture.md ("One owner per
// pane"); in short:
//
//   - The newest claim owns the pane: in a process every [Owner] made by
//     [New]; across processes the report that starts a claim.
//   - A stale claim (another one owns the pane) sends nothing: [Owner.Begin]
//     refuses its call ([Call.Send] is false), release included.
//   - A stale claim takes the pane back within 200 ms of it being free:
//     [Owner.Want] records the report, and the claim's one goroutine calls
//     [Options.Resend]; after [Owner.Forget] it never does.
//   - Calls on a pane never cross: one at a time in the process, and the
//     pane file's lock, held from Begin to [Call.End], across processes. A
//     holder that does not let go within the caller's wait is bypassed
//     ([Call.Bypassed]), numbered above it.
//
// # The pane file
//
// One file per pane under [StateDir], named by [FileName], holds one
// fixed-size line written in place at offset 0 (so it is read without the
// lock): the newest sequence number and the claim that owns it. A directory
// or file that is not this user's and closed to others is refused
// ([FileError]), and the claim then holds within the process only.
package owner
