package docs

import (
	"bufio"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The import rules docs/architecture.md states, by package.
var (
	contracts = []string{"core/message", "core/memerr", "core/store", "core/vector"}
	drivers   = map[string][]string{ // driver → what it may import besides the contracts
		"core/store/memstore":  nil,
		"core/store/sqlite":    nil,
		"core/store/postgres":  {"core/internal/pg/"},
		"core/vector/local":    {"core/vector/analysis", "core/vector/internal/termsample"},
		"core/vector/weaviate": {"core/vector/analysis", "core/vector/internal/termsample"},
		"core/vector/pgvector": {"core/vector/analysis", "core/vector/internal/termsample", "core/internal/pg/"},
	}
)

// TestArchitectureNamesEveryPackage fails when a package of the module is
// missing from docs/architecture.md's table, or the table names one that
// does not exist.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	root, _ := moduleRoot(t)
	pkgs := packages(t, root)
	named, first := architectureTable(t, root)
	for _, p := range sortedKeys(pkgs) {
		if !named[p] {
			t.Errorf("package %s is not named in docs/architecture.md's table", p)
		}
	}
	for _, p := range first {
		if _, ok := pkgs[p]; !ok {
			t.Errorf("docs/architecture.md names %s, which is no package of the module", p)
		}
	}
}

// TestArchitectureImportRules fails when a package imports what
// docs/architecture.md says it may not: the contracts import only each
// other, drivers only the contracts and the helpers allowed them, a
// mechanism in core/internal never core, and nothing in core a framework
// adapter or the command.
func TestArchitectureImportRules(t *testing.T) {
	root, module := moduleRoot(t)
	for _, p := range sortedKeys(packages(t, root)) {
		for _, imp := range imports(t, root, module, p) {
			if why := forbidden(p, imp); why != "" {
				t.Errorf("%s imports %s: %s", p, imp, why)
			}
		}
	}
}

// forbidden says why package p may not import the module package imp, ""
// when it may.
func forbidden(p, imp string) string {
	allowed := func(extra []string) bool {
		return slices.Contains(contracts, imp) || slices.ContainsFunc(extra, func(a string) bool {
			return imp == a || strings.HasSuffix(a, "/") && strings.HasPrefix(imp, a)
		})
	}
	switch extra, isDriver := drivers[p]; {
	case slices.Contains(contracts, p):
		if !allowed(nil) {
			return "a contract imports only the other contracts"
		}
	case isDriver:
		if !allowed(extra) {
			return "a driver imports only the contracts and the helpers docs/architecture.md allows it"
		}
	case strings.HasPrefix(p, "core/internal/") && imp == "core":
		return "a mechanism never imports core"
	}
	if p == "core" || strings.HasPrefix(p, "core/") {
		for _, outer := range []string{"langchaingo", "eino", "cmd", "examples"} {
			if imp == outer || strings.HasPrefix(imp, outer+"/") {
				return "nothing in core imports an adapter, the command or an example"
			}
		}
	}
	return ""
}

// moduleRoot returns the module's directory and path.
func moduleRoot(t *testing.T) (dir, module string) {
	t.Helper()
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m, ok := strings.CutPrefix(sc.Text(), "module "); ok {
			return dir, strings.TrimSpace(m)
		}
	}
	t.Fatal("go.mod has no module line")
	return "", ""
}

// packages returns the module's package directories (any holding a .go
// file, tests included), relative to root, slash-separated.
func packages(t *testing.T, root string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() && path != root {
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
		}
		if !d.IsDir() && strings.HasSuffix(name, ".go") {
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			out[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// imports returns the module packages the non-test files of package p
// import, relative to the module.
func imports(t *testing.T, root, module, p string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(p), "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, spec := range f.Imports {
			path, _ := strconv.Unquote(spec.Path.Value)
			if rel, ok := strings.CutPrefix(path, module+"/"); ok {
				seen[rel] = true
			} else if path == module {
				seen["."] = true
			}
		}
	}
	return sortedKeys(seen)
}

var codeSpan = regexp.MustCompile("`([a-z0-9_]+(?:/[a-z0-9_]+)*)`")

// architectureTable returns every package path docs/architecture.md's
// Packages table names (in code spans), and those of its first column.
func architectureTable(t *testing.T, root string) (named map[string]bool, first []string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	named = map[string]bool{}
	in := false
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "## "):
			in = line == "## Packages"
			continue
		case !in || !strings.HasPrefix(line, "| "):
			continue
		}
		cells := strings.Split(line, "|")
		for i, cell := range cells {
			for _, m := range codeSpan.FindAllStringSubmatch(cell, -1) {
				named[m[1]] = true
				if i == 1 {
					first = append(first, m[1])
				}
			}
		}
	}
	if len(first) == 0 {
		t.Fatal("docs/architecture.md has no Packages table")
	}
	return named, first
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
