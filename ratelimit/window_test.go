package ratelimit

import (
	"testing"
	"testing/synctest"
	"time"
	_ "time/tzdata" // America/New_York for the DST cases, wherever the tests run

	"github.com/google/go-cmp/cmp"
	"github.com/ralphloop/ralph_loop/internal/countdown"
)

var (
	utc     = time.UTC
	kolkata = time.FixedZone("IST", 5*3600+30*60)      // +05:30
	nepal   = time.FixedZone("NPT", 5*3600+45*60)      // +05:45
	newfie  = time.FixedZone("NST", -(3*3600 + 30*60)) // -03:30
)

func at(loc *time.Location, y int, mo time.Month, d, h, mi, s int) time.Time {
	return time.Date(y, mo, d, h, mi, s, 0, loc)
}

func TestHourKey(t *testing.T) {
	tests := []struct {
		now  time.Time
		want string
	}{
		{at(utc, 2026, 11, 22, 2, 5, 10), "2026112202"},
		{at(kolkata, 2026, 11, 22, 0, 59, 59), "2026112200"},
		{at(utc, 2026, 1, 9, 8, 9, 8), "2026010908"},
		// The same instant has the key of the location it is given in.
		{at(utc, 2026, 11, 22, 23, 45, 0).In(kolkata), "2026112305"},
	}
	for _, tc := range tests {
		if got := HourKey(tc.now); got != tc.want {
			t.Errorf("HourKey(%v) = %q, want %q", tc.now, got, tc.want)
		}
	}
}

func TestRollAllowRecord(t *testing.T) {
	now := at(utc, 2026, 11, 22, 2, 30, 0)
	tests := []struct {
		name       string
		w          Window
		max        int
		wantRoll   Window
		wantRolled bool
		wantAllow  bool
		wantRecord Window
	}{
		{"same hour under limit", Window{"2026112202", 5}, 100,
			Window{"2026112202", 5}, false, true, Window{"2026112202", 6}},
		{"same hour at limit", Window{"2026112202", 3}, 3,
			Window{"2026112202", 3}, false, false, Window{"2026112202", 4}},
		{"same hour over limit", Window{"2026112202", 7}, 3,
			Window{"2026112202", 7}, false, false, Window{"2026112202", 8}},
		{"earlier hour resets", Window{"2001010100", 50}, 3,
			Window{"2026112202", 0}, true, true, Window{"2026112202", 1}},
		{"previous hour at limit resets", Window{"2026112201", 3}, 3,
			Window{"2026112202", 0}, true, true, Window{"2026112202", 1}},
		{"later hour (clock set back) resets", Window{"2026112203", 3}, 3,
			Window{"2026112202", 0}, true, true, Window{"2026112202", 1}},
		{"unknown hour (no .last_reset)", Window{"", 9}, 10,
			Window{"2026112202", 0}, true, true, Window{"2026112202", 1}},
		{"zero max allows nothing", Window{"2026112202", 0}, 0,
			Window{"2026112202", 0}, false, false, Window{"2026112202", 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, rolled := tc.w.Roll(now)
			if diff := cmp.Diff(tc.wantRoll, got); diff != "" || rolled != tc.wantRolled {
				t.Errorf("Roll: rolled=%v (want %v), window (-want +got):\n%s", rolled, tc.wantRolled, diff)
			}
			if a := tc.w.Allow(now, tc.max); a != tc.wantAllow {
				t.Errorf("Allow(max %d) = %v, want %v", tc.max, a, tc.wantAllow)
			}
			if diff := cmp.Diff(tc.wantRecord, tc.w.Record(now)); diff != "" {
				t.Errorf("Record (-want +got):\n%s", diff)
			}
		})
	}
}

// A call that starts at 02:59:50 and ends at 03:00:20 is counted in hour 03.
func TestRecordCallCrossingTheHour(t *testing.T) {
	start := at(utc, 2026, 11, 22, 2, 59, 50)
	w, _ := Window{"2026112202", 99}.Roll(start)
	if !w.Allow(start, 100) {
		t.Fatal("call at 99/100 must be allowed")
	}
	got := w.Record(at(utc, 2026, 11, 22, 3, 0, 20))
	if diff := cmp.Diff(Window{"2026112203", 1}, got); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
}

func TestNextReset(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		now   time.Time
		want  time.Time
		until time.Duration
		clock string
	}{
		{"utc mid hour", at(utc, 2026, 11, 22, 2, 5, 10), at(utc, 2026, 11, 22, 3, 0, 0), 54*time.Minute + 50*time.Second, "03:00:00"},
		{"top of the hour waits a full hour", at(utc, 2026, 11, 22, 2, 0, 0), at(utc, 2026, 11, 22, 3, 0, 0), time.Hour, "03:00:00"},
		{"two seconds before", at(utc, 2026, 11, 22, 0, 59, 58), at(utc, 2026, 11, 22, 1, 0, 0), 2 * time.Second, "01:00:00"},
		{"minute 08", at(utc, 2026, 11, 22, 4, 8, 30), at(utc, 2026, 11, 22, 5, 0, 0), 51*time.Minute + 30*time.Second, "05:00:00"},
		{"minute 09 second 08", at(utc, 2026, 11, 22, 4, 9, 8), at(utc, 2026, 11, 22, 5, 0, 0), 50*time.Minute + 52*time.Second, "05:00:00"},
		{"second 09", at(utc, 2026, 11, 22, 4, 31, 9), at(utc, 2026, 11, 22, 5, 0, 0), 28*time.Minute + 51*time.Second, "05:00:00"},
		{"08:08:08", at(utc, 2026, 8, 8, 8, 8, 8), at(utc, 2026, 8, 8, 9, 0, 0), 51*time.Minute + 52*time.Second, "09:00:00"},
		{"09:09:09", at(utc, 2026, 9, 9, 9, 9, 9), at(utc, 2026, 9, 9, 10, 0, 0), 50*time.Minute + 51*time.Second, "10:00:00"},
		{"sub-second", at(utc, 2026, 11, 22, 2, 59, 59).Add(500 * time.Millisecond), at(utc, 2026, 11, 22, 3, 0, 0), 500 * time.Millisecond, "03:00:00"},
		{"end of year", at(utc, 2026, 12, 31, 23, 59, 59), at(utc, 2027, 1, 1, 0, 0, 0), time.Second, "00:00:00"},
		// Half-hour and 45-minute zones: the local top of the hour, not UTC's.
		{"kolkata", at(kolkata, 2026, 11, 22, 0, 59, 58), at(kolkata, 2026, 11, 22, 1, 0, 0), 2 * time.Second, "01:00:00"},
		{"kolkata when UTC is at :00", at(utc, 2026, 11, 22, 3, 0, 0).In(kolkata), at(kolkata, 2026, 11, 22, 9, 0, 0), 30 * time.Minute, "09:00:00"},
		{"nepal", at(nepal, 2026, 11, 22, 10, 14, 0), at(nepal, 2026, 11, 22, 11, 0, 0), 46 * time.Minute, "11:00:00"},
		{"newfoundland", at(newfie, 2026, 11, 22, 10, 59, 0), at(newfie, 2026, 11, 22, 11, 0, 0), time.Minute, "11:00:00"},
		// DST, America/New_York 2026: spring forward 03-08 02:00 -> 03:00, fall back 11-01 02:00 -> 01:00.
		{"spring forward skips 02", at(ny, 2026, 3, 8, 1, 30, 0), at(ny, 2026, 3, 8, 3, 0, 0), 30 * time.Minute, "03:00:00"},
		{"fall back: the repeated 01 hour shares one key", at(ny, 2026, 11, 1, 1, 30, 0), at(ny, 2026, 11, 1, 2, 0, 0), 90 * time.Minute, "02:00:00"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := NextReset(tc.now)
			if !got.Equal(tc.want) {
				t.Errorf("NextReset(%v) = %v, want %v", tc.now, got, tc.want)
			}
			if HourKey(got) == HourKey(tc.now) {
				t.Errorf("NextReset %v has the same hour key %s as now", got, HourKey(got))
			}
			if HourKey(got.Add(-time.Nanosecond)) != HourKey(tc.now) {
				t.Errorf("the hour key changes before NextReset %v", got)
			}
			if u := NextReset(tc.now).Sub(tc.now); u != tc.until {
				t.Errorf("Until = %v, want %v", u, tc.until)
			}
			if c := NextResetClock(tc.now); c != tc.clock {
				t.Errorf("NextResetClock = %q, want %q", c, tc.clock)
			}
		})
	}
}

// Waiting from 00:59:58 local takes two virtual seconds and two ticks and
// ends exactly at 01:00:00 local, in whole-hour and half-hour zones and at
// the bash loop's octal-crash moments.
func TestWait(t *testing.T) {
	tests := []struct {
		name  string
		start time.Time
		ticks []string
		end   time.Time
	}{
		{"utc", at(utc, 2000, 1, 1, 0, 59, 58), []string{"2s", "1s"}, at(utc, 2000, 1, 1, 1, 0, 0)},
		{"kolkata", at(kolkata, 2000, 1, 1, 6, 59, 58), []string{"2s", "1s"}, at(kolkata, 2000, 1, 1, 7, 0, 0)},
		{"kolkata 00:59:58 next day", at(kolkata, 2000, 1, 2, 0, 59, 58), []string{"2s", "1s"}, at(kolkata, 2000, 1, 2, 1, 0, 0)},
		{"second 09", at(utc, 2000, 1, 1, 3, 59, 9), nil, at(utc, 2000, 1, 1, 4, 0, 0)},
		{"minute 08", at(utc, 2000, 1, 1, 3, 8, 0), nil, at(utc, 2000, 1, 1, 4, 0, 0)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				time.Sleep(time.Until(tc.start)) // the bubble's clock starts at 2000-01-01 00:00 UTC
				now := time.Now().In(tc.start.Location())
				if !now.Equal(tc.start) {
					t.Fatalf("bubble clock at %v, want %v", now, tc.start)
				}
				var ticks []string
				n := 0
				err := countdown.Wait(t.Context(), NextReset(now), func(left time.Duration) {
					n++
					ticks = append(ticks, left.String())
				})
				if err != nil {
					t.Fatal(err)
				}
				end := time.Now()
				if !end.Equal(tc.end) {
					t.Errorf("ended at %v, want exactly %v", end.In(tc.start.Location()), tc.end)
				}
				wantN := int(tc.end.Sub(tc.start) / time.Second)
				if n != wantN {
					t.Errorf("%d ticks, want one per second: %d", n, wantN)
				}
				if tc.ticks != nil {
					if diff := cmp.Diff(tc.ticks, ticks); diff != "" {
						t.Errorf("ticks (-want +got):\n%s", diff)
					}
				}
				// After the wait a new hour starts with a fresh window.
				w, rolled := Window{HourKey(now), 3}.Roll(end.In(tc.start.Location()))
				if !rolled || w.Count != 0 || !w.Allow(end, 3) {
					t.Errorf("after the wait: window %+v rolled=%v", w, rolled)
				}
			})
		})
	}
}
