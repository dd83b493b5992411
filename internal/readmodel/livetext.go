package readmodel

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/ralphloop/ralph_loop/drivers"
)

// liveFormats are the agent output formats whose records live.log may hold
// (a run without --live copies the agent's raw output there), in the order
// they are tried.
var liveFormats = []string{drivers.FormatClaudeStreamJSON, drivers.FormatCodexJSONL,
	drivers.FormatCursorStreamJSON, drivers.FormatOpenCodeJSONL}

// liveText turns the end of live.log into what the agent said, for the
// dashboard: text as it is, and an agent's JSON records rendered as the
// --live console renders them (text, "⚡ [tool]"), by the first output
// format that makes text of them. A lone result record (Claude's or
// Cursor's json output) shows its result text.
func liveText(data []byte) string {
	if !bytes.Contains(data, []byte("\n{")) && !bytes.HasPrefix(data, []byte("{")) {
		return string(data)
	}
	best := ""
	for _, f := range liveFormats {
		var b strings.Builder
		r := drivers.NewLiveRenderer(f, &b)
		_, _ = r.Write(data)
		_ = r.Close()
		if text := b.String(); len(strings.TrimSpace(text)) > len(strings.TrimSpace(best)) {
			best = text
		}
	}
	// A renderer that kept the loop's headers only (a --live renderer
	// shows nothing of Claude's lone json result) did not find the
	// agent's words: the result records have them.
	if said(best) && !strings.Contains(best, `{"type"`) {
		return best
	}
	return resultTexts(data)
}

// said reports whether text holds a line other than the loop's own
// headers ("=== Loop #2 - 2026-12-05 06:11:06 ===").
func said(text string) bool {
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !(strings.HasPrefix(l, "=== Loop #") && strings.HasSuffix(l, " ===")) {
			return true
		}
	}
	return false
}

// resultTexts replaces each line that is a result record with its result
// text; other lines stay as they are.
func resultTexts(data []byte) string {
	var b strings.Builder
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		var rec struct {
			Type   string `json:"type"`
			Result string `json:"result"`
		}
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) > 0 && trimmed[0] == '{' && json.Unmarshal(trimmed, &rec) == nil {
			if rec.Type == "result" && rec.Result != "" {
				b.WriteString(strings.TrimRight(rec.Result, "\n") + "\n")
			}
			continue
		}
		b.Write(line)
	}
	return b.String()
}
