package observe_test

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ralphloop/ralph_loop/internal/observe"
)

// ownAPI are the exported methods an observer may declare besides
// Observer's: its own API, by type ("pkg.Type", pkg the
// import path below the module).
var ownAPI = map[string][]string{
	"internal/observe.Fan":     {"Add", "Note", "Log"},
	"internal/notify.Notifier": {"DrainCut"},
}

// A type that implements observe.Observer by embedding one
// (observe.Ignore, the observer it wraps) answers every method it does
// not declare: a method it declares with a misspelt name builds, and is
// never called. So every exported method declared on a type of the module
// that implements it must be one of Observer's, or one of the type's own
// API (ownAPI).
func TestObserversDeclareNoStrayMethods(t *testing.T) {
	pkgs := modulePackages(t)
	names := map[string]bool{}
	it := reflect.TypeFor[observe.Observer]()
	for i := range it.NumMethod() {
		names[it.Method(i).Name] = true
	}
	var observer *types.Interface
	for _, p := range pkgs {
		if p.Path() == module+"/internal/observe" {
			observer = p.Scope().Lookup("Observer").Type().Underlying().(*types.Interface)
		}
	}
	checked := 0
	own := map[string]bool{} // "pkg.Type.Method" of every method checked
	for _, p := range pkgs {
		for key, named := range observersIn(p, observer) {
			checked++
			for i := range named.NumMethods() {
				m := named.Method(i)
				if m.Exported() && !names[m.Name()] && !slices.Contains(ownAPI[key], m.Name()) {
					t.Errorf("%s declares %s, which is no method of observe.Observer: a misspelt name is never called (or add it to ownAPI if it is the type's own API)", key, m.Name())
				}
				own[key+"."+m.Name()] = true
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d observers found", checked)
	}
	for key, methods := range ownAPI {
		for _, m := range methods {
			if !own[key+"."+m] {
				t.Errorf("ownAPI lists %s.%s, which is no method of an observer", key, m)
			}
		}
	}
}

// observersIn returns p's named types (not interfaces) whose pointer
// implements observer, by "pkg.Type" (pkg below the module).
func observersIn(p *types.Package, observer *types.Interface) map[string]*types.Named {
	found := map[string]*types.Named{}
	for _, name := range p.Scope().Names() {
		tn, ok := p.Scope().Lookup(name).(*types.TypeName)
		if !ok || tn.IsAlias() {
			continue
		}
		named, ok := tn.Type().(*types.Named)
		if !ok || types.IsInterface(named) {
			continue
		}
		if ptr := types.NewPointer(named); types.Implements(ptr, observer) {
			found[strings.TrimPrefix(p.Path(), module+"/")+"."+name] = named
		}
	}
	return found
}

const module = "github.com/ralphloop/ralph_loop"

// modulePackages type-checks every package of the module from its source
// (test files left out), its imports read from the export data go list
// builds. Function bodies are skipped: the types and their methods are
// all the check reads, and the compiler checks the bodies.
func modulePackages(t *testing.T) []*types.Package {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	cmd := exec.Command("go", "list", "-e", "-export", "-deps", "-json=ImportPath,Dir,GoFiles,Export,Module,Error", module+"/...")
	cmd.Dir = moduleRoot(t)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	type listed struct {
		ImportPath, Dir, Export string
		GoFiles                 []string
		Module                  *struct{ Path string }
		Error                   *struct{ Err string }
	}
	exports := map[string]string{}
	var own []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if p.Error != nil {
			t.Fatalf("go list %s: %s", p.ImportPath, p.Error.Err)
		}
		exports[p.ImportPath] = p.Export
		if p.Module != nil && p.Module.Path == module {
			own = append(own, p)
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		return os.Open(exports[path])
	})
	var pkgs []*types.Package
	for _, p := range own {
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		conf := types.Config{Importer: imp, IgnoreFuncBodies: true}
		pkg, err := conf.Check(p.ImportPath, fset, files, nil)
		if err != nil {
			t.Fatalf("type-check %s: %v", p.ImportPath, err)
		}
		pkgs = append(pkgs, pkg)
	}
	return pkgs
}

// moduleRoot is the folder of go.mod above the test's folder.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test")
		}
		dir = parent
	}
}
