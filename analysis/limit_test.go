package analysis

import (
	"testing"
	"time"
)

func TestResetFromText(t *testing.T) {
	t.Parallel()
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Skip("no time zone data")
	}
	now := time.Date(2026, 2, 18, 22, 30, 0, 0, time.UTC)
	for _, tc := range []struct {
		text string
		want time.Time
	}{
		{"5-hour limit reached ∙ resets 2am", time.Date(2026, 2, 19, 2, 0, 0, 0, time.UTC)},
		{"5-hour limit reached ∙ resets 11pm", time.Date(2026, 2, 18, 23, 0, 0, 0, time.UTC)},
		{"You've hit your limit · resets 5pm (Europe/Paris)", time.Date(2026, 2, 19, 17, 0, 0, 0, paris)},
		{"Weekly limit reached ∙ resets Feb 20, 9am", time.Time{}}, // a date is not read: no guess
		{"or try again at 3:15 PM.", time.Date(2026, 2, 19, 15, 15, 0, 0, time.UTC)},
		{"try again in 2 hours", now.Add(2 * time.Hour)},
		{"Claude AI usage limit reached|1771390800", time.Unix(1771390800, 0)},
		{"usage limit reached", time.Time{}},
	} {
		got := resetFromText(tc.text, now)
		want := int64(0)
		if !tc.want.IsZero() {
			want = tc.want.Unix()
		}
		if got != want {
			t.Errorf("%q: %v, want %v", tc.text, time.Unix(got, 0).UTC(), tc.want.UTC())
		}
	}
	if got := resetFromText("resets 2am", time.Time{}); got != 0 {
		t.Errorf("a clock time without the analysis time: %d", got)
	}
}

func TestWindowFromText(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]string{
		"5-hour limit reached ∙ resets 2am":      "five_hour",
		"Weekly limit reached":                   "seven_day",
		"Opus weekly limit reached ∙ resets Mon": "seven_day_opus",
		"usage limit reached":                    "",
	} {
		if got := windowFromText(text); got != want {
			t.Errorf("%q: %q, want %q", text, got, want)
		}
	}
}
