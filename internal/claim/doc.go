// Package claim is pane ownership for adapters with a per-pane target
// (Herdr, tmux, a third-party adapter that writes to one pane): one set of
// rules, in one process and across the processes that share a pane.
//
// # The rules
//
//   - The newest claim owns the pane. Within a process every [Claim] made by
//     [New] is newer than every earlier one (a settings reload opens a
//     successor, a host builds a second registry). Across processes a
//     report that starts a claim (the first after New or after a Release)
//     takes the pane, fencing the process that held it.
//   - An older claim sends nothing while a newer one holds the pane: Begin
//     refuses its call (Send is false), the adapter reports one
//     stale_owner diagnostic, and it never clears the newer claim's state
//     (a refused release sends nothing either).
//   - It takes the pane back when the newer claim has released it, was
//     closed, or its process exited: at its next call, and by itself
//     through [Options.OnFree], which the adapter uses to send its last
//     report again (a [BeginOptions.Yield] call: it never waits for
//     another process's call, and is tried again at the watch's next look). A claim learns that it was superseded whether or not
//     it makes a call meanwhile (an agent whose state does not change makes
//     none): a newer claim of this process tells it at once, and it reads
//     the pane file every 200 ms to learn it from another process,
//     including a process that took the pane and let it go between two
//     reads (the file no longer names the claim).
//   - One call on a pane at a time, across processes, in the order of the
//     sequence numbers Begin takes (see [Call.Seq]). A call of another
//     process is waited for up to its own deadline or the caller's wait,
//     whichever comes first: a process stopped in the middle of a call
//     (Ctrl-Z, SIGSTOP) holds the pane no longer than that, and the caller
//     takes the pane from it with a higher number. A release that finds a
//     call of another process that took the pane (or is releasing it)
//     waits for that call only, and is then refused: it does not wait in
//     line with the calls started after it.
//
// # Using it
//
// An adapter makes one Claim at Open, names it by its pane ([Key]), and
// brackets every call to its workspace with Begin and End:
//
//	call, err := a.claim.Begin(ctx, a.gate.Closing(), claim.BeginOptions{
//		Op: claim.Report, Wait: time.Now().Add(timeout), Budget: timeout})
//	if err != nil {
//		return err // ctx's error, adapter.ErrClosed, or ErrBusy
//	}
//	delivered := false
//	defer func() { call.End(delivered) }()
//	if !call.Send {
//		a.diags.Emit(adapter.KindStaleOwner, "report not sent: pane held by %s", call.By)
//		return nil
//	}
//	err = a.run(ctx, call.Deadline(), ...)
//	delivered = err == nil
//
// Close (from the adapter's Close) gives the pane up within the process
// and ends the OnFree watch. The adapter's [adapter.PaneOwner] returns
// !Stale(), so that the registry shows a fenced adapter as stale_owner.
//
// # The pane file
//
// Ownership across processes lives in one file per pane, in the user's
// state directory ([StateDir]: $XDG_STATE_HOME/panestate/<kind>, or
// ~/.local/state/panestate/<kind>, or %LOCALAPPDATA%\panestate\<kind>),
// named by a hash of the Key. It holds one fixed-size line: the newest
// sequence number, the claim that holds the pane (process, pid, generation)
// and the call in flight with its deadline. It is locked (flock, LockFileEx)
// only for the moment of reading and writing that line, once per call (a
// release, once per claim, takes it a second time to clear the line), never
// across the call itself, so a stopped process cannot keep others out by
// holding it for the length of a call.
//
// A process stopped in that moment does not keep others out either. The
// lock is tried without blocking; a call whose wait has passed (half its
// budget, for a call whose wait and call share one: a release) after
// finding the lock held at every try for 100 ms takes the file over. It
// creates a fresh file beside it (O_EXCL, O_NOFOLLOW, 0600, checked as the
// pane file is) and locks it; links it under a name made of the old file's
// inode, which fails for a second process (that one waits a moment more
// for the new file's lock); marks the old file (a tombstone, one byte past
// the record); copies the old record into the fresh file; renames the
// fresh file over the pane file; and reads the old record once more, so
// that its number is above every number the stopped process took (above
// the copy's too: a second read torn by the stopped process's write,
// resumed in that instant, loses nothing).
//
// Every process looks for the mark (one pread) after it writes its number
// and before it lets the lock go, and sends nothing of the call when it
// finds it (Send is false, or ErrOvertaken for a later number): a number
// that goes out was written before the mark, so it is in the copy, and a
// taker killed at any step loses none. The stopped process, once resumed,
// finds the mark and sends nothing; if it stopped after that look, its
// number is in the copied record, below the taker's, and the workspace
// ignores the late call. The other processes that have the old file open
// find the mark in the read they make anyway after taking its lock (and
// the OnFree watch in its look) and, the file being replaced (fstat, and lstat of
// the path: a file replaced may keep a dead taker's take-over name), open
// the path again; one that finds the old file's lock held (the stopped
// process keeps it) looks at the file (the same two) and, finding it replaced,
// opens the path again at once rather than waiting for that lock. A
// process that cannot open, lock or read the file put in place (its
// directory was opened to others since, a link planted there, no
// descriptor left) does not make its call without it, as it would with a
// file refused from the start: the others number their calls in that file,
// and a number from the clock and this process's marks alone could go out
// at or below the taker's (the workspace ignores it) or above it without
// being in the file (the workspace ignores the taker's next call). Begin
// fails with a [ReopenError] (ErrBusy), and the next call tries the path
// again.
//
// A taker stopped or killed midway keeps no one out for long and costs at
// most one call. Before its mark: its names (the fresh file and its link),
// once a second old (a running taker holds them for microseconds), are
// removed by the next process that takes the file over, whose late rename
// then finds nothing to rename. Between its mark and its rename: the old
// file is still the pane file; a process that finds the mark there waits
// for the taker as for a lock held, and once the taker's names are a
// second old removes them and the mark and makes its call on that file; a
// process that wrote its number after the mark (the stopped one, resumed)
// sends nothing of that one call and reports one stale_owner, and the pane
// shows its state again at its next call. After its rename: nothing is
// lost (the copy is in place); its link stays, naming the pane file, until
// the next take-over. What is left: a copy torn by a write of the stopped
// process in the same instant (a write the mark refuses), with the taker
// killed before its second read, leaves a corrupt record, rewritten from
// the clock and the process's own marks as any corrupt file: a mark ahead
// of the clock is lost then, and a call numbered at or below a number sent
// before is ignored by the workspace, which shows the state before it
// until the next call numbered above. Names dated more than a second ahead
// of the clock count as a second old: the clock was set back since they
// were made, and would otherwise keep the pane for as long as it was.
//
// Outside Unix a file is not taken over. On Windows every process opens the
// pane file without FILE_SHARE_DELETE (os.OpenFile's sharing, and that of
// the versions already running), so a rename over it fails while the
// stopped process has it open; and its LockFileEx lock keeps the record
// from being read by any other handle. There a call waits for the lock no
// longer than its wait (a release: its budget) and fails with a
// [StuckError] (ErrBusy), and so does every call until the stopped process
// resumes; a look of the OnFree watch whose read fails tells nothing.
//
// A later number of a call in flight ([Call.Seq]) is taken under the lock
// too, which it waits for until the call's deadline; past that it is
// refused with a StuckError, on every system, and the call sends nothing
// more. It is never taken from the process's memory alone: a number that
// is not in the pane file could be taken again by the process that takes
// the file over next, and reach the workspace after that one's. End, when
// it clears the call's mark (a release's, or that of a call without the
// call lock), waits for the lock until the call's deadline too (100 ms
// once that has passed), and otherwise leaves the record as it is: the
// others take the mark for a call that did not end by its deadline.
//
// Beside the pane file, a second file of the same name ending in .call
// carries the call lock: Begin takes it (without waiting) as it writes the
// call's mark, and End lets it go and writes nothing. Another process that finds the
// mark tries the call lock: a free one means the call ended (or its process
// exited), a held one that the call is in flight. A process that takes the
// pane from a call that does not end by its deadline (a stopped process,
// which keeps its call lock) makes its call without the call lock, and
// clears its mark under the pane file's lock at End, as every call does
// when the call lock's file cannot be used; calls go on that way until the
// stopped process lets the lock go.
//
// The directory is created 0700 and must be a directory of this user that
// gives group and others nothing; each file is opened without following a
// symbolic link (O_NOFOLLOW on Unix; on Windows, where there is no such
// flag, checked with Lstat before and after the open) and must be a
// regular 0600 file of this user with one link (two while a take-over
// renames it into place). Anything else is refused with an error
// naming the pane file (the adapter reports persist_failed), and the claim
// then holds within the process only; a file that replaced, by a take-over,
// one this process used is not gone without (see above: Begin fails). A sequence mark more than a year
// beyond the clock is corrupt (or planted) and ignored, so that no file can
// push a pane's numbers to 2^64-1.
//
// # Goroutines and cost
//
// The OnFree watch is the package's one goroutine: one per Claim with an
// OnFree, from its first Report (sent or refused) until a Release (sent or
// refused) or [Claim.Close], which waits for it; a claim without OnFree
// starts none. While it runs it reads the pane file (one pread of one
// fixed-size line, without the lock: a hint that Begin checks under the
// lock; skipped while a call of the process is in flight on the pane,
// whose write the file may not show yet) every 200 ms, and otherwise
// sleeps on channels; a claim without a pane file only sleeps. So a host
// holding one pane costs 5 small reads a second, and nothing more while
// the pane does not change. The pane file and the call lock's file are opened
// by the first call of a pane in the process and stay open, for every
// claim of that pane, until the last of them is closed.
package claim
