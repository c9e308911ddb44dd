package settingsengine_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/panestate/panestate/internal/settingsengine"
)

func Example() {
	home, _ := os.MkdirTemp("", "settings-example")
	defer os.RemoveAll(home)
	global := filepath.Join(home, ".atomic", "agent", "settings.json")
	_ = os.MkdirAll(filepath.Dir(global), 0o755)
	_ = os.WriteFile(global, []byte(`{
  "theme": "dark",
  "herdr": {"enabled": false, "timeout": "2s"}
}`), 0o644)

	s, err := settingsengine.Load(settingsengine.Options{
		App:      "atomic",
		Home:     home,
		Sections: []settingsengine.Section{{Name: "herdr", Keys: []string{"source", "agent", "timeout"}}, {Name: "noop"}},
	})
	if err != nil {
		fmt.Println(err)
	}
	on, from := s.Enabled("herdr", true)
	fmt.Println("herdr enabled:", on, "by", from)
	on, from = s.Enabled("noop", false)
	fmt.Println("noop enabled:", on, "by", from)
	fmt.Println("herdr section:", string(s.Section("herdr")))
	// Output:
	// herdr enabled: false by global
	// noop enabled: false by default
	// herdr section: {"timeout":"2s"}
}

// A host's trust function that panics or hangs never reaches the host: the
// project counts as untrusted, and Files says why.
func ExampleOptions_trust() {
	root, _ := os.MkdirTemp("", "settings-example")
	defer os.RemoveAll(root)
	project := filepath.Join(root, "proj")
	_ = os.MkdirAll(filepath.Join(project, ".atomic"), 0o755)
	_ = os.WriteFile(filepath.Join(project, ".atomic", "settings.json"), []byte(`{"herdr": {"enabled": false}}`), 0o644)

	s, _ := settingsengine.Load(settingsengine.Options{
		App:         "atomic",
		Home:        root,
		ProjectRoot: project,
		Trust:       func(string) (bool, error) { panic("trust database closed") },
		Sections:    []settingsengine.Section{{Name: "herdr"}},
	})
	for _, f := range s.Files() {
		fmt.Printf("%s: %s\n", f.Layer, f.Condition)
		if f.TrustReason != "" {
			fmt.Println(" ", f.TrustReason)
			fmt.Println(" ", f.Err)
		}
	}
	on, from := s.Enabled("herdr", true)
	fmt.Println("herdr enabled:", on, "by", from)
	// Output:
	// global: missing
	// project: untrusted
	//   the host's trust function panicked, so the project is untrusted
	//   settings: trust function panicked: trust database closed
	// herdr enabled: true by default
}
