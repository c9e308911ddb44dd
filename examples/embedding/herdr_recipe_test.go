package embedding_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/registry"
	"github.com/panestate/panestate/session"
)

// TestPaneShowsWorking is the host-test recipe of docs/embedding.md
// (section 7, "Against an emulated Herdr"), as a host copies it: this
// package's TestMain calls herdrtest.Main first, as the recipe says.
// TestRecipeIsCompiled keeps the two the same.
func TestPaneShowsWorking(t *testing.T) {
	herdrtest.ClearEnv(t) // the developer's own Herdr pane or tmux session is never touched
	h := herdrtest.StartT(t, herdrtest.Options{})
	reg, err := registry.New(registry.Options{
		App:  "mychat",
		Host: session.Host{Interactive: true, Root: true},
		// The pane's HERDR_* variables, and a private HOME and XDG directories,
		// so that the developer's own ~/.mychat/agent/settings.json is never read.
		Env:            h.PaneEnv(t.TempDir()),
		StaticSettings: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	store := session.NewStore()
	if err := reg.Attach(t.Context(), store); err != nil {
		t.Fatal(err)
	}
	defer reg.Detach(t.Context())

	store.AgentStart()
	// What the pane shows, without polling; a wait that fails ends after herdrtest.WaitTimeout.
	if info, err := h.Wait(t.Context(), h.Pane, func(a herdrtest.AgentInfo) bool {
		return a.Agent == "mychat" && a.AgentStatus == herdrtest.StatusWorking
	}); err != nil {
		t.Fatalf("the pane shows %+v: %v", info, err)
	}
}

// maxRecipe is the most lines the host-test recipe may take (issue 17).
const maxRecipe = 30

// TestRecipeIsCompiled checks that every line of code of the host-test
// recipe in docs/embedding.md (the Go snippet that starts an emulated
// Herdr) is a line of this file, which compiles and runs it as
// TestPaneShowsWorking, and that the recipe fits in maxRecipe lines.
func TestRecipeIsCompiled(t *testing.T) {
	doc, err := os.ReadFile("../../docs/embedding.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("herdr_recipe_test.go")
	if err != nil {
		t.Fatal(err)
	}
	var recipe string
	for _, m := range regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(doc), -1) {
		if strings.Contains(m[1], "herdrtest.StartT(") {
			recipe = m[1]
		}
	}
	if recipe == "" {
		t.Fatal("docs/embedding.md has no Go snippet that starts an emulated Herdr")
	}
	compiled := map[string]bool{}
	for line := range strings.Lines(string(src)) {
		compiled[code(line)] = true
	}
	lines, n := 0, 0
	for line := range strings.Lines(recipe) {
		lines++
		if c := code(line); c != "" {
			n++
			if !compiled[c] {
				t.Errorf("the recipe has %q, which herdr_recipe_test.go does not compile", c)
			}
		}
	}
	if lines > maxRecipe || n < 20 {
		t.Errorf("the recipe has %d lines (at most %d), %d of code (at least 20)", lines, maxRecipe, n)
	}
}
