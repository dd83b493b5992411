package analysis

import (
	"strconv"
	"strings"
	"unicode/utf8"
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

type jvKind uint8

const (
	jvNone jvKind = iota
	jvNull
	jvFalse
	jvTrue
	jvNum
	jvStr
	jvObj
	jvArr
)

// jv is a small JSON value as jq -r would print it.
type jv struct {
	k jvKind
	s string
}

func (v jv) present() bool { return v.k != jvNone }

// alt is jq's `v // def`: absent, null and false give def.
func (v jv) alt(def string) string {
	switch v.k {
	case jvTrue:
		return "true"
	case jvNum, jvStr:
		return v.s
	}
	return def
}

// or is jq's `a // b` on two values.
func (v jv) or(w jv) jv {
	if v.k == jvNone || v.k == jvNull || v.k == jvFalse {
		return w
	}
	return v
}

func (v jv) isStr(s string) bool { return v.k == jvStr && v.s == s }

// num returns a JSON number's value.
func (v jv) num() (float64, bool) {
	if v.k != jvNum {
		return 0, false
	}
	f, err := strconv.ParseFloat(v.s, 64)
	return f, err == nil
}

// text returns a non-empty string value.
func (v jv) text() (string, bool) {
	if v.k == jvStr && v.s != "" {
		return v.s, true
	}
	return "", false
}

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

// objFields are the fields read from a result-like object: Claude's and
// Cursor's result object, an element of Claude's array, the reference's
// flat format.
type objFields struct {
	typ, subtype jv

	hasResult   bool
	resultJV    jv
	result      *textFacts // when result is a string
	summaryJV   jv
	summary     *textFacts // when summary is a string
	hasExitSig  bool
	exitSignal  jv
	status      jv
	complStatus jv // metadata.completion_status
	tasks       jv
	workType    jv
	filesChg    jv // metadata.files_changed
	filesMod    jv
	errorCount  jv
	metaErrors  jv // metadata.has_errors
	confidence  jv

	sessionIDCamel, sessionIDSnake, metaSessionID, sessionIDUpper jv

	inTok, outTok, cacheRead, cacheCreate, cachedIn jv
	cost, durMS, durAPIMS, numTurns                 jv

	isError, apiErrStatus, errorStr jv
	errMsgs                         []string

	hasDenials  bool // a permission_denials array is present
	denialCount int
	denials     []denialEntry
}

type denialEntry struct{ tool, cmd jv }

// piece is one deferred text of a joined message (see eventState.pieces).
type piece struct {
	target  uint8
	etype   jv
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

	itemType, itemStatus, itemCommand, itemTextJV  jv
	itemText                                       *textFacts
	role                                           jv
	sessionObjID                                   jv
	threadID                                       jv
	messageJV                                      jv
	partType, partCost                             jv
	tokIn, tokOut, tokReason, tokCacheR, tokCacheW jv
	evType, deltaType                              jv
	rlStatus, rlResetsAt, rlType                   jv

	// the entry (content/parts element, part, delta) being read
	entType    jv
	entTarget  uint8
	entActive  bool
	entHasText bool
	entOff     int

	pieces    []piece
	pieceBuf  []byte
	truncated bool

	curDenial denialEntry
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
	rlRejected  bool
	rlType      string
	rlResetsAt  string
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

	path    [maxDepth + 2]uint8
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

	truncated bool // a joined message text was cut at maxPieces

	// current string
	sAct   uint8
	sJV    *jv
	sScan  *textScan
	sField uint8
	cap    capBuf
	key    capBuf
	num    [64]byte

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

// scan fields
const (
	sfResult uint8 = iota
	sfSummary
	sfItemText
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
		d.scalar(depth, jvNum, lit)
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
		id := kOther
		if !d.key.over {
			id = keyID(d.key.b)
		}
		d.path[depth+1] = id
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
	d.path[depth+1] = kElem
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

// rel is the path below the current event's root, or nil outside events.
func (d *decoder) rel(depth int) []uint8 {
	if !d.inEvent || depth <= d.evDepth {
		return nil
	}
	return d.path[d.evDepth+1 : depth+1]
}

func (d *decoder) objStart(depth int) {
	if depth == d.evDepth && !d.skipEvs {
		d.startEvent()
		return
	}
	r := d.rel(depth)
	if r == nil {
		return
	}
	if p := d.slot(r); p != nil {
		*p = jv{k: jvObj}
	}
	switch {
	case len(r) == 3 && r[2] == kElem && ((r[0] == kItem && r[1] == kContent) || (r[0] == kMessage && r[1] == kContent) || (r[0] == kMessage && r[1] == kParts)):
		t := tCodexContent
		if r[0] == kMessage {
			t = tAssistant
			if r[1] == kParts {
				t = tParts
			}
		}
		d.startEntry(t)
	case len(r) == 1 && r[0] == kPart:
		d.startEntry(tStep)
	case len(r) == 2 && r[0] == kEvent && r[1] == kDelta:
		d.startEntry(tDelta)
	case len(r) == 2 && r[0] == kPermissionDenials && r[1] == kElem:
		d.ev.curDenial = denialEntry{}
	}
}

func (d *decoder) objEnd(depth int) {
	if depth == d.evDepth && d.inEvent {
		d.endEvent()
		return
	}
	r := d.rel(depth)
	if r == nil {
		return
	}
	switch {
	case d.ev.entActive && ((len(r) == 3 && r[2] == kElem && ((r[0] == kItem && r[1] == kContent) ||
		(r[0] == kMessage && (r[1] == kContent || r[1] == kParts)))) ||
		(len(r) == 1 && r[0] == kPart) || (len(r) == 2 && r[0] == kEvent && r[1] == kDelta)):
		d.endEntry()
	case len(r) == 2 && r[0] == kPermissionDenials && r[1] == kElem:
		e := &d.ev
		e.denialCount++
		if len(e.denials) < maxDenials {
			e.denials = append(e.denials, e.curDenial)
		}
	}
}

func (d *decoder) arrStart(depth int) {
	r := d.rel(depth)
	if r == nil {
		return
	}
	if p := d.slot(r); p != nil {
		*p = jv{k: jvArr}
	}
	if len(r) == 1 && r[0] == kPermissionDenials {
		d.ev.hasDenials = true
	}
}

func (d *decoder) scalar(depth int, k jvKind, lit []byte) {
	r := d.rel(depth)
	if r == nil {
		return
	}
	if p := d.slot(r); p != nil {
		*p = jv{k: k, s: string(lit)}
	}
}

// slot maps a path inside an event to the value it is kept in.
func (d *decoder) slot(r []uint8) *jv {
	e := &d.ev
	switch len(r) {
	case 1:
		switch r[0] {
		case kType:
			return &e.typ
		case kSubtype:
			return &e.subtype
		case kResult:
			e.hasResult = true
			return &e.resultJV
		case kSummary:
			return &e.summaryJV
		case kSessionIdCamel:
			return &e.sessionIDCamel
		case kSessionIDSnake:
			return &e.sessionIDSnake
		case kSessionIDUpper:
			return &e.sessionIDUpper
		case kStatus:
			return &e.status
		case kExitSignal:
			e.hasExitSig = true
			return &e.exitSignal
		case kTasksCompleted:
			return &e.tasks
		case kWorkType:
			return &e.workType
		case kFilesModified:
			return &e.filesMod
		case kErrorCount:
			return &e.errorCount
		case kConfidence:
			return &e.confidence
		case kTotalCostUSD:
			return &e.cost
		case kDurationMS:
			return &e.durMS
		case kDurationAPIMS:
			return &e.durAPIMS
		case kNumTurns:
			return &e.numTurns
		case kIsError:
			return &e.isError
		case kAPIErrorStatus:
			return &e.apiErrStatus
		case kError:
			return &e.errorStr
		case kThreadID:
			return &e.threadID
		case kMessage:
			return &e.messageJV
		}
	case 2:
		switch r[0] {
		case kMetadata:
			switch r[1] {
			case kCompletionStatus:
				return &e.complStatus
			case kFilesChanged:
				return &e.filesChg
			case kHasErrors:
				return &e.metaErrors
			case kSessionIDSnake:
				return &e.metaSessionID
			}
		case kUsage:
			switch r[1] {
			case kInputTokens:
				return &e.inTok
			case kOutputTokens:
				return &e.outTok
			case kCacheReadInputTokens:
				return &e.cacheRead
			case kCacheCreationInputTokens:
				return &e.cacheCreate
			case kCachedInputTokens:
				return &e.cachedIn
			}
		case kItem:
			switch r[1] {
			case kType:
				return &e.itemType
			case kStatus:
				return &e.itemStatus
			case kCommand:
				return &e.itemCommand
			case kText:
				return &e.itemTextJV
			}
		case kSession:
			if r[1] == kID {
				return &e.sessionObjID
			}
		case kMessage:
			if r[1] == kRole {
				return &e.role
			}
		case kPart:
			switch r[1] {
			case kType:
				return &e.partType
			case kCost:
				return &e.partCost
			}
		case kEvent:
			if r[1] == kType {
				return &e.evType
			}
		case kRateLimitInfo:
			switch r[1] {
			case kStatus:
				return &e.rlStatus
			case kResetsAt:
				return &e.rlResetsAt
			case kRateLimitType:
				return &e.rlType
			}
		}
	case 3:
		switch {
		case r[0] == kPart && r[1] == kTokens:
			switch r[2] {
			case kInput:
				return &e.tokIn
			case kOutput:
				return &e.tokOut
			case kReasoning:
				return &e.tokReason
			}
		case r[0] == kEvent && r[1] == kDelta && r[2] == kType:
			return &e.deltaType
		case r[0] == kPermissionDenials && r[1] == kElem && r[2] == kToolName:
			return &e.curDenial.tool
		case r[2] == kElem && ((r[0] == kItem && r[1] == kContent) || (r[0] == kMessage && (r[1] == kContent || r[1] == kParts))):
			return nil
		}
	case 4:
		switch {
		case r[0] == kPart && r[1] == kTokens && r[2] == kCache:
			switch r[3] {
			case kRead:
				return &e.tokCacheR
			case kWrite:
				return &e.tokCacheW
			}
		case r[0] == kPermissionDenials && r[1] == kElem && r[2] == kToolInput && r[3] == kCommand:
			return &e.curDenial.cmd
		case r[3] == kType && r[2] == kElem && e.entActive:
			return &e.entType
		}
	}
	return nil
}

func (d *decoder) stringStart(depth int) strSink {
	d.sAct, d.sJV = saSkip, nil
	r := d.rel(depth)
	if r == nil {
		return nil
	}
	e := &d.ev
	// Long texts.
	switch {
	case len(r) == 1 && (r[0] == kResult || r[0] == kSummary):
		d.slot(r).k = jvStr
		d.sAct, d.sScan, d.sField = saScan, d.getScan(), sfResult
		if r[0] == kSummary {
			d.sField = sfSummary
		}
		return d.sScan
	case len(r) == 2 && r[0] == kItem && r[1] == kText:
		e.itemTextJV = jv{k: jvStr}
		if e.itemType.present() && !e.itemType.isStr("agent_message") {
			return nil
		}
		d.sAct, d.sScan, d.sField = saScan, d.getScan(), sfItemText
		return d.sScan
	case e.entActive && r[len(r)-1] == kText && d.entryPath(r):
		return d.pieceSink()
	case (len(r) == 2 && r[0] == kErrors && r[1] == kElem) ||
		(len(r) == 2 && r[0] == kError && r[1] == kMessage) ||
		(len(r) == 2 && r[0] == kItem && r[1] == kMessage) ||
		(len(r) == 3 && r[0] == kError && r[1] == kData && r[2] == kMessage) ||
		(len(r) == 1 && r[0] == kMessage):
		if len(r) == 1 {
			e.messageJV = jv{k: jvStr}
		}
		d.sAct = saErrMsg
		d.cap.reset(capMessage)
		return &d.cap
	}
	if p := d.slot(r); p != nil {
		d.sAct, d.sJV = saJV, p
		d.cap.reset(capSmall)
		return &d.cap
	}
	return nil
}

// entryPath: r ends at the text of the active entry.
func (d *decoder) entryPath(r []uint8) bool {
	switch d.ev.entTarget {
	case tStep:
		return len(r) == 2 && r[0] == kPart
	case tDelta:
		return len(r) == 3 && r[0] == kEvent && r[1] == kDelta
	}
	return len(r) == 4 && r[2] == kElem
}

func (d *decoder) stringEnd() {
	e := &d.ev
	switch d.sAct {
	case saJV:
		*d.sJV = jv{k: jvStr, s: validString(d.cap.b)}
	case saScan:
		f := d.sScan.finish()
		d.putScan(d.sScan)
		d.sScan = nil
		switch d.sField {
		case sfResult:
			e.result = f
		case sfSummary:
			e.summary = f
		case sfItemText:
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
	e.entActive, e.entTarget, e.entHasText, e.entType = true, t, false, jv{}
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
	et := e.entType
	switch e.entTarget {
	case tStep:
		et = e.partType
	case tDelta:
		et = e.deltaType
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
		return e.typ.isStr("assistant") && p.etype.isStr("text")
	case tCodexContent:
		return p.etype.isStr("output_text")
	case tParts:
		return p.etype.isStr("text")
	case tStep:
		return p.etype.isStr("text")
	case tDelta:
		return e.typ.isStr("stream_event") && e.evType.isStr("content_block_delta") && p.etype.isStr("text_delta")
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
	typ, _ := e.typ.text()
	switch typ {
	case "system", "user", "assistant", "tool_call", "result":
		a.detect = true
	}
	switch typ {
	case "system":
		if e.subtype.isStr("init") && a.initSession == "" {
			a.initSession = firstSession(e.sessionIDSnake)
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
		if e.evType.isStr("content_block_stop") && len(a.deltas) > 0 && a.deltas[len(a.deltas)-1] != '\n' {
			deltaWriter{a}.Write(nl)
		}
	case "rate_limit_event":
		if e.rlStatus.isStr("rejected") {
			a.rlRejected = true
			a.rlType = e.rlType.alt("")
			a.rlResetsAt = e.rlResetsAt.alt("")
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
	typ, _ := e.typ.text()
	if typ == "thread.started" || (typ == "item.completed" && e.itemType.present() && e.itemType.k != jvNull) {
		a.detect = true
	}
	switch typ {
	case "thread.started":
		if a.threadID == "" {
			a.threadID = firstSession(e.threadID)
		}
	case "item.completed":
		switch {
		case e.itemType.isStr("agent_message"):
			// item.text // (content[] output_text joined) // ""
			if e.itemTextJV.k == jvStr && e.itemText != nil {
				a.last = e.itemText
			} else {
				sc := d.getScan()
				f := feeder{w: sc, join: true}
				d.replay(tCodexContent, &f)
				a.last = sc.finish()
				d.putScan(sc)
			}
			a.haveLast = true
		case e.itemType.isStr("command_execution") && e.itemStatus.isStr("declined"):
			cmd, _ := e.itemCommand.text()
			a.declined = append(a.declined, "shell("+firstLine60(cmd)+")")
		case e.itemType.isStr("file_change") && e.itemStatus.isStr("declined"):
			a.declined = append(a.declined, "file_change")
		case e.itemType.isStr("error"):
			a.errMsgs = appendMsgs(a.errMsgs, e.errMsgs)
		}
	case "turn.completed":
		a.usageSeen = true
		a.in += jvInt(e.inTok)
		a.cached += jvInt(e.cachedIn)
		a.out += jvInt(e.outTok)
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
	typ, _ := e.typ.text()
	switch typ {
	case "session.created", "session.updated":
		a.legacy = true
	case "message.updated", "message.completed":
		if e.role.present() && e.role.k != jvNull {
			a.legacy = true
		}
	}
	// first non-empty of .session.id // .session_id // .sessionId
	if a.legacySession == "" {
		a.legacySession = firstSession(e.sessionObjID, e.sessionIDSnake, e.sessionIDCamel)
	}
	if (typ == "message.updated" || typ == "message.completed") && e.role.isStr("assistant") {
		sc := d.getScan()
		f := feeder{w: sc, join: true}
		d.replay(tParts, &f)
		a.legacyLast = sc.finish()
		a.haveLegacy = true
		d.putScan(sc)
	}

	// OpenCode 1.x: {"type": ..., "timestamp": ..., "sessionID": ..., "part"|"error": ...}
	if e.sessionIDUpper.k != jvStr {
		return
	}
	switch typ {
	case "text", "tool_use", "step_start", "step_finish", "reasoning", "error":
	default:
		return
	}
	a.current = true
	if a.session == "" {
		a.session = firstSession(e.sessionIDUpper)
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
		a.in += jvInt(e.tokIn)
		a.out += jvInt(e.tokOut)
		a.reason += jvInt(e.tokReason)
		a.cacheR += jvInt(e.tokCacheR)
		a.cacheW += jvInt(e.tokCacheW)
		if c, ok := e.partCost.num(); ok {
			a.cost += c
		}
	case "error":
		msgs := e.errMsgs
		if n, ok := e.errorStr.text(); ok {
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
func jvInt(v jv) int64 {
	f, ok := v.num()
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

// firstLine60 is the reference's `split("\n")[0] | .[0:60]`.
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
