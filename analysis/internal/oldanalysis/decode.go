package oldanalysis

import (
	"strings"
	"unicode/utf8"

	"github.com/ralphloop/ralph_loop/analysis/internal/oldanalysis/wire"
)

// The JSON side: a streaming reader that walks any sequence of JSON
// documents (one object, one array, or one document per line) and keeps,
// per "event" (a top-level object, or an element of a top-level array), the
// few fields the analysis needs. Text fields that can be long (Claude's
// result, Codex's agent message) go straight into a textScan; nothing is
// held whole. Lines that are not valid JSON are skipped and counted.

const (
	maxDepth   = 512     // deeper nesting is treated as invalid JSON
	capSmall   = 1024    // bytes kept of ids, types and other small strings
	capMessage = 512     // bytes kept of each structured error message
	maxPieces  = 1 << 20 // bytes of joined message text kept per event
	maxErrMsgs = 5
	maxDenials = 100
)

// capBuf keeps the first max bytes written to it.
type capBuf struct {
	b    []byte
	max  int
	over bool
}

func (c *capBuf) reset(max int) {
	c.b, c.max, c.over = c.b[:0], max, false
}

func (c *capBuf) Write(p []byte) (int, error) {
	if room := c.max - len(c.b); room < len(p) {
		c.over = true
		p = p[:max(room, 0)]
	}
	c.b = append(c.b, p...)
	return len(p), nil
}

// feeder joins texts into one writer: "\n" between the entries of a group,
// and optionally "\n" before the group's first byte.
type feeder struct {
	w       strSink
	join    bool
	entries int
	prefix  bool
	wrote   bool
}

var nl = []byte{'\n'}

func (f *feeder) beginEntry() {
	if f.join && f.entries > 0 {
		f.Write(nl)
	}
	f.entries++
}

func (f *feeder) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if f.prefix {
		f.prefix = false
		f.w.Write(nl)
	}
	f.wrote = true
	return f.w.Write(p)
}

// objFields is one event as read: its record, and what was read on the way
// (the scanned long texts, error messages, permission denials). A
// result-like object (Claude's and Cursor's result, an element of Claude's
// array, the flat format) is kept as one.
type objFields struct {
	line wire.Line // the event's values (long texts and lists hold only their kind)

	result  *textFacts // when result is a string
	summary *textFacts // when summary is a string
	errMsgs []string

	hasDenials  bool // a permission_denials array is present
	denialCount int
	denials     []wire.Denial
}

// piece is one deferred text of a joined message (see eventState.pieces).
type piece struct {
	target  uint8
	etype   wire.Value
	off, n  int
	hasText bool
}

const (
	tAssistant    uint8 = iota // Claude/Cursor stream: assistant message.content[].text
	tCodexContent              // Codex item.content[].text (output_text)
	tParts                     // OpenCode (assumed shape) message.parts[].text
	tStep                      // OpenCode 1.x part.text
	tDelta                     // Claude stream_event text deltas
)

type eventState struct {
	objFields

	itemText *textFacts // Codex item.text, when read

	entry  wire.Entry  // the list entry being read (its type)
	denial wire.Denial // the permission denial being read

	// the entry (content/parts element, part, delta) being read
	entTarget  uint8
	entActive  bool
	entHasText bool
	entOff     int

	pieces    []piece
	pieceBuf  []byte
	truncated bool
}

// streamAgg collects Claude/Cursor stream-json (and the Claude array).
type streamAgg struct {
	detect      bool
	initSession string
	last        *objFields // last type=="result" event
	asst        *textScan  // assistant texts joined
	asstFeed    feeder
	deltas      []byte // text deltas after the last assistant message
	deltaOver   bool
}

type codexAgg struct {
	detect          bool
	threadID        string
	last            *textFacts // last agent_message
	haveLast        bool
	usageSeen       bool
	in, cached, out int64
	errMsgs         []string
	failed          bool
	declined        []string
}

type opencodeAgg struct {
	legacy                          bool
	current                         bool // OpenCode 1.x events
	legacySession                   string
	legacyLast                      *textFacts
	haveLegacy                      bool
	session                         string
	step                            *textScan
	stepFeed                        feeder
	prevStep                        *textFacts
	usageSeen                       bool
	in, out, reason, cacheR, cacheW int64
	cost                            float64
	errMsgs                         []string
}

// decoder reads the JSON documents of one output.
type decoder struct {
	src *source

	nodes   [maxDepth + 2]*node // the kept path of each open value (see at)
	evDepth int
	inEvent bool
	toArr   bool // events of this document go to the array aggregator
	skipEvs bool // events of this document are ignored

	docs     int // valid documents
	invalid  int // lines skipped as invalid JSON
	firstArr bool

	ev    eventState
	first *objFields // the first document, when it is an object

	stream streamAgg
	arr    streamAgg
	codex  codexAgg
	oc     opencodeAgg
	limits limitAgg

	truncated bool // a joined message text was cut at maxPieces

	// current string
	sAct  uint8
	sJV   *wire.Value
	sScan *textScan
	cap   capBuf
	key   capBuf
	num   [64]byte

	keep int // bytes of text kept per scanner
	pool []*textScan
}

// string actions
const (
	saSkip uint8 = iota
	saJV
	saScan
	saPiece
	saErrMsg
)

func (d *decoder) getScan() *textScan {
	if n := len(d.pool); n > 0 {
		s := d.pool[n-1]
		d.pool = d.pool[:n-1]
		s.reset(d.keep, false)
		return s
	}
	return newTextScan(d.keep, false)
}

func (d *decoder) putScan(s *textScan) {
	if s != nil && len(d.pool) < 8 {
		d.pool = append(d.pool, s)
	}
}

// run reads documents until the input ends.
func (d *decoder) run() {
	s := d.src
	for {
		c, ok := s.skipWS()
		if !ok {
			return
		}
		if c != '{' && c != '[' {
			d.invalid++
			s.skipLine()
			continue
		}
		startLine := s.line
		d.docStart(c)
		err := d.value(0)
		if err == nil {
			d.docEnd(c)
			continue
		}
		d.docAbort()
		// A line cut short is often followed by a good one: when the
		// error is at a '{' or '[' that starts a later line, resume there.
		if s.line > startLine && s.nlBefore && s.pos < s.end && (s.buf[s.pos] == '{' || s.buf[s.pos] == '[') {
			d.invalid += s.line - startLine
			continue
		}
		d.invalid += s.line - startLine + 1
		s.skipLine()
	}
}

func (d *decoder) docStart(c byte) {
	d.evDepth, d.inEvent, d.toArr, d.skipEvs = 0, false, false, false
	if c == '[' {
		d.evDepth = 1
		if d.docs == 0 {
			d.toArr = true
		} else {
			d.skipEvs = true
		}
	}
}

func (d *decoder) docEnd(c byte) {
	if c == '[' && d.docs == 0 {
		d.firstArr = true
	}
	d.docs++
}

func (d *decoder) docAbort() {
	if d.inEvent {
		d.dropEvent()
	}
	if d.sScan != nil {
		d.putScan(d.sScan)
		d.sScan = nil
	}
	d.inEvent = false
	if d.docs == 0 {
		// The first document was cut: whatever its array gathered is void.
		d.arr = streamAgg{}
	}
}

func (d *decoder) value(depth int) error {
	s := d.src
	c, ok := s.skipWS()
	if !ok {
		return errSyntax
	}
	switch {
	case c == '{':
		return d.object(depth)
	case c == '[':
		return d.array(depth)
	case c == '"':
		sink := d.stringStart(depth)
		if err := s.readString(sink); err != nil {
			return err
		}
		d.stringEnd()
		return nil
	case c == 't' || c == 'f' || c == 'n':
		k, err := s.readLiteral()
		if err != nil {
			return err
		}
		d.scalar(depth, k, nil)
		return nil
	case c == '-' || (c >= '0' && c <= '9'):
		lit, err := s.readNumber(d.num[:])
		if err != nil {
			return err
		}
		d.scalar(depth, wire.Number, lit)
		return nil
	}
	return errSyntax
}

func (d *decoder) object(depth int) error {
	s := d.src
	s.pos++
	d.objStart(depth)
	c, ok := s.skipWS()
	if !ok {
		return errSyntax
	}
	if c == '}' {
		s.pos++
		d.objEnd(depth)
		return nil
	}
	if depth+1 > maxDepth {
		return errSyntax
	}
	for {
		if c != '"' {
			return errSyntax
		}
		d.key.reset(40)
		if err := s.readString(&d.key); err != nil {
			return err
		}
		var n *node
		if !d.key.over {
			n = d.parent(depth).child(d.key.b)
		}
		d.nodes[depth+1] = n
		if c, ok = s.skipWS(); !ok || c != ':' {
			return errSyntax
		}
		s.pos++
		if err := d.value(depth + 1); err != nil {
			return err
		}
		if c, ok = s.skipWS(); !ok {
			return errSyntax
		}
		switch c {
		case ',':
			s.pos++
			if c, ok = s.skipWS(); !ok {
				return errSyntax
			}
		case '}':
			s.pos++
			d.objEnd(depth)
			return nil
		default:
			return errSyntax
		}
	}
}

func (d *decoder) array(depth int) error {
	s := d.src
	s.pos++
	d.arrStart(depth)
	c, ok := s.skipWS()
	if !ok {
		return errSyntax
	}
	if c == ']' {
		s.pos++
		return nil
	}
	if depth+1 > maxDepth {
		return errSyntax
	}
	d.nodes[depth+1] = d.parent(depth).elemNode()
	for {
		if err := d.value(depth + 1); err != nil {
			return err
		}
		if c, ok = s.skipWS(); !ok {
			return errSyntax
		}
		switch c {
		case ',':
			s.pos++
		case ']':
			s.pos++
			return nil
		default:
			return errSyntax
		}
	}
}

// parent is the node whose children the keys at depth+1 are: the event's
// root at the event's depth, nil outside events.
func (d *decoder) parent(depth int) *node {
	switch {
	case !d.inEvent || depth < d.evDepth:
		return nil
	case depth == d.evDepth:
		return lineRoot
	}
	return d.nodes[depth]
}

// at is the node of the value at depth inside the current event, or nil.
func (d *decoder) at(depth int) *node {
	if !d.inEvent || depth <= d.evDepth {
		return nil
	}
	return d.nodes[depth]
}

func (d *decoder) objStart(depth int) {
	if depth == d.evDepth && !d.skipEvs {
		d.startEvent()
		return
	}
	n := d.at(depth)
	if n == nil {
		return
	}
	e := &d.ev
	if p := e.value(n); p != nil {
		*p = wire.Value{Kind: wire.Object}
	}
	switch n.role {
	case rEntry:
		d.startEntry(n.target)
	case rDenial:
		e.denial = wire.Denial{}
	}
}

func (d *decoder) objEnd(depth int) {
	if depth == d.evDepth && d.inEvent {
		d.endEvent()
		return
	}
	n := d.at(depth)
	if n == nil {
		return
	}
	e := &d.ev
	switch {
	case n.role == rEntry && e.entActive:
		d.endEntry()
	case n.role == rDenial:
		e.denialCount++
		if len(e.denials) < maxDenials {
			e.denials = append(e.denials, e.denial)
		}
	}
}

func (d *decoder) arrStart(depth int) {
	n := d.at(depth)
	if n == nil {
		return
	}
	if p := d.ev.value(n); p != nil {
		*p = wire.Value{Kind: wire.Array}
	}
	if n.role == rDenials {
		d.ev.hasDenials = true
	}
}

func (d *decoder) scalar(depth int, k wire.Kind, lit []byte) {
	if p := d.ev.value(d.at(depth)); p != nil {
		*p = wire.Value{Kind: k, Text: string(lit)}
	}
}

// stringStart decides where the string at depth goes: a text scanner (long
// texts), the pieces of an entry, the error messages, a small value, or
// nowhere.
func (d *decoder) stringStart(depth int) strSink {
	d.sAct, d.sJV = saSkip, nil
	n := d.at(depth)
	if n == nil {
		return nil
	}
	e := &d.ev
	p := e.value(n)
	switch n.role {
	case rText:
		*p = wire.Value{Kind: wire.String}
		if item := &e.line.Item; p == &item.Text && item.Type.Present() && !item.Type.Is("agent_message") {
			return nil // only an agent message's text is the agent's
		}
		d.sAct, d.sScan, d.sJV = saScan, d.getScan(), p
		return d.sScan
	case rPiece:
		if e.entActive {
			return d.pieceSink()
		}
		return nil
	case rMessage:
		if p != nil {
			*p = wire.Value{Kind: wire.String}
		}
		d.sAct = saErrMsg
		d.cap.reset(capMessage)
		return &d.cap
	}
	if p != nil {
		d.sAct, d.sJV = saJV, p
		d.cap.reset(capSmall)
		return &d.cap
	}
	return nil
}

func (d *decoder) stringEnd() {
	e := &d.ev
	switch d.sAct {
	case saJV:
		*d.sJV = wire.Str(validString(d.cap.b))
	case saScan:
		f := d.sScan.finish()
		d.putScan(d.sScan)
		d.sScan = nil
		switch d.sJV {
		case &e.line.Result:
			e.result = f
		case &e.line.Summary:
			e.summary = f
		case &e.line.Item.Text:
			e.itemText = f
		}
	case saPiece:
		e.entHasText = true
	case saErrMsg:
		if len(e.errMsgs) < maxErrMsgs {
			if m := strings.TrimSpace(validString(d.cap.b)); m != "" {
				e.errMsgs = append(e.errMsgs, m)
			}
		}
	}
	d.sAct = saSkip
}

func (d *decoder) startEntry(t uint8) {
	e := &d.ev
	e.entActive, e.entTarget, e.entHasText, e.entry = true, t, false, wire.Entry{}
	e.entOff = len(e.pieceBuf)
}

// pieceSink keeps an entry's text until the event ends: only then is it
// known whether the event was valid and of the right type.
func (d *decoder) pieceSink() strSink {
	e := &d.ev
	e.pieceBuf = e.pieceBuf[:e.entOff] // a repeated "text" key replaces
	d.sAct = saPiece
	return pieceWriter{d}
}

type pieceWriter struct{ d *decoder }

func (w pieceWriter) Write(p []byte) (int, error) {
	e := &w.d.ev
	if room := maxPieces - len(e.pieceBuf); room < len(p) {
		e.truncated = true
		p = p[:max(room, 0)]
	}
	e.pieceBuf = append(e.pieceBuf, p...)
	return len(p), nil
}

func (d *decoder) endEntry() {
	e := &d.ev
	et := e.entry.Type
	switch e.entTarget {
	case tStep:
		et = e.line.Part.Type
	case tDelta:
		et = e.line.Event.Delta.Type
	}
	e.pieces = append(e.pieces, piece{target: e.entTarget, etype: et, off: e.entOff, n: len(e.pieceBuf) - e.entOff, hasText: e.entHasText})
	e.entActive = false
}

func (d *decoder) startEvent() {
	pb := d.ev.pieceBuf[:0]
	pc := d.ev.pieces[:0]
	d.ev = eventState{}
	d.ev.pieceBuf, d.ev.pieces = pb, pc
	d.inEvent = true
}

func (d *decoder) dropEvent() {
	d.inEvent = false
	d.ev.entActive = false
}

func (d *decoder) endEvent() {
	d.inEvent = false
	e := &d.ev
	if e.truncated {
		d.truncated = true
	}
	d.absorbLimits()
	if d.toArr {
		d.absorbStream(&d.arr, false)
		return
	}
	d.absorbStream(&d.stream, true)
	d.absorbCodex()
	d.absorbOpenCode()
	if d.docs == 0 && d.evDepth == 0 {
		f := e.objFields
		d.first = &f
	}
}

// selected decides, with the event complete, whether a piece belongs to
// the joined text of its target.
func (d *decoder) selected(p piece) bool {
	e := &d.ev
	switch p.target {
	case tAssistant:
		return e.line.Type.Is("assistant") && p.etype.Is("text")
	case tCodexContent:
		return p.etype.Is("output_text")
	case tParts:
		return p.etype.Is("text")
	case tStep:
		return p.etype.Is("text")
	case tDelta:
		return e.line.Type.Is("stream_event") && e.line.Event.Type.Is("content_block_delta") && p.etype.Is("text_delta")
	}
	return false
}

// replay feeds the selected pieces of one target, in order, to f.
func (d *decoder) replay(target uint8, f *feeder) {
	e := &d.ev
	for _, p := range e.pieces {
		if p.target != target || !d.selected(p) {
			continue
		}
		f.beginEntry()
		if p.hasText {
			f.Write(e.pieceBuf[p.off : p.off+p.n])
		}
	}
}

func (d *decoder) absorbStream(a *streamAgg, live bool) {
	e := &d.ev
	typ, _ := e.line.Type.NonEmpty()
	switch typ {
	case "system", "user", "assistant", "tool_call", "result":
		a.detect = true
	}
	switch typ {
	case "system":
		if e.line.Subtype.Is("init") && a.initSession == "" {
			a.initSession = firstSession(e.line.SessionID)
		}
	case "result":
		f := e.objFields
		a.last = &f
	case "assistant":
		if !live {
			return
		}
		if a.asst == nil {
			a.asst = newTextScan(d.keep, false)
			a.asstFeed = feeder{w: a.asst, join: true}
		}
		a.asstFeed.entries = 0
		a.asstFeed.prefix = a.asstFeed.wrote
		d.replay(tAssistant, &a.asstFeed)
		a.deltas, a.deltaOver = a.deltas[:0], false
	case "stream_event":
		if !live {
			return
		}
		df := feeder{w: deltaWriter{a}}
		d.replay(tDelta, &df)
		if e.line.Event.Type.Is("content_block_stop") && len(a.deltas) > 0 && a.deltas[len(a.deltas)-1] != '\n' {
			deltaWriter{a}.Write(nl)
		}
	}
}

type deltaWriter struct{ a *streamAgg }

func (w deltaWriter) Write(p []byte) (int, error) {
	a := w.a
	if room := maxPieces - len(a.deltas); room < len(p) {
		a.deltaOver = true
		p = p[:max(room, 0)]
	}
	a.deltas = append(a.deltas, p...)
	return len(p), nil
}

func (d *decoder) absorbCodex() {
	e := &d.ev
	a := &d.codex
	typ, _ := e.line.Type.NonEmpty()
	if typ == "thread.started" || (typ == "item.completed" && e.line.Item.Type.Present() && e.line.Item.Type.Kind != wire.Null) {
		a.detect = true
	}
	switch typ {
	case "thread.started":
		if a.threadID == "" {
			a.threadID = firstSession(e.line.ThreadID)
		}
	case "item.completed":
		switch {
		case e.line.Item.Type.Is("agent_message"):
			// item.text // (content[] output_text joined) // ""
			if e.line.Item.Text.Kind == wire.String && e.itemText != nil {
				a.last = e.itemText
			} else {
				sc := d.getScan()
				f := feeder{w: sc, join: true}
				d.replay(tCodexContent, &f)
				a.last = sc.finish()
				d.putScan(sc)
			}
			a.haveLast = true
		case e.line.Item.Type.Is("command_execution") && e.line.Item.Status.Is("declined"):
			cmd, _ := e.line.Item.Command.NonEmpty()
			a.declined = append(a.declined, "shell("+firstLine60(cmd)+")")
		case e.line.Item.Type.Is("file_change") && e.line.Item.Status.Is("declined"):
			a.declined = append(a.declined, "file_change")
		case e.line.Item.Type.Is("error"):
			a.errMsgs = appendMsgs(a.errMsgs, e.errMsgs)
		}
	case "turn.completed":
		a.usageSeen = true
		a.in += jvInt(e.line.Usage.InputTokens)
		a.cached += jvInt(e.line.Usage.CachedInputTokens)
		a.out += jvInt(e.line.Usage.OutputTokens)
	case "turn.failed":
		a.failed = true
		a.errMsgs = appendMsgs(a.errMsgs, e.errMsgs)
	case "error":
		a.errMsgs = appendMsgs(a.errMsgs, e.errMsgs)
	}
}

func (d *decoder) absorbOpenCode() {
	e := &d.ev
	a := &d.oc
	typ, _ := e.line.Type.NonEmpty()
	switch typ {
	case "session.created", "session.updated":
		a.legacy = true
	case "message.updated", "message.completed":
		if e.line.Message.Role.Present() && e.line.Message.Role.Kind != wire.Null {
			a.legacy = true
		}
	}
	// first non-empty of .session.id // .session_id // .sessionId
	if a.legacySession == "" {
		a.legacySession = firstSession(e.line.Session.ID, e.line.SessionID, e.line.SessionIDCamel)
	}
	if (typ == "message.updated" || typ == "message.completed") && e.line.Message.Role.Is("assistant") {
		sc := d.getScan()
		f := feeder{w: sc, join: true}
		d.replay(tParts, &f)
		a.legacyLast = sc.finish()
		a.haveLegacy = true
		d.putScan(sc)
	}

	d.absorbOpenCode1(typ)
}

// absorbOpenCode1 reads an OpenCode 1.x event: {"type", "timestamp",
// "sessionID", "part" or "error"}.
func (d *decoder) absorbOpenCode1(typ string) {
	e := &d.ev
	a := &d.oc
	if e.line.SessionIDUpper.Kind != wire.String {
		return
	}
	switch typ {
	case "text", "tool_use", "step_start", "step_finish", "reasoning", "error":
	default:
		return
	}
	a.current = true
	if a.session == "" {
		a.session = firstSession(e.line.SessionIDUpper)
	}
	switch typ {
	case "step_start":
		if a.step != nil && a.stepFeed.wrote {
			a.prevStep = a.step.finish()
			a.step.reset(d.keep, false)
			a.stepFeed = feeder{w: a.step, join: true}
		}
		a.stepFeed.entries = 0
	case "text":
		if a.step == nil {
			a.step = newTextScan(d.keep, false)
			a.stepFeed = feeder{w: a.step, join: true}
		}
		d.replay(tStep, &a.stepFeed)
	case "step_finish":
		a.usageSeen = true
		a.in += jvInt(e.line.Part.Tokens.Input)
		a.out += jvInt(e.line.Part.Tokens.Output)
		a.reason += jvInt(e.line.Part.Tokens.Reasoning)
		a.cacheR += jvInt(e.line.Part.Tokens.Cache.Read)
		a.cacheW += jvInt(e.line.Part.Tokens.Cache.Write)
		if c, ok := e.line.Part.Cost.Num(); ok {
			a.cost += c
		}
	case "error":
		msgs := e.errMsgs
		if n, ok := e.line.Error.Self.NonEmpty(); ok {
			msgs = append([]string{n}, msgs...)
		}
		a.errMsgs = appendMsgs(a.errMsgs, msgs)
	}
}

func appendMsgs(dst, src []string) []string {
	for _, m := range src {
		if len(dst) >= maxErrMsgs {
			break
		}
		dst = append(dst, m)
	}
	return dst
}

// jvInt reads a JSON number as an integer (0 when absent or not a number).
func jvInt(v wire.Value) int64 {
	f, ok := v.Num()
	if !ok {
		return 0
	}
	return int64(f)
}

// validString is b as a string with each invalid UTF-8 byte replaced by
// U+FFFD, as jq and encoding/json read JSON strings.
func validString(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return string([]rune(string(b)))
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
