package analysis

import (
	"regexp"
	"strconv"
	"strings"
)

// Usage limits. Structured signals count first and always: Claude's
// rate_limit_event with status "rejected", an API error status 429 (or
// error "rate_limit"), and CLI error events that name a limit. Phrases such
// as "5-hour limit" only count in what the agent itself printed, only when
// the call failed (non-zero exit or a reported error) and never when it timed
// out: a successful reply that talks about usage limits is not one.

// limitText are the bash loop's phrases plus the wording of
// today's CLIs. Matched per line, case-insensitively.
var limitText = regexp.MustCompile(`(?i)5.*hour.*limit|limit.*reached.*try.*back|usage.*limit.*reached|hit your .*limit|out of extra usage`)

// limitError is looser: it is only applied to error messages the CLI itself
// emitted (Codex and OpenCode error events, Claude's errors[]).
var limitError = regexp.MustCompile(`(?i)rate.?limit|usage.?limit|\b429\b|too many requests|quota|hit your .*limit`)

func detectLimit(res *Result, p *parsed, raw *textFacts, opts Options) {
	set := func(reason string) {
		if !res.UsageLimited {
			res.UsageLimited, res.UsageLimitReason = true, reason
		}
	}
	if p != nil {
		if p.rlRejected {
			reason := "rate_limit_event rejected"
			if p.rlType != "" {
				reason += " (" + p.rlType + ")"
			}
			set(reason)
			if n, err := strconv.ParseInt(p.rlResetsAt, 10, 64); err == nil && n > 0 {
				res.UsageLimitResetsAt = n
			} else if f, err := strconv.ParseFloat(p.rlResetsAt, 64); err == nil && f > 0 {
				res.UsageLimitResetsAt = int64(f)
			}
		}
		if p.api429 {
			set("API error 429 (rate limit)")
		}
		for _, m := range p.errMsgs {
			if limitError.MatchString(m) {
				set("CLI error: " + cutBytes([]byte(m), 200))
			}
		}
	}
	if opts.TimedOut || (opts.ExitCode == 0 && !res.IsError) {
		return
	}
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
		if limitText.MatchString(l) {
			set("agent said: " + cutBytes([]byte(strings.TrimSpace(l)), 200))
			return
		}
	}
}
