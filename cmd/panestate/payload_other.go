//go:build !linux && !darwin

package main

import (
	"io"
	"time"
)

// boundRead returns r as it is: here the hook delivers nothing, and its
// read of stdin is not bounded.
func boundRead(r io.Reader, _ time.Time) io.Reader { return r }
