//go:build unix

package cmdrun

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"syscall"
)

// Leave starts the program with args and does not wait for it: it runs in
// a session of its own, with no parent-death signal, no deadline and no
// output kept, and outlives the host. It is for a call whose effect must
// land once a stopped server runs again (a tmux release, see
// adapters/tmux), after every call made before it. The child is started
// through /bin/sh, which starts it in the background and exits at once,
// so that it is never left a zombie of the host. Leave returns once that
// shell has exited.
func (r *Runner) Leave(args ...string) error {
	name := filepath.Base(r.Path)
	if !filepath.IsAbs(r.Path) {
		return fmt.Errorf("cmdrun: %s: %w", name, errRelative)
	}
	// "$0" "$@" is the program and its arguments, never parsed by the shell.
	cmd := exec.Command("/bin/sh", append([]string{"-c", `"$0" "$@" </dev/null >/dev/null 2>&1 &`, r.Path}, args...)...)
	cmd.Env = r.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.Dir = r.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("cmdrun: %s: left behind: %w", name, err)
	}
	return nil
}
