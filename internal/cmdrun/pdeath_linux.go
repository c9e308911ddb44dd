package cmdrun

import "syscall"

// lockThread: the parent-death signal is tied to the forking thread.
const lockThread = true

// setParentDeathSignal makes the kernel send the child SIGKILL when the
// thread that forked it exits, which Run keeps from happening before the
// child is waited for, so in effect when the host dies.
func setParentDeathSignal(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
