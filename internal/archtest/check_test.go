package archtest

import (
	"fmt"
	"slices"
	"strings"
)

// rule is what one package of the module (or every package a pattern
// matches) may import directly.
type rule struct {
	// pkg is a module-relative pattern: exact, or "dir/..." for dir and
	// everything below it. A package takes the exact rule if there is one,
	// otherwise the longest pattern that matches it.
	pkg string
	// imports are the module-relative patterns of module packages it may
	// import. Its own package is never an import.
	imports []string
	// modules are the outside modules (module paths) it may import.
	modules []module
	// banned are standard-library patterns it must not import, for the
	// reason bannedWhy (the standard library is otherwise always allowed).
	banned    []string
	bannedWhy string
}

// module is an outside module allowed on one platform (goos) or, with
// goos empty, on every platform.
type module struct {
	path string
	goos string
}

// never is one of the design's "never" sentences: no package matching
// from (and not except) depends on a package matching to (and not
// toExcept). Unless direct is set, every path of imports counts.
type never struct {
	name         string
	from, except []string
	to, toExcept []string
	direct       bool
}

// pkg is one package as `go list -deps -json` describes it.
type pkg struct {
	ImportPath string
	Standard   bool
	Imports    []string
	Module     *struct{ Path string }
}

// graph is the module's packages and everything they import, for one
// platform.
type graph struct {
	module string // the module's path
	goos   string
	pkgs   map[string]pkg // by import path: the module's and their deps
}

func newGraph(modulePath, goos string, pkgs []pkg) graph {
	g := graph{module: modulePath, goos: goos, pkgs: make(map[string]pkg, len(pkgs))}
	for _, p := range pkgs {
		g.pkgs[p.ImportPath] = p
	}
	return g
}

// rel returns the module-relative path of an import path of the module.
func (g graph) rel(path string) (string, bool) {
	if path == g.module {
		return ".", true
	}
	return strings.CutPrefix(path, g.module+"/")
}

// ours returns the module-relative paths of the module's packages, sorted.
func (g graph) ours() []string {
	var out []string
	for path := range g.pkgs {
		if rel, ok := g.rel(path); ok {
			out = append(out, rel)
		}
	}
	slices.Sort(out)
	return out
}

// match reports whether a module-relative pattern matches rel.
func match(pattern, rel string) bool {
	if pattern == "..." {
		return true
	}
	if dir, ok := strings.CutSuffix(pattern, "/..."); ok {
		return rel == dir || strings.HasPrefix(rel, dir+"/")
	}
	return pattern == rel
}

func matchAny(patterns []string, rel string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return match(p, rel) })
}

// ruleFor returns the rule of a module package: the exact one, or the
// longest matching pattern.
func ruleFor(rules []rule, rel string) (rule, bool) {
	best, found := rule{}, false
	for _, r := range rules {
		if r.pkg == rel {
			return r, true
		}
		if strings.HasSuffix(r.pkg, "/...") && match(r.pkg, rel) && (!found || len(r.pkg) > len(best.pkg)) {
			best, found = r, true
		}
	}
	return best, found
}

// check returns every breach of rules and nevers in g, one message each,
// each naming the rule it breaks.
func check(g graph, rules []rule, nevers []never) []string {
	var out []string
	add := func(format string, args ...any) {
		out = append(out, fmt.Sprintf("%s: ", g.goos)+fmt.Sprintf(format, args...))
	}
	for _, rel := range g.ours() {
		p := g.pkgs[g.module+"/"+rel]
		r, ok := ruleFor(rules, rel)
		if !ok {
			add("%s has no rule: add one to rules in internal/archtest, with what it may import", rel)
			continue
		}
		for _, imp := range p.Imports {
			dep, known := g.pkgs[imp]
			switch impRel, inModule := g.rel(imp); {
			case inModule:
				if impRel != rel && !matchAny(r.imports, impRel) {
					add("%s imports %s: rule %q allows only %s", rel, impRel, r.pkg, list(r.imports))
				}
			case known && dep.Standard || !known && !strings.Contains(strings.SplitN(imp, "/", 2)[0], "."):
				if matchAny(r.banned, imp) {
					add("%s imports %s: rule %q: %s", rel, imp, r.pkg, r.bannedWhy)
				}
			default:
				mod := imp
				if known && dep.Module != nil {
					mod = dep.Module.Path
				}
				if !r.allowsModule(mod, g.goos) {
					add("%s imports %s (module %s): rule %q allows outside modules %s", rel, imp, mod, r.pkg, r.moduleList(g.goos))
				}
			}
		}
	}
	for _, n := range nevers {
		for _, rel := range g.ours() {
			if !matchAny(n.from, rel) || matchAny(n.except, rel) {
				continue
			}
			for _, path := range g.reach(rel, n.direct) {
				to := path[len(path)-1]
				// A longer path is shown only when the rules allow every
				// step of it (the rules then contradict the design); a
				// step they forbid is already reported where it is taken.
				if matchAny(n.to, to) && !matchAny(n.toExcept, to) && (len(path) == 2 || allowedPath(rules, path)) {
					add("%s depends on %s (%s): breaks %q", rel, to, strings.Join(path, " -> "), n.name)
				}
			}
		}
	}
	return out
}

// reach returns, for every module package that rel depends on (directly
// only, when direct is set), one import path from rel to it.
func (g graph) reach(rel string, direct bool) [][]string {
	seen := map[string]bool{rel: true}
	var out [][]string
	queue := [][]string{{rel}}
	for len(queue) > 0 {
		path := queue[0]
		queue = queue[1:]
		for _, imp := range g.pkgs[g.module+"/"+path[len(path)-1]].Imports {
			impRel, ok := g.rel(imp)
			if !ok || seen[impRel] {
				continue
			}
			seen[impRel] = true
			next := append(slices.Clone(path), impRel)
			out = append(out, next)
			if !direct {
				queue = append(queue, next)
			}
		}
	}
	return out
}

// allowedPath reports whether the rules allow every import along path.
func allowedPath(rules []rule, path []string) bool {
	for i := 1; i < len(path); i++ {
		r, ok := ruleFor(rules, path[i-1])
		if !ok || !matchAny(r.imports, path[i]) {
			return false
		}
	}
	return true
}

func (r rule) allowsModule(path, goos string) bool {
	return slices.ContainsFunc(r.modules, func(m module) bool {
		return m.path == path && (m.goos == "" || m.goos == goos)
	})
}

func (r rule) moduleList(goos string) string {
	var ms []string
	for _, m := range r.modules {
		if m.goos == "" || m.goos == goos {
			ms = append(ms, m.path)
		}
	}
	return list(ms)
}

func list(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
