package drivers

import (
	"bytes"
	"io"
	"strings"

	"github.com/ralphloop/ralph_loop/internal/safetext"
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
//
// What it writes is made safe for a terminal (safetext.Colour): the
// agent's colours pass, no other escape sequence or control does.
type LiveRenderer struct {
	w      *safetext.Writer
	render func([]byte) (string, error) // nil: pass bytes through (text formats)
	claude claudeRecord                 // the line being rendered, per format
	codexR codexRecord
	ocR    openCodeRecord
	buf    []byte // start of an unterminated line
	skip   bool   // discarding the rest of an over-long line
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
	r := &LiveRenderer{w: safetext.NewWriter(w)}
	switch format {
	case FormatClaudeStreamJSON, FormatClaudeJSON:
		r.render = func(l []byte) (string, error) {
			if err := decodeClaude(l, &r.claude); err != nil {
				return "", err
			}
			return renderClaude(&r.claude), nil
		}
	case FormatCodexJSONL:
		r.codex = map[string]bool{}
		r.render = func(l []byte) (string, error) {
			if err := decodeCodex(l, &r.codexR); err != nil {
				return "", err
			}
			return r.renderCodex(&r.codexR), nil
		}
	case FormatCursorStreamJSON, FormatCursorJSON:
		r.render = func(l []byte) (string, error) {
			if err := decodeClaude(l, &r.claude); err != nil {
				return "", err
			}
			return renderCursor(&r.claude), nil
		}
	case FormatOpenCodeJSONL:
		r.render = func(l []byte) (string, error) {
			if err := decodeOpenCode(l, &r.ocR); err != nil {
				return "", err
			}
			return renderOpenCode(&r.ocR), nil
		}
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
	if err := r.w.Flush(); err != nil && r.err == nil {
		r.err = err
	}
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
	s, err := r.render(line)
	if err != nil {
		r.out(append(line[:len(line):len(line)], '\n'))
		return
	}
	if s != "" {
		r.out([]byte(s))
	}
}

func (r *LiveRenderer) out(p []byte) {
	if r.err != nil {
		return
	}
	_, r.err = r.w.Write(p)
}

func str(v value) string { return v.str() }

// texts returns the text of the entries whose type is typ.
func texts(list []entry, typ string) string {
	var out []string
	for _, e := range list {
		if e.Type.Is(typ) {
			out = append(out, str(e.Text))
		}
	}
	return strings.Join(out, "\n")
}

func withNewline(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

func toolLine(name string) string { return "\n\n⚡ [" + name + "]\n" }

func renderClaude(ev *claudeRecord) string {
	if !ev.Type.Is("stream_event") {
		return ""
	}
	switch e := &ev.Event; str(e.Type) {
	case "content_block_delta":
		if e.Delta.Type.Is("text_delta") {
			return str(e.Delta.Text)
		}
	case "content_block_start":
		if e.ContentBlock.Type.Is("tool_use") {
			return toolLine(str(e.ContentBlock.Name))
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

func (r *LiveRenderer) renderCodex(ev *codexRecord) string {
	item := &ev.Item
	typ, id := str(item.Type), str(item.ID)
	switch str(ev.Type) {
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
			if item.Text.Kind == kindString {
				return withNewline(item.Text.Text)
			}
			return withNewline(texts(item.Content, "output_text"))
		}
	case "turn.failed":
		return withNewline("error: " + str(ev.Error.Fields.Message))
	case "error":
		return withNewline("error: " + str(ev.Message))
	}
	return ""
}

func renderCursor(ev *claudeRecord) string {
	switch str(ev.Type) {
	case "assistant":
		return withNewline(texts(ev.Message.Fields.Content, "text"))
	case "tool_call":
		if ev.Subtype.Is("completed") {
			return "" // announced when it started
		}
		return toolLine(cursorToolName(ev))
	}
	return ""
}

// cursorToolName is tool_call.name, else name, else the kind of the
// tool_call's single "<kind>ToolCall" member, else "tool_call".
func cursorToolName(ev *claudeRecord) string {
	if n := str(ev.ToolCall.Name); n != "" {
		return n
	}
	if n := str(ev.Name); n != "" {
		return n
	}
	if ev.ToolCall.Kind != "" {
		return ev.ToolCall.Kind
	}
	return "tool_call"
}

func renderOpenCode(ev *openCodeRecord) string {
	switch str(ev.Type) {
	case "text":
		return withNewline(str(ev.Part.Text))
	case "tool_use":
		return toolLine(str(ev.Part.Tool))
	case "error":
		msg := str(ev.Error.Fields.Data.Message)
		if msg == "" {
			msg = str(ev.Error.Fields.Name)
		}
		return withNewline("error: " + msg)
	case "message.updated", "message.completed":
		if ev.Message.Fields.Role.Is("assistant") {
			return withNewline(texts(ev.Message.Fields.Parts, "text"))
		}
	}
	return ""
}
