package settings_test

import (
	"fmt"
	"path/filepath"

	"github.com/panestate/panestate/settings"
)

// A host that keeps an Atomic-style trust store names it, and the registry
// reads it before every read of the project's file.
func ExampleOptions() {
	opts := settings.Options{
		ProjectRoot: "/src/myproject",
		TrustFile:   settings.DefaultTrustFile("/home/me", "atomic"),
	}
	fmt.Println(filepath.ToSlash(opts.TrustFile))
	// Output: /home/me/.atomic/agent/trust.json
}

// Explain reports each settings file with its layer and condition, which
// encode as their names.
func ExampleFileStatus() {
	f := settings.FileStatus{Layer: settings.LayerProject, Path: "/src/myproject/.atomic/settings.json",
		Condition: settings.ConditionUntrusted, TrustReason: "no trust function or trust store"}
	fmt.Println(f.Layer, f.Condition)
	// Output: project untrusted
}
