package console

import (
	"testing"
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
)

func TestRenderDriverSwitch(t *testing.T) {
	until := time.Date(2030, 1, 2, 15, 4, 5, 0, time.Local)
	for _, tc := range []struct {
		n    events.DriverSwitch
		want string
	}{
		{events.DriverSwitch{From: "Claude Code", To: "OpenAI Codex", Why: events.SwitchUsageLimit, Until: until},
			"WARN 🔁 Claude Code is at its usage limit: going on with OpenAI Codex until 2030-01-02 15:04:05, then back to Claude Code"},
		{events.DriverSwitch{From: "OpenAI Codex", To: "Claude Code", Why: events.SwitchUsageLimit},
			"WARN 🔁 OpenAI Codex is at its usage limit: going on with Claude Code"},
		{events.DriverSwitch{From: "OpenAI Codex", To: "Claude Code", Why: events.SwitchReset},
			"SUCCESS 🔁 Claude Code's usage limit has reset: back to Claude Code (from OpenAI Codex)"},
	} {
		if _, got := render(Options{}, tc.n); got != logged(tc.want) {
			t.Errorf("%+v:\n got %q\nwant %q", tc.n, got, logged(tc.want))
		}
	}
}
