package analysis

import (
	"testing"

	"github.com/ralphloop/ralph_loop/analysis/wire"
)

// TestPathTree: the tree built from wire.Line's tags stores each value in
// the record field it belongs to, and carries the analysis roles.
func TestPathTree(t *testing.T) {
	var e eventState
	walk := func(keys ...string) *node {
		n := lineRoot
		for _, k := range keys {
			if k == "[]" {
				n = n.elemNode()
			} else {
				n = n.child([]byte(k))
			}
			if n == nil {
				t.Fatalf("no node for %q", keys)
			}
		}
		return n
	}
	for _, tc := range []struct {
		keys []string
		want *wire.Value
	}{
		{[]string{"type"}, &e.line.Type},
		{[]string{"item", "text"}, &e.line.Item.Text},
		{[]string{"part", "tokens", "cache", "write"}, &e.line.Part.Tokens.Cache.Write},
		{[]string{"usage", "cached_input_tokens"}, &e.line.Usage.CachedInputTokens},
		{[]string{"error"}, &e.line.Error.Self},
		{[]string{"message"}, &e.line.Message.Self},
		{[]string{"message", "content", "[]", "type"}, &e.entry.Type},
		{[]string{"permission_denials", "[]", "tool_input", "command"}, &e.denial.ToolInput.Command},
		{[]string{"rate_limit_info", "resetsAt"}, &e.line.RateLimitInfo.ResetsAt},
	} {
		if got := e.value(walk(tc.keys...)); got != tc.want {
			t.Errorf("%q: stored at the wrong place", tc.keys)
		}
	}
	roles := []struct {
		keys   []string
		role   uint8
		target uint8
	}{
		{[]string{"result"}, rText, 0},
		{[]string{"errors", "[]"}, rMessage, 0},
		{[]string{"error", "data", "message"}, rMessage, 0},
		{[]string{"message"}, rMessage, 0},
		{[]string{"message", "parts", "[]"}, rEntry, tParts},
		{[]string{"message", "parts", "[]", "text"}, rPiece, 0},
		{[]string{"item", "content", "[]"}, rEntry, tCodexContent},
		{[]string{"part"}, rEntry, tStep},
		{[]string{"event", "delta"}, rEntry, tDelta},
		{[]string{"permission_denials"}, rDenials, 0},
		{[]string{"permission_denials", "[]"}, rDenial, 0},
	}
	for _, tc := range roles {
		if n := walk(tc.keys...); n.role != tc.role || n.target != tc.target {
			t.Errorf("%q: role %d target %d, want %d %d", tc.keys, n.role, n.target, tc.role, tc.target)
		}
	}
	if lineRoot.child([]byte("Type")) != nil || lineRoot.child([]byte("unknown")) != nil {
		t.Error("keys must match exactly")
	}
	if lineRoot.child([]byte("tool_call")) != nil || walk("item").child([]byte("id")) != nil {
		t.Error(`fields tagged analysis:"-" must not be read`)
	}
}
