package quota

import (
	"testing"
	"time"
)

func TestDecide(t *testing.T) {
	limits, _, _ := ParseLimits("five_hour:soft:85,seven_day:hard:75")
	p := Policy{Limits: limits}
	early, late := t0.Add(time.Hour), t0.Add(72*time.Hour)
	win := func(name string, used float64, reset *time.Time) Reading {
		return Reading{Window: name, Used: pct(used), ResetsAt: reset}
	}
	for _, tc := range []struct {
		name   string
		p      Policy
		rs     []Reading
		kind   Kind
		window string
		rule   string
	}{
		{"nothing reached", p, []Reading{win("five_hour", 84.9, &early), win("seven_day", 74, &late)}, 0, "", ""},
		{"soft per window", p, []Reading{win("five_hour", 85, &early), win("seven_day", 74, &late)}, Soft, "five_hour", "five_hour:soft:85"},
		{"hard per window", p, []Reading{win("five_hour", 10, &early), win("seven_day", 75, &late)}, Hard, "seven_day", "seven_day:hard:75"},
		{"hard wins over soft", p, []Reading{win("five_hour", 90, &early), win("seven_day", 80, &late)}, Hard, "seven_day", "seven_day:hard:75"},
		{"a hard threshold above a soft one of the same window", Policy{Limits: []Rule{{Window: "five_hour", Kind: Hard, Percent: 82}}, Reserve: 20},
			[]Reading{win("five_hour", 84.7, &early)}, Hard, "five_hour", "five_hour:hard:82"},
		{"between the same window's soft and hard", Policy{Limits: []Rule{{Window: "five_hour", Kind: Hard, Percent: 82}}, Reserve: 20},
			[]Reading{win("five_hour", 81, &early)}, Soft, "five_hour", "*:soft:80"},
		{"a window's threshold is not another's", p, []Reading{win("seven_day", 80, &late), win("five_hour", 80, &early)}[1:], 0, "", ""},
		{"unknown use decides nothing", p, []Reading{{Window: "five_hour"}}, 0, "", ""},
		{"the reserve is a soft stop on every window", Policy{Reserve: 20}, []Reading{win("primary", 80, &early)}, Soft, "primary", "*:soft:80"},
		{"below the reserve", Policy{Reserve: 20}, []Reading{win("primary", 79.9, &early)}, 0, "", ""},
		{"USAGE_STOP_PERCENT is *:hard:N", Policy{Stop: 90}, []Reading{win("secondary", 90, &late)}, Hard, "secondary", "*:hard:90"},
		{"a lower threshold comes before the reserve", Policy{Limits: limits, Reserve: 10}, []Reading{win("five_hour", 86, &early)}, Soft, "five_hour", "five_hour:soft:85"},
		{"of soft windows, the one that resets last", Policy{Reserve: 20},
			[]Reading{win("primary", 90, &early), win("secondary", 81, &late), win("other", 95, nil)}, Soft, "secondary", "*:soft:80"},
	} {
		v := Decide(tc.p, tc.rs)
		if v.Kind != tc.kind || v.Reading.Window != tc.window || (tc.kind != 0 && v.Rule.String() != tc.rule) {
			t.Errorf("%s: %v %q by %v; want %v %q by %s", tc.name, v.Kind, v.Reading.Window, v.Rule, tc.kind, tc.window, tc.rule)
		}
	}
}

// Crossing: the lowest threshold not yet reached that the projection
// reaches before the window resets; none when the reset comes first.
func TestCrossing(t *testing.T) {
	limits, _, _ := ParseLimits("five_hour:soft:85,five_hour:hard:95")
	p := Policy{Limits: limits}
	reset := t0.Add(2 * time.Hour)
	r := Reading{Window: "five_hour", At: t0, Used: pct(60), PerHour: 20, ResetsAt: &reset} // 85 % in 75 minutes
	c, ok := r.Crossing(p)
	if !ok || c.Rule.String() != "five_hour:soft:85" || !c.At.Equal(t0.Add(75*time.Minute)) {
		t.Fatalf("crossing %+v, %v", c, ok)
	}
	if k := c.Key(r); k != "29523000:soft:85" {
		t.Errorf("key %q", k)
	}
	r.Used = pct(86) // past the soft one: the hard one at 95, in 27 minutes
	if c, ok := r.Crossing(p); !ok || c.Rule.Kind != Hard || !c.At.Equal(t0.Add(27*time.Minute)) {
		t.Errorf("past the soft threshold: %+v, %v", c, ok)
	}
	r.Used, r.PerHour = pct(60), 5 // 85 % in 5 hours: after the reset
	if c, ok := r.Crossing(p); ok {
		t.Errorf("the reset comes first: %+v", c)
	}
	r.Used, r.PerHour = pct(96), 10 // no threshold left but the end: 100 % in 24 minutes
	if c, ok := r.Crossing(p); !ok || c.Rule.Percent != 100 || c.Rule.Kind != 0 {
		t.Errorf("the window's end: %+v, %v", c, ok)
	}
	r.ResetsAt = nil
	if _, ok := r.Crossing(p); ok {
		t.Error("crossing without a reset time")
	}
}
