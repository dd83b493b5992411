package engine

import (
	"go/ast"
	"go/token"
	"strconv"
	"strings"
	"testing"
)

// The engine asks a driver what it needs (drivers.Traits, Binary,
// Supports*); it never compares a driver's name with a CLI's. A name in
// the engine is a special case some other CLI silently misses.
func TestEngineNamesNoDriver(t *testing.T) {
	t.Parallel()
	names := []string{"claude-code", "codex", "cursor", "copilot", "opencode", "command"}
	eachEngineNode(t, func(fset *token.FileSet, n ast.Node) {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			return
		}
		for _, name := range names {
			if strings.EqualFold(s, name) {
				t.Errorf("%s: the driver name %q: ask the driver (drivers.Traits) instead", fset.Position(lit.Pos()), s)
			}
		}
	})
}
