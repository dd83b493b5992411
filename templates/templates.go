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
// The map and its byte slices are fresh copies.
func Files() map[string][]byte {
	out := make(map[string][]byte, len(installNames))
	for src, dst := range installNames {
		b, err := files.ReadFile("files/" + src)
		if err != nil {
			panic("templates: embedded file missing: " + src) // a build defect
		}
		out[dst] = b
	}
	return out
}
