package events_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// allowed are the module's packages events may import: pure helpers with
// no I/O of their own.
var allowed = map[string]bool{
	"github.com/ralphloop/ralph_loop/internal/clip":     true,
	"github.com/ralphloop/ralph_loop/internal/lazyre":   true, // regular expressions compiled at first use
	"github.com/ralphloop/ralph_loop/internal/safetext": true,
	"github.com/ralphloop/ralph_loop/internal/quota":    true, // the usage governor's values and arithmetic: pure
}

// Package events is values and their words: it imports no machinery (no
// process runner, gate runner, store or file access), so everything that
// reports or shows a value can import it without the machinery behind it.
func TestImportsNoMachinery(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, "github.com/ralphloop/ralph_loop/") && !allowed[path] {
				t.Errorf("%s imports %s: events is values and words, and imports no machinery", name, path)
			}
		}
	}
}
