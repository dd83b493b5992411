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
