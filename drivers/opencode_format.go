package drivers

import (
	"bytes"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/ralphloop/ralph_loop/analysis"
)

// OpenCode (opencode run --format json) 1.x writes one event per line,
// each {"type", "timestamp", "sessionID": session, "part" or "error"}:
//
//	step_start                   a step (one model call) begins
//	text                         part: {"type": "text", "text"}: the reply, joined per step
//	reasoning, tool_use          part: {"tool", "state": {...}}: not the reply
//	step_finish                  part: {"cost", "tokens": {"input", "output", "reasoning",
//	                             "cache": {"read", "write"}}}, summed over the steps
//	error                        error: {"name", "data": {"message"}}
//
// The reply is the last step's text (the step before it when the last one
// wrote none). Older CLIs were assumed to print {"type": "session.created"
// | "session.updated", "session": {"id"}} and {"type": "message.updated" |
// "message.completed", "message": {"role", "parts": [{"type": "text",
// "text"}]}}: the reply is the last assistant message, the session the
// first of session.id, session_id and sessionId in any event.

// openCodeRecord is one event of OpenCode's output.
type openCodeRecord struct {
	Type      value                   `json:"type"`
	SessionID value                   `json:"sessionID"`
	Part      openCodePart            `json:"part"`
	Error     either[errBody]         `json:"error"`
	Message   either[openCodeMessage] `json:"message"` // older events

	Session        openCodeSession `json:"session"`    // older events
	SessionIDSnake value           `json:"session_id"` // older events
	SessionIDCamel value           `json:"sessionId"`  // older events
}

// openCodePart is an event's part: text, a tool call, or a step's end.
type openCodePart struct {
	Type   value          `json:"type"`
	Text   value          `json:"text"`
	Tool   value          `json:"tool"`
	Cost   value          `json:"cost"`
	Tokens openCodeTokens `json:"tokens"`
}

// openCodeTokens are a step's token counts.
type openCodeTokens struct {
	Input     value         `json:"input"`
	Output    value         `json:"output"`
	Reasoning value         `json:"reasoning"`
	Cache     openCodeCache `json:"cache"`
}

// openCodeCache are a step's cached tokens.
type openCodeCache struct {
	Read  value `json:"read"`
	Write value `json:"write"`
}

// openCodeMessage is an older event's message.
type openCodeMessage struct {
	Role  value   `json:"role"`
	Parts []entry `json:"parts"`
}

// openCodeSession is an older event's session.
type openCodeSession struct {
	ID value `json:"id"`
}

func openCodeTolerated() []*json.Unmarshalers {
	return []*json.Unmarshalers{
		objectOnly[openCodeRecord](), objectOnly[openCodePart](), objectOnly[openCodeTokens](), objectOnly[openCodeCache](),
		objectOnly[openCodeMessage](), objectOnly[openCodeSession](),
	}
}

// decodeOpenCode reads one line of OpenCode's output.
func decodeOpenCode(line []byte, r *openCodeRecord) error {
	*r = openCodeRecord{}
	return decodeRecord(line, r)
}

// openCodeReads are the event types whose fields the analysis reads (any
// event naming a session too, until the older shape's session is known).
var openCodeReads = map[string]bool{
	"text": true, "tool_use": true, "step_start": true, "step_finish": true, "reasoning": true, "error": true,
	"session.created": true, "session.updated": true, "message.updated": true, "message.completed": true,
}

// openCodeReader gathers OpenCode's events.
type openCodeReader struct {
	own                             bool // the driver is OpenCode: a lone event reads as its output
	r                               openCodeRecord
	legacy                          bool
	current                         bool // 1.x events
	legacySession                   string
	legacyLast                      *analysis.Facts
	haveLegacy                      bool
	session                         string
	step                            *analysis.Text
	stepJoin                        joiner
	prevStep                        *analysis.Facts
	usageSeen                       bool
	in, out, reason, cacheR, cacheW int64
	cost                            float64
	errMsgs                         []string
}

// openCodeFormat makes OpenCode's readers; own: the driver is OpenCode.
func openCodeFormat(own bool) func() analysis.FormatReader {
	return func() analysis.FormatReader { return &openCodeReader{own: own} }
}

func (a *openCodeReader) Skip([]byte, []byte, bool) bool { return false }

// Open: until the older shape's session is known, any record naming a
// session is read.
func (a *openCodeReader) Open() bool { return a.legacySession == "" }

func (a *openCodeReader) Reads(typ []byte, v []byte, _ bool) bool {
	return openCodeReads[string(typ)] || a.legacySession == "" && bytes.Contains(v, []byte(`"session`))
}

func (a *openCodeReader) Record(v []byte, _ bool, _ func(analysis.LimitWindow, int64)) error {
	if v[0] == '[' {
		return nil
	}
	if err := decodeOpenCode(v, &a.r); err != nil {
		return err
	}
	a.record(&a.r)
	return nil
}

func (a *openCodeReader) Document(bool) *analysis.Reply {
	if !a.own {
		return nil
	}
	return a.Events()
}

func (a *openCodeReader) record(r *openCodeRecord) {
	typ := r.Type.str()
	switch typ {
	case "session.created", "session.updated":
		a.legacy = true
	case "message.updated", "message.completed":
		if r.Message.Fields.Role.Set() {
			a.legacy = true
		}
	}
	if a.legacySession == "" {
		a.legacySession = firstSession(r.Session.ID, r.SessionIDSnake, r.SessionIDCamel)
	}
	if (typ == "message.updated" || typ == "message.completed") && r.Message.Fields.Role.Is("assistant") {
		a.legacyLast = joined(r.Message.Fields.Parts, "text")
		a.haveLegacy = true
	}
	if r.SessionID.Kind == kindString && openCodeReads[typ] && !strings.HasPrefix(typ, "session.") && !strings.HasPrefix(typ, "message.") {
		a.record1x(r, typ)
	}
}

// record1x reads an OpenCode 1.x event.
func (a *openCodeReader) record1x(r *openCodeRecord, typ string) {
	a.current = true
	if a.session == "" {
		a.session = firstSession(r.SessionID)
	}
	switch typ {
	case "step_start":
		if a.step != nil && a.stepJoin.wrote {
			a.prevStep = a.step.Finish()
			a.step = analysis.NewText()
			a.stepJoin = joiner{w: a.step}
		}
		a.stepJoin.entries = 0
	case "text":
		if a.step == nil {
			a.step = analysis.NewText()
			a.stepJoin = joiner{w: a.step}
		}
		if r.Part.Type.Is("text") {
			a.stepJoin.entry(r.Part.Text)
		}
	case "step_finish":
		a.usageSeen = true
		t := &r.Part.Tokens
		a.in += t.Input.Int()
		a.out += t.Output.Int()
		a.reason += t.Reasoning.Int()
		a.cacheR += t.Cache.Read.Int()
		a.cacheW += t.Cache.Write.Int()
		if c, ok := r.Part.Cost.num(); ok {
			a.cost += c
		}
	case "error":
		msgs := []value{r.Error.Fields.Message, r.Error.Fields.Data.Message}
		if r.Error.Self.Kind == kindString {
			msgs = append([]value{r.Error.Self}, msgs...)
		}
		a.errMsgs = errorMessages(a.errMsgs, msgs...)
	}
}

// Events reads an OpenCode output.
func (a *openCodeReader) Events() *analysis.Reply {
	p := &analysis.Reply{Format: analysis.FormatOpenCode}
	switch {
	case a.current:
		p.Session = firstSession(stringValue(a.session))
		p.Where = "last step's text"
		if a.step != nil && a.stepJoin.wrote {
			p.Text = a.step.Finish()
		} else if a.prevStep != nil {
			p.Text = a.prevStep
		}
		if a.usageSeen {
			in, out, cacheR, cacheW, cost := a.in, a.out+a.reason, a.cacheR, a.cacheW, a.cost
			p.InputTokens, p.OutputTokens, p.CacheReadTokens, p.CacheCreationTokens, p.CostUSD = &in, &out, &cacheR, &cacheW, &cost
		}
		p.ErrorMessages = a.errMsgs
		p.IsError = len(a.errMsgs) > 0
	case a.legacy:
		p.Session = firstSession(stringValue(a.legacySession))
		p.Where = "last assistant message"
		if a.haveLegacy {
			p.Text = a.legacyLast
		}
	default:
		return nil
	}
	return p
}
