package templates

import (
	"bytes"
	"embed"
	"strings"
	"unicode"
	"unicode/utf8"
)

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

// ProjectName returns rc, a .ralphrc from Files, with its PROJECT_NAME
// default set to name (the project folder's) instead of my-project. The
// name is the repository's: only letters, digits, '.', '_' and '-' are
// kept (any other run of characters becomes one '-'), so that the line
// stays a plain value the bash loop's shell and our parser read alike;
// nothing left keeps my-project.
func ProjectName(rc []byte, name string) []byte {
	var b strings.Builder
	dash := false
	for _, r := range name {
		switch {
		case r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '_' || r == '-'):
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	clean := strings.Trim(b.String(), "-.")
	if clean == "" {
		return rc
	}
	const line = `PROJECT_NAME="${PROJECT_NAME:-my-project}"`
	return bytes.Replace(rc, []byte(line), []byte(`PROJECT_NAME="${PROJECT_NAME:-`+clean+`}"`), 1)
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
