package engine

import (
	"path/filepath"
	"strings"

	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/templates"
)

// readPromptFile reads the prompt file, up to ralphdir.TextCap. A file
// under .ralph/ is read through the Dir, which follows no link. One that
// the repository's .ralphrc names elsewhere must be inside the project,
// with no link on the way to it or in its place. One the person names
// (--prompt, PROMPT_FILE in the environment) is read where it is, a link
// followed to a regular file.
func (l *loop) readPromptFile() ([]byte, error) {
	if l.s.Goal != "" {
		return []byte(templates.GoalPrompt(l.s.Goal, l.s.GoalCheck)), nil
	}
	p := l.promptPath()
	if rel, ok := beneath(l.dir.Root(), p); ok {
		return l.dir.ReadText(filepath.ToSlash(rel))
	}
	if !l.s.PromptFromRepo {
		return ralphdir.ReadFileCapped(p, ralphdir.TextCap)
	}
	rel, ok := beneath(l.s.ProjectDir, p)
	if !ok {
		return nil, &ralphdir.FileError{Op: "read", Path: p, Problem: "is outside the project, and .ralphrc's PROMPT_FILE may not leave it",
			Fix: "name a file inside the project, or pass the file with --prompt"}
	}
	return ralphdir.ReadFileBeneath(l.s.ProjectDir, rel, ralphdir.TextCap)
}

// beneath is p relative to base when p is inside base (not base itself).
func beneath(base, p string) (string, bool) {
	rel, err := filepath.Rel(base, p)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}
