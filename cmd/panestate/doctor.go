package main

import (
	"context"
	"io"
	"os"
	"strings"

	"github.com/panestate/panestate/internal/doctor"
)

// runDoctor is `panestate doctor`: the doctor of examples/doctor, asking
// about app panestate (~/.panestate/agent/settings.json, Herdr source
// custom:panestate) unless --app names another.
func runDoctor(args []string, stdout, stderr io.Writer, env []string) int {
	if !hasFlag(args, "app") {
		args = append([]string{"--app", appName}, args...)
	}
	terminal := false
	if f, ok := stdout.(*os.File); ok {
		terminal = doctor.IsTerminal(f)
	}
	return doctor.Run(context.Background(), args, stdout, stderr, env, terminal)
}

// hasFlag reports whether args set flag name (-name, --name, with or
// without =value), before any "--".
func hasFlag(args []string, name string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		a = strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if a == name || strings.HasPrefix(a, name+"=") {
			return true
		}
	}
	return false
}
