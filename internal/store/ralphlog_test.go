package store

import (
	"testing"

	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// Whoever calls it, a line of ralph.log is one line in bmalph's format
// with no control in it: no escape sequence for a terminal that follows
// the log, no newline that starts a line of the loop's own.
func TestRalphLogLineMadeSafe(t *testing.T) {
	d := newDir(t)
	NewRalphLog(d, failOnErr(t)).Line(t0, events.Error, "x\x1b]52;c;eA==\x07\n[2030-01-02 03:04:05] [SUCCESS] forged")
	stamp := "[" + t0.Local().Format(events.LocalStamp) + "] "
	want := stamp + `[ERROR] x\u001b]52;c;eA==\u0007\u000a[2030-01-02 03:04:05] [SUCCESS] forged` + "\n"
	if got := string(readFile(t, d, ralphdir.RalphLog)); got != want {
		t.Errorf("ralph.log %q\nwant %q", got, want)
	}
}
