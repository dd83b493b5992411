package drivers

import (
	"testing"

	"github.com/ralphloop/ralph_loop/analysis"
)

// A reply that says it was given no request, with no tool use and no
// status block, did nothing; a reply that worked, reported a status or
// only mentions a request in passing did something.
func TestNoRequest(t *testing.T) {
	one, three := int64(1), int64(3)
	tests := []struct {
		text  string
		turns *int64
		block bool
		want  bool
	}{
		// anthropics/claude-code#85040's wording and its variants.
		{"I don't see a request in your message, just system context. What would you like help with?", &one, false, true},
		{"I don’t see a request in your message — only the system context. What would you like me to do?", nil, false, true},
		{"It looks like your message is empty. What can I help you with?", &one, false, true},
		{"I didn't receive a prompt. Could you tell me what you need?", nil, false, true},
		{"There's no request in your message, only system instructions.", &one, false, true},
		// Not that.
		{"I don't see a request in your message, just system context.", &three, false, false}, // it used tools
		{"I don't see a request in your message.", &one, true, false},                         // it reported a status block
		{"Implemented the login form and its tests.", &one, false, false},
		{"", &one, false, false},
		{"Fixed the bug where the server did not receive a request body larger than 1 MB.", nil, false, false},
		{"I don't see a request in your message, just system context. " + string(make([]byte, 700)), &one, false, false}, // too long to be that answer
	}
	for _, tc := range tests {
		r := analysis.Result{ResultText: tc.text, NumTurns: tc.turns}
		if tc.block {
			r.Block, r.BlockCount = &analysis.StatusBlock{}, 1
		}
		if got := NoRequest(r); got != tc.want {
			t.Errorf("NoRequest(%q, turns %v, block %v) = %v, want %v", tc.text, tc.turns, tc.block, got, tc.want)
		}
	}
}
