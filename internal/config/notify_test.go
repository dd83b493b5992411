package config

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestNotifyKeys(t *testing.T) {
	c, _ := setup{
		args: []string{"--notify-on", "run_finished, usage_updated", "--notify-desktop", "--notify-webhook", "https://hooks.example.com/T0/B0/secret"},
		env:  map[string]string{"HOOK": "/opt/hook.sh", "NOTIFY_TIMEOUT": "3s"},
		rc:   rc(`NOTIFY_COMMAND='"$HOOK" --tag "ralph loop"'`),
	}.mustLoad(t)
	got := []any{c.NotifyOn, c.NotifyArgv, c.NotifyWebhook, c.NotifyDesktop, c.NotifyTimeout}
	want := []any{[]string{"run_finished", "usage_updated"}, []string{"/opt/hook.sh", "--tag", "ralph loop"},
		"https://hooks.example.com/T0/B0/secret", true, 3 * time.Second}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("notify keys (-want +got):\n%s", diff)
	}
}

func TestNotifyRefusals(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    setup
		want string
	}{
		{"webhook not http", setup{args: []string{"--notify-webhook", "ftp://example.com/secret-path"}}, "Invalid NOTIFY_WEBHOOK (--notify-webhook); expected an http:// or https:// URL with a host"},
		{"webhook without host", setup{env: map[string]string{"NOTIFY_WEBHOOK": "https:///secret-path"}}, "Invalid NOTIFY_WEBHOOK (env NOTIFY_WEBHOOK)"},
		{"bad event name", setup{args: []string{"--notify-on", "run finished"}}, "Invalid --notify-on: 'run finished'"},
		{"command substitution", setup{env: map[string]string{"NOTIFY_COMMAND": "hook $(id)"}}, "Invalid NOTIFY_COMMAND: 'hook $(id)' (env NOTIFY_COMMAND); command substitution is not allowed"},
		{"timeout zero", setup{env: map[string]string{"NOTIFY_TIMEOUT": "0"}}, "Invalid NOTIFY_TIMEOUT: '0' (env NOTIFY_TIMEOUT); expected a duration > 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := tc.s.load(t)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "secret-path") {
				t.Errorf("the webhook's path is shown: %v", err)
			}
		})
	}
}
