package config

import (
	"net/url"
	"strconv"
	"strings"
)

// ReachKey is a key that starts a program, decides what the agent may do
// without asking, or sends data off the machine: what to check in a
// .ralphrc you did not write.
type ReachKey struct {
	Key  string
	Does string
}

// ReachKeys are all of them, in the order README's "What runs" section and
// --dry-run list them.
var ReachKeys = []ReachKey{
	{"PLATFORM_DRIVER", "picks the agent CLI that runs each loop"},
	{"AGENT_COMMAND", "the agent's command line, run as it is written (PLATFORM_DRIVER=command)"},
	{"FALLBACK_DRIVER", "a second agent CLI, run when the first is at its usage limit"},
	{"TEST_COMMAND", "a shell command (bash -c) run after loops as a quality gate"},
	{"QUALITY_GATES", "shell commands (bash -c) run after loops as quality gates"},
	{"ALLOWED_TOOLS", "what Claude Code may do without asking (Bash(...) patterns run commands)"},
	{"CLAUDE_PERMISSION_MODE", "how Claude Code asks before it acts (bypassPermissions: never)"},
	{"REVIEW_MODE", "extra agent calls that review the code"},
	{"REVIEW_ENABLED", "extra agent calls that review the code"},
	{"PROMPT_FILE", "the file handed to the agent (and so to its provider) each loop; may be outside the project"},
	{"NOTIFY_COMMAND", "a command run for each selected event, the event's JSON on stdin"},
	{"NOTIFY_WEBHOOK", "a URL each selected event is POSTed to"},
	{"NOTIFY_DESKTOP", "runs notify-send, osascript or PowerShell for each selected event"},
	{"EVENTS_FILE", "a file the event stream is appended to; may be outside the project"},
	{"SERVE_ADDR", "the web dashboard's address: beyond loopback, other machines reach it"},
	{"SERVE_TOKEN", "the web dashboard's token: with it, other machines may use the page"},
	{"SERVE_CONTROL", "lets the web dashboard pause, skip and stop the loop"},
}

// Reached is a ReachKey that is set, with its value as shown to a person
// and where it came from.
type Reached struct {
	ReachKey
	Value  string
	Source Source
}

// FromRepository reports whether the value came from a .ralphrc: a file of
// the project, which whoever wrote the repository chose.
func (r Reached) FromRepository() bool { return r.Source.Kind == SourceFile }

// Reach is every ReachKey that is set (not at its default, nor derived from
// another key that is listed), in ReachKeys' order.
// SERVE_TOKEN's value is never shown, NOTIFY_WEBHOOK's only up to its host
// (the rest of such a URL is often its secret).
func (c *Config) Reach() []Reached {
	var out []Reached
	for _, k := range ReachKeys {
		src := c.Sources[k.Key]
		if src.Kind == SourceDefault || src.Kind == SourceDerived || src.Kind == "" {
			continue
		}
		out = append(out, Reached{ReachKey: k, Value: show(c.reachValue(k.Key)), Source: src})
	}
	return out
}

func (c *Config) reachValue(key string) string {
	switch key {
	case "PLATFORM_DRIVER":
		return c.Driver
	case "AGENT_COMMAND":
		return c.AgentCommand
	case "FALLBACK_DRIVER":
		return c.FallbackDriver
	case "TEST_COMMAND":
		return c.TestCommand
	case "QUALITY_GATES":
		return strings.Join(c.QualityGates, ";")
	case "ALLOWED_TOOLS":
		return strings.Join(c.AllowedTools, ",")
	case "CLAUDE_PERMISSION_MODE":
		return c.PermissionMode
	case "REVIEW_MODE":
		return c.ReviewMode
	case "REVIEW_ENABLED":
		return strconv.FormatBool(c.ReviewEnabled)
	case "PROMPT_FILE":
		return c.PromptFile
	case "NOTIFY_COMMAND":
		return c.NotifyCommand
	case "NOTIFY_WEBHOOK":
		if u, err := url.Parse(c.NotifyWebhook); err == nil && u.Host != "" {
			return u.Scheme + "://" + u.Host + "/…"
		}
		return "(set)"
	case "NOTIFY_DESKTOP":
		return strconv.FormatBool(c.NotifyDesktop)
	case "EVENTS_FILE":
		return c.EventsFile
	case "SERVE_ADDR":
		return c.ServeAddr
	case "SERVE_TOKEN":
		return "(set)"
	case "SERVE_CONTROL":
		return strconv.FormatBool(c.ServeControl)
	}
	return ""
}
