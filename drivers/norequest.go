package drivers

import (
	"strings"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/internal/lazyre"
)

// noRequestMax is the longest reply that can be a "no request" answer: the
// CLI's own answer is one or two sentences.
const noRequestMax = 600

// noRequestRe are the ways a model says it was given no prompt, as Claude
// Code's headless mode sometimes starts without the user's prompt and
// answers "I don't see a request in your message, just system context.
// What would you like help with?" (anthropics/claude-code#85040).
var noRequestRe = lazyre.Compile(`(?i)(` +
	`\bI (don't|do not|didn't|did not|can't|cannot) (see|find|receive|get)( any| a| an)? (request|question|prompt|task|instructions?|message)` +
	`|\bno (actual |specific )?(request|question|prompt|task) (in your message|was (provided|given|included)|has been (provided|given|included))` +
	`|\byour message (is|was|appears to be|seems to be) empty` +
	`|\b(just|only) (the )?system (context|prompt|instructions)` +
	`|\byou (haven't|have not) (asked|provided|given|included) (anything|a request|a question|a task))`)

// NoRequest reports whether the reply r did nothing: a short answer that
// says it was given no request, with no tool use (one turn, when the CLI
// counts turns) and no RALPH_STATUS block (an agent that read the prompt
// reports one). Such a call exited 0 but bought nothing: the loop counts
// it as a failed call, not as a loop of the agent's work.
func NoRequest(r analysis.Result) bool {
	text := strings.TrimSpace(r.ResultText)
	if text == "" || len(text) > noRequestMax || r.Block != nil || r.BlockCount > 0 {
		return false
	}
	if r.NumTurns != nil && *r.NumTurns > 1 {
		return false // it used a tool
	}
	return noRequestRe().MatchString(strings.ReplaceAll(text, "’", "'"))
}
