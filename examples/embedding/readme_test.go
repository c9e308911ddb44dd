package embedding_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestREADMESnippetIsCompiled checks that every line of code in the
// README's "Embedding" snippet (comments and spacing aside) is a line of
// example_test.go, whose serve function is that snippet and Example_readme
// runs it, so that the README cannot drift from what the tests build. It
// checks the lines, not their order.
func TestREADMESnippetIsCompiled(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Embedding\n")
	if !ok {
		t.Fatal(`README.md has no "## Embedding" section`)
	}
	m := regexp.MustCompile("(?s)```go\n(.*?)```").FindStringSubmatch(section)
	if m == nil {
		t.Fatal(`README.md's "Embedding" section has no Go snippet`)
	}
	compiled := map[string]bool{}
	for line := range strings.Lines(string(src)) {
		compiled[code(line)] = true
	}
	n := 0
	for line := range strings.Lines(m[1]) {
		c := code(line)
		// The tool line stands after the return; Example_scrubEnv runs it.
		if c == "" || strings.HasPrefix(c, "toolCmd.Env = reg.ScrubEnv(") {
			continue
		}
		n++
		if !compiled[c] {
			t.Errorf("README.md's snippet has %q, which example_test.go does not compile", c)
		}
	}
	if n < 15 {
		t.Errorf("README.md's snippet has only %d lines of code", n)
	}
}

// code returns a line's code without its comment or spacing ("" for a
// comment line).
func code(line string) string {
	line = strings.TrimSpace(line)
	if strings.HasPrefix(line, "//") {
		return ""
	}
	if c, _, ok := strings.Cut(line, " //"); ok {
		line = c
	}
	return strings.Join(strings.Fields(line), " ")
}

// TestDocSnippetsUseTheAPI checks that the Go snippets of the README and
// of every guide in docs/ name only what the module has: every pkg.Name of
// the packages a host, an adapter author and their tests import is
// declared there, and every other exported selector or field key
// (reg.Attach, h.Wait, ProjectRoot:) is a method or field of one of their
// types. The snippets are compiled as examples, with variations (a real
// ctx, a temporary project); this keeps the docs' own text on the current
// API.
func TestDocSnippetsUseTheAPI(t *testing.T) {
	docs, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	docs = append(docs, "../../README.md")
	dirs := map[string]string{
		"registry": "registry", "session": "session", "settings": "settings", "adapter": "adapter",
		"adaptertest": "adapter/adaptertest", "herdr": "adapters/herdr", "herdrtest": "adapters/herdr/herdrtest",
		"tmux": "adapters/tmux", "terminal": "adapters/terminal", "progstatus": "adapters/progstatus",
		"probe": "adapters/progstatus/probe", "noop": "adapters/noop", "reducer": "reducer",
	}
	top := map[string]map[string]bool{} // package name -> its top-level names
	members := map[string]bool{}        // every exported method and field
	for name, dir := range dirs {
		top[name] = map[string]bool{}
		files, err := filepath.Glob(filepath.Join("../..", dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.FuncDecl:
					if n.Recv == nil {
						top[name][n.Name.Name] = true
					} else {
						members[n.Name.Name] = true
					}
				case *ast.TypeSpec:
					top[name][n.Name.Name] = true
				case *ast.ValueSpec:
					for _, id := range n.Names {
						top[name][id.Name] = true
					}
				case *ast.Field:
					for _, id := range n.Names {
						members[id.Name] = true
					}
					if len(n.Names) == 0 { // embedded: its name is the type's
						if sel, ok := n.Type.(*ast.SelectorExpr); ok {
							members[sel.Sel.Name] = true
						}
					}
				}
				return true
			})
		}
	}
	qualified := regexp.MustCompile(`\b([a-z]\w*)\.([A-Z]\w*)`)
	key := regexp.MustCompile(`(?m)^\s*([A-Z]\w*):`)
	checked := map[string]int{} // names checked per doc
	for _, doc := range docs {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(doc, "../../")
		for _, m := range regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(text), -1) {
			var src strings.Builder
			for line := range strings.Lines(m[1]) {
				src.WriteString(code(line) + "\n")
			}
			for _, q := range qualified.FindAllStringSubmatch(src.String(), -1) {
				checked[name]++
				pkg, id := q[1], q[2]
				switch {
				case top[pkg] != nil:
					if !top[pkg][id] {
						t.Errorf("%s names %s.%s, which package %s does not declare", name, pkg, id, dirs[pkg])
					}
				case outside[pkg]:
				default: // a value: reg.Attach, h.Wait, opts.Terminal
					if !members[id] {
						t.Errorf("%s uses %s.%s, a method or field no type of the module's packages has", name, pkg, id)
					}
				}
			}
			for _, k := range key.FindAllStringSubmatch(src.String(), -1) {
				checked[name]++
				if !members[k[1]] {
					t.Errorf("%s sets %s:, a field no type of the module's packages has", name, k[1])
				}
			}
		}
	}
	// Not vacuous: the guides with the most Go show it.
	for _, doc := range []string{"docs/embedding.md", "README.md"} {
		if checked[doc] < 10 {
			t.Errorf("%s: only %d names checked", doc, checked[doc])
		}
	}
}

// outside are the names in the docs' snippets that stand for something
// outside the module: standard packages, go-hclog, and a test's t and a
// file's info.
var outside = map[string]bool{"context": true, "os": true, "signal": true, "syscall": true, "fmt": true,
	"exec": true, "filepath": true, "time": true, "errors": true, "io": true, "testing": true,
	"hclog": true, "t": true, "fi": true,
	// Bubble Tea, whose View docs/progstatus.md shows a record going into.
	"tea": true, "prog": true, "view": true,
	// docs/adapters.md's example adapter as a package of its own would be
	// named (title.Driver: examples/customadapter's TitleDriver).
	"title": true}
