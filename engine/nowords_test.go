package engine

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The engine decides with values; the console words them. The engine may
// format only names and stamps of the files it opens (fmt.Sprintf with one
// of these formats) and wrapped errors (fmt.Errorf): a sentence for a
// person built here would be a second place that words a stop or a
// failure.
func TestEngineBuildsNoSentences(t *testing.T) {
	stamps := map[string]bool{
		"%s-%d":                       true, // a second call in the same millisecond
		"%s-%03d_loop%d":              true, // a call's log stamp
		"\n\n=== Loop #%d - %s ===\n": true, // the live log's header of a call
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "fmt" || !strings.HasPrefix(sel.Sel.Name, "Sprint") {
				return true
			}
			if sel.Sel.Name == "Sprintf" && len(call.Args) > 0 {
				if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if format, err := strconv.Unquote(lit.Value); err == nil && stamps[format] {
						return true
					}
				}
			}
			t.Errorf("%s: fmt.%s: the engine puts values in its notices and results; package console words them", fset.Position(call.Pos()), sel.Sel.Name)
			return true
		})
	}
}
