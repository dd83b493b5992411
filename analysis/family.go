package analysis

// Family is the agent CLI whose output a driver produces (the driver's
// Family()). The analyser reads that CLI's formats first; FamilyText reads
// the output as plain text whatever it looks like, and FamilyAny detects
// the format as the bash loop does.
type Family string

const (
	FamilyAny      Family = ""         // any CLI (the command driver): detect
	FamilyClaude   Family = "claude"   // Claude Code: a result object, a message array or stream-json (claude.go)
	FamilyCodex    Family = "codex"    // Codex exec --json events (codex.go)
	FamilyCursor   Family = "cursor"   // Cursor agent: Claude's formats (claude.go)
	FamilyOpenCode Family = "opencode" // OpenCode run --format json events (opencode.go)
	FamilyText     Family = "text"     // plain text only (Copilot)
)
