package analysis_test

import (
	. "github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/drivers"

	"bytes"
	"encoding/json"
	"math/rand"
	"strings"
	"testing"

	"github.com/ralphloop/ralph_loop/internal/gen"
)

// TestDecodersMatchOracle builds valid JSON outputs of every shape, with
// keys in random order, texts full of escapes, and events the decoders must
// skip, and checks the decoders against jsonOracle.
func TestDecodersMatchOracle(t *testing.T) {
	t.Parallel()
	g := outputGen{rand.New(rand.NewSource(7))}
	kinds := []string{"codex", "stream", "opencode", "legacy", "object", "array"}
	checked := map[Format]int{}
	// Under -race, a tenth: Analyze starts no goroutine, and 4,000 outputs
	// read four ways each ran past go test's 10-minute limit on a loaded
	// 2-core machine.
	outputs := 4000
	if raceEnabled {
		outputs = 400
	}
	for i := 0; i < outputs; i++ {
		data := g.output(kinds[g.r.Intn(len(kinds))])
		res := checkAnalyze(t, data, Options{Formats: drivers.Formats("")})
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
		if checked[f] < outputs/40 {
			t.Errorf("only %d %s outputs checked against the oracle", checked[f], f)
		}
	}
}

// outputGen makes random agent outputs.
type outputGen struct{ r *rand.Rand }

func (g outputGen) text() string {
	parts := []string{"a", "é", "😀", "\"", "\\", "\n", "\t", "\u2028", "</x>", "done", "---RALPH_STATUS---",
		"EXIT_SIGNAL: true", "\x01", "\r\n", " ", "complete", "Error: x"}
	var b strings.Builder
	for i := g.r.Intn(12); i > 0; i-- {
		b.WriteString(parts[g.r.Intn(len(parts))])
	}
	return b.String()
}

// obj is an object with its keys shuffled and, sometimes, an extra key.
func (g outputGen) obj(kvs ...gen.KV) gen.O {
	o := gen.O(kvs)
	g.r.Shuffle(len(o), func(i, j int) { o[i], o[j] = o[j], o[i] })
	if g.r.Intn(4) == 0 {
		o = append(o, gen.KV{K: "extra", V: []any{1, "x", map[string]any{"text": g.text()}}})
	}
	return o
}

// maybe is the key, two times out of three.
func (g outputGen) maybe(k string, v any) []gen.KV {
	if g.r.Intn(3) == 0 {
		return nil
	}
	return []gen.KV{{K: k, V: v}}
}

// entries is a content list, mostly of type typ.
func (g outputGen) entries(typ string) []any {
	var out []any
	for i := g.r.Intn(4); i > 0; i-- {
		et := typ
		if g.r.Intn(3) == 0 {
			et = "other"
		}
		out = append(out, g.obj(append([]gen.KV{{K: "type", V: et}}, g.maybe("text", g.text())...)...))
	}
	return out
}

func (g outputGen) session() string {
	return []string{"", "0", "null", "s-1", " s-2\r", "multi\nline", "x"}[g.r.Intn(7)]
}

func kv(k string, v any) gen.KV { return gen.KV{K: k, V: v} }

func (g outputGen) codex() gen.O {
	switch g.r.Intn(6) {
	case 0:
		return g.obj(kv("type", "thread.started"), kv("thread_id", g.session()))
	case 1:
		it := []gen.KV{kv("type", "agent_message")}
		switch g.r.Intn(3) {
		case 0:
			it = append(it, kv("text", g.text()))
		case 1:
			it = append(it, kv("content", g.entries("output_text")))
		default:
			it = append(it, kv("text", nil), kv("content", g.entries("output_text")))
		}
		return g.obj(kv("type", "item.completed"), kv("item", g.obj(it...)))
	case 2:
		return g.obj(kv("type", "item.completed"), kv("item", g.obj(kv("type", "reasoning"), kv("text", g.text()))))
	case 3:
		return g.obj(kv("type", "turn.completed"), kv("usage", g.obj(kv("input_tokens", g.r.Intn(100)))))
	case 4:
		return g.obj(kv("type", "item.completed"), kv("item", g.obj(kv("type", "command_execution"),
			kv("aggregated_output", g.text()), kv("status", "completed"))))
	}
	return g.obj(kv("type", "turn.started"))
}

func (g outputGen) stream() gen.O {
	switch g.r.Intn(5) {
	case 0:
		return g.obj(kv("type", "system"), kv("subtype", "init"), kv("session_id", g.session()))
	case 1:
		return g.obj(append([]gen.KV{kv("type", "result"), kv("session_id", g.session())}, g.maybe("result", g.text())...)...)
	case 2:
		return g.obj(kv("type", "assistant"), kv("message", g.obj(kv("content", g.entries("text")))))
	case 3:
		return g.obj(kv("type", "user"), kv("message", g.obj(kv("content", g.entries("tool_result")))))
	}
	return g.obj(kv("type", "stream_event"), kv("event", g.obj(kv("type", "content_block_delta"),
		kv("delta", g.obj(kv("type", "text_delta"), kv("text", g.text()))))))
}

func (g outputGen) opencode() gen.O {
	sid := kv("sessionID", "ses_1")
	switch g.r.Intn(5) {
	case 0:
		return g.obj(kv("type", "step_start"), sid, kv("part", g.obj(kv("type", "step-start"))))
	case 1, 2:
		pt := "text"
		if g.r.Intn(4) == 0 {
			pt = "reasoning"
		}
		return g.obj(kv("type", "text"), sid, kv("part", g.obj(kv("type", pt), kv("text", g.text()))))
	case 3:
		return g.obj(kv("type", "step_finish"), sid, kv("part", g.obj(kv("type", "step-finish"),
			kv("tokens", g.obj(kv("input", 3), kv("cache", g.obj(kv("read", 1))))))))
	}
	return g.obj(kv("type", "tool_use"), sid, kv("part", g.obj(kv("type", "tool"), kv("text", g.text()))))
}

func (g outputGen) legacy() gen.O {
	if g.r.Intn(3) == 0 {
		return g.obj(kv("type", "session.created"), kv("session", g.obj(kv("id", g.session()))))
	}
	role := []string{"assistant", "user"}[g.r.Intn(2)]
	return g.obj(kv("type", "message.updated"), kv("message", g.obj(kv("role", role), kv("parts", g.entries("text")))))
}

// output is one whole output of the given kind.
func (g outputGen) output(kind string) []byte {
	var buf bytes.Buffer
	switch kind {
	case "object":
		o := g.obj(append(append(g.maybe("result", g.text()), g.maybe("sessionId", g.session())...), g.maybe("session_id", g.session())...)...)
		b, _ := json.MarshalIndent(o, "", "  ")
		buf.Write(b)
	case "array":
		var arr []any
		for n := g.r.Intn(4); n > 0; n-- {
			arr = append(arr, g.stream())
		}
		b, _ := json.Marshal(arr)
		buf.Write(b)
	default:
		events := map[string]func() gen.O{"codex": g.codex, "stream": g.stream, "opencode": g.opencode, "legacy": g.legacy}[kind]
		for n := 1 + g.r.Intn(6); n > 0; n-- {
			b, _ := json.Marshal(events())
			buf.Write(b)
			buf.WriteByte('\n')
		}
	}
	return buf.Bytes()
}
