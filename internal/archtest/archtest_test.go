package archtest

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/panestate/panestate"

// allowed lists, for each package, the module packages and the outside
// modules it may depend on (directly or not). Standard-library packages are
// always allowed, except where banned says otherwise.
var rules = []struct {
	pkg     string
	allowed []string // module-relative package prefixes, or full paths of outside modules
	banned  []string // standard-library packages it must not import directly
}{
	{pkg: "session", allowed: nil, banned: []string{"os/exec", "net"}},
	{pkg: "adapter", allowed: []string{"session", "github.com/hashicorp/go-hclog"}},
	{pkg: "reducer", allowed: []string{"session", "adapter", "github.com/hashicorp/go-hclog"},
		banned: []string{"os", "os/exec", "net", "time"}},
	{pkg: "settings", allowed: []string{"internal/", "github.com/knadh/koanf", "github.com/fsnotify/fsnotify",
		"github.com/hashicorp/go-hclog"}},
	{pkg: "adapters/noop", allowed: []string{"adapter", "session", "github.com/hashicorp/go-hclog"}},
	{pkg: "adapters/herdr", allowed: []string{"adapter", "adapter/cmdrun", "session", "internal/", "github.com/hashicorp/go-hclog"}},
}

type pkgInfo struct {
	ImportPath string
	Standard   bool
	Deps       []string
	Imports    []string
}

func list(t *testing.T, pattern string) []pkgInfo {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps=false", "-json", pattern).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", pattern, err)
	}
	var pkgs []pkgInfo
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p pkgInfo
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func standard(t *testing.T) map[string]bool {
	t.Helper()
	out, err := exec.Command("go", "list", "std").Output()
	if err != nil {
		t.Fatal(err)
	}
	std := make(map[string]bool)
	for p := range strings.FieldsSeq(string(out)) {
		std[p] = true
	}
	return std
}

func TestImportGraph(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go tool not on PATH")
	}
	std := standard(t)
	for _, rule := range rules {
		t.Run(rule.pkg, func(t *testing.T) {
			pkgs := list(t, module+"/"+rule.pkg)
			if len(pkgs) != 1 {
				t.Fatalf("go list gave %d packages", len(pkgs))
			}
			for _, imp := range pkgs[0].Imports {
				for _, b := range rule.banned {
					if imp == b {
						t.Errorf("%s imports %s", rule.pkg, imp)
					}
				}
			}
			for _, dep := range pkgs[0].Deps {
				if std[dep] {
					continue
				}
				if strings.HasPrefix(dep, "vendor/") || strings.HasPrefix(dep, "golang.org/x/") && !strings.HasPrefix(dep, module) {
					continue // the standard library's vendored packages, and x/sys under outside modules
				}
				if !allowedDep(rule.pkg, rule.allowed, dep) {
					t.Errorf("%s depends on %s, outside the design's graph", rule.pkg, dep)
				}
			}
		})
	}
}

func allowedDep(pkg string, allowed []string, dep string) bool {
	if rel, ok := strings.CutPrefix(dep, module+"/"); ok {
		if rel == pkg || strings.HasPrefix(rel, pkg+"/") {
			return true
		}
		for _, a := range allowed {
			if rel == a || strings.HasSuffix(a, "/") && strings.HasPrefix(rel, a) {
				return true
			}
		}
		return false
	}
	// Outside modules pull in their own dependencies (hclog: fatih/color,
	// go-isatty; koanf: mapstructure, copystructure...). Allow any package
	// whose module is not ours once one outside module is allowed.
	for _, a := range allowed {
		if strings.Contains(a, ".") {
			return true
		}
	}
	return false
}
