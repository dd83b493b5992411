package drivers

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
)

// maxLiveLine bounds how much of one unterminated line the renderer keeps.
// A longer line (a huge tool result) is skipped, not shown.
var maxLiveLine = 16 << 20

// LiveRenderer turns an agent's raw stdout into what a person watching a
// --live run should see. Write it the raw stream in chunks of any size
// (lines may be split across writes and may be very long); it writes the
// rendering to the underlying writer. Close it after the last chunk.
//
// Write never fails, so a broken console cannot stop the caller from saving
// the raw output (e.g. behind an io.MultiWriter); the first error of the
// underlying writer is returned by Close.
type LiveRenderer struct {
	w      io.Writer
	render func(line []byte) string // nil: pass bytes through (text formats)
	buf    []byte                   // start of an unterminated line
	skip   bool                     // discarding the rest of an over-long line
	err    error
	codex  map[string]bool // codex item ids already announced
}

// NewLiveRenderer returns a renderer for a Spec.Format:
//
//   - claude-stream-json: streamed text deltas, "\n\n⚡ [Tool]\n" when a tool
//     call starts, a newline when a content block ends;
//   - codex-jsonl: agent messages, "⚡ [item type]" for commands, file
//     changes, MCP and web-search items, and turn errors;
//   - cursor-stream-json and cursor-json: assistant text and "⚡ [tool]"
//     once per tool call;
//   - opencode-jsonl: text parts and "⚡ [tool]" of today's events, and the
//     assistant messages of the older message.updated events;
//   - anything else (text): the bytes unchanged.
//
// In the JSON formats a line that is not JSON (a CLI's own error message) is
// shown as it is; JSON lines of other kinds show nothing.
func NewLiveRenderer(format string, w io.Writer) *LiveRenderer {
	r := &LiveRenderer{w: w}
	switch format {
	case FormatClaudeStreamJSON, FormatClaudeJSON:
		r.render = renderClaude
	case FormatCodexJSONL:
		r.codex = map[string]bool{}
		r.render = r.renderCodex
	case FormatCursorStreamJSON, FormatCursorJSON:
		r.render = renderCursor
	case FormatOpenCodeJSONL:
		r.render = renderOpenCode
	}
	return r
}

// Write consumes a chunk of raw output. It always reports len(p), nil.
func (r *LiveRenderer) Write(p []byte) (int, error) {
	n := len(p)
	if r.render == nil {
		r.out(p)
		return n, nil
	}
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			r.keep(p)
			break
		}
		if !r.skip {
			line := p[:i]
			if len(r.buf) > 0 {
				r.buf = append(r.buf, line...)
				line = r.buf
			}
			r.line(line)
		}
		r.buf = r.buf[:0]
		r.skip = false
		p = p[i+1:]
	}
	return n, nil
}

// Close renders a last line that had no newline and returns the first error
// of the underlying writer.
func (r *LiveRenderer) Close() error {
	if r.render != nil && !r.skip && len(r.buf) > 0 {
		r.line(r.buf)
	}
	r.buf, r.skip = nil, false
	return r.err
}

func (r *LiveRenderer) keep(p []byte) {
	if r.skip {
		return
	}
	if len(r.buf)+len(p) > maxLiveLine {
		r.buf, r.skip = r.buf[:0], true
		return
	}
	r.buf = append(r.buf, p...)
}

func (r *LiveRenderer) line(line []byte) {
	line = bytes.TrimSuffix(line, []byte("\r"))
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	if !json.Valid(line) {
		r.out(append(line[:len(line):len(line)], '\n'))
		return
	}
	if s := r.render(line); s != "" {
		r.out([]byte(s))
	}
}

func (r *LiveRenderer) out(p []byte) {
	if r.err != nil {
		return
	}
	_, r.err = r.w.Write(p)
}

// decode parses one JSON line into a generic value; nil if it is not an object.
func decode(line []byte) map[string]any {
	var m map[string]any
	if json.Unmarshal(line, &m) != nil {
		return nil
	}
	return m
}

// field walks nested objects; nil when a step is missing or not an object.
func field(v any, path ...string) any {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// texts returns the "text" of the entries of list whose "type" is typ.
func texts(list any, typ string) []string {
	items, _ := list.([]any)
	var out []string
	for _, it := range items {
		if str(field(it, "type")) == typ {
			out = append(out, str(field(it, "text")))
		}
	}
	return out
}

func withNewline(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

func toolLine(name string) string { return "\n\n⚡ [" + name + "]\n" }

func renderClaude(line []byte) string {
	ev := decode(line)
	if str(ev["type"]) != "stream_event" {
		return ""
	}
	switch e := ev["event"]; str(field(e, "type")) {
	case "content_block_delta":
		if str(field(e, "delta", "type")) == "text_delta" {
			return str(field(e, "delta", "text"))
		}
	case "content_block_start":
		if str(field(e, "content_block", "type")) == "tool_use" {
			return toolLine(str(field(e, "content_block", "name")))
		}
	case "content_block_stop":
		return "\n"
	}
	return ""
}

// codexToolItems are the item types announced as tool calls.
var codexToolItems = map[string]bool{
	"command_execution": true, "file_change": true, "mcp_tool_call": true, "web_search": true,
}

func (r *LiveRenderer) renderCodex(line []byte) string {
	ev := decode(line)
	item := ev["item"]
	typ, id := str(field(item, "type")), str(field(item, "id"))
	switch str(ev["type"]) {
	case "item.started":
		if codexToolItems[typ] {
			r.codex[id] = true
			return toolLine(typ)
		}
	case "item.completed":
		if codexToolItems[typ] && !r.codex[id] {
			return toolLine(typ)
		}
		if typ == "agent_message" {
			if t, ok := field(item, "text").(string); ok {
				return withNewline(t)
			}
			return withNewline(strings.Join(texts(field(item, "content"), "output_text"), "\n"))
		}
	case "turn.failed":
		return withNewline("error: " + str(field(ev, "error", "message")))
	case "error":
		return withNewline("error: " + str(ev["message"]))
	}
	return ""
}

func renderCursor(line []byte) string {
	ev := decode(line)
	switch str(ev["type"]) {
	case "assistant":
		return withNewline(strings.Join(texts(field(ev, "message", "content"), "text"), "\n"))
	case "tool_call":
		if str(ev["subtype"]) == "completed" {
			return "" // announced when it started
		}
		return toolLine(cursorToolName(ev))
	}
	return ""
}

// cursorToolName is tool_call.name, else name, else the kind of the
// tool_call's single "<kind>ToolCall" member, else "tool_call".
func cursorToolName(ev map[string]any) string {
	if n := str(field(ev, "tool_call", "name")); n != "" {
		return n
	}
	if n := str(ev["name"]); n != "" {
		return n
	}
	if tc, ok := ev["tool_call"].(map[string]any); ok && len(tc) == 1 {
		for k := range tc {
			if kind, ok := strings.CutSuffix(k, "ToolCall"); ok && kind != "" {
				return kind
			}
		}
	}
	return "tool_call"
}

func renderOpenCode(line []byte) string {
	ev := decode(line)
	switch str(ev["type"]) {
	case "text":
		return withNewline(str(field(ev, "part", "text")))
	case "tool_use":
		return toolLine(str(field(ev, "part", "tool")))
	case "error":
		msg := str(field(ev, "error", "data", "message"))
		if msg == "" {
			msg = str(field(ev, "error", "name"))
		}
		return withNewline("error: " + msg)
	case "message.updated", "message.completed":
		if str(field(ev, "message", "role")) == "assistant" {
			return withNewline(strings.Join(texts(field(ev, "message", "parts"), "text"), "\n"))
		}
	}
	return ""
}
