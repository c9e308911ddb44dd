//go:build !unix

package cmdrun_test

import "errors"

func mkfifo(string) error { return errors.New("no mkfifo") }
