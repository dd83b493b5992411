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

// eachEngineNode parses every non-test source of the package and hands
// each syntax node to visit, with the file set for positions.
func eachEngineNode(t *testing.T, visit func(fset *token.FileSet, n ast.Node)) {
	t.Helper()
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
			if n != nil {
				visit(fset, n)
			}
			return true
		})
	}
}

// pkgSelector returns "pkg" and "Name" for a pkg.Name expression.
func pkgSelector(n ast.Node) (pkg, name string, ok bool) {
	sel, ok := n.(*ast.SelectorExpr)
	if !ok {
		return "", "", false
	}
	id, ok := sel.X.(*ast.Ident)
	if !ok {
		return "", "", false
	}
	return id.Name, sel.Sel.Name, true
}

// The engine decides and notes; the console sink owns the terminal. No
// engine source may print (fmt.Print*, fmt.Fprint*) or reach os.Stdout or
// os.Stderr: one more writer of the terminal is how lines collide.
func TestEngineDoesNotPrint(t *testing.T) {
	t.Parallel()
	eachEngineNode(t, func(fset *token.FileSet, n ast.Node) {
		pkg, name, ok := pkgSelector(n)
		if !ok {
			return
		}
		if pkg == "fmt" && (strings.HasPrefix(name, "Print") || strings.HasPrefix(name, "Fprint")) ||
			pkg == "os" && (name == "Stdout" || name == "Stderr") {
			t.Errorf("%s: %s.%s: the engine notes (Bus.Note); the console prints", fset.Position(n.Pos()), pkg, name)
		}
	})
}

// The engine decides with values; package events words them. The engine may
// format only names and stamps of the files it opens (fmt.Sprintf with one
// of these formats) and wrapped errors (fmt.Errorf): a sentence for a
// person built here would be a second place that words a stop or a
// failure.
func TestEngineBuildsNoSentences(t *testing.T) {
	t.Parallel()
	stamps := map[string]bool{
		"%s-%d":                       true, // a second call in the same millisecond
		"%s-%03d_loop%d":              true, // a call's log stamp
		"\n\n=== Loop #%d - %s ===\n": true, // the live log's header of a call
	}
	eachEngineNode(t, func(fset *token.FileSet, n ast.Node) {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return
		}
		pkg, name, ok := pkgSelector(call.Fun)
		if !ok || pkg != "fmt" || !strings.HasPrefix(name, "Sprint") {
			return
		}
		if name == "Sprintf" && len(call.Args) > 0 {
			if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if format, err := strconv.Unquote(lit.Value); err == nil && stamps[format] {
					return
				}
			}
		}
		t.Errorf("%s: fmt.%s: the engine puts values in its notices and results; package events words them", fset.Position(call.Pos()), name)
	})
}

// The engine never writes a file: the state store writes the state it
// records (Bus.Record), and the agent's logs are opened through Logs. No
// engine source may call a file-writing function or method, whatever its
// receiver (ralphdir.Dir, os, a file).
func TestEngineWritesNoFile(t *testing.T) {
	t.Parallel()
	writers := map[string]bool{
		"WriteFile": true, "WriteJSON": true, "AppendLine": true, "Create": true, "OpenAppend": true,
		"OpenFile": true, "Remove": true, "RemoveAll": true, "Rename": true, "CleanTemp": true,
		"Mkdir": true, "MkdirAll": true, "Truncate": true, "Symlink": true, "Chmod": true,
	}
	eachEngineNode(t, func(fset *token.FileSet, n ast.Node) {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok && writers[sel.Sel.Name] {
			t.Errorf("%s: .%s: the engine records a change (Bus.Record) and the store writes it", fset.Position(call.Pos()), sel.Sel.Name)
		}
	})
}
