//go:build !unix

package tmux

import "errors"

func holdThenRun() int { return 3 }

func mkfifo(string) error { return errors.New("no named pipes") }

func leftBehind() bool { return false }
