package swarm

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/ralphloop/ralph_loop/internal/gates"
	"github.com/ralphloop/ralph_loop/internal/safetext"
)

// The gates the queue runs are the person's (TEST_COMMAND and
// QUALITY_GATES as the main branch's .ralphrc has them), but a command
// such as `sh scripts/test.sh` runs a file of the merged tree: a worker
// that rewrote it to `exit 0` would pass any code. So the files a gate
// command names are taken from the main branch in the merged result,
// before the gates run and in the merge commit: the worker's change to
// them is left out (and said so). What those files run in turn (the
// tests themselves, a Makefile's target, package.json's scripts) is the
// merged code, which is what the gates are there to test.

// gateScripts are the words of the gate commands that may name a file of
// the project: literal words (quoted or not, no expansion) that are relative paths
// inside it, each once, cleaned ("./scripts/test.sh" is
// "scripts/test.sh"). Commands that do not parse name nothing.
func gateScripts(g gates.Config) []string {
	var out []string
	for _, src := range []string{g.TestCommand, g.Gates} {
		f, err := syntax.NewParser().Parse(strings.NewReader(src), "")
		if err != nil {
			continue
		}
		syntax.Walk(f, func(n syntax.Node) bool {
			w, ok := n.(*syntax.Word)
			if !ok {
				return true
			}
			lit := literal(w)
			if lit == "" || strings.HasPrefix(lit, "-") || path.IsAbs(lit) {
				return false
			}
			p := path.Clean(lit)
			if p == "." || p == ".." || strings.HasPrefix(p, "../") || slices.Contains(out, p) {
				return false
			}
			out = append(out, p)
			return false
		})
	}
	return out
}

// literal is the word's text when it has no expansion in it, else "".
func literal(w *syntax.Word) string {
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return ""
				}
				b.WriteString(lit.Value)
			}
		default:
			return ""
		}
	}
	return b.String()
}

// keepGateScripts puts back, in the scratch worktree sc (a merge under
// way), the files the gate commands name as the main branch has them,
// where the merge changed them, and returns those.
func (s *swarm) keepGateScripts(ctx context.Context, sc string, id int) (kept []string, err error) {
	words := gateScripts(s.o.Gates)
	if len(words) == 0 {
		return nil, nil
	}
	base := "refs/heads/" + s.base
	// The words that are files on the main branch.
	out, err := git(ctx, sc, append([]string{"ls-tree", "-z", base, "--"}, words...)...)
	if err != nil {
		return nil, err
	}
	for _, entry := range strings.Split(out, "\x00") {
		meta, p, ok := strings.Cut(entry, "\t")
		if !ok || !strings.Contains(meta, " blob ") {
			continue
		}
		if gitOK(ctx, sc, "diff", "--cached", "--quiet", base, "--", p) {
			continue // as main has it
		}
		if _, err := git(ctx, sc, "checkout", base, "--", p); err != nil {
			return nil, err
		}
		kept = append(kept, p)
		fmt.Fprintf(s.o.Log, "%s: kept %s as %s has it: a quality gate runs it\n", workerName(id), safetext.Line(p), s.base)
	}
	return kept, nil
}
