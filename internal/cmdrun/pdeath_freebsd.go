package cmdrun

import "syscall"

// lockThread is false: FreeBSD's parent-death signal (procctl
// PROC_PDEATHSIG_CTL) follows the parent process, not a thread.
const lockThread = false

// setParentDeathSignal makes the kernel send the child SIGKILL when the
// host process exits.
func setParentDeathSignal(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
