package herdr

// serverRestarted reports whether the server at the socket path is not the
// one the last report reached: the file there is another file. Herdr's
// server binds its socket anew when it starts (the file is the server's,
// created mode 0600, CONTRACT §1.6; a file left by a server that is gone
// refuses connections, §1.5, so a new server must create its own), and on
// Windows it writes its marker file at that path (HERDR-0.9.md "Windows").
// A new server holds nothing of the claim: no label, no session identity,
// no resume argv (§3.3, checklist item 57).
//
// This is what reveals a restart that no call saw: the server restarted
// while the agent was idle, and the next report, a change or the refresh,
// succeeds on the new server. One stat per report (readServerFile); a path
// that cannot be read tells nothing (the call that follows reports what is
// wrong). A server that hands its listening socket over to its successor
// (a live update) keeps the file, and is not seen.
//
// A file is told from another by its device and inode number and by a time
// that a new file at the same path cannot share with the old one although
// its inode number may be the old one's: its birth time where the system
// reports one (Linux's statx on ext4, xfs, btrfs and, on recent kernels,
// tmpfs; macOS and FreeBSD), so that a touch of the socket is not a restart; the
// modification time elsewhere (other file systems, other systems, and
// Windows, whose marker file Herdr may rewrite in place, keeping its
// creation time), where a touch is taken for one and the claim starts over
// for nothing. Both times are as coarse as the file system's clock (a few
// milliseconds on Linux): a server that removes its socket and binds it
// again within one tick, and gets the same inode number back, is not seen
// by this look (a real server's start takes longer).
//
// Used by the call in progress only.
func (a *Adapter) serverRestarted() bool {
	cur, ok := readServerFile(a.socket)
	if !ok {
		return false
	}
	prev, seen := a.serverFile, a.serverSeen
	a.serverFile, a.serverSeen = cur, true
	return seen && !prev.same(cur)
}
