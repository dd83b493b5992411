package drivers

import (
	"strings"

	"github.com/ralphloop/ralph_loop/analysis"
)

// FamilyOf is the output family of the driver called name (as
// PLATFORM_DRIVER spells it; "claude" too), FamilyAny for an unknown name
// or none: the analysis then detects the format.
func FamilyOf(name string) analysis.Family {
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "claude" {
		name = "claude-code"
	}
	if d, err := Get(name); err == nil {
		return d.Family()
	}
	return analysis.FamilyAny
}

// Formats are the JSON output formats of the agent CLIs, in the bash
// loop's order of detection (analysis.Options.Formats).
func Formats() []func() analysis.FormatReader {
	return []func() analysis.FormatReader{newCodexReader, newOpenCodeReader, newClaudeReader}
}
