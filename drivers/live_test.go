package drivers

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

var liveCases = []struct {
	name   string
	format string
	in     string
	want   string
}{
	{"claude stream", FormatClaudeStreamJSON, lines(
		`{"type":"system","subtype":"init","session_id":"live-1"}`,
		`{"type":"stream_event","event":{"type":"message_start","message":{}}}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Streaming hello"}}}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" from the agent ⚙"}}}`,
		`{"type":"stream_event","event":{"type":"content_block_stop","index":0}}`,
		`{"type":"stream_event","event":{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t1","name":"Bash","input":{}}}}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"command\""}}}`,
		`{"type":"stream_event","event":{"type":"content_block_stop","index":1}}`,
		`{"type":"assistant","message":{"content":[{"type":"text","text":"Streaming hello from the agent"}]}}`,
		`{"type":"result","subtype":"success","result":"done","session_id":"live-1"}`,
	), "Streaming hello from the agent ⚙\n\n\n⚡ [Bash]\n\n"},
	{"claude non-JSON and odd lines", FormatClaudeStreamJSON,
		"Error: When using --print, --output-format=stream-json requires --verbose\r\n\n  \n[1,2]\n\"str\"\n" +
			`{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":42}}}` + "\n" +
			`{"type":"stream_event","event":"x"}` + "\n" + `{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"ok"}}}`,
		"Error: When using --print, --output-format=stream-json requires --verbose\nok"},
	{"codex, cursor, opencode: values of other types, keys in other case", FormatCodexJSONL, lines(
		`{"type":"item.completed","item":"not an object"}`,
		`{"type":"item.completed","item":{"type":"agent_message","content":"not a list"}}`,
		`{"type":"item.completed","item":{"type":"agent_message","content":[7,{"type":"output_text","text":"kept"}]}}`,
		`{"Type":"error","message":"case matters"}`,
		`{"type":"turn.failed","error":"a string"}`,
	), "kept\nerror: \n"},
	{"codex jsonl", FormatCodexJSONL, lines(
		`{"type":"thread.started","thread_id":"th-1"}`,
		`{"type":"turn.started"}`,
		`{"type":"item.completed","item":{"id":"item_0","type":"reasoning","text":"thinking"}}`,
		`{"type":"item.started","item":{"id":"c1","type":"command_execution","command":"ls","status":"in_progress"}}`,
		`{"type":"item.completed","item":{"id":"c1","type":"command_execution","command":"ls","exit_code":0}}`,
		`{"type":"item.completed","item":{"id":"m1","type":"agent_message","text":"Hello"}}`,
		`{"type":"item.completed","item":{"id":"f1","type":"file_change","changes":[]}}`,
		`{"type":"item.completed","item":{"id":"m2","type":"agent_message","content":[{"type":"output_text","text":"A"},{"type":"other","text":"x"},{"type":"output_text","text":"B\n"}]}}`,
		`{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":5}}`,
		`{"type":"turn.failed","error":{"message":"boom"}}`,
		`{"type":"error","message":"stream closed"}`,
	), "\n\n⚡ [command_execution]\nHello\n\n\n⚡ [file_change]\nA\nB\nerror: boom\nerror: stream closed\n"},
	{"cursor stream", FormatCursorStreamJSON, lines(
		`{"type":"system","subtype":"init","session_id":"cur-1"}`,
		`{"type":"user","message":{"content":[{"type":"text","text":"prompt"}]}}`,
		`{"type":"assistant","message":{"content":[{"type":"text","text":"Hi"},{"type":"text","text":"there"}]}}`,
		`{"type":"tool_call","subtype":"started","call_id":"1","tool_call":{"shellToolCall":{"args":{"command":"ls"}}}}`,
		`{"type":"tool_call","subtype":"completed","call_id":"1","tool_call":{"shellToolCall":{"result":{}}}}`,
		`{"type":"tool_call","tool_call":{"name":"Edit"}}`,
		`{"type":"tool_call","name":"grep"}`,
		`{"type":"tool_call","tool_call":{"a":1,"b":2}}`,
		`{"type":"result","subtype":"success","result":"Hi there","session_id":"cur-1"}`,
	), "Hi\nthere\n\n\n⚡ [shell]\n\n\n⚡ [Edit]\n\n\n⚡ [grep]\n\n\n⚡ [tool_call]\n"},
	{"opencode 1.x events", FormatOpenCodeJSONL, lines(
		`{"type":"step_start","timestamp":1,"sessionID":"ses_1","part":{"type":"step-start"}}`,
		`{"type":"text","timestamp":2,"sessionID":"ses_1","part":{"type":"text","text":"Working on it","time":{"start":1,"end":2}}}`,
		`{"type":"tool_use","timestamp":3,"sessionID":"ses_1","part":{"type":"tool","tool":"bash","state":{"status":"completed"}}}`,
		`{"type":"reasoning","timestamp":4,"sessionID":"ses_1","part":{"type":"reasoning","text":"hmm"}}`,
		`{"type":"error","timestamp":5,"sessionID":"ses_1","error":{"name":"APIError","data":{"message":"rate limited"}}}`,
		`{"type":"error","timestamp":6,"sessionID":"ses_1","error":{"name":"UnknownError"}}`,
		`{"type":"step_finish","timestamp":7,"sessionID":"ses_1","part":{"type":"step-finish","reason":"stop"}}`,
	), "Working on it\n\n\n⚡ [bash]\nerror: rate limited\nerror: UnknownError\n"},
	{"opencode legacy events", FormatOpenCodeJSONL, lines(
		`{"type":"session.created","session":{"id":"ses-1","title":"ralph"}}`,
		`{"type":"message.updated","session_id":"ses-1","message":{"id":"m1","role":"user","parts":[{"type":"text","text":"prompt"}]}}`,
		`{"type":"message.updated","session_id":"ses-1","message":{"id":"m1","role":"assistant","parts":[{"type":"text","text":"Done"},{"type":"tool","text":"x"},{"type":"text","text":"All good"}]}}`,
	), "Done\nAll good\n"},
	{"text passthrough", FormatText, "partial line without newline… {\"type\":\"x\"}\n\nmore", "partial line without newline… {\"type\":\"x\"}\n\nmore"},
	{"unknown format passes through", "", "abc\n", "abc\n"},
}

// render feeds in to a renderer in chunks of size n (0 = all at once).
func render(t testing.TB, format, in string, n int) string {
	var out bytes.Buffer
	r := NewLiveRenderer(format, &out)
	data := []byte(in)
	for len(data) > 0 {
		k := len(data)
		if n > 0 && n < k {
			k = n
		}
		if got, err := r.Write(data[:k]); got != k || err != nil {
			t.Fatalf("Write = %d, %v; want %d, nil", got, err, k)
		}
		data = data[k:]
	}
	if err := r.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return out.String()
}

func TestLiveRenderer(t *testing.T) {
	for _, tc := range liveCases {
		for _, n := range []int{0, 1, 2, 3, 7, 64} {
			if got := render(t, tc.format, tc.in, n); got != tc.want {
				t.Errorf("%s, chunks of %d:\n%s", tc.name, n, cmp.Diff(tc.want, got))
			}
		}
	}
}

func TestLiveRendererLongLines(t *testing.T) {
	big := strings.Repeat("x", 300<<10) // longer than a default bufio.Scanner line
	in := `{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"` + big + `"}}}` + "\n"
	if got := render(t, FormatClaudeStreamJSON, in, 4096); got != big {
		t.Errorf("long line: got %d bytes, want %d", len(got), len(big))
	}

	// A partial line longer than the bound is dropped; the next line shows.
	defer func(old int) { maxLiveLine = old }(maxLiveLine)
	maxLiveLine = 150
	in = `{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"` +
		strings.Repeat("y", 300) + `"}}}` + "\n" +
		`{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"after"}}}` + "\n" +
		strings.Repeat("z", 200) // over-long and unterminated: dropped at Close too
	if got := render(t, FormatClaudeStreamJSON, in, 10); got != "after" {
		t.Errorf("over-long line: got %q, want %q", got, "after")
	}
}

type failWriter struct{ calls int }

func (w *failWriter) Write(p []byte) (int, error) {
	w.calls++
	return 0, errors.New("console gone")
}

func TestLiveRendererWriterError(t *testing.T) {
	w := &failWriter{}
	r := NewLiveRenderer(FormatText, w)
	for range 3 {
		if n, err := r.Write([]byte("abc")); n != 3 || err != nil {
			t.Fatalf("Write = %d, %v; want 3, nil", n, err)
		}
	}
	if err := r.Close(); err == nil || err.Error() != "console gone" {
		t.Errorf("Close = %v, want the writer's error", err)
	}
	if w.calls != 1 {
		t.Errorf("writer called %d times after failing, want 1", w.calls)
	}
}

// FuzzLiveRenderer: never panics, and how the stream is cut into chunks
// does not change what is shown.
func FuzzLiveRenderer(f *testing.F) {
	for _, tc := range liveCases {
		f.Add(tc.format, tc.in, uint8(3))
	}
	f.Fuzz(func(t *testing.T, format, in string, n uint8) {
		whole := render(t, format, in, 0)
		if got := render(t, format, in, int(n%16)+1); got != whole {
			t.Fatalf("chunks of %d: %q, whole: %q", n%16+1, got, whole)
		}
	})
}
