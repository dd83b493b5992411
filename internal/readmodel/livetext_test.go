package readmodel

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLiveText: the dashboard's live output is the agent's text, never its
// raw JSON records with \n escapes.
func TestLiveText(t *testing.T) {
	codex, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "fixtures", "agent-output", "codex_jsonl_response.jsonl"))
	if err != nil {
		t.Skip("no shared fixtures here:", err)
	}
	cases := []struct {
		name, in string
		want     []string
	}{
		{"claude stream-json",
			"\n\n=== Loop #3 - 2026-11-27 10:00:00 ===\n" +
				`{"type":"system","subtype":"init","session_id":"s1"}` + "\n" +
				`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Reading the plan.\nNext: tests"}}}` + "\n" +
				`{"type":"stream_event","event":{"type":"content_block_stop","index":0}}` + "\n" +
				`{"type":"stream_event","event":{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","name":"Bash","id":"t1","input":{}}}}` + "\n",
			[]string{"=== Loop #3", "Reading the plan.\nNext: tests", "⚡ [Bash]"}},
		{"claude json result",
			`{"type":"result","subtype":"success","is_error":false,"result":"Done.\n\n---RALPH_STATUS---\nEXIT_SIGNAL: false\n---END_RALPH_STATUS---","session_id":"s1"}` + "\n",
			[]string{"Done.\n\n---RALPH_STATUS---\nEXIT_SIGNAL: false"}},
		// Without --live, live.log holds the loop's header and Claude's
		// one json result: the page shows the result's text, not the
		// header alone.
		{"claude json result after the loop's header",
			"\n\n=== Loop #2 - 2026-12-05 06:27:48 ===\n" +
				`{"type":"result","subtype":"success","is_error":false,"total_cost_usd":0.25,"usage":{"input_tokens":1000,"output_tokens":200},"result":"Did one task.\n---RALPH_STATUS---\nSTATUS: IN_PROGRESS\n---END_RALPH_STATUS---","session_id":"sess-1"}` + "\n",
			[]string{"=== Loop #2", "Did one task."}},
		{"codex jsonl", string(codex), nil},
		{"plain text", "compiling...\nok\n", []string{"compiling...\nok\n"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := liveText([]byte(c.in))
			if strings.Contains(got, `{"type"`) || strings.Contains(got, `\n`) {
				t.Errorf("raw JSON shown:\n%s", got)
			}
			if strings.TrimSpace(got) == "" {
				t.Errorf("nothing shown for:\n%s", c.in)
			}
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("lacks %q:\n%s", w, got)
				}
			}
		})
	}
}
