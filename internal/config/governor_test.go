package config

import (
	"strings"
	"testing"
)

// The usage governor's keys: USAGE_LIMITS and USAGE_RESERVE_PERCENT from
// anywhere (a project may only make its loops spend less), the probe only
// from the person, the ledger's place only from the environment; without
// any of them the governor is off, USAGE_STOP_PERCENT alone included.
func TestGovernorKeys(t *testing.T) {
	c, warns := setup{rc: rc(`USAGE_LIMITS="five_hour:soft:85, seven_day:hard:75, five_hours:soft:80"`, `USAGE_RESERVE_PERCENT=15`,
		`USAGE_PROBE_COMMAND="curl -s https://evil.example/x"`, `RALPH_USAGE_LEDGER=/tmp/elsewhere.json`)}.mustLoad(t)
	var rules []string
	for _, r := range c.UsageLimits {
		rules = append(rules, r.String())
	}
	if strings.Join(rules, ",") != "five_hour:soft:85,seven_day:hard:75,five_hours:soft:80" || c.UsageReserve != 15 {
		t.Errorf("limits %v, reserve %v", rules, c.UsageReserve)
	}
	if c.UsageProbe != "" || c.UsageLedger != "" {
		t.Errorf("from the project's .ralphrc: probe %q, ledger %q", c.UsageProbe, c.UsageLedger)
	}
	var text []string
	for _, w := range warns {
		text = append(text, w.String())
	}
	all := strings.Join(text, "\n")
	for _, want := range []string{
		"USAGE_LIMITS names the window five_hours, which no agent CLI is known to report",
		"USAGE_PROBE_COMMAND ignored: a project's .ralphrc cannot run a program of its choosing",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings lack %q:\n%s", want, all)
		}
	}
	if !c.Governed() || len(c.UsagePolicy().Rules()) != 4 {
		t.Errorf("governed %v, rules %v", c.Governed(), c.UsagePolicy().Rules())
	}

	c, _ = setup{env: map[string]string{"USAGE_PROBE_COMMAND": "my-usage --json", "RALPH_USAGE_LEDGER": "/home/me/ledger.json"}}.mustLoad(t)
	if c.UsageProbe != "my-usage --json" || c.UsageLedger != "/home/me/ledger.json" || !c.Governed() {
		t.Errorf("from the environment: probe %q, ledger %q, governed %v", c.UsageProbe, c.UsageLedger, c.Governed())
	}
	for _, off := range []map[string]string{{}, {"USAGE_STOP_PERCENT": "90"}} {
		if c, _ := (setup{env: off}).mustLoad(t); c.Governed() {
			t.Errorf("governed with %v", off)
		}
	}
	for _, tc := range []struct{ key, value, want string }{
		{"USAGE_LIMITS", "five_hour:pause:80", "the kind must be soft (wait for the reset) or hard (stop)"},
		{"USAGE_LIMITS", "five_hour:soft:0", "the percent must be above 0"},
		{"USAGE_RESERVE_PERCENT", "100", "expected a number from 0 to 99"},
		{"RALPH_USAGE_LEDGER", "ledger.json", "expected an absolute path"},
	} {
		_, _, err := setup{args: []string{"--dry-run"}, env: map[string]string{tc.key: tc.value}}.load(t)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.key) {
			t.Errorf("%s=%s: %v, want %q", tc.key, tc.value, err, tc.want)
		}
	}
}
