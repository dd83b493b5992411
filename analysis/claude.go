package analysis

import (
	"bytes"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Claude Code (and Cursor's agent, which prints the same shapes) writes
// one of three formats:
//
//   - --output-format json: one result object, {"type": "result",
//     "result": reply, "session_id", "is_error", "usage": {...},
//     "total_cost_usd", "duration_ms", "duration_api_ms", "num_turns",
//     "permission_denials": [...], "errors": [...]}; older CLIs print a
//     message array whose last "result" element is that object, and some
//     wrappers a flat object (result or summary, status, exit_signal,
//     metadata: {files_changed, has_errors, completion_status, session_id}).
//   - --output-format stream-json: one record per line: "system" (subtype
//     "init" carries the session_id), "assistant" (message.content[] text
//     entries), "user" (tool results: never the agent's own words),
//     "stream_event" (event.delta text_delta pieces of the message being
//     written; "content_block_stop" ends one), "rate_limit_event"
//     (rate_limit_info: the usage window's status and reset time), and the
//     final "result" object above. Cursor adds "tool_call".
//
// The reply is the last result's "result" string; a stream cut before its
// result gives the assistant messages joined, then the text deltas of an
// unfinished message. Errors are errors[], error (a string: "rate_limit"
// is a usage limit; or {message, data: {message}}), api_error_status 429,
// and a string "message".

// ClaudeRecord is one record of Claude's (or Cursor's) output.
type ClaudeRecord struct {
	Type    Value `json:"type"`
	Subtype Value `json:"subtype"` // "init" of the system record, "success"...

	// The result object (and the flat format).
	Result         Value           `json:"result"`
	Summary        Value           `json:"summary"`
	SessionIDCamel Value           `json:"sessionId"`
	SessionID      Value           `json:"session_id"` // also the system init record
	Metadata       Metadata        `json:"metadata"`
	Status         Value           `json:"status"`
	ExitSignal     Value           `json:"exit_signal"`
	TasksCompleted Value           `json:"tasks_completed_this_loop"`
	WorkType       Value           `json:"work_type"`
	FilesModified  Value           `json:"files_modified"`
	ErrorCount     Value           `json:"error_count"`
	Confidence     Value           `json:"confidence"`
	Usage          ClaudeUsage     `json:"usage"`
	TotalCostUSD   Value           `json:"total_cost_usd"`
	DurationMS     Value           `json:"duration_ms"`
	DurationAPIMS  Value           `json:"duration_api_ms"`
	NumTurns       Value           `json:"num_turns"`
	IsError        Value           `json:"is_error"`
	APIErrorStatus Value           `json:"api_error_status"`
	Denials        []Denial        `json:"permission_denials"`
	Errors         []Value         `json:"errors"`
	Error          Either[ErrBody] `json:"error"`

	Message       Either[ClaudeMessage] `json:"message"`         // assistant records (a string: an error message)
	Event         StreamEvent           `json:"event"`           // stream_event records
	RateLimitInfo RateLimit             `json:"rate_limit_info"` // rate_limit_event records
	ToolCall      ToolCall              `json:"tool_call"`       // Cursor tool_call records (shown live only)
	Name          Value                 `json:"name"`            // Cursor tool_call: the tool's name (older CLIs)
}

// Metadata is the flat format's metadata object.
type Metadata struct {
	CompletionStatus Value `json:"completion_status"`
	FilesChanged     Value `json:"files_changed"`
	HasErrors        Value `json:"has_errors"`
	SessionID        Value `json:"session_id"`
}

// ClaudeUsage is the token usage of a call.
type ClaudeUsage struct {
	InputTokens         Value `json:"input_tokens"`
	OutputTokens        Value `json:"output_tokens"`
	CacheReadTokens     Value `json:"cache_read_input_tokens"`
	CacheCreationTokens Value `json:"cache_creation_input_tokens"`
}

// Denial is one element of permission_denials.
type Denial struct {
	ToolName  Value     `json:"tool_name"`
	ToolInput ToolInput `json:"tool_input"`
}

// ToolInput is a denied tool call's input.
type ToolInput struct {
	Command Value `json:"command"`
}

// ErrBody is an error object: {"message"} (Codex too) or {"name",
// "data": {"message"}} (OpenCode too).
type ErrBody struct {
	Message Value   `json:"message"`
	Name    Value   `json:"name"`
	Data    ErrData `json:"data"`
}

// ErrData is an error object's data.
type ErrData struct {
	Message Value `json:"message"`
}

// ClaudeMessage is an assistant record's message.
type ClaudeMessage struct {
	Role    Value   `json:"role"`
	Content []Entry `json:"content"`
}

// Entry is one element of a content or parts list: a typed piece of text.
type Entry struct {
	Type Value `json:"type"`
	Text Value `json:"text"`
}

// StreamEvent is the inner event of a stream_event record.
type StreamEvent struct {
	Type         Value        `json:"type"` // content_block_start, content_block_delta, content_block_stop...
	Delta        Entry        `json:"delta"`
	ContentBlock ContentBlock `json:"content_block"`
}

// ContentBlock is a content_block_start's block (a tool_use names its tool).
type ContentBlock struct {
	Type Value `json:"type"`
	Name Value `json:"name"`
}

// RateLimit is a rate_limit_event's payload.
type RateLimit struct {
	Status        Value `json:"status"` // allowed, allowed_warning, rejected
	ResetsAt      Value `json:"resetsAt"`
	RateLimitType Value `json:"rateLimitType"` // five_hour, seven_day, seven_day_opus, ...
	Utilization   Value `json:"utilization"`   // when sent: the window's used fraction (0..1)
}

// ToolCall is Cursor's tool_call object: {"name"} in older CLIs, else one
// member "<kind>ToolCall".
type ToolCall struct {
	Name Value
	Kind string // <kind> of a single "<kind>ToolCall" member
}

// UnmarshalJSONFrom reads the name, and the kind of a single
// "<kind>ToolCall" member.
func (t *ToolCall) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	*t = ToolCall{}
	if dec.PeekKind() != '{' {
		return dec.SkipValue()
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	members := 0
	var only string
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return err
		}
		members++
		only = name.String()
		if only == "name" {
			err = t.Name.UnmarshalJSONFrom(dec)
		} else {
			err = dec.SkipValue()
		}
		if err != nil {
			return err
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	if n := len(only) - len("ToolCall"); members == 1 && n > 0 && only[n:] == "ToolCall" {
		t.Kind = only[:n]
	}
	return nil
}

var claudeTolerated = []*json.Unmarshalers{
	objectOnly[ClaudeRecord](), objectOnly[Metadata](), objectOnly[ClaudeUsage](), objectOnly[Denial](),
	objectOnly[ToolInput](), objectOnly[ErrBody](), objectOnly[ErrData](), objectOnly[ClaudeMessage](),
	objectOnly[Entry](), objectOnly[StreamEvent](), objectOnly[ContentBlock](), objectOnly[RateLimit](),
	listOnly[Denial](), listOnly[Value](), listOnly[Entry](), listOnly[ClaudeRecord](),
}

// DecodeClaude reads one line of Claude's or Cursor's output.
func DecodeClaude(line []byte, r *ClaudeRecord) error {
	*r = ClaudeRecord{}
	return decodeRecord(line, r)
}

// claudeTypes are the record types of Claude's stream: any of them makes
// an output a stream-json one.
var claudeTypes = map[string]bool{"system": true, "user": true, "assistant": true, "tool_call": true, "result": true}

// claudeReads are the record types whose fields the analysis reads.
var claudeReads = map[string]bool{"system": true, "assistant": true, "result": true, "stream_event": true, "rate_limit_event": true}

// resultObject is a result-like object as read: Claude's result, an
// element of the message array, the flat format, or any first document.
type resultObject struct {
	rec     *ClaudeRecord
	result  *textFacts // when result is a string
	summary *textFacts // when summary is a string
	errMsgs []string
}

// newResultObject reads a result-like object; it keeps r.
func newResultObject(r *ClaudeRecord) *resultObject {
	o := &resultObject{rec: r}
	if r.Result.Kind == String {
		o.result = scanString(r.Result.Text, MaxResultText)
	}
	if r.Summary.Kind == String {
		o.summary = scanString(r.Summary.Text, MaxResultText)
	}
	var msgs []Value
	msgs = append(msgs, r.Errors...)
	msgs = append(msgs, r.Error.Fields.Message, r.Error.Fields.Data.Message, r.Message.Self)
	o.errMsgs = errorMessages(nil, msgs...)
	return o
}

// claudeReading gathers Claude's stream (live) or message array.
type claudeReading struct {
	detect      bool
	initSession string
	last        *resultObject // last result record
	asst        *textRules    // assistant texts joined
	asstJoin    joiner
	deltas      []byte // text deltas after the last assistant message
	deltaOver   bool
	// events are the stream_event lines after the last assistant message,
	// not decoded yet: only a stream without a result record reads them.
	events []byte
	cut    *textFacts // the reading of a stream cut before its result, once made
}

// record takes one record; live is false for the message array, whose
// assistant messages are not the reply.
func (a *claudeReading) record(r *ClaudeRecord, live bool) {
	typ := r.Type.Str()
	if claudeTypes[typ] {
		a.detect = true
	}
	switch typ {
	case "system":
		if r.Subtype.Is("init") && a.initSession == "" {
			a.initSession = firstSession(r.SessionID)
		}
	case "result":
		rec := *r // r is reused for the next record
		a.last = newResultObject(&rec)
	case "assistant":
		if !live {
			return
		}
		if a.asst == nil {
			a.asst = newTextRules(MaxResultText)
			a.asstJoin = joiner{w: a.asst}
		}
		a.asstJoin.entries = 0
		a.asstJoin.prefix = a.asstJoin.wrote
		if r.Message.Self.Kind == Object {
			a.asstJoin.entryTexts(r.Message.Fields.Content, "text")
		}
		a.deltas, a.deltaOver = a.deltas[:0], false
		a.events = a.events[:0]
	case "stream_event":
		if !live || !r.Event.Type.Is("content_block_delta") && !r.Event.Type.Is("content_block_stop") {
			return
		}
		if d := r.Event.Delta; r.Event.Type.Is("content_block_delta") && d.Type.Is("text_delta") {
			a.delta(d.Text.Str())
		}
		if r.Event.Type.Is("content_block_stop") && len(a.deltas) > 0 && a.deltas[len(a.deltas)-1] != '\n' {
			a.delta("\n")
		}
	}
}

// hold keeps a stream_event line (without newlines) to read later, if ever.
func (a *claudeReading) hold(line []byte) {
	a.events = append(append(a.events, line...), '\n')
	if len(a.events) > maxHeld {
		a.release()
	}
}

// maxHeld bounds the stream_event lines held back.
const maxHeld = 4 << 20

// release reads the stream_event lines held back, in order.
func (a *claudeReading) release() {
	held := a.events
	a.events = nil
	var r ClaudeRecord
	for len(held) > 0 {
		i := bytes.IndexByte(held, '\n')
		if DecodeClaude(held[:i], &r) == nil {
			a.record(&r, true)
		}
		held = held[i+1:]
	}
	a.events = held[:0]
}

func (a *claudeReading) delta(s string) {
	if room := maxPieces - len(a.deltas); room < len(s) {
		a.deltaOver = true
		s = s[:max(room, 0)]
	}
	a.deltas = append(a.deltas, s...)
}

// shape is the stream's reading when no result record came: the assistant
// messages, then the deltas of an unfinished one.
func (a *claudeReading) unfinished() *textFacts {
	if a.cut != nil {
		return a.cut
	}
	a.release()
	if len(a.deltas) > 0 {
		if a.asst == nil {
			a.asst = newTextRules(MaxResultText)
			a.asstJoin = joiner{w: a.asst}
		}
		a.asstJoin.prefix = a.asstJoin.wrote
		a.asstJoin.Write(a.deltas)
	}
	if a.asst == nil {
		return nil
	}
	a.cut = a.asst.finish()
	return a.cut
}

// maxPieces bounds the text deltas kept of an unfinished message.
const maxPieces = 1 << 20

// joiner joins texts into one writer: "\n" between the entries of a
// group, and "\n" before the group's first byte when prefix is set.
type joiner struct {
	w       *textRules
	entries int
	prefix  bool
	wrote   bool
}

// entryTexts writes the text of each entry of type typ, one entry each.
func (j *joiner) entryTexts(list []Entry, typ string) {
	for _, e := range list {
		if !e.Type.Is(typ) {
			continue
		}
		j.entry(e.Text)
	}
}

// entry writes one entry's text (a string; anything else adds only the
// separator).
func (j *joiner) entry(text Value) {
	if j.entries > 0 {
		j.Write([]byte{'\n'})
	}
	j.entries++
	if text.Kind == String {
		j.Write([]byte(text.Text))
	}
}

func (j *joiner) Write(p []byte) {
	if len(p) == 0 {
		return
	}
	if j.prefix {
		j.prefix = false
		j.w.Write([]byte{'\n'})
	}
	j.wrote = true
	j.w.Write(p)
}

// objectShape reads an output of one result object (or the flat format).
func (rd *reading) objectShape() *parsed {
	o := rd.first
	if o == nil {
		o = &resultObject{rec: &ClaudeRecord{}}
	}
	r := o.rec
	p := &parsed{format: FormatJSONObject, obj: o, text: o.result, where: "result field"}
	p.session = firstSession(r.SessionIDCamel, r.Metadata.SessionID, r.SessionID)
	p.useObjUsage(o)
	p.useObjErrors(o)
	return p
}

// arrayShape reads Claude's message array.
func (rd *reading) arrayShape() *parsed {
	o := rd.arr.last
	if o == nil {
		o = &resultObject{rec: &ClaudeRecord{}}
	}
	r := o.rec
	p := &parsed{format: FormatJSONArray, obj: o, text: o.result, where: "last result element"}
	p.session = firstSession(r.SessionIDCamel, r.SessionID, Str(rd.arr.initSession), r.Metadata.SessionID)
	p.useObjUsage(o)
	p.useObjErrors(o)
	return p
}

// streamShape reads Claude's or Cursor's stream-json.
func (rd *reading) streamShape() *parsed {
	a := &rd.claude
	p := &parsed{format: FormatStreamJSON}
	if o := a.last; o != nil {
		r := o.rec
		p.obj, p.text, p.where = o, o.result, "last result event"
		p.session = firstSession(r.SessionID, r.SessionIDCamel, r.Metadata.SessionID, Str(a.initSession))
		p.useObjUsage(o)
		p.useObjErrors(o)
		return p
	}
	// No result event (a cut stream): the assistant messages, then the
	// text deltas of an unfinished last message.
	p.jsonl = true
	p.session = firstSession(Str(a.initSession))
	p.text = a.unfinished()
	p.where = "assistant messages (no result event)"
	p.cut = a.deltaOver
	return p
}

// useObjUsage takes the usage a result object reports.
func (p *parsed) useObjUsage(o *resultObject) {
	set := func(v Value, dst *int64, bit uint8) {
		if f, ok := v.Num(); ok {
			*dst = int64(f)
			p.usageKnown |= bit
		}
	}
	r := o.rec
	set(r.Usage.InputTokens, &p.usage.InputTokens, uIn)
	set(r.Usage.OutputTokens, &p.usage.OutputTokens, uOut)
	set(r.Usage.CacheReadTokens, &p.usage.CacheReadTokens, uCacheRead)
	set(r.Usage.CacheCreationTokens, &p.usage.CacheCreationTokens, uCacheCreate)
	if f, ok := r.TotalCostUSD.Num(); ok {
		p.usage.CostUSD = f
		p.usageKnown |= uCost
	}
	p.durMS, p.durAPIMS, p.numTurns = r.DurationMS, r.DurationAPIMS, r.NumTurns
}

// useObjErrors takes the errors and denials a result object reports.
func (p *parsed) useObjErrors(o *resultObject) {
	r := o.rec
	p.isError = r.IsError.Kind == True || r.IsError.Is("true")
	p.errMsgs = o.errMsgs
	if f, ok := r.APIErrorStatus.Num(); ok && f == 429 {
		p.api429 = true
	}
	if r.Error.Self.Is("rate_limit") {
		p.api429 = true
	}
	if r.Denials != nil {
		p.denialCount = len(r.Denials)
		for i, e := range r.Denials {
			if i == maxDenials {
				break
			}
			p.denied = append(p.denied, deniedCommand(e.ToolName.Text, e.ToolName.Kind == String, e.ToolInput.Command.Text, e.ToolInput.Command.Kind == String))
		}
	}
}
