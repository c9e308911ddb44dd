package herdr

import "os"

// serverRestarted reports whether the server at the socket path is not the
// one the last report reached: the file there is another file, or was
// written since. Herdr's server binds its socket anew when it starts (the
// file is the server's, created mode 0600, CONTRACT §1.6; a file left by a
// server that is gone refuses connections, §1.5, so a new server must
// create its own), and on Windows it writes its marker file at that path
// (HERDR-0.9.md "Windows"). A new server holds nothing of the claim: no
// label, no session identity, no resume argv (§3.3, checklist item 57).
//
// This is what reveals a restart that no call saw: the server restarted
// while the agent was idle, and the next report, a change or the refresh,
// succeeds on the new server. One stat per report; a path that cannot be
// read tells nothing (the call that follows reports what is wrong). A
// server that hands its listening socket over to its successor (a live
// update) keeps the file, and is not seen.
//
// Used by the call in progress only.
func (a *Adapter) serverRestarted() bool {
	fi, err := os.Stat(a.socket)
	if err != nil {
		return false
	}
	prev := a.serverFile
	a.serverFile = fi
	return prev != nil && !(os.SameFile(prev, fi) && prev.ModTime().Equal(fi.ModTime()))
}
