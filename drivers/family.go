package drivers

import (
	"strings"

	"github.com/ralphloop/ralph_loop/analysis"
)

// Formats are the readers of the JSON output formats of the driver called
// name (as PLATFORM_DRIVER spells it; "claude" too), for
// analysis.Options.Formats: its CLI's format first, then the others in the
// bash loop's order of detection; that order alone for the command driver
// or an unknown name (the analysis detects the format), and none for
// Copilot, whose output is plain text whatever it looks like.
func Formats(name string) []func() analysis.FormatReader {
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "claude" {
		name = "claude-code"
	}
	d, _ := Get(name)
	switch d.(type) {
	case copilot:
		return nil
	case claudeCode, cursor: // Cursor's agent prints Claude's shapes
		return []func() analysis.FormatReader{newClaudeReader, codexFormat(false), openCodeFormat(false)}
	case codex:
		return []func() analysis.FormatReader{codexFormat(true), openCodeFormat(false), newClaudeReader}
	case opencode:
		return []func() analysis.FormatReader{openCodeFormat(true), codexFormat(false), newClaudeReader}
	}
	return []func() analysis.FormatReader{codexFormat(false), openCodeFormat(false), newClaudeReader}
}
