package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const modulePath = "github.com/panestate/panestate"

// platforms are the systems whose rules are written out: build tags change
// the imports (x/sys/unix, x/sys/windows, go-winio).
var platforms = []string{"linux", "darwin", "windows"}

// builds are the build configurations the module is checked in. Between
// them they select every non-test file of the module (TestEveryFileIsChecked
// proves it): the three platforms, FreeBSD (its own parent-death signal),
// OpenBSD (the other Unix systems' fallback of herdr's peer check), Plan 9 for the files that are neither unix nor windows, and the race
// build (herdrtest's exit_race.go).
var builds = []build{
	{goos: "linux"},
	{goos: "darwin"},
	{goos: "windows"},
	{goos: "freebsd"},
	{goos: "openbsd"},
	{goos: "plan9"},
	{goos: "linux", tags: "race"},
}

// build is one build configuration: a GOOS and extra build tags.
type build struct{ goos, tags string }

func (b build) String() string {
	if b.tags == "" {
		return b.goos
	}
	return b.goos + "," + b.tags
}

// TestImportGraph checks the module as it is, in every build configuration.
func TestImportGraph(t *testing.T) {
	for _, b := range builds {
		t.Run(b.String(), func(t *testing.T) {
			t.Parallel()
			g := listGraph(t, b)
			if len(g.ours()) < 10 {
				t.Fatalf("go list found only %d packages of the module: %q", len(g.ours()), g.ours())
			}
			for _, msg := range check(g, rules, nevers) {
				t.Error(msg)
			}
		})
	}
}

// TestEveryFileIsChecked proves that builds leave no non-test file of the
// module out: a file that only another system, or another build tag,
// selects would otherwise import anything unchecked.
func TestEveryFileIsChecked(t *testing.T) {
	type listed struct {
		Dir                               string
		GoFiles, CgoFiles, IgnoredGoFiles []string
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	all, checked := map[string]bool{}, map[string]bool{} // module-relative file paths
	for _, b := range builds {
		for _, p := range goList[listed](t, b, "-json=Dir,GoFiles,CgoFiles,IgnoredGoFiles", "./...") {
			dir, err := filepath.Rel(root, p.Dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range slices.Concat(p.GoFiles, p.CgoFiles) {
				all[filepath.Join(dir, f)], checked[filepath.Join(dir, f)] = true, true
			}
			for _, f := range p.IgnoredGoFiles {
				if !strings.HasSuffix(f, "_test.go") {
					all[filepath.Join(dir, f)] = true
				}
			}
		}
	}
	if len(checked) < 20 {
		t.Fatalf("go list selected only %d files", len(checked))
	}
	for _, f := range slices.Sorted(maps.Keys(all)) {
		if !checked[f] && !ignored(t, filepath.Join(root, f)) {
			t.Errorf("%s is built in none of %v: its imports go unchecked; add a build that selects it to builds in internal/archtest", f, builds)
		}
	}
}

// ignored reports whether a file is excluded from every build on purpose
// (`//go:build ignore`: a generator or a tool run with go run).
func ignored(t *testing.T, path string) bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if expr, ok := strings.CutPrefix(strings.TrimSpace(line), "//go:build "); ok {
			return expr == "ignore"
		}
	}
	return false
}

// listGraph runs `go list -deps` on the whole module for b.
func listGraph(t *testing.T, b build) graph {
	t.Helper()
	pkgs := goList[pkg](t, b, "-deps", "-json=ImportPath,Standard,Imports,Module", "./...")
	return newGraph(modulePath, b.goos, pkgs)
}

// goList runs `go list` with args from the module's root, for b, and
// decodes the packages it prints.
func goList[P any](t *testing.T, b build, args ...string) []P {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatal("the go tool is not on PATH: the import graph cannot be checked")
	}
	cmd := exec.CommandContext(t.Context(), "go", append([]string{"list", "-tags=" + b.tags}, args...)...)
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "GOOS="+b.goos)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list (%s): %v\n%s", b, err, stderr.Bytes())
	}
	var pkgs []P
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p P
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// synthetic builds a graph from "pkg: import import ..." lines, where a
// module package is written relative to the module (~/registry) and an
// outside package as "path@module" (its module path after the @).
// Standard-library packages are written plainly.
func synthetic(goos string, lines ...string) graph {
	var pkgs []pkg
	known := map[string]bool{}
	addDep := func(spec string) string {
		path, mod, outside := strings.Cut(spec, "@")
		path = strings.Replace(path, "~", modulePath, 1)
		if known[path] {
			return path
		}
		known[path] = true
		p := pkg{ImportPath: path}
		switch {
		case outside:
			p.Module = &struct{ Path string }{mod}
		case strings.HasPrefix(path, modulePath):
			p.Module = &struct{ Path string }{modulePath}
		default:
			p.Standard = true
		}
		pkgs = append(pkgs, p)
		return path
	}
	for _, line := range lines {
		name, imports, _ := strings.Cut(line, ":")
		var imps []string
		for f := range strings.FieldsSeq(imports) {
			imps = append(imps, addDep(f))
		}
		path := addDep(name)
		for i := range pkgs {
			if pkgs[i].ImportPath == path {
				pkgs[i].Imports = imps
			}
		}
	}
	return newGraph(modulePath, goos, pkgs)
}

// designed is the module as the design draws it, including the packages
// other work is adding (cmdrun, calls, tmux, terminal, herdr's wire package).
var designed = []string{
	"~/session: encoding/json errors fmt strings sync sync/atomic",
	"~/adapter: context fmt os ~/session github.com/hashicorp/go-hclog@" + modHclog,
	"~/adapter/adaptertest: testing ~/adapter ~/session go.uber.org/goleak@" + modGoleak,
	"~/internal/cmdrun: context os/exec syscall ~/adapter golang.org/x/sys/unix@" + modXSys,
	"~/internal/calls: context sync ~/adapter",
	"~/reducer: ~/adapter ~/session",
	"~/settings: fmt path/filepath time",
	"~/internal/settingsengine: os path/filepath ~/settings github.com/knadh/koanf/v2@" + modKoanf +
		" github.com/knadh/koanf/providers/confmap@" + modConfmap + " github.com/fsnotify/fsnotify@" + modFsnotify +
		" github.com/hashicorp/go-hclog@" + modHclog,
	"~/registry: context os/signal ~/adapter ~/session ~/reducer ~/settings ~/internal/settingsengine ~/adapters/herdr ~/adapters/noop ~/adapters/tmux ~/adapters/terminal github.com/hashicorp/go-hclog@" + modHclog,
	"~/adapters/noop: context ~/adapter",
	"~/adapters/terminal: io ~/adapter ~/session github.com/hashicorp/go-hclog@" + modHclog,
	"~/adapters/tmux: ~/adapter ~/session ~/internal/cmdrun ~/internal/calls github.com/hashicorp/go-hclog@" + modHclog,
	"~/adapters/herdr/internal/wire: bufio encoding/json net",
	"~/adapters/herdr: os/exec ~/adapter ~/session ~/internal/cmdrun ~/internal/calls ~/adapters/herdr/internal/wire ~/internal/filelock github.com/hashicorp/go-hclog@" + modHclog,
	"~/adapters/herdr/herdrtest: testing net ~/adapters/herdr/internal/wire ~/internal/filelock golang.org/x/sys/unix@" + modXSys +
		" github.com/fsnotify/fsnotify@" + modFsnotify,
	"~/adapters/herdr/herdrtest/cmd/fakeherdr: ~/adapters/herdr/herdrtest",
	"~/adapters/herdr/herdrtest/cmd/herdremu: os/exec ~/adapters/herdr/herdrtest",
	"~/internal/filelock: os syscall",
	"~/internal/testenv: os strings",
	"~/internal/archtest:",
	"~/internal/hostflags: flag ~/registry ~/session ~/settings ~/adapter github.com/hashicorp/go-hclog@" + modHclog,
	"~/examples/chat: os ~/registry ~/session ~/internal/hostflags ~/internal/events ~/adapters/progstatus/probe github.com/hashicorp/go-hclog@" + modHclog +
		" github.com/mattn/go-isatty@" + modIsatty,
	"~/internal/doctor: os/exec net ~/registry ~/settings ~/adapter ~/internal/hostflags",
	"~/examples/doctor: os ~/internal/doctor",
	"~/examples/customadapter: ~/registry ~/session ~/settings ~/adapter",
	"~/examples/demo: ~/registry ~/session ~/settings ~/reducer ~/adapter ~/adapters/herdr/herdrtest github.com/hashicorp/go-hclog@" + modHclog,
}

// with returns designed with one more import added to pkg's line (or a new
// line when pkg is not in designed).
func with(pkg, imports string) []string {
	out := make([]string, 0, len(designed)+1)
	found := false
	for _, line := range designed {
		if name, _, _ := strings.Cut(line, ":"); name == pkg {
			line += " " + imports
			found = true
		}
		out = append(out, line)
	}
	if !found {
		out = append(out, pkg+": "+imports)
	}
	return out
}

// TestDesignedGraphPasses proves the rules accept the design's graph, so
// that every failure below is the one forbidden import it adds.
func TestDesignedGraphPasses(t *testing.T) {
	for _, goos := range platforms {
		if got := check(synthetic(goos, designed...), rules, nevers); len(got) != 0 {
			t.Errorf("GOOS=%s: the designed graph breaks the rules:\n%s", goos, strings.Join(got, "\n"))
		}
	}
}

// TestForbiddenImportFails adds one forbidden import at a time and checks
// that the checker names the rule it breaks.
func TestForbiddenImportFails(t *testing.T) {
	for _, tc := range []struct {
		name  string
		goos  string // "" means linux
		lines []string
		want  []string // every message, without the "goos: " prefix
	}{
		{
			name:  "fsnotify in adapter",
			lines: with("~/adapter", "github.com/fsnotify/fsnotify@"+modFsnotify),
			want:  []string{`adapter imports github.com/fsnotify/fsnotify (module github.com/fsnotify/fsnotify): rule "adapter" allows outside modules github.com/hashicorp/go-hclog`},
		},
		{
			name:  "koanf in adapter",
			lines: with("~/adapter", "github.com/knadh/koanf/v2@"+modKoanf),
			want:  []string{`adapter imports github.com/knadh/koanf/v2 (module github.com/knadh/koanf/v2): rule "adapter" allows outside modules github.com/hashicorp/go-hclog`},
		},
		{
			name:  "hclog in reducer",
			lines: with("~/reducer", "github.com/hashicorp/go-hclog@"+modHclog),
			want:  []string{`reducer imports github.com/hashicorp/go-hclog (module github.com/hashicorp/go-hclog): rule "reducer" allows outside modules none`},
		},
		{
			name:  "x/sys/unix in reducer",
			lines: with("~/reducer", "golang.org/x/sys/unix@"+modXSys),
			want:  []string{`reducer imports golang.org/x/sys/unix (module golang.org/x/sys): rule "reducer" allows outside modules none`},
		},
		{
			name:  "os in reducer",
			lines: with("~/reducer", "os"),
			want:  []string{`reducer imports os: rule "reducer": the reducer does no I/O`},
		},
		{
			name:  "time in reducer",
			lines: with("~/reducer", "time"),
			want:  []string{`reducer imports time: rule "reducer": the reducer does no I/O`},
		},
		{
			name:  "os/exec in session",
			lines: with("~/session", "os/exec"),
			want:  []string{`session imports os/exec: rule "session": session is plain data: no file, process or network`},
		},
		{
			name:  "session imports adapter",
			lines: with("~/session", "~/adapter"),
			want: []string{
				`session imports adapter: rule "session" allows only none`,
				`session depends on adapter (session -> adapter): breaks "session is a leaf"`,
				// adapter imports session: the two now form a cycle, and
				// session reaches itself through it, which Go would refuse.
			},
		},
		{
			name:  "adapter imports settings",
			lines: with("~/adapter", "~/settings"),
			want: []string{
				`adapter imports settings: rule "adapter" allows only session`,
				`adapter depends on settings (adapter -> settings): breaks "adapter knows nothing of settings or the registry"`,
				`adapter depends on settings (adapter -> settings): breaks "only registry ties everything together"`,
			},
		},
		{
			name:  "settings imports registry",
			lines: with("~/settings", "~/registry"),
			want: []string{
				`settings imports registry: rule "settings" allows only none`,
				`settings depends on registry (settings -> registry): breaks "settings never imports registry"`,
				`settings depends on registry (settings -> registry): breaks "only registry ties everything together"`,
			},
		},
		{
			name:  "reducer reaches settings through an internal package",
			lines: append(with("~/reducer", "~/internal/filelock"), "~/internal/filelock: ~/settings"),
			want: []string{
				`internal/filelock imports settings: rule "internal/filelock" allows only none`,
				`reducer imports internal/filelock: rule "reducer" allows only session, adapter`,
				`reducer depends on internal/filelock (reducer -> internal/filelock): breaks "the reducer does no I/O"`,
				`internal/filelock depends on settings (internal/filelock -> settings): breaks "only registry ties everything together"`,
			},
		},
		{
			name:  "tmux imports the registry",
			lines: with("~/adapters/tmux", "~/registry"),
			want: []string{
				`adapters/tmux imports registry: rule "adapters/tmux" allows only adapter, session, internal/builtin, internal/cmdrun, internal/calls, internal/owner`,
				`adapters/tmux depends on registry (adapters/tmux -> registry): breaks "adapters import adapter and session"`,
				`adapters/tmux depends on registry (adapters/tmux -> registry): breaks "only registry ties everything together"`,
			},
		},
		{
			name:  "tmux imports herdr",
			lines: with("~/adapters/tmux", "~/adapters/herdr"),
			want: []string{
				`adapters/tmux imports adapters/herdr: rule "adapters/tmux" allows only adapter, session, internal/builtin, internal/cmdrun, internal/calls, internal/owner`,
				`adapters/tmux depends on adapters/herdr (adapters/tmux -> adapters/herdr): breaks "an adapter never imports another adapter"`,
			},
		},
		{
			name:  "terminal uses fsnotify",
			lines: with("~/adapters/terminal", "github.com/fsnotify/fsnotify@"+modFsnotify),
			want:  []string{`adapters/terminal imports github.com/fsnotify/fsnotify (module github.com/fsnotify/fsnotify): rule "adapters/terminal" allows outside modules github.com/hashicorp/go-hclog`},
		},
		{
			name:  "go-winio in herdr's wire package on linux",
			lines: with("~/adapters/herdr/internal/wire", "github.com/Microsoft/go-winio@"+modWinio),
			want:  []string{`adapters/herdr/internal/wire imports github.com/Microsoft/go-winio (module github.com/Microsoft/go-winio): rule "adapters/herdr/internal/..." allows outside modules none`},
		},
		{
			name:  "go-winio in herdr's wire package on windows",
			goos:  "windows",
			lines: with("~/adapters/herdr/internal/wire", "github.com/Microsoft/go-winio@"+modWinio),
		},
		{
			name:  "x/sys in herdr's wire package on linux",
			lines: with("~/adapters/herdr/internal/wire", "golang.org/x/sys/unix@"+modXSys),
			want:  []string{`adapters/herdr/internal/wire imports golang.org/x/sys/unix (module golang.org/x/sys): rule "adapters/herdr/internal/..." allows outside modules none`},
		},
		{
			name:  "registry links the herdr test kit",
			lines: with("~/registry", "~/adapters/herdr/herdrtest"),
			want: []string{
				`internal/doctor depends on adapters/herdr/herdrtest (internal/doctor -> registry -> adapters/herdr/herdrtest): breaks "test kits stay out of shipped code"`,
				`internal/hostflags depends on adapters/herdr/herdrtest (internal/hostflags -> registry -> adapters/herdr/herdrtest): breaks "test kits stay out of shipped code"`,
				`registry depends on adapters/herdr/herdrtest (registry -> adapters/herdr/herdrtest): breaks "test kits stay out of shipped code"`,
			},
		},
		{
			name:  "chat imports the herdr adapter",
			lines: with("~/examples/chat", "~/adapters/herdr"),
			want: []string{
				`examples/chat imports adapters/herdr: rule "examples/chat" allows only registry, session, internal/hostflags, internal/events, adapters/progstatus/probe`,
				`examples/chat depends on adapters/herdr (examples/chat -> adapters/herdr): breaks "hosts import registry, session and settings, and no adapter package but herdrtest and the OSC 7501 probe"`,
			},
		},
		{
			name:  "doctor imports herdrtest",
			lines: with("~/examples/doctor", "~/adapters/herdr/herdrtest"),
			want:  []string{`examples/doctor imports adapters/herdr/herdrtest: rule "examples/doctor" allows only internal/doctor`},
		},
		{
			name:  "a host reaches an adapter through a shared helper",
			lines: with("~/internal/hostflags", "~/adapters/noop"),
			want: []string{
				`internal/hostflags imports adapters/noop: rule "internal/hostflags" allows only registry, session, settings, adapter`,
				`internal/hostflags depends on adapters/noop (internal/hostflags -> adapters/noop): breaks "only registry ties everything together"`,
			},
		},
		{
			name:  "a new package without a rule",
			lines: with("~/adapters/zellij", "~/adapter"),
			want:  []string{`adapters/zellij has no rule: add one to rules in internal/archtest, with what it may import`},
		},
		{
			name:  "a rule for a package that does not exist yet",
			lines: designed[:3],
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			goos := tc.goos
			if goos == "" {
				goos = "linux"
			}
			var got []string
			for _, msg := range check(synthetic(goos, tc.lines...), rules, nevers) {
				got = append(got, strings.TrimPrefix(msg, goos+": "))
			}
			if diff := cmp.Diff(got, tc.want); diff != "" {
				t.Errorf("check (-got +want):\n%s", diff)
			}
		})
	}
}

// TestRulesKeepTheDesign checks the rules themselves: no package may be
// allowed an import that a never rule forbids, so a rule cannot be widened
// past the design before any code uses it.
func TestRulesKeepTheDesign(t *testing.T) {
	for _, msg := range ruleBreaches(rules, nevers) {
		t.Error(msg)
	}
	widened := append(slices.Clone(rules), rule{pkg: "adapters/tmux", imports: []string{"adapter", "registry"}})
	want := []string{`rule "adapters/tmux" allows registry, which breaks "adapters import adapter and session"`,
		`rule "adapters/tmux" allows registry, which breaks "only registry ties everything together"`}
	if diff := cmp.Diff(ruleBreaches(widened, nevers), want); diff != "" {
		t.Errorf("a widened rule (-got +want):\n%s", diff)
	}
}

// ruleBreaches returns a message for every import an exact rule allows
// that a never rule forbids.
func ruleBreaches(rules []rule, nevers []never) []string {
	var out []string
	for _, r := range rules {
		if strings.HasSuffix(r.pkg, "/...") {
			continue // checked through the packages it matches
		}
		for _, imp := range r.imports {
			to := strings.TrimSuffix(imp, "/...")
			for _, n := range nevers {
				if matchAny(n.from, r.pkg) && !matchAny(n.except, r.pkg) && matchAny(n.to, to) && !matchAny(n.toExcept, to) {
					out = append(out, fmt.Sprintf("rule %q allows %s, which breaks %q", r.pkg, imp, n.name))
				}
			}
		}
	}
	return out
}

// TestTransitivePath checks, on a graph of its own, that a never rule
// follows every path of imports and shows the one it found, that a direct
// rule does not, and that a path with a step the rules forbid is reported
// only where that step is taken.
func TestTransitivePath(t *testing.T) {
	g := synthetic("linux", "~/a: ~/b", "~/b: ~/c", "~/c:")
	open := []rule{{pkg: "a", imports: []string{"b"}}, {pkg: "b", imports: []string{"c"}}, {pkg: "c"}}
	closed := []rule{{pkg: "a", imports: []string{"b"}}, {pkg: "b"}, {pkg: "c"}}
	for _, tc := range []struct {
		name  string
		rules []rule
		n     never
		want  []string
	}{
		{"transitive", open, never{name: "a never reaches c", from: []string{"a"}, to: []string{"c"}},
			[]string{`linux: a depends on c (a -> b -> c): breaks "a never reaches c"`}},
		{"direct", open, never{name: "a never imports c", from: []string{"a"}, to: []string{"c"}, direct: true}, nil},
		{"excepted", open, never{name: "nothing reaches c", from: []string{"..."}, except: []string{"a", "b"}, to: []string{"c"}}, nil},
		{"forbidden step reported where taken", closed, never{name: "nothing reaches c", from: []string{"..."}, to: []string{"c"}},
			[]string{
				`linux: b imports c: rule "b" allows only none`,
				`linux: b depends on c (b -> c): breaks "nothing reaches c"`,
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(check(g, tc.rules, []never{tc.n}), tc.want); diff != "" {
				t.Errorf("check (-got +want):\n%s", diff)
			}
		})
	}
}
