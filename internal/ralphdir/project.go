package ralphdir

import (
	"os"
	"path/filepath"
	"strings"
)

// Project reads the project's files the loop decides from: the prompt,
// @fix_plan.md, REVIEW_PROMPT.md and a call's stderr log, each at most its
// limit and each under the links rule: nothing under .ralph/ is read
// through a link, a prompt file a repository's .ralphrc names elsewhere
// must be inside the project with no link on the way, and only a prompt
// file the person names is read where it is (a link followed to a
// regular file).
type Project struct {
	Dir *Dir
	// ProjectDir is the project's folder; PromptFile the prompt file,
	// relative to it or absolute.
	ProjectDir, PromptFile string
	// PromptFromRepo: the repository's .ralphrc named the prompt file.
	PromptFromRepo bool
}

// Prompt reads the prompt file, up to TextCap. A file under .ralph/ is
// read through the Dir, which follows no link. One that the repository's
// .ralphrc names elsewhere must be inside the project, with no link on
// the way to it or in its place. One the person names (--prompt,
// PROMPT_FILE in the environment) is read where it is, a link followed to
// a regular file.
func (p Project) Prompt() ([]byte, error) {
	path := p.PromptPath()
	if rel, ok := beneath(p.Dir.Root(), path); ok {
		return p.Dir.ReadText(filepath.ToSlash(rel))
	}
	if !p.PromptFromRepo {
		return ReadFileCapped(path, TextCap)
	}
	rel, ok := beneath(p.ProjectDir, path)
	if !ok {
		return nil, &FileError{Op: "read", Path: path, Problem: "is outside the project, and .ralphrc's PROMPT_FILE may not leave it",
			Fix: "name a file inside the project, or pass the file with --prompt"}
	}
	return ReadFileBeneath(p.ProjectDir, rel, TextCap)
}

// HasPrompt reports whether the prompt file is there (and no folder): the
// start-up's check before it reads it.
func (p Project) HasPrompt() bool {
	st, err := os.Stat(p.PromptPath())
	return err == nil && !st.IsDir()
}

// PromptPath is the prompt file's path, resolved against the project.
func (p Project) PromptPath() string {
	if filepath.IsAbs(p.PromptFile) {
		return p.PromptFile
	}
	return filepath.Join(p.ProjectDir, p.PromptFile)
}

// Plan reads @fix_plan.md; found is false when there is none.
func (p Project) Plan() (data []byte, found bool, err error) { return p.Dir.ReadFile(FixPlan) }

// ReviewPrompt reads REVIEW_PROMPT.md.
func (p Project) ReviewPrompt() ([]byte, error) { return p.Dir.ReadText(ReviewPrompt) }

// CallLog reads a call's log under .ralph/ (its stderr, say); found is
// false when there is none.
func (p Project) CallLog(name string) (data []byte, found bool, err error) {
	return p.Dir.ReadFile(name)
}

// beneath is path relative to base when it is inside base (not base
// itself).
func beneath(base, path string) (string, bool) {
	rel, err := filepath.Rel(base, path)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}
