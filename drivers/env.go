package drivers

import (
	"slices"
	"strings"
)

// nestedSession lists the variables a running Claude Code session sets for
// the programs it starts. A loop started from inside such a session (a
// common way to begin one) inherits them; an agent CLI that sees them acts
// as a nested session of that one and can hang until the call times out.
// They describe the loop's parent, never the agent, so every driver drops
// them: a codex or command agent may start claude itself. The person's own
// Claude settings (CLAUDE_CODE_USE_BEDROCK, CLAUDE_CODE_MAX_OUTPUT_TOKENS,
// CLAUDE_CONFIG_DIR, ...) are not in the list and pass unchanged.
var nestedSession = []string{
	"CLAUDECODE",
	"CLAUDE_CODE_ENTRYPOINT",
	"CLAUDE_CODE_SESSION_ID",
	"CLAUDE_CODE_CHILD_SESSION",
	"CLAUDE_CODE_BRIDGE_SESSION_ID",
	"CLAUDE_CODE_MESSAGING_SOCKET",
	"CLAUDE_CODE_MESSAGING_TOKEN",
	"CLAUDE_CODE_EXECPATH",
	"CLAUDE_PID",
}

// agentEnv is env without the nested-session markers, in a new slice;
// nil stays nil (the caller's "inherit").
func agentEnv(env []string) []string {
	if env == nil {
		return nil
	}
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(nestedSession, name)
	})
}

// WithoutSession is env without the nested-session markers, as every
// agent call gets it: for the other programs the loop runs as the agent
// is run (the trackers' CLIs). nil stays nil.
func WithoutSession(env []string) []string { return agentEnv(env) }
