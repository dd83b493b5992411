package drivers

// Claude Code's own rule for a run as root (its cli.js, 2.x): given
// --dangerously-skip-permissions, which CLAUDE_PERMISSION_MODE=
// bypassPermissions (the default) passes, it prints ClaudeRootRefusal on
// stderr and exits 1 before it makes any request, unless IS_SANDBOX or
// CLAUDE_CODE_BUBBLEWRAP is "1" in its environment. Windows has no such
// check. --doctor's `permissions` check, the run's warning before its first
// call and the stop at the refusal all read this one rule.

// ClaudeRootRefusal begins the line Claude Code prints when it refuses
// (the line ends "for security reasons").
const ClaudeRootRefusal = "--dangerously-skip-permissions cannot be used with root/sudo privileges"

// The refusal's facts, as --doctor and the run say them.
const (
	// RootBypassProblem says what is wrong and what follows.
	RootBypassProblem = "running as root with CLAUDE_PERMISSION_MODE=bypassPermissions (the default) and without IS_SANDBOX=1: Claude Code refuses every call as root"
	// RootBypassFix says how to fix it.
	RootBypassFix = "run ralph_loop as a normal user, or with SANDBOX=bwrap (or auto), or, only if this machine is a container or VM you can throw away, with IS_SANDBOX=1 in the environment"
)

// claudeSandboxVars are the variables that tell Claude Code it runs in a
// sandbox, when they are "1".
var claudeSandboxVars = []string{"IS_SANDBOX", "CLAUDE_CODE_BUBBLEWRAP"}

// RootBypass is a run's side of the rule.
type RootBypass struct {
	Root           bool   // the loop runs as root, not on Windows
	PermissionMode string // CLAUDE_PERMISSION_MODE as configured
	Driver         string // PLATFORM_DRIVER
	Fallback       string // FALLBACK_DRIVER ("" when none)
	// Sandbox is the SANDBOX mode the agent runs in ("" when none): a
	// sandbox gives the agent IS_SANDBOX=1.
	Sandbox string
	// LookupEnv reads the loop's environment, which the agent inherits.
	LookupEnv func(string) (string, bool)
}

// Check applies the rule: asked is false when the question does not arise
// (not root, another permission mode, Claude Code neither the driver nor
// the fallback); refused says Claude Code will refuse every call; when it
// will not, sandboxed names what tells it that it runs in a sandbox
// ("IS_SANDBOX=1", "SANDBOX=bwrap").
func (r RootBypass) Check() (asked, refused bool, sandboxed string) {
	if !r.Root || r.PermissionMode != defaultPermissionMode || (r.Driver != "claude-code" && r.Fallback != "claude-code") {
		return false, false, ""
	}
	for _, v := range claudeSandboxVars {
		if s, ok := r.LookupEnv(v); ok && s == "1" {
			return true, false, v + "=1"
		}
	}
	if r.Sandbox != "" {
		return true, false, "SANDBOX=" + r.Sandbox
	}
	return true, true, ""
}
