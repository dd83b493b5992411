package config

import (
	"strings"
	"testing"
	"time"
)

func TestOutageKeys(t *testing.T) {
	c, _ := setup{args: []string{"--retry-max-delay", "10m"}, env: map[string]string{"OUTAGE_MAX": "2h"}, rc: rc("RETRY_MAX_DELAY=1h\nOUTAGE_MAX=1d\n")}.mustLoad(t)
	if c.RetryMaxDelay != 10*time.Minute || c.OutageMax != 2*time.Hour {
		t.Errorf("flag and env over .ralphrc: RetryMaxDelay %v, OutageMax %v", c.RetryMaxDelay, c.OutageMax)
	}
	c, _ = setup{rc: rc("OUTAGE_MAX=0\n")}.mustLoad(t)
	if c.OutageMax != 0 || c.RetryMaxDelay != 30*time.Minute {
		t.Errorf("OUTAGE_MAX=0 (no limit): OutageMax %v, RetryMaxDelay %v", c.OutageMax, c.RetryMaxDelay)
	}
	for _, tc := range []struct {
		s    setup
		want string
	}{
		{setup{args: []string{"--retry-max-delay", "0"}}, "Invalid --retry-max-delay: '0'; expected a duration > 0 such as 30m"},
		{setup{env: map[string]string{"OUTAGE_MAX": "soon"}}, "Invalid OUTAGE_MAX: 'soon' (env OUTAGE_MAX); expected a duration"},
	} {
		if _, _, err := tc.s.load(t); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}
