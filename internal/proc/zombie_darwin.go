package proc

import "golang.org/x/sys/unix"

// sZomb is a process's state once it has exited and before its parent
// reaps it (SZOMB in <sys/proc.h>).
const sZomb = 5

// zombie reports whether process pid has exited and waits to be reaped,
// as the kern.proc.pid sysctl says (one system call); false when that
// cannot be read.
//
// Untested by the Linux tests (GOOS=darwin go vet only).
func zombie(pid int) bool {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	return err == nil && kp.Proc.P_stat == sZomb
}
