package engine

import "github.com/ralphloop/ralph_loop/templates"

// Project reads the project's files the engine decides from: the
// prompt, the plan, the review prompt and a call's logs (ralphdir.Project
// in production, which reads nothing under .ralph/ through a link, and a
// prompt file the repository's .ralphrc names only inside the project).
type Project interface {
	// HasPrompt reports whether the prompt file is there.
	HasPrompt() bool
	// Prompt reads the prompt file.
	Prompt() ([]byte, error)
	// Plan reads @fix_plan.md; found is false when there is none.
	Plan() (data []byte, found bool, err error)
	// ReviewPrompt reads REVIEW_PROMPT.md.
	ReviewPrompt() ([]byte, error)
	// CallLog reads a call's log under .ralph/ (a failed call's stderr);
	// found is false when there is none.
	CallLog(name string) (data []byte, found bool, err error)
}

// readPromptFile is the call's prompt: the goal's with --goal, else the
// prompt file's.
func (l *loop) readPromptFile() ([]byte, error) {
	if l.s.Goal != "" {
		return []byte(templates.GoalPrompt(l.s.Goal, l.s.GoalCheck)), nil
	}
	return l.project.Prompt()
}
