package events

import (
	"strings"
	"testing"
	"time"

	"github.com/ralphloop/ralph_loop/internal/quota"
)

// The golden words of the usage governor (docs/USAGE-LIMITS.md), at the
// machine's local times.
func TestQuotaWords(t *testing.T) {
	now := time.Date(2026, 2, 18, 14, 10, 0, 0, time.Local)
	reset, reported, full := now.Add(4*time.Hour), now.Add(-8*time.Minute), now.Add(95*time.Minute)
	r := quota.Reading{Account: "claude-code", Window: "five_hour", At: now, Used: new(86.44), Estimated: true, Reported: new(80.0), ReportedAt: &reported,
		CallsSince: 3, TokensSince: 64000, ResetsAt: &reset, Calls: 12, Tokens: 1_234_567, PerHour: 8.5, FullAt: &full,
		Runs: []quota.RunSpend{{Run: "a#1", PID: 4242, Project: "/home/me/work/app", Calls: 8, Tokens: 800_000}, {Run: "b#2", PID: 4250, Project: "/srv/\x1b[31mapi", Calls: 4, Tokens: 9_500}}}
	for _, tc := range []struct{ got, want string }{
		{UsageReading(r, now), "five_hour 86.4% (estimated): 80% reported at 14:02, 3 calls since, resets 18:10; this machine: 12 calls, 1.2M tokens; at this rate (8.5%/h) used up at 15:45"},
		{UsageRuns(r, "/home/me"), "~/work/app (pid 4242) 8 calls, 800k tokens; /srv/\\u001b[31mapi (pid 4250) 4 calls, 9.5k tokens"},
		{UsageReserve(15), "15% of every window kept for you (the loops wait for the reset at 85%)"},
		{UsageReserve(0), ""},
		{UsageReading(quota.Reading{Window: "seven_day", At: now, Used: new(41.5), Reported: new(41.5), ReportedAt: &reported, Calls: 2, Tokens: 900}, now),
			"seven_day 41.5% reported at 14:02; this machine: 2 calls, 900 tokens"},
		{UsageReading(quota.Reading{Window: "five_hour", At: now, Used: new(80.0), Reported: new(80.0), ReportedAt: &reported, CallsSince: 2, Calls: 5}, now),
			"five_hour 80%, as reported at 14:02 (2 calls since, not yet learned what one uses); this machine: 5 calls, 0 tokens"},
		{UsageReading(quota.Reading{Window: "five_hour", At: now, Used: new(8.0), Estimated: true, CallsSince: 2, ResetsAt: &reset, ResetGuessed: true, Calls: 2}, now),
			"five_hour 8% (estimated): 2 calls since the reset, resets 18:10 (estimated); this machine: 2 calls, 0 tokens"},
		{UsageReading(quota.Reading{Window: "primary", At: now, CallsSince: 1, Calls: 1}, now),
			"primary unknown (1 call since the reset, not yet learned what one uses); this machine: 1 call, 0 tokens"},
		{UsageProjection(ProjectionOf(r, quota.Crossing{Rule: quota.Rule{Window: "five_hour", Kind: quota.Soft, Percent: 90, From: quota.FromLimits}, At: now.Add(25 * time.Minute)}), now),
			"at this rate (8.5%/h) the five_hour window reaches 90% (USAGE_LIMITS five_hour:soft:90) at 14:35, before it resets at 18:10 (now 86.4%, estimated)"},
		{UsageProjection(ProjectionOf(r, quota.Crossing{Rule: quota.Rule{Window: "five_hour", Percent: 100}, At: now.Add(49 * time.Hour)}), now),
			"at this rate (8.5%/h) the five_hour window reaches 100% (used up) at Fri 15:10, before it resets at 18:10 (now 86.4%, estimated)"},
	} {
		if tc.got != tc.want {
			t.Errorf("\n got %q\nwant %q", tc.got, tc.want)
		}
	}
	hold := QuotaHold{Rule: quota.Rule{Window: quota.Every, Kind: quota.Hard, Percent: 85, From: quota.FromLimits}, Reading: r}
	if got, want := (Stop{Kind: StopUsageHard, Hold: &hold}).Sentence(),
		"usage of the five_hour window on this machine reached 86.4% (estimated) (USAGE_LIMITS *:hard:85); it resets at "+resetTime(reset)+": run ralph_loop again after the reset"; got != want {
		t.Errorf("stop line\n got %q\nwant %q", got, want)
	}
	// A threshold the person set, reached: an INFO, as --max-cost's is.
	if got := golden(condition(Stop{Kind: StopUsageHard, Hold: &hold}).Lines(Moment{TS: now})); len(got) != 1 || !strings.HasPrefix(got[0], "INFO usage of the five_hour window on this machine reached 86.4%") {
		t.Errorf("hard threshold's stop line = %q, want one INFO line", got)
	}
	hold.Rule, hold.Reserve = quota.Rule{Window: quota.Every, Kind: quota.Soft, Percent: 85, From: quota.FromReserve}, 15
	lines := golden((Wait{Kind: WaitUsageSoft, Until: reset.Add(5 * time.Second), Quota: &hold}).LimitLines(Moment{TS: now}))
	want := []string{
		"WARN ⏸️  Usage of the five_hour window reached 86.4% (estimated), USAGE_RESERVE_PERCENT=15: no new call until it resets (until 18:10)",
		"INFO   five_hour 86.4% (estimated): 80% reported at 14:02, 3 calls since, resets 18:10; this machine: 12 calls, 1.2M tokens; at this rate (8.5%/h) used up at 15:45",
		"INFO   runs spending it: /home/me/work/app (pid 4242) 8 calls, 800k tokens; /srv/\\u001b[31mapi (pid 4250) 4 calls, 9.5k tokens",
		"INFO   reserve: 15% of every window kept for you (the loops wait for the reset at 85%)",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("the wait's lines:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}
