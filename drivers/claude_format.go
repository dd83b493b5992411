package drivers

import (
	"bytes"
	"strconv"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/ralphloop/ralph_loop/analysis"
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

// claudeRecord is one record of Claude's (or Cursor's) output.
type claudeRecord struct {
	Type    value `json:"type"`
	Subtype value `json:"subtype"` // "init" of the system record, "success"...

	// The result object (and the flat format).
	Result         value           `json:"result"`
	Summary        value           `json:"summary"`
	SessionIDCamel value           `json:"sessionId"`
	SessionID      value           `json:"session_id"` // also the system init record
	Metadata       metadata        `json:"metadata"`
	Status         value           `json:"status"`
	ExitSignal     value           `json:"exit_signal"`
	TasksCompleted value           `json:"tasks_completed_this_loop"`
	WorkType       value           `json:"work_type"`
	FilesModified  value           `json:"files_modified"`
	ErrorCount     value           `json:"error_count"`
	Confidence     value           `json:"confidence"`
	Usage          claudeUsage     `json:"usage"`
	TotalCostUSD   value           `json:"total_cost_usd"`
	DurationMS     value           `json:"duration_ms"`
	DurationAPIMS  value           `json:"duration_api_ms"`
	NumTurns       value           `json:"num_turns"`
	IsError        value           `json:"is_error"`
	APIErrorStatus value           `json:"api_error_status"`
	Denials        []denial        `json:"permission_denials"`
	Errors         []value         `json:"errors"`
	Error          either[errBody] `json:"error"`

	Message       either[claudeMessage] `json:"message"`         // assistant records (a string: an error message)
	Event         streamEvent           `json:"event"`           // stream_event records
	RateLimitInfo rateLimit             `json:"rate_limit_info"` // rate_limit_event records
	ToolCall      toolCall              `json:"tool_call"`       // Cursor tool_call records (shown live only)
	Name          value                 `json:"name"`            // Cursor tool_call: the tool's name (older CLIs)
}

// metadata is the flat format's metadata object.
type metadata struct {
	CompletionStatus value `json:"completion_status"`
	FilesChanged     value `json:"files_changed"`
	HasErrors        value `json:"has_errors"`
	SessionID        value `json:"session_id"`
}

// claudeUsage is the token usage of a call.
type claudeUsage struct {
	InputTokens         value `json:"input_tokens"`
	OutputTokens        value `json:"output_tokens"`
	CacheReadTokens     value `json:"cache_read_input_tokens"`
	CacheCreationTokens value `json:"cache_creation_input_tokens"`
}

// denial is one element of permission_denials.
type denial struct {
	ToolName  value     `json:"tool_name"`
	ToolInput toolInput `json:"tool_input"`
}

// toolInput is a denied tool call's input.
type toolInput struct {
	Command value `json:"command"`
}

// claudeMessage is an assistant record's message.
type claudeMessage struct {
	Role    value   `json:"role"`
	Content []entry `json:"content"`
}

// streamEvent is the inner event of a stream_event record.
type streamEvent struct {
	Type         value        `json:"type"` // content_block_start, content_block_delta, content_block_stop...
	Delta        entry        `json:"delta"`
	ContentBlock contentBlock `json:"content_block"`
}

// contentBlock is a content_block_start's block (a tool_use names its tool).
type contentBlock struct {
	Type value `json:"type"`
	Name value `json:"name"`
}

// rateLimit is a rate_limit_event's payload.
type rateLimit struct {
	Status        value `json:"status"` // allowed, allowed_warning, rejected
	ResetsAt      value `json:"resetsAt"`
	RateLimitType value `json:"rateLimitType"` // five_hour, seven_day, seven_day_opus, ...
	Utilization   value `json:"utilization"`   // when sent: the window's used fraction (0..1)
}

// toolCall is Cursor's tool_call object: {"name"} in older CLIs, else one
// member "<kind>ToolCall".
type toolCall struct {
	Name value
	Kind string // <kind> of a single "<kind>ToolCall" member
}

// UnmarshalJSONFrom reads the name, and the kind of a single
// "<kind>ToolCall" member.
func (t *toolCall) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	*t = toolCall{}
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

func claudeTolerated() []*json.Unmarshalers {
	return []*json.Unmarshalers{
		objectOnly[claudeRecord](), objectOnly[metadata](), objectOnly[claudeUsage](), objectOnly[denial](),
		objectOnly[toolInput](), objectOnly[claudeMessage](), objectOnly[streamEvent](), objectOnly[contentBlock](),
		objectOnly[rateLimit](), listOnly[denial](), listOnly[claudeRecord](),
	}
}

// decodeClaude reads one line of Claude's or Cursor's output.
func decodeClaude(line []byte, r *claudeRecord) error {
	*r = claudeRecord{}
	return decodeRecord(line, r)
}

// claudeTypes are the record types of Claude's stream: any of them makes
// an output a stream-json one.
var claudeTypes = map[string]bool{"system": true, "user": true, "assistant": true, "tool_call": true, "result": true}

// claudeReads are the record types whose fields the analysis reads.
var claudeReads = map[string]bool{"system": true, "assistant": true, "result": true, "stream_event": true, "rate_limit_event": true}

// claudeReader reads an output as Claude's (or Cursor's): its stream,
// its message array, or one result object.
type claudeReader struct {
	stream claudeReading
	arr    claudeReading // the message array
	longStrings
	array bool          // the first document was an array
	first *resultObject // the first document, when it is an object
	r     claudeRecord
}

func newClaudeReader() analysis.FormatReader {
	c := &claudeReader{}
	c.stream.long, c.arr.long = &c.longStrings, &c.longStrings
	return c
}

// Skip counts tool results ("user" records, never the agent's own words)
// and holds text deltas back, undecoded: only a stream that ends without
// its result record reads them.
func (c *claudeReader) Skip(typ []byte, line []byte, open bool) bool {
	switch {
	case string(typ) == "user":
		c.stream.detect = true
	case string(typ) == "stream_event" && !open:
		c.stream.hold(line)
	default:
		return false
	}
	return true
}

func (c *claudeReader) Open() bool { return false }

func (c *claudeReader) Reads(typ []byte, _ []byte, first bool) bool {
	return first || claudeReads[string(typ)] || claudeTypes[string(typ)]
}

func (c *claudeReader) Record(v []byte, first bool, window func(analysis.LimitWindow, int64)) error {
	if v[0] == '[' {
		var list []claudeRecord
		if decodeRecord(v, &list) == nil {
			for i := range list {
				c.arr.at = "[" + strconv.Itoa(i) + "]."
				claudeLimit(window, &list[i])
				c.arr.record(&list[i], false)
			}
		}
		c.array = true
		return nil
	}
	if err := decodeClaude(v, &c.r); err != nil {
		return err
	}
	claudeLimit(window, &c.r)
	if len(c.stream.events) > 0 && c.r.Type.Is("stream_event") && bytes.IndexByte(v, '\n') < 0 {
		c.stream.hold(v) // after those held back
	} else {
		c.stream.record(&c.r, true)
	}
	if first {
		if c.r.Type.Is("result") {
			c.first = c.stream.last
		} else {
			rec := c.r
			c.first = newResultObject(&rec, &c.longStrings, "")
		}
	}
	return nil
}

func (c *claudeReader) Events() *analysis.Reply {
	if !c.stream.detect {
		return nil
	}
	return c.streamShape()
}

func (c *claudeReader) Document(lone bool) *analysis.Reply {
	switch {
	case c.array:
		return c.arrayShape()
	case lone || c.first != nil && (c.first.rec.Type.present() || c.first.rec.Result.present()):
		return c.objectShape()
	}
	return nil
}

// claudeLimit reads a rate_limit_event's window.
func claudeLimit(window func(analysis.LimitWindow, int64), r *claudeRecord) {
	info := r.RateLimitInfo
	status, ok := info.Status.nonEmpty()
	if !r.Type.Is("rate_limit_event") || !ok {
		return
	}
	w := analysis.LimitWindow{Window: info.RateLimitType.alt(""), Status: status, ResetsAt: epoch(info.ResetsAt)}
	if u, ok := info.Utilization.num(); ok && u >= 0 {
		if u <= 1 {
			u *= 100
		}
		w.UsedPercent = &u
	}
	window(w, -1)
}

// epoch reads unix seconds (a number or a numeric string); 0 when absent.
func epoch(v value) int64 {
	if f, ok := v.num(); ok && f > 0 {
		return int64(f)
	}
	if s, ok := v.nonEmpty(); ok {
		if f, err := strconv.ParseFloat(s, 64); err == nil && f > 0 {
			return int64(f)
		}
	}
	return 0
}

// resultObject is a result-like object as read: Claude's result, an
// element of the message array, the flat format, or any first document.
type resultObject struct {
	rec     *claudeRecord
	result  *analysis.Facts // when result is a string
	summary *analysis.Facts // when summary is a string
	errMsgs []string
}

// newResultObject reads a result-like object; it keeps r. Its strings at
// path at+"result" and at+"summary" may be long ones.
func newResultObject(r *claudeRecord, long *longStrings, at string) *resultObject {
	o := &resultObject{rec: r}
	if r.Result.Kind == kindString {
		o.result = long.scanned(at+"result", r.Result.Text)
	}
	if r.Summary.Kind == kindString {
		o.summary = long.scanned(at+"summary", r.Summary.Text)
	}
	var msgs []value
	msgs = append(msgs, r.Errors...)
	msgs = append(msgs, r.Error.Fields.Message, r.Error.Fields.Data.Message, r.Message.Self)
	o.errMsgs = errorMessages(nil, msgs...)
	return o
}

// claudeReading gathers Claude's stream (live) or message array.
type claudeReading struct {
	long        *longStrings // the long strings of the record read
	at          string       // the path of the record read (an element of the array)
	detect      bool
	initSession string
	last        *resultObject  // last result record
	asst        *analysis.Text // assistant texts joined
	asstJoin    joiner
	deltas      []byte // text deltas after the last assistant message
	deltaOver   bool
	// events are the stream_event lines after the last assistant message,
	// not decoded yet: only a stream without a result record reads them.
	events []byte
	cut    *analysis.Facts // the reading of a stream cut before its result, once made
}

// record takes one record; live is false for the message array, whose
// assistant messages are not the reply.
func (a *claudeReading) record(r *claudeRecord, live bool) {
	typ := r.Type.str()
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
		a.last = newResultObject(&rec, a.long, a.at)
	case "assistant":
		if !live {
			return
		}
		if a.asst == nil {
			a.asst = analysis.NewText()
			a.asstJoin = joiner{w: a.asst}
		}
		a.asstJoin.entries = 0
		a.asstJoin.prefix = a.asstJoin.wrote
		if r.Message.Self.Kind == kindObject {
			a.asstJoin.entryTexts(r.Message.Fields.Content, "text")
		}
		a.deltas, a.deltaOver = a.deltas[:0], false
		a.events = a.events[:0]
	case "stream_event":
		if !live || !r.Event.Type.Is("content_block_delta") && !r.Event.Type.Is("content_block_stop") {
			return
		}
		if d := r.Event.Delta; r.Event.Type.Is("content_block_delta") && d.Type.Is("text_delta") {
			a.delta(d.Text.str())
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

// maxDeltas bounds the text deltas kept of an unfinished message.
const maxDeltas = 1 << 20

// release reads the stream_event lines held back, in order.
func (a *claudeReading) release() {
	held := a.events
	a.events = nil
	var r claudeRecord
	for len(held) > 0 {
		i := bytes.IndexByte(held, '\n')
		if decodeClaude(held[:i], &r) == nil {
			a.record(&r, true)
		}
		held = held[i+1:]
	}
	a.events = held[:0]
}

func (a *claudeReading) delta(s string) {
	if room := maxDeltas - len(a.deltas); room < len(s) {
		a.deltaOver = true
		s = s[:max(room, 0)]
	}
	a.deltas = append(a.deltas, s...)
}

// shape is the stream's reading when no result record came: the assistant
// messages, then the deltas of an unfinished one.
func (a *claudeReading) unfinished() *analysis.Facts {
	if a.cut != nil {
		return a.cut
	}
	a.release()
	if len(a.deltas) > 0 {
		if a.asst == nil {
			a.asst = analysis.NewText()
			a.asstJoin = joiner{w: a.asst}
		}
		a.asstJoin.prefix = a.asstJoin.wrote
		a.asstJoin.Write(a.deltas)
	}
	if a.asst == nil {
		return nil
	}
	a.cut = a.asst.Finish()
	return a.cut
}

// objectShape reads an output of one result object (or the flat format).
func (c *claudeReader) objectShape() *analysis.Reply {
	o := c.first
	if o == nil {
		o = &resultObject{rec: &claudeRecord{}}
	}
	r := o.rec
	p := o.reply(analysis.FormatJSONObject, "result field")
	p.Session = firstSession(r.SessionIDCamel, r.Metadata.SessionID, r.SessionID)
	return p
}

// arrayShape reads Claude's message array.
func (c *claudeReader) arrayShape() *analysis.Reply {
	o := c.arr.last
	if o == nil {
		o = &resultObject{rec: &claudeRecord{}}
	}
	r := o.rec
	p := o.reply(analysis.FormatJSONArray, "last result element")
	p.Session = firstSession(r.SessionIDCamel, r.SessionID, stringValue(c.arr.initSession), r.Metadata.SessionID)
	return p
}

// streamShape reads Claude's or Cursor's stream-json.
func (c *claudeReader) streamShape() *analysis.Reply {
	a := &c.stream
	if o := a.last; o != nil {
		r := o.rec
		p := o.reply(analysis.FormatStreamJSON, "last result event")
		p.Session = firstSession(r.SessionID, r.SessionIDCamel, r.Metadata.SessionID, stringValue(a.initSession))
		return p
	}
	// No result event (a cut stream): the assistant messages, then the
	// text deltas of an unfinished last message.
	p := &analysis.Reply{Format: analysis.FormatStreamJSON, Session: firstSession(stringValue(a.initSession)),
		Text: a.unfinished(), Where: "assistant messages (no result event)"}
	if a.deltaOver {
		p.Cut = maxDeltas
	}
	return p
}

// reply is what a result object says: its text, its own fields, usage,
// errors and denials.
func (o *resultObject) reply(format analysis.Format, where string) *analysis.Reply {
	r := o.rec
	p := &analysis.Reply{Format: format, Text: o.result, Where: where, Object: true,
		HasResult:  r.Result.present(),
		Status:     r.Status.alt("UNKNOWN"),
		ExitKey:    r.ExitSignal.present(),
		ExitSignal: r.ExitSignal.alt("false"),
		Tasks:      r.TasksCompleted.alt("0"),
		WorkType:   r.WorkType.alt("UNKNOWN"),
		Files:      r.Metadata.FilesChanged.or(r.FilesModified).alt("0"),
		ErrorCount: r.ErrorCount.alt("0"),
		HasErrors:  r.Metadata.HasErrors.alt("false"),
		Confidence: r.Confidence.alt("0"),
	}
	if k := r.Result.Kind; (k == kindNone || k == kindNull || k == kindFalse) && r.Summary.Kind == kindString {
		p.Summary = o.summary
	}
	if c := r.Metadata.CompletionStatus.alt(""); c == "complete" || c == "COMPLETE" {
		p.Status = "COMPLETE"
	}
	p.InputTokens, p.OutputTokens = intPtr(r.Usage.InputTokens), intPtr(r.Usage.OutputTokens)
	p.CacheReadTokens, p.CacheCreationTokens = intPtr(r.Usage.CacheReadTokens), intPtr(r.Usage.CacheCreationTokens)
	if f, ok := r.TotalCostUSD.num(); ok {
		p.CostUSD = &f
	}
	p.DurationMS, p.DurationAPIMS, p.NumTurns = intPtr(r.DurationMS), intPtr(r.DurationAPIMS), intPtr(r.NumTurns)
	p.IsError = r.IsError.Kind == kindTrue || r.IsError.Is("true")
	p.ErrorMessages = o.errMsgs
	if f, ok := r.APIErrorStatus.num(); ok && f == 429 {
		p.API429 = true
	}
	if r.Error.Self.Is("rate_limit") {
		p.API429 = true
	}
	if r.Denials != nil {
		p.DenialCount = len(r.Denials)
		for i, e := range r.Denials {
			if i == maxDenials {
				break
			}
			p.Denied = append(p.Denied, deniedCommand(e.ToolName, e.ToolInput.Command))
		}
	}
	return p
}

// deniedCommand formats one structured denial the way the bash loop does:
// Bash entries show "Bash(<first line of the command, 60 characters>)",
// others their tool name ("unknown" when missing).
func deniedCommand(tool, cmd value) string {
	switch {
	case tool.Kind == kindString && tool.Text == "Bash" && cmd.Kind != kindString:
		return "Bash(?)"
	case tool.Kind == kindString && tool.Text == "Bash":
		return "Bash(" + firstLine60(cmd.Text) + ")"
	case tool.Kind != kindString:
		return "unknown"
	}
	return tool.Text
}
