package swarm

import "testing"

// TestSpentWords: what a swarm spent, in a person's words: one call is
// "1 call", not "1 calls".
func TestSpentWords(t *testing.T) {
	for _, tc := range []struct {
		s    Spent
		want string
	}{
		{Spent{Runs: 1, Calls: 1, Tokens: 1200, CostUSD: 0.05}, "1 call in 1 run, 1200 tokens, $0.0500"},
		{Spent{Runs: 2, Calls: 4, Tokens: 4800, CostUSD: 1}, "4 calls in 2 runs, 4800 tokens, $1.0000"},
		{Spent{}, "0 calls in 0 runs, 0 tokens, $0.0000"},
	} {
		if got := tc.s.words(); got != tc.want {
			t.Errorf("%+v: got %q, want %q", tc.s, got, tc.want)
		}
	}
}

// TestBaseWords: a swarm whose state says running but whose lock nobody
// holds (killed) is not "merging into" its base; swarmLine says it is not
// running.
func TestBaseWords(t *testing.T) {
	for _, tc := range []struct {
		status string
		live   bool
		want   string
	}{
		{"running", true, "merging into main"},
		{"running", false, "branched from main"},
		{mergedState, false, "merged into main"},
		{"stopped", false, "branched from main"},
	} {
		if got := baseWords(state{Base: "main", Status: tc.status}, tc.live); got != tc.want {
			t.Errorf("%s, live %v: got %q, want %q", tc.status, tc.live, got, tc.want)
		}
	}
}
