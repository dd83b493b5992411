package drivers

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/ralphloop/ralph_loop/internal/clip"
)

// FailureClass says what a failed agent call's error text tells of the
// next call.
type FailureClass uint8

// The classes of a failed call.
const (
	// FailureUnknown: nothing recognised; the failure guard counts it.
	FailureUnknown FailureClass = iota
	// FailureTransient: the provider or the way to it failed (overloaded,
	// a 5xx, a model at capacity, a connection error, a timeout reaching
	// the API); the loop waits it out.
	FailureTransient
	// FailurePermanent: the agent's setup is wrong (not logged in, an
	// invalid API key, an unknown model, a command line the CLI rejects,
	// a missing CLI); another call will fail the same way.
	FailurePermanent
)

// diagnosed is a driver of a CLI whose error messages are known: the
// shapes that tell a transient failure from a permanent one.
type diagnosed interface{ errorPatterns() []errorPattern }

// errorPattern is one shape of an agent CLI's error messages.
type errorPattern struct {
	Class FailureClass
	// Re is matched against one line of the error text at a time.
	Re *regexp.Regexp
	// Cause says what the message means, as a sentence a person reads:
	// "Claude Code is not logged in or its API key is invalid".
	Cause string
	// Fix says what to do about a permanent failure: "run `claude` once
	// and /login". Transient patterns leave it empty.
	Fix string
}

// Diagnosis is what a failed call's error text says.
type Diagnosis struct {
	Class FailureClass
	Cause string // errorPattern.Cause
	Fix   string // errorPattern.Fix
	Said  string // the line that matched, trimmed and clipped to 200 bytes
}

// maxSaid is the longest quote of the agent's line in a diagnosis.
const maxSaid = 200

// Diagnose reads the error text of a failed call — what the CLI printed
// as its error, its reply, the end of its stderr — with d's patterns. It
// looks at the last line first (a CLI prints its final error last) and
// takes the first pattern that matches that line, permanent ones before
// transient ones in each driver's list; the zero Diagnosis
// (FailureUnknown) when no line matches.
func Diagnose(d Driver, text string) Diagnosis {
	known, ok := d.(diagnosed)
	if !ok {
		return Diagnosis{}
	}
	pats := known.errorPatterns()
	if len(pats) == 0 {
		return Diagnosis{}
	}
	lines := strings.Split(text, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		line := strings.TrimSpace(lines[i])
		if line == "" {
			continue
		}
		for _, p := range pats {
			if p.Re.MatchString(line) {
				return Diagnosis{Class: p.Class, Cause: p.Cause, Fix: p.Fix, Said: quote(line)}
			}
		}
	}
	return Diagnosis{}
}

// NotStarted is the diagnosis of a call that could not be started
// because err: a CLI that is not installed (or not on PATH: missing, as
// the caller that started it tells) is a permanent failure whose fix is
// its install command; any other start error is FailureUnknown.
func NotStarted(d Driver, argv0 string, err error, missing bool) Diagnosis {
	if !missing {
		return Diagnosis{}
	}
	if d.Install() == "" {
		return Diagnosis{Class: FailurePermanent, Cause: "the agent command " + argv0 + " was not found",
			Fix: "check AGENT_COMMAND and PATH", Said: quote(err.Error())}
	}
	return Diagnosis{Class: FailurePermanent, Cause: d.DisplayName() + " (" + argv0 + ") was not found",
		Fix: "install it with `" + d.Install() + "` or put it on PATH", Said: quote(err.Error())}
}

// quote is a line the agent printed, fit to be shown: control characters
// (a terminal escape sequence the agent's output may carry) are dropped
// and it is clipped to maxSaid bytes.
func quote(line string) string {
	line = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, line)
	return clip.Bytes(line, maxSaid)
}

// re compiles a case-insensitive pattern.
func re(p string) *regexp.Regexp { return regexp.MustCompile(`(?i)` + p) }

// transient is a transient pattern with its cause.
func transient(p, cause string) errorPattern {
	return errorPattern{Class: FailureTransient, Re: re(p), Cause: cause}
}

// permanent is a permanent pattern with its cause and fix.
func permanent(p, cause, fix string) errorPattern {
	return errorPattern{Class: FailurePermanent, Re: re(p), Cause: cause, Fix: fix}
}

// Causes shared by the drivers' transient patterns.
const (
	causeOverloaded = "the provider is overloaded"
	causeServer     = "the provider's API failed with a server error"
	causeNetwork    = "the provider's API could not be reached"
	causeTimeout    = "the provider's API did not answer in time"
)

// networkErrors are the transient failures every Node or Rust CLI reports
// in the same words: the operating system's and the HTTP client's. Like
// every driver's patterns, they are compiled when a failure is first
// diagnosed, not at start-up (compiling them all took 4 ms of every run).
func networkErrors() []errorPattern {
	return []errorPattern{
		transient(`\b(ECONNRESET|ECONNREFUSED|ECONNABORTED|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|ENETUNREACH|EHOSTUNREACH|EPIPE)\b|socket hang up|fetch failed|connection (reset|refused|closed|error)|network (error|is unreachable)|error sending request|dns error|tls handshake`, causeNetwork),
		transient(`\b(502 Bad Gateway|503 Service Unavailable|504 Gateway Time-?out|500 Internal Server Error)\b`, causeServer),
	}
}

// providerErrors are the transient failures of a provider's API in the
// words most CLIs pass on: an overloaded or failing server, a model at
// capacity, a request that timed out, a per-minute rate limit.
func providerErrors() []errorPattern {
	return []errorPattern{
		transient(`overloaded|\b529\b.*(error|status)|(error|status)\D{0,3}\b529\b`, causeOverloaded),
		transient(`at capacity|high demand|capacity constraints`, "the model is at capacity"),
		transient(`(status|error|code)\D{0,3}\b(500|502|503|504)\b|internal server error|service unavailable|bad gateway|gateway time-?out`, causeServer),
		transient(`request timed out|operation timed out|timed out waiting|deadline exceeded`, causeTimeout),
		transient(`rate limit reached|rate_limit_error|too many requests|\b429\b`, "the provider is limiting the rate of requests"),
	}
}

// modelUnknown is the permanent pattern of a model the provider does not
// offer (or not to this account), with the fix for agent.
func modelUnknown(agent, fix string) errorPattern {
	return permanent(`model\S*\s.{0,80}(not found|does not exist|not available|not supported|no access)|unknown model|invalid model|model_not_found|ModelNotFound`,
		agent+" cannot use the model it was asked for", fix)
}

// patterns joins a driver's own patterns and the shared ones, in order.
func patterns(lists ...[]errorPattern) []errorPattern {
	var out []errorPattern
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}
