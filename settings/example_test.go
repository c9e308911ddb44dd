package settings_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/panestate/panestate/settings"
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

	s, err := settings.Load(settings.Options{
		App:      "atomic",
		Home:     home,
		Sections: []settings.Section{{Name: "herdr", Keys: []string{"source", "agent", "timeout"}}, {Name: "noop"}},
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
