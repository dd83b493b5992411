package supervise

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"
)

// TestTokenLoop: only a token of the form Run makes names a loop; anything
// else a record may hold is refused before a process is looked at.
func TestTokenLoop(t *testing.T) {
	for tok, want := range map[string]int{
		tokenVar + "=4242-3-1795793192490996644": 4242,
		tokenVar + "=4242-3":                     0,
		tokenVar + "=0-3-1":                      0,
		tokenVar + "=-1-3-1":                     0,
		tokenVar + "=42x-3-1":                    0,
		"PATH=4242-3-1":                          0,
		tokenVar + "=4242-3-1\x00PATH=/bin":      0,
		"":                                       0,
	} {
		if got, ok := tokenLoop(tok); got != want || ok != (want > 0) {
			t.Errorf("tokenLoop(%q) = %d, %v; want %d", tok, got, ok, want)
		}
	}
}

// TestTokenTime: a token tells when it was made; a malformed one, never.
func TestTokenTime(t *testing.T) {
	before := time.Now()
	got := tokenTime(newToken())
	if got.Before(before.Truncate(time.Nanosecond)) || got.After(time.Now()) {
		t.Errorf("tokenTime(newToken()) = %v, want between %v and now", got, before)
	}
	if got := tokenTime(tokenVar + "=4242-3-1795793192490996644"); !got.Equal(time.Unix(0, 1795793192490996644)) {
		t.Errorf("tokenTime = %v", got)
	}
	if got := tokenTime(tokenVar + "=4242-3"); !got.IsZero() {
		t.Errorf("tokenTime of a malformed token = %v, want the zero time", got)
	}
}

// TestStopLeftoversRefusesItsOwnCalls: a record naming a call of a loop
// that still runs (here: this test, which runs the call) stops nothing.
func TestStopLeftoversRefusesItsOwnCalls(t *testing.T) {
	c := helperCmd(t, "block")
	var leader callRecord
	done := make(chan Outcome, 1)
	started := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		done <- Run(ctx, c, Options{Grace: time.Second, Record: func(rec []byte) {
			if err := json.Unmarshal(rec, &leader); err != nil {
				t.Error(err)
			}
			close(started)
		}})
	}()
	<-started
	if n, err := stopLeftovers(leader, time.Second); n != 0 || err != nil {
		t.Errorf("stopLeftovers of a live loop's call: %d, %v", n, err)
	}
	if st, err := readStat(leader.Pid); err != nil || st.start != leader.Start || st.pgid != leader.Pid || st.uid != uint32(os.Getuid()) {
		t.Errorf("the call's leader: %+v, %v; recorded %+v", st, err, leader)
	}
	cancel()
	if o := <-done; o.Reason != Canceled {
		t.Errorf("the call ended as %v, want Canceled", o.Reason)
	}
}
