package drivers

// HomePath is a file or folder under $HOME that an agent CLI needs: its
// configuration and credentials (see Driver.HomePaths and docs/SANDBOX.md).
type HomePath struct {
	Path  string // relative to $HOME
	Write bool   // the CLI writes it (its own folder or state file); otherwise it only reads it
}

// own is a file or folder the CLI itself writes; readOnly one it only reads.
func own(p string) HomePath      { return HomePath{Path: p, Write: true} }
func readOnly(p string) HomePath { return HomePath{Path: p} }

func (claudeCode) HomePaths() []HomePath { return []HomePath{own(".claude"), own(".claude.json")} }
func (codex) HomePaths() []HomePath      { return []HomePath{own(".codex")} }
func (cursor) HomePaths() []HomePath     { return []HomePath{own(".cursor"), own(".config/cursor")} }

// Copilot CLI keeps its state in ~/.copilot; ~/.config/github-copilot is
// the token folder the editors' Copilot plugins share, which it may read
// but has no reason to rewrite.
func (copilot) HomePaths() []HomePath {
	return []HomePath{own(".copilot"), readOnly(".config/github-copilot")}
}
func (opencode) HomePaths() []HomePath {
	return []HomePath{readOnly(".config/opencode"), own(".local/share/opencode"), own(".local/state/opencode"), own(".cache/opencode")}
}
func (command) HomePaths() []HomePath { return nil }
