package dashboard

import (
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// bigSource is a loop whose snapshot is as large as a busy one's (the
// plan, 50 loops, 30 events), with a summary, counting its reads.
type bigSource struct {
	reads atomic.Int32
	n     int
}

func (b *bigSource) Stamps() (string, string) { return "s", "l" }
func (b *bigSource) Snapshot() any {
	b.reads.Add(1)
	return map[string]string{"plan": strings.Repeat("- [ ] a task of the plan\n", 1000)}
}
func (b *bigSource) Live() string { return "" }
func (b *bigSource) Summary() any {
	return map[string]any{"state": map[string]any{"phase": "waiting", "running": true, "paused": false, "waiting_for": "loop_delay"},
		"progress": map[string]int{"loop": b.n, "tasks_completed": 12, "tasks_total": 40},
		"breaker":  map[string]string{"state": "CLOSED"}, "calls": map[string]any{"this_hour": 17, "max_per_hour": 100, "next_reset": "15:00:00"},
		"totals": map[string]float64{"cost_usd": 12.3456}}
}

// TestOverviewOfManyLoopsIsSmall: the overview of 300 loops carries
// their summaries only: the page and its data stay under 128 KB (each
// full snapshot is 25 KB: 7 MB if it carried them), and no loop's
// snapshot is read to build it. A loop's own page reads its snapshot, and
// only its.
func TestOverviewOfManyLoopsIsSmall(t *testing.T) {
	var srcs []*bigSource
	var ps []Project
	for i := range 300 {
		b := &bigSource{n: i}
		srcs = append(srcs, b)
		ps = append(ps, Project{Name: "swarm/worktree-" + strconv.Itoa(i), Source: b})
	}
	s := New(ps, Options{})
	s.refresh(false)
	page := do(s, request("GET", "/", here, host, nil))
	api := do(s, request("GET", "/api/overview", here, host, nil))
	if page.Code != 200 || page.Body.Len() > 128<<10 || api.Body.Len() > 128<<10 {
		t.Errorf("overview of 300 loops: page %d bytes, /api/overview %d bytes; want each under 128 KB", page.Body.Len(), api.Body.Len())
	}
	if !strings.Contains(api.Body.String(), `"name":"swarm/worktree-299","href":"/p/299/","summary":{`) {
		t.Errorf("the overview lacks the last loop's summary")
	}
	read := func() (n int32) {
		for _, b := range srcs {
			n += b.reads.Load()
		}
		return n
	}
	if n := read(); n != 0 {
		t.Errorf("building the overview read %d snapshots, want none", n)
	}
	if w := do(s, request("GET", "/api/p/7/snapshot", here, host, nil)); w.Code != 200 || srcs[7].reads.Load() != 1 || read() != 1 {
		t.Errorf("one loop's snapshot: %d, %d reads in all, want that one read", w.Code, read())
	}
}
