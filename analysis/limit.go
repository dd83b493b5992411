package analysis

import (
	"regexp"
	"strings"

	"github.com/ralphloop/ralph_loop/internal/lazyre"
)

// Usage limits. Structured signals count first and always: a usage window
// the CLI reported as rejected (Claude's rate_limit_event, a Codex snapshot
// at 100 %), an API error status 429 (or error "rate_limit"), and CLI error
// events that name a limit. Phrases such as "5-hour limit" only count in
// what the agent itself printed, only when the call failed (non-zero exit
// or a reported error) and never when it timed out: a successful reply
// that talks about usage limits is not one. Tool results (a file the agent
// read) are never the agent's own text and are never read for phrases.

// limitText are the bash loop's phrases plus the wording of
// today's CLIs. Matched per line, case-insensitively.
var limitText = lazyre.Compile(`(?i)5.*hour.*limit|limit.*reached.*try.*back|usage.*limit.*reached|hit your .*limit|out of extra usage`)

// limitError is looser: it is only applied to error messages the CLI itself
// emitted (Codex and OpenCode error events, Claude's errors[]).
var limitError = lazyre.Compile(`(?i)rate.?limit|usage.?limit|\b429\b|too many requests|quota|hit your .*limit`)

func detectLimit(res *Result, p *Reply, raw *Facts, opts Options) {
	said := structuredLimit(res, p, opts)
	if !res.UsageLimited && !opts.TimedOut && (opts.ExitCode != 0 || res.IsError) {
		if l, ok := limitLine(res, p, raw, opts); ok {
			res.UsageLimited, res.UsageLimitReason = true, "agent said: "+cutBytes([]byte(strings.TrimSpace(l)), 200)
			said = l
		}
	}
	if !res.UsageLimited {
		return
	}
	if said == "" && p != nil && len(p.ErrorMessages) > 0 {
		said = strings.Join(p.ErrorMessages, "\n")
	}
	if said == "" {
		said = res.ResultText
		if len(said) > 4096 {
			said = said[len(said)-4096:]
		}
	}
	if res.UsageLimitWindow == "" {
		res.UsageLimitWindow = windowFromText(said)
	}
	if res.UsageLimitResetsAt == 0 {
		res.UsageLimitResetsAt = resetFromText(said, opts.Now)
	}
}

// structuredLimit reads the limits a JSON output reports whatever the
// call's ending: a rejected window, an API 429, a CLI error naming a
// limit. It returns the error message that told of it ("" for the others).
func structuredLimit(res *Result, p *Reply, opts Options) string {
	if p == nil {
		return ""
	}
	for _, w := range res.UsageWindows {
		if w.Status != LimitRejected {
			continue
		}
		reason := "rate_limit_event rejected"
		if w.Window == "primary" || w.Window == "secondary" {
			reason = "rate-limit snapshot at 100%"
		}
		if w.Window != "" {
			reason += " (" + w.Window + ")"
		}
		res.UsageLimited, res.UsageLimitReason = true, reason
		res.UsageLimitWindow, res.UsageLimitResetsAt = w.Window, w.ResetsAt
		return ""
	}
	if p.API429 {
		res.UsageLimited, res.UsageLimitReason = true, "API error 429 (rate limit)"
		return ""
	}
	for _, m := range p.ErrorMessages {
		if limitError().MatchString(m) || matchAny(opts.LimitPatterns, m) {
			res.UsageLimited, res.UsageLimitReason = true, "CLI error: "+cutBytes([]byte(m), 200)
			return m
		}
	}
	return ""
}

// limitLine is the first line of the agent's own text that tells of a
// usage limit: its reply on a JSON CLI, the output's last lines on a
// plain-text one.
func limitLine(res *Result, p *Reply, raw *Facts, opts Options) (string, bool) {
	var lines []string
	if p == nil {
		lines = raw.LastLines
	} else {
		lines = strings.Split(res.ResultText, "\n")
		if len(lines) > ringSize {
			lines = lines[len(lines)-ringSize:]
		}
	}
	for _, l := range lines {
		if limitText().MatchString(l) || matchAny(opts.LimitPatterns, l) {
			return l, true
		}
	}
	return "", false
}

func matchAny(res []*regexp.Regexp, s string) bool {
	for _, re := range res {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}
