package quota

import (
	"slices"
	"strings"
	"testing"
)

func TestParseLimits(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    string // the rules, as String writes them, comma-separated
		unknown string
		err     string
	}{
		{in: "", want: ""},
		{in: " , ", want: ""},
		{in: "five_hour:soft:85,seven_day:hard:75", want: "five_hour:soft:85,seven_day:hard:75"},
		{in: " *:HARD:90 ", want: "*:hard:90"},
		{in: "primary:soft:80%, secondary:hard:99.5", want: "primary:soft:80,secondary:hard:99.5"},
		{in: "five_hour:soft:100", want: "five_hour:soft:100"},
		{in: "five_hours:soft:85", want: "five_hours:soft:85", unknown: "five_hours"},
		{in: "five_hour:soft:0", err: "entry 1 (five_hour:soft:0): the percent must be above 0 and at most 100"},
		{in: "five_hour:soft:101", err: "above 0 and at most 100"},
		{in: "five_hour:soft:-5", err: "must be a number"},
		{in: "five_hour:soft:lots", err: "must be a number"},
		{in: "five_hour:pause:80", err: "entry 1 (five_hour:pause:80): the kind must be soft (wait for the reset) or hard (stop)"},
		{in: "five_hour:80", err: "expected window:kind:percent"},
		{in: "a:b:c:d", err: "expected window:kind:percent"},
		{in: "Five-Hour:soft:80", err: "the window must be *"},
		{in: "seven_day:hard:75,:soft:80", err: "entry 2"},
		{in: strings.Repeat("*:soft:90,", MaxRules+1), err: "more than 32 entries"},
	} {
		rules, unknown, err := ParseLimits(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseLimits(%q) error = %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseLimits(%q): %v", tc.in, err)
			continue
		}
		var got []string
		for _, r := range rules {
			got = append(got, r.String())
			if r.From != FromLimits {
				t.Errorf("%v.From = %q", r, r.From)
			}
		}
		if strings.Join(got, ",") != tc.want || strings.Join(unknown, ",") != tc.unknown {
			t.Errorf("ParseLimits(%q) = %q, unknown %q; want %q, %q", tc.in, got, unknown, tc.want, tc.unknown)
		}
	}
}

// The shorthands: USAGE_STOP_PERCENT=N is *:hard:N, a reserve R is
// *:soft:100-R; For lists a window's rules, the lowest first, a hard one
// before a soft one at the same percent; a window's own rules and the
// "*" ones all apply.
func TestPolicyRules(t *testing.T) {
	limits, _, _ := ParseLimits("five_hour:soft:85,seven_day:hard:75,*:soft:95")
	p := Policy{Limits: limits, Stop: 90, Reserve: 15}
	for _, tc := range []struct{ window, want string }{
		{"five_hour", "five_hour:soft:85,*:soft:85,*:hard:90,*:soft:95"},
		{"seven_day", "seven_day:hard:75,*:soft:85,*:hard:90,*:soft:95"},
		{"primary", "*:soft:85,*:hard:90,*:soft:95"},
	} {
		var got []string
		for _, r := range p.For(tc.window) {
			got = append(got, r.String())
		}
		if strings.Join(got, ",") != tc.want {
			t.Errorf("For(%s) = %s, want %s", tc.window, strings.Join(got, ","), tc.want)
		}
	}
	var settings []string
	for _, r := range p.Rules() {
		settings = append(settings, r.Setting())
	}
	want := []string{"USAGE_LIMITS five_hour:soft:85", "USAGE_LIMITS seven_day:hard:75", "USAGE_LIMITS *:soft:95", "USAGE_STOP_PERCENT=90", "USAGE_RESERVE_PERCENT=15"}
	if !slices.Equal(settings, want) {
		t.Errorf("settings = %q, want %q", settings, want)
	}
	if len((Policy{}).Rules()) != 0 {
		t.Error("an empty policy has rules")
	}
}
