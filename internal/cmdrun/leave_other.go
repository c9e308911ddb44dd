//go:build !unix

package cmdrun

import "errors"

// Leave is not done outside Unix (see leave_unix.go): there is no way
// here to start a child that the host never waits for and that is never
// left behind as a handle.
func (r *Runner) Leave(...string) error {
	return errors.New("cmdrun: a call left behind is not supported on this system")
}
