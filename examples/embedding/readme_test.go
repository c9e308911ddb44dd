package embedding_test

import (
	"os"
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
