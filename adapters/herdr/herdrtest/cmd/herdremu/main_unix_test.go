//go:build !windows

package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestKilledBySignal(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"--", "/bin/sh", "-c", "kill -TERM $$"}, strings.NewReader(""), &stdout, &stderr)
	if code != 128+15 || !strings.HasSuffix(stderr.String(), "; /bin/sh was killed by signal 15 (terminated), exit status 143\n") {
		t.Errorf("exit status %d, stderr:\n%s", code, stderr.String())
	}
}
