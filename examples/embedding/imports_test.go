package embedding_test

import (
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSnippetsImportOnlyHostPackages checks that the examples import, of
// this module, exactly what a chat service imports: registry, session and
// settings (the test harness in main_test.go aside).
func TestSnippetsImportOnlyHostPackages(t *testing.T) {
	const module = "github.com/panestate/panestate/"
	f, err := parser.ParseFile(token.NewFileSet(), "example_test.go", nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, imp := range f.Imports {
		path, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			t.Fatal(err)
		}
		if rel, ok := strings.CutPrefix(path, module); ok {
			got = append(got, rel)
		} else if strings.Contains(strings.SplitN(path, "/", 2)[0], ".") {
			got = append(got, path) // an outside module: not for a host snippet
		}
	}
	if diff := cmp.Diff(got, []string{"registry", "session", "settings"}); diff != "" {
		t.Errorf("example_test.go imports (-got +want):\n%s", diff)
	}
}
