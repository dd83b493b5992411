package engine_test

import (
	"encoding/json"
	"os"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ralphloop/ralph_loop/internal/engine"
)

// progress.json says "executing" as soon as a call starts, so bmalph's
// dashboard shows the running call at once, and is rewritten every 10 s
// while it runs.
func TestProgressWrittenWhenTheCallStarts(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		type seen struct {
			Status  string  `json:"status"`
			Elapsed float64 `json:"elapsed_seconds"`
		}
		var h *ctlHarness
		var at []seen
		read := func() {
			synctest.Wait()
			b, err := os.ReadFile(h.rd.Path("progress.json"))
			var v seen
			if err == nil {
				err = json.Unmarshal(b, &v)
			}
			if err != nil {
				v.Status = "unreadable: " + err.Error()
			}
			at = append(at, v)
		}
		h = newCtlHarness(t, false, func(n int) ctlReply {
			read() // at the start of the call
			time.Sleep(15 * time.Second)
			read() // after the first 10 s tick
			r := working(n)
			r.Took = time.Second
			return r
		})
		r := h.run(h.settings(map[string]string{"MAX_LOOPS": "1"}))
		h.checkEnd(r, engine.ExitMaxLoops, "max_loops", "stopped")
		want := []seen{{"executing", 0}, {"executing", 10}}
		if len(at) != len(want) || at[0] != want[0] || at[1] != want[1] {
			t.Errorf("progress.json during the call = %+v, want %+v", at, want)
		}
	})
}
