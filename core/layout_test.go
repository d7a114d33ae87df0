package core

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// featureOf names the feature a core file belongs to by its name: the
// message API, titles; "" for the others. Semantic recall has a package of
// its own (core/internal/recall), whose border the compiler keeps.
func featureOf(file string) string {
	base := filepath.Base(file)
	for _, f := range []string{"api_messages", "title"} {
		if strings.HasPrefix(base, f) {
			return f
		}
	}
	return ""
}

// A helper function defined in a feature's file serves that feature only:
// one that another file needs belongs in a shared file or a mechanism
// package, so that reading a turn does not climb into other features.
func TestFeatureHelpersStayInTheirFeature(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	parsed := map[string]*ast.File{}
	defined := map[string]string{} // helper function -> its file
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		parsed[name] = f
		if featureOf(name) == "" {
			continue
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && !fd.Name.IsExported() {
				defined[fd.Name.Name] = name
			}
		}
	}
	for name, f := range parsed {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			id, ok := call.Fun.(*ast.Ident)
			if !ok {
				return true
			}
			if home, ok := defined[id.Name]; ok && featureOf(home) != featureOf(name) {
				t.Errorf("%s calls %s, a helper of %s", fset.Position(call.Pos()), id.Name, home)
			}
			return true
		})
	}
}
