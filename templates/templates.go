package templates

import "embed"

//go:embed files
var files embed.FS

// installNames maps the embedded file to its name in .ralph/.
var installNames = map[string]string{
	"PROMPT.md":        "PROMPT.md",
	"fix_plan.md":      "@fix_plan.md",
	"AGENT.md":         "@AGENT.md",
	"ralphrc":          ".ralphrc",
	"REVIEW_PROMPT.md": "REVIEW_PROMPT.md",
}

// Files returns the default files by their install name in .ralph/
// ("PROMPT.md", "@fix_plan.md", "@AGENT.md", ".ralphrc", "REVIEW_PROMPT.md").
// The .ralphrc is the bash loop's keys, then a section of ralph_loop's own
// (ralphrc-ralph_loop: COMPLETION_MODE=strict for a new project). The map
// and its byte slices are fresh copies.
func Files() map[string][]byte {
	out := make(map[string][]byte, len(installNames))
	for src, dst := range installNames {
		out[dst] = embedded(src)
	}
	out[".ralphrc"] = append(out[".ralphrc"], embedded(ralphLoopOnly)...)
	return out
}

// ralphLoopOnly is the .ralphrc section of the keys only ralph_loop knows.
const ralphLoopOnly = "ralphrc-ralph_loop"

// embedded is the embedded file src.
func embedded(src string) []byte {
	b, err := files.ReadFile("files/" + src)
	if err != nil {
		panic("templates: embedded file missing: " + src) // a build defect
	}
	return b
}
