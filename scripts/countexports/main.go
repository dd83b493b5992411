// Command countexports counts the module's exported declarations outside
// cmd/: top-level exported funcs, types, vars and consts, plus exported
// methods on exported types, in non-test files of non-main packages
// (testdata, examples and bin are skipped; struct fields are not counted).
// A declaration that has one copy per operating system is counted once per
// file. Run it from the module root:
//
//	go run ./scripts/countexports          # declarations and methods
//	go run ./scripts/countexports -top     # package-level names only (what go doc lists first)
//
// It prints the count per package, largest first, then the total.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// top counts package-level names only: no methods.
var top = flag.Bool("top", false, "count package-level names only, not the methods of exported types")

func main() {
	flag.Parse()
	per, err := count(".")
	if err != nil {
		fmt.Fprintln(os.Stderr, "countexports:", err)
		os.Exit(1)
	}
	dirs := make([]string, 0, len(per))
	total := 0
	for d, n := range per {
		dirs = append(dirs, d)
		total += n
	}
	sort.Slice(dirs, func(i, j int) bool {
		if per[dirs[i]] != per[dirs[j]] {
			return per[dirs[i]] > per[dirs[j]]
		}
		return dirs[i] < dirs[j]
	})
	for _, d := range dirs {
		fmt.Println(per[d], d)
	}
	fmt.Println("total", total)
}

// count walks root and returns the number of exported declarations per
// package directory.
func count(root string) (map[string]int, error) {
	per := map[string]int{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			if strings.HasPrefix(rel, "cmd") || rel == "bin" || rel == "examples" || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if f.Name.Name == "main" {
			return nil
		}
		if n := exported(f); n > 0 {
			per[filepath.Dir(p)] += n
		}
		return nil
	})
	return per, err
}

// exported counts the exported declarations of one file.
func exported(f *ast.File) int {
	n := 0
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Name.IsExported() && (d.Recv == nil || !*top && exportedRecv(d.Recv.List[0].Type)) {
				n++
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						n++
					}
				case *ast.ValueSpec:
					for _, id := range s.Names {
						if id.IsExported() {
							n++
						}
					}
				}
			}
		}
	}
	return n
}

// exportedRecv reports whether a method's receiver type is exported.
func exportedRecv(t ast.Expr) bool {
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	id, ok := t.(*ast.Ident)
	return !ok || id.IsExported()
}
