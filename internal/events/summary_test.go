package events

import "testing"

// The Response Analysis box's Summary is the agent's own summary: never
// the raw RALPH_STATUS block, never "Summary: Summary:".
func TestBoxSummary(t *testing.T) {
	block := "---RALPH_STATUS---\nSTATUS: IN_PROGRESS\nTASKS_COMPLETED_THIS_LOOP: 1\nEXIT_SIGNAL: false\nRECOMMENDATION: next\n---END_RALPH_STATUS---"
	tests := []struct{ in, want string }{
		{"Worked on call 1.\n" + block, "Worked on call 1."},
		{block, ""},
		{"Summary: Added the login form.", "Added the login form."},
		{"Summary: Summary: twice", "twice"},
		{"I looked around.\n\n**Summary:** Fixed the parser.\n\n" + block, "Fixed the parser."},
		{"## Summary\nAdded tests.", "Added tests."},
		{"Did things.\n---RALPH_STATUS---\nSTATUS: COMPLETE", "Did things."},
		{"Output analyzed, no explicit summary found", "Output analyzed, no explicit summary found"},
	}
	for _, tc := range tests {
		if got := boxSummary(tc.in); got != tc.want {
			t.Errorf("boxSummary(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
