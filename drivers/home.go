package drivers

// The configuration and credentials each agent CLI keeps under $HOME (see
// Driver.HomePaths and docs/SANDBOX.md).

func (claudeCode) HomePaths() []string { return []string{".claude", ".claude.json"} }
func (codex) HomePaths() []string      { return []string{".codex"} }
func (cursor) HomePaths() []string     { return []string{".cursor", ".config/cursor"} }
func (copilot) HomePaths() []string    { return []string{".copilot", ".config/github-copilot"} }
func (opencode) HomePaths() []string {
	return []string{".config/opencode", ".local/share/opencode", ".local/state/opencode", ".cache/opencode"}
}
func (command) HomePaths() []string { return nil }
