// Package proc tells whether a process runs, on every system the module
// builds for: the Herdr adapter asks it about the process that wrote a pane
// claim, and cmdrun's tests about the children they expect killed.
package proc
