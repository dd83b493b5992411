package drivers

import (
	"bytes"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/ralphloop/ralph_loop/analysis"
)

// Codex (codex exec --json) writes one event per line:
//
//	{"type": "thread.started", "thread_id": session}
//	{"type": "turn.started"}
//	{"type": "item.started" | "item.completed", "item": {"id", "type", ...}}
//	{"type": "turn.completed", "usage": {"input_tokens", "cached_input_tokens", "output_tokens"}}
//	{"type": "turn.failed", "error": {"message"}}
//	{"type": "error", "message": "..."}
//
// Items: "agent_message" (its "text" is a reply; older CLIs put
// "content": [{"type": "output_text", "text"}]), "reasoning",
// "command_execution" ("command", "aggregated_output", "status": a
// "declined" one is a permission denial), "file_change" (also "declined"),
// "error" ("message"). The reply is the last agent message. Usage is summed
// over the turns; input_tokens includes the cached ones. The rate-limit
// snapshot ("rate_limits": {"primary", "secondary": {"used_percent",
// "window_minutes", "resets_at" or "resets_in_seconds"}}) may come in any
// event, or in "msg" (older exec --json) or "payload" (the session log).

// codexRecord is one event of Codex's output.
type codexRecord struct {
	Type       value           `json:"type"`
	ThreadID   value           `json:"thread_id"`
	Item       codexItem       `json:"item"`
	Usage      codexUsage      `json:"usage"`
	Error      either[errBody] `json:"error"`
	Message    value           `json:"message"` // the error event's message
	RateLimits rateLimits      `json:"rate_limits"`
	Msg        codexWrapped    `json:"msg"`
	Payload    codexWrapped    `json:"payload"`
}

// codexItem is an item of item.started and item.completed.
type codexItem struct {
	ID      value   `json:"id"`
	Type    value   `json:"type"`
	Status  value   `json:"status"`
	Command value   `json:"command"`
	Text    value   `json:"text"`
	Content []entry `json:"content"` // older CLIs: output_text entries
	Message value   `json:"message"`
}

// codexUsage is a turn's token usage.
type codexUsage struct {
	InputTokens       value `json:"input_tokens"`
	CachedInputTokens value `json:"cached_input_tokens"` // the cached part of input_tokens
	OutputTokens      value `json:"output_tokens"`
}

// codexWrapped is an event wrapped in another record: the older exec
// --json's "msg" and the session log's "payload".
type codexWrapped struct {
	Type       value      `json:"type"`
	RateLimits rateLimits `json:"rate_limits"`
}

// rateLimits is the rate-limit snapshot: the primary (shorter) and
// secondary (weekly) windows, and the flat fields of the first versions
// that sent one.
type rateLimits struct {
	Primary                rateWindow `json:"primary"`
	Secondary              rateWindow `json:"secondary"`
	PrimaryUsedPercent     value      `json:"primary_used_percent"`
	SecondaryUsedPercent   value      `json:"secondary_used_percent"`
	PrimaryWindowMinutes   value      `json:"primary_window_minutes"`
	SecondaryWindowMinutes value      `json:"secondary_window_minutes"`
}

// rateWindow is one window of a snapshot.
type rateWindow struct {
	UsedPercent     value `json:"used_percent"`
	WindowMinutes   value `json:"window_minutes"`
	ResetsAt        value `json:"resets_at"`         // unix seconds (newer CLIs)
	ResetsInSeconds value `json:"resets_in_seconds"` // seconds from the event (older CLIs)
}

func codexTolerated() []*json.Unmarshalers {
	return []*json.Unmarshalers{
		objectOnly[codexRecord](), objectOnly[codexItem](), objectOnly[codexUsage](), objectOnly[codexWrapped](),
		objectOnly[rateLimits](), objectOnly[rateWindow](),
	}
}

// decodeCodex reads one line of Codex's output.
func decodeCodex(line []byte, r *codexRecord) error {
	*r = codexRecord{}
	return decodeRecord(line, r)
}

// codexReads are the event types whose fields the analysis reads (any
// event with a "rate_limits" snapshot too).
var codexReads = map[string]bool{"thread.started": true, "item.completed": true, "turn.completed": true, "turn.failed": true, "error": true}

// codexBulk: a completed command or file change that was not declined is
// counted, not read: its output is most of a Codex output's bytes and the
// analysis reads none of it. Codex writes the item's id and type first and
// its status last; a line in another order is read.
func codexBulk(t []byte) bool {
	rest, ok := bytes.CutPrefix(t, []byte(`{"type":"item.completed","item":{"id":"`))
	if !ok {
		return false
	}
	i := bytes.IndexByte(rest, '"')
	if i < 0 {
		return false
	}
	rest = rest[i+1:]
	if !bytes.HasPrefix(rest, []byte(`,"type":"command_execution",`)) && !bytes.HasPrefix(rest, []byte(`,"type":"file_change",`)) {
		return false
	}
	tail := t[max(0, len(t)-48):]
	k := bytes.LastIndex(tail, []byte(`,"status":"`))
	if k < 0 {
		return false
	}
	status := tail[k+len(`,"status":"`):]
	end := bytes.IndexByte(status, '"')
	return end >= 0 && string(status[end:]) == `"}}` && string(status[:end]) != "declined" && bytes.IndexByte(status[:end], '\\') < 0
}

// codexReader gathers Codex's events.
type codexReader struct {
	longStrings
	own             bool // the driver is Codex: a lone event reads as its output
	r               codexRecord
	detect          bool
	threadID        string
	last            *analysis.Facts // last agent message, once read
	lastText        string          // its text, until read
	haveLast        bool
	usageSeen       bool
	in, cached, out int64
	errMsgs         []string
	failed          bool
	declined        []string
}

// codexFormat makes Codex's readers; own: the driver is Codex.
func codexFormat(own bool) func() analysis.FormatReader {
	return func() analysis.FormatReader { return &codexReader{own: own} }
}

// Skip counts command outputs and file changes (see codexBulk).
func (a *codexReader) Skip(_ []byte, line []byte, _ bool) bool {
	if !codexBulk(line) {
		return false
	}
	a.detect = true
	return true
}

func (a *codexReader) Open() bool { return false }

func (a *codexReader) Reads(typ []byte, v []byte, _ bool) bool {
	return codexReads[string(typ)] || bytes.Contains(v, []byte(`"rate_limits"`))
}

func (a *codexReader) Record(v []byte, _ bool, window func(analysis.LimitWindow, int64)) error {
	if v[0] == '[' {
		return nil
	}
	if err := decodeCodex(v, &a.r); err != nil {
		return err
	}
	for _, rl := range []*rateLimits{&a.r.RateLimits, &a.r.Msg.RateLimits, &a.r.Payload.RateLimits} {
		codexLimits(window, rl)
	}
	a.record(&a.r)
	return nil
}

// codexLimits reads the windows of a rate-limit snapshot.
func codexLimits(window func(analysis.LimitWindow, int64), rl *rateLimits) {
	put := func(name string, win rateWindow, flatPct, flatMin value) {
		pct, ok := win.UsedPercent.num()
		if !ok {
			if pct, ok = flatPct.num(); !ok {
				return
			}
		}
		w := analysis.LimitWindow{Window: name, Status: analysis.LimitAllowed, UsedPercent: &pct, ResetsAt: epoch(win.ResetsAt)}
		if pct >= 100 {
			w.Status = analysis.LimitRejected
		}
		if m, ok := win.WindowMinutes.or(flatMin).num(); ok && m > 0 {
			w.WindowMinutes = int(m)
		}
		resetIn := int64(-1)
		if s, ok := win.ResetsInSeconds.num(); ok && s >= 0 && w.ResetsAt == 0 {
			resetIn = int64(s)
		}
		window(w, resetIn)
	}
	put("primary", rl.Primary, rl.PrimaryUsedPercent, rl.PrimaryWindowMinutes)
	put("secondary", rl.Secondary, rl.SecondaryUsedPercent, rl.SecondaryWindowMinutes)
}

func (a *codexReader) Document(bool) *analysis.Reply {
	if !a.own {
		return nil
	}
	return a.Events()
}

func (a *codexReader) record(r *codexRecord) {
	typ := r.Type.str()
	if typ == "thread.started" || (typ == "item.completed" && r.Item.Type.Set()) {
		a.detect = true
	}
	switch typ {
	case "thread.started":
		if a.threadID == "" {
			a.threadID = firstSession(r.ThreadID)
		}
	case "item.completed":
		it := &r.Item
		switch {
		case it.Type.Is("agent_message"):
			// item.text // (content[] output_text joined) // ""
			// Only the last message counts: its text is read when the
			// output has ended.
			a.last, a.lastText = a.long["item.text"], ""
			if it.Text.Kind == kindString && a.last == nil {
				a.lastText = it.Text.Text
			} else if it.Text.Kind != kindString {
				a.last = joined(it.Content, "output_text")
			}
			a.haveLast = true
		case it.Type.Is("command_execution") && it.Status.Is("declined"):
			cmd, _ := it.Command.nonEmpty()
			a.declined = append(a.declined, "shell("+firstLine60(cmd)+")")
		case it.Type.Is("file_change") && it.Status.Is("declined"):
			a.declined = append(a.declined, "file_change")
		case it.Type.Is("error"):
			a.errMsgs = errorMessages(a.errMsgs, r.messages()...)
		}
	case "turn.completed":
		a.usageSeen = true
		a.in += r.Usage.InputTokens.Int()
		a.cached += r.Usage.CachedInputTokens.Int()
		a.out += r.Usage.OutputTokens.Int()
	case "turn.failed":
		a.failed = true
		a.errMsgs = errorMessages(a.errMsgs, r.messages()...)
	case "error":
		a.errMsgs = errorMessages(a.errMsgs, r.messages()...)
	}
}

// messages are the error messages an event carries.
func (r *codexRecord) messages() []value {
	return []value{r.Item.Message, r.Error.Fields.Message, r.Error.Fields.Data.Message, r.Message}
}

// firstLine60 is jq's `split("\n")[0] | .[0:60]`: the first line, cut at 60
// characters, as the bash loop shows a declined command.
func firstLine60(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	n := 0
	for i := range s {
		if n == 60 {
			return s[:i]
		}
		n++
	}
	return s
}

// Events reads a Codex output.
func (a *codexReader) Events() *analysis.Reply {
	if !a.detect {
		return nil
	}
	p := &analysis.Reply{Format: analysis.FormatCodex, Session: firstSession(stringValue(a.threadID)), Where: "last agent_message"}
	if a.haveLast {
		if a.last == nil {
			a.last = scanText(a.lastText)
		}
		p.Text = a.last
	}
	if a.usageSeen {
		// Codex counts cached input inside input_tokens; Claude does not.
		// Keep the four counts disjoint for every driver, so totals and
		// --max-tokens never count a cached token twice.
		in := a.in - a.cached
		if in < 0 {
			in = a.in
		}
		out, cached := a.out, a.cached
		p.InputTokens, p.OutputTokens, p.CacheReadTokens = &in, &out, &cached
	}
	p.IsError = a.failed
	p.ErrorMessages = a.errMsgs
	p.Denied = a.declined
	p.DenialCount = len(a.declined)
	return p
}
