package analysis

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"strings"
	"testing"

	"github.com/ralphloop/ralph_loop/internal/gen"
)

// randomOutputs builds valid JSON outputs of every shape, with keys in
// random order, texts full of escapes, and events the decoders must skip,
// and checks the decoders against jsonOracle.
func TestDecodersMatchOracle(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	text := func() string {
		parts := []string{"a", "é", "😀", "\"", "\\", "\n", "\t", "\u2028", "</x>", "done", "---RALPH_STATUS---",
			"EXIT_SIGNAL: true", "\x01", "\r\n", " ", "complete", "Error: x"}
		var b strings.Builder
		for i := r.Intn(12); i > 0; i-- {
			b.WriteString(parts[r.Intn(len(parts))])
		}
		return b.String()
	}
	obj := func(kvs ...gen.KV) gen.O {
		o := gen.O(kvs)
		r.Shuffle(len(o), func(i, j int) { o[i], o[j] = o[j], o[i] })
		if r.Intn(4) == 0 {
			o = append(o, gen.KV{K: "extra", V: []any{1, "x", map[string]any{"text": text()}}})
		}
		return o
	}
	maybe := func(k string, v any) []gen.KV {
		if r.Intn(3) == 0 {
			return nil
		}
		return []gen.KV{{K: k, V: v}}
	}
	entries := func(typ string) []any {
		var out []any
		for i := r.Intn(4); i > 0; i-- {
			et := typ
			if r.Intn(3) == 0 {
				et = "other"
			}
			out = append(out, obj(append([]gen.KV{{K: "type", V: et}}, maybe("text", text())...)...))
		}
		return out
	}
	session := func() string {
		return []string{"", "0", "null", "s-1", " s-2\r", "multi\nline", "x"}[r.Intn(7)]
	}

	events := map[string]func() gen.O{
		"codex": func() gen.O {
			switch r.Intn(6) {
			case 0:
				return obj(gen.KV{K: "type", V: "thread.started"}, gen.KV{K: "thread_id", V: session()})
			case 1:
				it := []gen.KV{{K: "type", V: "agent_message"}}
				switch r.Intn(3) {
				case 0:
					it = append(it, gen.KV{K: "text", V: text()})
				case 1:
					it = append(it, gen.KV{K: "content", V: entries("output_text")})
				default:
					it = append(it, gen.KV{K: "text", V: nil}, gen.KV{K: "content", V: entries("output_text")})
				}
				return obj(gen.KV{K: "type", V: "item.completed"}, gen.KV{K: "item", V: obj(it...)})
			case 2:
				return obj(gen.KV{K: "type", V: "item.completed"}, gen.KV{K: "item", V: obj(gen.KV{K: "type", V: "reasoning"}, gen.KV{K: "text", V: text()})})
			case 3:
				return obj(gen.KV{K: "type", V: "turn.completed"}, gen.KV{K: "usage", V: obj(gen.KV{K: "input_tokens", V: r.Intn(100)})})
			case 4:
				return obj(gen.KV{K: "type", V: "item.completed"}, gen.KV{K: "item", V: obj(gen.KV{K: "type", V: "command_execution"},
					gen.KV{K: "aggregated_output", V: text()}, gen.KV{K: "status", V: "completed"})})
			}
			return obj(gen.KV{K: "type", V: "turn.started"})
		},
		"stream": func() gen.O {
			switch r.Intn(5) {
			case 0:
				return obj(gen.KV{K: "type", V: "system"}, gen.KV{K: "subtype", V: "init"}, gen.KV{K: "session_id", V: session()})
			case 1:
				return obj(append([]gen.KV{{K: "type", V: "result"}, {K: "session_id", V: session()}}, maybe("result", text())...)...)
			case 2:
				return obj(gen.KV{K: "type", V: "assistant"}, gen.KV{K: "message", V: obj(gen.KV{K: "content", V: entries("text")})})
			case 3:
				return obj(gen.KV{K: "type", V: "user"}, gen.KV{K: "message", V: obj(gen.KV{K: "content", V: entries("tool_result")})})
			}
			return obj(gen.KV{K: "type", V: "stream_event"}, gen.KV{K: "event", V: obj(gen.KV{K: "type", V: "content_block_delta"},
				gen.KV{K: "delta", V: obj(gen.KV{K: "type", V: "text_delta"}, gen.KV{K: "text", V: text()})})})
		},
		"opencode": func() gen.O {
			sid := gen.KV{K: "sessionID", V: "ses_1"}
			switch r.Intn(5) {
			case 0:
				return obj(gen.KV{K: "type", V: "step_start"}, sid, gen.KV{K: "part", V: obj(gen.KV{K: "type", V: "step-start"})})
			case 1, 2:
				pt := "text"
				if r.Intn(4) == 0 {
					pt = "reasoning"
				}
				return obj(gen.KV{K: "type", V: "text"}, sid, gen.KV{K: "part", V: obj(gen.KV{K: "type", V: pt}, gen.KV{K: "text", V: text()})})
			case 3:
				return obj(gen.KV{K: "type", V: "step_finish"}, sid, gen.KV{K: "part", V: obj(gen.KV{K: "type", V: "step-finish"},
					gen.KV{K: "tokens", V: obj(gen.KV{K: "input", V: 3}, gen.KV{K: "cache", V: obj(gen.KV{K: "read", V: 1})})})})
			}
			return obj(gen.KV{K: "type", V: "tool_use"}, sid, gen.KV{K: "part", V: obj(gen.KV{K: "type", V: "tool"}, gen.KV{K: "text", V: text()})})
		},
		"legacy": func() gen.O {
			if r.Intn(3) == 0 {
				return obj(gen.KV{K: "type", V: "session.created"}, gen.KV{K: "session", V: obj(gen.KV{K: "id", V: session()})})
			}
			role := []string{"assistant", "user"}[r.Intn(2)]
			return obj(gen.KV{K: "type", V: "message.updated"}, gen.KV{K: "message", V: obj(gen.KV{K: "role", V: role}, gen.KV{K: "parts", V: entries("text")})})
		},
	}
	kinds := []string{"codex", "stream", "opencode", "legacy", "object", "array"}
	checked := map[Format]int{}
	for i := 0; i < 4000; i++ {
		kind := kinds[r.Intn(len(kinds))]
		var buf bytes.Buffer
		switch kind {
		case "object":
			o := obj(append(append(maybe("result", text()), maybe("sessionId", session())...), maybe("session_id", session())...)...)
			b, _ := json.MarshalIndent(o, "", "  ")
			buf.Write(b)
		case "array":
			var arr []any
			for n := r.Intn(4); n > 0; n-- {
				arr = append(arr, events["stream"]())
			}
			b, _ := json.Marshal(arr)
			buf.Write(b)
		default:
			for n := 1 + r.Intn(6); n > 0; n-- {
				b, _ := json.Marshal(events[kind]())
				buf.Write(b)
				buf.WriteByte('\n')
			}
		}
		data := buf.Bytes()
		res := checkAnalyze(t, data, Options{})
		o, ok := jsonOracle(data, "")
		if !ok {
			continue
		}
		checked[o.format]++
		if res.Format != o.format || string([]rune(res.ResultText)) != o.text || (o.checkSession && res.SessionID != o.session) {
			t.Fatalf("input:\n%s\ngot  %s %q session %q\nwant %s %q session %q", data, res.Format, res.ResultText, res.SessionID, o.format, o.text, o.session)
		}
	}
	for _, f := range []Format{FormatCodex, FormatStreamJSON, FormatOpenCode, FormatJSONObject, FormatJSONArray} {
		if checked[f] < 100 {
			t.Errorf("only %d %s outputs checked against the oracle", checked[f], f)
		}
	}
}
