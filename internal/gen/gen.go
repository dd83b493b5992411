// Package gen (a helper for benchmarks and scripts/gen-output, not part of
// the analysis API) writes large, realistic agent outputs for benchmarks and for
// scripts/gen-output: a Claude stream-json session, a Claude JSON result,
// a Codex exec --json stream, an OpenCode run --format json stream, or
// plain text, of about a given size. The output is deterministic for a
// seed. Every format ends with the agent's final reply, which carries a
// RALPH_STATUS block with EXIT_SIGNAL: false.
package gen

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
)

// Formats lists the names Write accepts.
var Formats = []string{"claude-stream", "claude-json", "codex-jsonl", "opencode-jsonl", "text"}

// finalText is the agent's last reply in every generated output.
const finalText = "Implemented the validation for the signup form and added tests.\n\n" +
	"---RALPH_STATUS---\nSTATUS: IN_PROGRESS\nTASKS_COMPLETED_THIS_LOOP: 1\nFILES_MODIFIED: 3\n" +
	"TESTS_STATUS: PASSING\nWORK_TYPE: IMPLEMENTATION\nEXIT_SIGNAL: false\n" +
	"RECOMMENDATION: continue with the next story\n---END_RALPH_STATUS---"

// SessionID is the session (thread) id of the generated outputs;
// OpenCode's have their own form, OpenCodeSessionID.
const (
	SessionID         = "5b0c8a8e-4f0e-4c49-9a4e-0c6f3d2b1a77"
	OpenCodeSessionID = "ses_5b0c8a8e4f0e4c499a4e"
)

// Write writes about size bytes of output in format to w.
func Write(w io.Writer, format string, size int64, seed uint64) error {
	g := &gen{w: bufio.NewWriterSize(w, 64<<10), rnd: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)), size: size}
	switch format {
	case "claude-stream":
		g.claudeStream()
	case "claude-json":
		g.claudeJSON()
	case "codex-jsonl":
		g.codex()
	case "opencode-jsonl":
		g.openCode()
	case "text":
		g.text()
	default:
		return fmt.Errorf("unknown output format %q (want one of %s)", format, strings.Join(Formats, ", "))
	}
	if g.err != nil {
		return fmt.Errorf("write %s output: %w", format, g.err)
	}
	if err := g.w.Flush(); err != nil {
		return fmt.Errorf("write %s output: %w", format, err)
	}
	return nil
}

// O is a JSON object that keeps its keys in order ("type" first, as the
// CLIs write them).
type O []KV

// KV is one key of an O.
type KV struct {
	K string
	V any
}

func (o O) MarshalJSON() ([]byte, error) { return appendJSON(nil, o) }

// appendJSON appends v to b as json.Marshal writes it. It walks the O
// values and []any lists itself and marshals only their leaves: Marshal
// of an O would go over the bytes of each nested O's MarshalJSON again to
// compact them, once per level, which made the generator slower than the
// analysis it feeds.
func appendJSON(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case O:
		b = append(b, '{')
		for i, kv := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendJSON(b, kv.K); err != nil {
				return nil, err
			}
			b = append(b, ':')
			if b, err = appendJSON(b, kv.V); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case []any:
		if v == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendJSON(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	}
	leaf, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, leaf...), nil
}

type gen struct {
	w    *bufio.Writer
	rnd  *rand.Rand
	size int64
	n    int64
	err  error
	buf  []byte // the line being written, reused
}

func (g *gen) line(v any) {
	if g.err != nil {
		return
	}
	b, err := appendJSON(g.buf[:0], v)
	if err != nil {
		g.err = err
		return
	}
	g.buf = append(b, '\n')
	g.w.Write(g.buf)
	g.n += int64(len(g.buf))
}

func (g *gen) left() bool { return g.n < g.size && g.err == nil }

var words = strings.Fields(`the a form field value user input check test error handler module
function return value request response parse config file path update change add remove
validate validation signup login session token cache build run pass fail retry state
component render props hook effect store query schema migration index table column`)

func (g *gen) prose(n int) string {
	var b strings.Builder
	for b.Len() < n {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[g.rnd.IntN(len(words))])
		if g.rnd.IntN(12) == 0 {
			b.WriteString(".")
		}
	}
	return b.String()
}

// code returns source-like text: quotes, tabs, backslashes, non-ASCII and a
// few lines that look like errors or JSON keys, as tool results carry.
func (g *gen) code(n int) string {
	lines := []string{
		`func (s *Server) handle(w http.ResponseWriter, r *http.Request) error {`,
		"\tif err := json.NewDecoder(r.Body).Decode(&req); err != nil {",
		"\t\treturn fmt.Errorf(\"decode %q: %w\", r.URL.Path, err)",
		`	}`,
		`  "is_error": false, "error_count": 0, "path": "C:\\Users\\dev\\app"`,
		`Error: Cannot find module 'express' (echoed log)`,
		`    at Object.<anonymous> (/app/src/index.ts:12:3) — ünïcödé`,
		`// TODO: handle the timeout case; EXIT_SIGNAL: true is not ours to send`,
		`PASS  src/form.test.ts (4.2 s)`,
		`const re = /^[a-z0-9_-]{3,16}$/;`,
	}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(lines[g.rnd.IntN(len(lines))])
		b.WriteByte('\n')
	}
	return b.String()
}

func (g *gen) claudeStream() {
	g.line(O{{"type", "system"}, {"subtype", "init"}, {"cwd", "/work/project"}, {"session_id", SessionID}, {"tools", []string{"Bash", "Read", "Edit", "Write", "Glob", "Grep"}}, {"model", "claude-sonnet"}, {"permissionMode", "bypassPermissions"}})
	msg := 0
	for g.left() {
		msg++
		id := fmt.Sprintf("msg_%06d", msg)
		ev := func(e O) {
			g.line(O{{"type", "stream_event"}, {"event", e}, {"session_id", SessionID}, {"uuid", fmt.Sprintf("u-%d-%d", msg, g.rnd.IntN(1e6))}})
		}
		ev(O{{"type", "message_start"}, {"message", O{{"id", id}, {"role", "assistant"}, {"content", []any{}}}}})
		ev(O{{"type", "content_block_start"}, {"index", 0}, {"content_block", O{{"type", "text"}, {"text", ""}}}})
		var full strings.Builder
		for i := 0; i < 4+g.rnd.IntN(20); i++ {
			d := g.prose(20+g.rnd.IntN(40)) + " "
			full.WriteString(d)
			ev(O{{"type", "content_block_delta"}, {"index", 0}, {"delta", O{{"type", "text_delta"}, {"text", d}}}})
		}
		ev(O{{"type", "content_block_stop"}, {"index", 0}})
		g.line(O{{"type", "assistant"}, {"session_id", SessionID}, {"message", O{{"id", id}, {"role", "assistant"}, {"content", []any{O{{"type", "text"}, {"text", full.String()}}}}}}})
		tool := fmt.Sprintf("toolu_%08d", msg)
		ev(O{{"type", "content_block_start"}, {"index", 1}, {"content_block", O{{"type", "tool_use"}, {"id", tool}, {"name", "Read"}, {"input", O{}}}}})
		ev(O{{"type", "content_block_delta"}, {"index", 1}, {"delta", O{{"type", "input_json_delta"}, {"partial_json", `{"file_path":"/work/project/src/form.ts"}`}}}})
		ev(O{{"type", "content_block_stop"}, {"index", 1}})
		g.line(O{{"type", "assistant"}, {"session_id", SessionID}, {"message", O{{"id", id}, {"role", "assistant"}, {"content", []any{O{{"type", "tool_use"}, {"id", tool}, {"name", "Read"}, {"input", O{{"file_path", "/work/project/src/form.ts"}}}}}}}}})
		g.line(O{{"type", "user"}, {"session_id", SessionID}, {"message", O{{"role", "user"}, {"content", []any{O{{"type", "tool_result"}, {"tool_use_id", tool}, {"content", g.code(2000 + g.rnd.IntN(30000))}}}}}}})
		if msg%50 == 0 {
			g.line(O{{"type", "rate_limit_event"}, {"rate_limit_info", O{{"status", "allowed"}, {"resetsAt", 1788513600}, {"rateLimitType", "five_hour"}}}, {"session_id", SessionID}})
		}
	}
	g.line(O{{"type", "assistant"}, {"session_id", SessionID}, {"message", O{{"id", "msg_final"}, {"role", "assistant"}, {"content", []any{O{{"type", "text"}, {"text", finalText}}}}}}})
	g.line(O{{"type", "result"}, {"subtype", "success"}, {"is_error", false}, {"duration_ms", 412000}, {"duration_api_ms", 398000}, {"num_turns", msg}, {"result", finalText}, {"stop_reason", "end_turn"}, {"session_id", SessionID}, {"total_cost_usd", 3.1416}, {"usage", O{{"input_tokens", 51234}, {"output_tokens", 20480}, {"cache_read_input_tokens", 900000}, {"cache_creation_input_tokens", 40000}}}, {"permission_denials", []any{}}, {"uuid", "final"}})
}

// claudeJSON is one --output-format json result whose reply is long (the
// conformance bench's shape: a work log, then the status block).
func (g *gen) claudeJSON() {
	var b strings.Builder
	b.Grow(int(g.size) + 8<<10)
	b.WriteString("Work log follows.\n")
	for int64(b.Len()) < g.size-2048 {
		b.WriteString(g.code(4096))
	}
	b.WriteString("\nTicked one task.\n")
	b.WriteString(finalText)
	g.line(O{{"type", "result"}, {"subtype", "success"}, {"is_error", false}, {"duration_ms", 1000}, {"num_turns", 2}, {"result", b.String()}, {"session_id", SessionID}, {"total_cost_usd", 0.5}, {"usage", O{{"input_tokens", 1000}, {"output_tokens", 500}, {"cache_read_input_tokens", 0}, {"cache_creation_input_tokens", 0}}}})
}

func (g *gen) codex() {
	g.line(O{{"type", "thread.started"}, {"thread_id", SessionID}})
	g.line(O{{"type", "turn.started"}})
	item := 0
	next := func() string { item++; return fmt.Sprintf("item_%d", item) }
	for g.left() {
		g.line(O{{"type", "item.completed"}, {"item", O{{"id", next()}, {"type", "reasoning"}, {"text", "**Planning** " + g.prose(200+g.rnd.IntN(600))}}}})
		id := next()
		cmd := "bash -lc 'npm test -- --runInBand'"
		g.line(O{{"type", "item.started"}, {"item", O{{"id", id}, {"type", "command_execution"}, {"command", cmd}, {"aggregated_output", ""}, {"exit_code", nil}, {"status", "in_progress"}}}})
		g.line(O{{"type", "item.completed"}, {"item", O{{"id", id}, {"type", "command_execution"}, {"command", cmd}, {"aggregated_output", g.code(3000 + g.rnd.IntN(40000))}, {"exit_code", g.rnd.IntN(2)}, {"status", "completed"}}}})
		if item%3 == 0 {
			g.line(O{{"type", "item.completed"}, {"item", O{{"id", next()}, {"type", "file_change"}, {"changes", []any{O{{"path", "src/form.ts"}, {"kind", "update"}}}}, {"status", "completed"}}}})
		}
		if item%7 == 0 {
			g.line(O{{"type", "item.completed"}, {"item", O{{"id", next()}, {"type", "agent_message"}, {"text", g.prose(300)}}}})
		}
	}
	g.line(O{{"type", "item.completed"}, {"item", O{{"id", next()}, {"type", "agent_message"}, {"text", finalText}}}})
	g.line(O{{"type", "turn.completed"}, {"usage", O{{"input_tokens", 924763}, {"cached_input_tokens", 824448}, {"output_tokens", 12122}}}})
}

func (g *gen) openCode() {
	const ses = OpenCodeSessionID
	ts := int64(1760000000000)
	ev := func(typ string, part O) {
		ts += int64(g.rnd.IntN(1000))
		g.line(O{{"type", typ}, {"timestamp", ts}, {"sessionID", ses}, {"part", part}})
	}
	step := 0
	for g.left() {
		step++
		msg := fmt.Sprintf("msg_%d", step)
		ev("step_start", O{{"id", fmt.Sprintf("prt_%d_0", step)}, {"sessionID", ses}, {"messageID", msg}, {"type", "step-start"}})
		ev("text", O{{"id", fmt.Sprintf("prt_%d_1", step)}, {"sessionID", ses}, {"messageID", msg}, {"type", "text"}, {"text", g.prose(200 + g.rnd.IntN(800))}})
		ev("tool_use", O{{"id", fmt.Sprintf("prt_%d_2", step)}, {"sessionID", ses}, {"messageID", msg}, {"type", "tool"}, {"tool", "read"}, {"state", O{{"status", "completed"}, {"input", O{{"filePath", "src/form.ts"}}}, {"output", g.code(3000 + g.rnd.IntN(30000))}}}})
		ev("step_finish", O{{"id", fmt.Sprintf("prt_%d_3", step)}, {"type", "step-finish"}, {"reason", "tool-calls"}, {"cost", 0.01}, {"tokens", O{{"input", 1000}, {"output", 200}, {"reasoning", 0}, {"cache", O{{"read", 5000}, {"write", 100}}}}}})
	}
	ev("step_start", O{{"id", "prt_final_0"}, {"type", "step-start"}})
	ev("text", O{{"id", "prt_final_1"}, {"type", "text"}, {"text", finalText}})
	ev("step_finish", O{{"id", "prt_final_2"}, {"type", "step-finish"}, {"reason", "stop"}, {"cost", 0.02}, {"tokens", O{{"input", 2000}, {"output", 300}, {"reasoning", 0}, {"cache", O{{"read", 6000}, {"write", 0}}}}}})
}

func (g *gen) text() {
	for g.left() && g.n < g.size-int64(len(finalText)) {
		var s string
		if g.rnd.IntN(3) == 0 {
			s = g.code(2000)
		} else {
			s = g.prose(100) + "\n"
		}
		g.w.WriteString(s)
		g.n += int64(len(s))
	}
	g.w.WriteString(finalText + "\n")
	g.n += int64(len(finalText) + 1)
}
