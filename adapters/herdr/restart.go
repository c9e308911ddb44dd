package herdr

// serverRestarted reports whether the file at the socket path is not the
// one the last report found: a new server binds its socket anew (CONTRACT
// §1.5, §1.6; on Windows it writes its marker file there) and holds
// nothing of the claim (§3.3). This reveals a restart no call saw, at one
// stat per report; a path that cannot be read tells nothing. A file is
// told from another by device, inode and birth time (modification time
// where none is recorded, so that a touch counts as a restart there); see
// docs/herdr.md. Used by the call in progress only.
func (a *Adapter) serverRestarted() bool {
	cur, ok := readServerFile(a.socket)
	if !ok {
		return false
	}
	prev, seen := a.serverFile, a.serverSeen
	a.serverFile, a.serverSeen = cur, true
	return seen && !prev.same(cur)
}
