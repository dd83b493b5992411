package config

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/ralphloop/ralph_loop/internal/clip"
)

// reachKey is a key that starts a program, decides what the agent may do
// without asking, or sends data off the machine: what to check in a
// .ralphrc you did not write.
type reachKey struct {
	Key  string
	Does string
	// value is the key's value as shown to a person.
	value func(c *Config) string
}

// reachKeys are all of them, in the order README's "What runs" section and
// --dry-run list them. SERVE_TOKEN's value is never shown, NOTIFY_WEBHOOK's
// only up to its host (the rest of such a URL is often its secret).
var reachKeys = []reachKey{
	{"PLATFORM_DRIVER", "picks the agent CLI that runs each loop", func(c *Config) string { return c.Driver }},
	{"AGENT_COMMAND", "the agent's command line, run as it is written (PLATFORM_DRIVER=command)", func(c *Config) string { return c.AgentCommand }},
	{"FALLBACK_DRIVER", "a second agent CLI, run when the first is at its usage limit", func(c *Config) string { return c.FallbackDriver }},
	{"TEST_COMMAND", "a shell command (bash -c) run after loops as a quality gate", func(c *Config) string { return c.TestCommand }},
	{"QUALITY_GATES", "shell commands (bash -c) run after loops as quality gates", func(c *Config) string { return strings.Join(c.QualityGates, ";") }},
	{"VERIFY_COMMAND", "a shell command (bash -c) run for each newly ticked task", func(c *Config) string { return c.VerifyCommand }},
	{"ALLOWED_TOOLS", "what Claude Code may do without asking (Bash(...) patterns run commands)", func(c *Config) string { return strings.Join(c.AllowedTools, ",") }},
	{"CLAUDE_PERMISSION_MODE", "how Claude Code asks before it acts (bypassPermissions: never)", func(c *Config) string { return c.PermissionMode }},
	{"REVIEW_MODE", "extra agent calls that review the code", func(c *Config) string { return c.ReviewMode }},
	{"REVIEW_ENABLED", "extra agent calls that review the code", func(c *Config) string { return strconv.FormatBool(c.ReviewEnabled) }},
	{"PROMPT_FILE", "the file handed to the agent (and so to its provider) each loop; may be outside the project", func(c *Config) string { return c.PromptFile }},
	{"USAGE_PROBE_COMMAND", "a shell command (bash -c) run before calls to read your usage windows", func(c *Config) string { return c.UsageProbe }},
	{"NOTIFY_COMMAND", "a command run for each selected event, the event's JSON on stdin", func(c *Config) string { return c.NotifyCommand }},
	{"NOTIFY_WEBHOOK", "a URL each selected event is POSTed to", func(c *Config) string { return urlHost(c.NotifyWebhook) }},
	{"NOTIFY_DESKTOP", "runs notify-send, osascript or PowerShell for each selected event", func(c *Config) string { return strconv.FormatBool(c.NotifyDesktop) }},
	{"EVENTS_FILE", "a file the event stream is appended to; may be outside the project", func(c *Config) string { return c.EventsFile }},
	{"SERVE_ADDR", "the web dashboard's address: beyond loopback, other machines reach it", func(c *Config) string { return c.ServeAddr }},
	{"SERVE_TOKEN", "the web dashboard's token: with it, other machines may use the page", func(*Config) string { return "(set)" }},
	{"SERVE_CONTROL", "lets the web dashboard pause, skip and stop the loop", func(c *Config) string { return strconv.FormatBool(c.ServeControl) }},
	{"TASK_SOURCES", "runs the trackers' CLIs (bd, gh) as you before each loop, to import tasks into the plan", func(c *Config) string { return strings.Join(c.TaskSources, ",") }},
	{"TASK_WRITEBACK", "claims tracker items and comments on or closes them under your identity", func(c *Config) string { return strconv.FormatBool(c.TaskWriteback) }},
	{"GITHUB_CLOSE_ISSUES", "closes done GitHub issues under your identity (with TASK_WRITEBACK)", func(c *Config) string { return strconv.FormatBool(c.GithubCloseIssues) }},
	{"SANDBOX", "whether the agent and the gates are confined (off: they run with your rights)", func(c *Config) string { return c.Sandbox }},
	{"SANDBOX_NETWORK", "whether the sandboxed agent reaches the network", func(c *Config) string { return strconv.FormatBool(c.SandboxNetwork) }},
	{"SANDBOX_IMAGE", "the container image the agent and the gates run in (its entry point runs too)", func(c *Config) string { return c.SandboxImage }},
	{"SANDBOX_READ", "more of your files the sandboxed agent and gates may read", func(c *Config) string { return strings.Join(c.SandboxRead, ":") }},
}

// urlHost is a URL shown up to its host.
func urlHost(s string) string {
	if u, err := url.Parse(s); err == nil && u.Host != "" {
		return u.Scheme + "://" + u.Host + "/…"
	}
	return "(set)"
}

// Reached is a reachKey that is set, with its value as shown to a person
// and where it came from.
type Reached struct {
	reachKey
	Value  string
	Source Source
}

// Reach is every reachKey that is set (not at its default, nor derived from
// another key that is listed), in reachKeys' order.
func (c *Config) Reach() []Reached {
	var out []Reached
	for _, k := range reachKeys {
		src := c.Sources[k.Key]
		if src.Kind == SourceDefault || src.Kind == sourceDerived || src.Kind == "" {
			continue
		}
		out = append(out, Reached{reachKey: k, Value: clip.Value(k.value(c)), Source: src})
	}
	return out
}
