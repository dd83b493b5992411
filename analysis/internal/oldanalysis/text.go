package oldanalysis

import (
	"bytes"
	"math/bits"
	"strings"
	"unicode"
	"unicode/utf8"
)

// textScan reads one text (the whole plain-text output, or one decoded JSON
// string such as Claude's result) as a stream and keeps only what the
// analysis needs: flags and counts per line, the status blocks, the first
// paragraph, a few captured lines and a bounded prefix of the text. Memory
// does not grow with the text; a line of any length is fine.
//
// Writes may cut the text anywhere, even inside a UTF-8 sequence or a marker.
// Matches are found by the automaton in dfa.go; the bytes around a match
// (for word boundaries and exact-case checks) come from the current piece or
// from a small tail of the current line.
type textScan struct {
	keepText  int  // bytes of the text to keep (prefix)
	limitRing bool // keep the last lines for usage-limit phrases

	st uint16 // automaton state

	// current line
	lineNo   int // 1-based number of the current line
	lineLen  int
	head     [headCap]byte
	headLen  int
	tail     [tailCap]byte // last bytes of the line before the current piece
	tailLen  int
	flags    uint32 // lf* bits
	qmask    uint32 // question patterns matched on this line
	inQuote  bool   // a '"' was seen on this line
	quoteErr bool   // "error" seen since the last '"'
	qClosed  int    // line offset of the last '"'
	qHadErr  bool   // the segment closed by that '"' held "error"
	awaitEnd int    // line offset after the first word-start "awaiting", -1 if none
	waitEnd  int    // same for "waiting"
	pend     [8]pendingWord
	npend    int

	// totals
	lines      int
	testLines  int
	implLines  int
	questions  int
	errCount   int
	errLines   []ErrorLine
	keywords   uint32 // completion keywords found (bit = list index)
	noWork     uint32 // no-work phrases found
	summary    string
	hasSummary bool

	// first paragraph before the first status block (permission denials)
	preActive bool
	preLines  int
	pre       lineCapture
	denial    string
	hasDenial bool

	// status blocks
	blkOpen   bool
	blk       StatusBlock
	blkCap    lineCapture
	blkLast   StatusBlock
	blkHave   bool
	blkCount  int
	blkClosed int
	blkBody   int // line offset where the open block's body starts (on its first line)

	// <!-- ralph:state NAME --> markers
	stCap  lineCapture
	states []string

	// kept prefix of the text
	text      []byte
	textBytes int64

	ring    [][]byte // last lines (usage-limit phrases)
	ringPos int
	ringN   int

	evs []scanEvent
}

const (
	headCap     = 256  // bytes of each line kept for prefix checks and captured lines
	tailCap     = 64   // line bytes kept across pieces for match context
	holdBack    = 21   // len(endMarker)-1: capture stops this far before a piece's end
	blockCap    = 1024 // bytes kept of each status-block line
	preCap      = 4096 // bytes kept of each first-paragraph line
	stateCap    = 96   // bytes after "ralph:state" looked at
	maxErrLines = 100  // error lines kept (all are counted)
	maxStates   = 32
	ringSize    = 20
	summaryCut  = 100 // the bash loop's `cut -c 1-100`
	preMaxLines = 5
)

// line flags
const (
	lfTest uint32 = 1 << iota
	lfImpl
	lfSummary
	lfErr
	lfExcluded // stage 1: a "...error...": key on the line
)

type scanEvent struct {
	i  int    // index in the piece of the match's last byte
	st uint16 // automaton state (its out mask lists the matches)
}

// pendingWord is a whole-word match whose right boundary was not yet seen.
type pendingWord struct {
	pat int
	buf [4]byte
	n   int
}

// ErrorLine is one output line that matched the error patterns.
type ErrorLine struct {
	Line int    // 1-based line number within the analysed text
	Text string // the line (first 256 bytes, trailing CR removed)
}

func newTextScan(keepText int, limitRing bool) *textScan {
	s := &textScan{}
	s.reset(keepText, limitRing)
	return s
}

func (s *textScan) reset(keepText int, limitRing bool) {
	evs, text, errs, states, ring := s.evs[:0], s.text[:0], s.errLines[:0], s.states[:0], s.ring
	pre, blk, st := s.pre.buf[:0], s.blkCap.buf[:0], s.stCap.buf[:0]
	*s = textScan{}
	s.keepText, s.limitRing = keepText, limitRing
	s.evs, s.text, s.errLines, s.states = evs, text, errs, states
	if limitRing {
		if ring == nil {
			ring = make([][]byte, ringSize)
		}
		for i := range ring {
			ring[i] = ring[i][:0]
		}
	}
	s.ring = ring
	s.lineNo = 1
	s.qClosed = -2
	s.awaitEnd, s.waitEnd = -1, -1
	s.preActive = true
	s.pre = lineCapture{buf: pre, max: preCap, skipLead: true}
	s.pre.start(0)
	s.blkCap = lineCapture{buf: blk, max: blockCap, skipLead: true}
	s.stCap = lineCapture{buf: st, max: stateCap}
}

// Write feeds the next piece of the text. It never fails.
func (s *textScan) Write(p []byte) (int, error) {
	n := len(p)
	if s.textBytes < int64(s.keepText) {
		k := min(s.keepText-len(s.text), len(p))
		s.text = append(s.text, p[:k]...)
	}
	s.textBytes += int64(n)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.piece(p)
			break
		}
		s.piece(p[:i])
		s.endLine()
		p = p[i+1:]
	}
	return n, nil
}

// piece handles bytes of the current line (no '\n').
func (s *textScan) piece(seg []byte) {
	if len(seg) == 0 {
		return
	}
	off := s.lineLen
	if s.headLen < headCap {
		s.headLen += copy(s.head[s.headLen:], seg)
	}
	if s.npend > 0 {
		s.resolvePending(seg)
	}

	d := scanDFA
	st := s.st
	evs := s.evs[:0]
	cls, delta, out, k, first := &d.cls, d.delta, d.out, d.ncls, d.firstOut
	for i, c := range seg {
		st = delta[int(st)*k+int(cls[c])]
		if st >= first {
			evs = append(evs, scanEvent{i, st})
		}
	}
	s.st = st
	s.evs = evs
	for _, e := range evs {
		m := out[e.st]
		for m != 0 {
			pi := bits.TrailingZeros64(m)
			m &= m - 1
			s.match(seg, off, pi, off+e.i)
		}
	}

	end := off + len(seg)
	s.lineLen = end
	if s.pre.active {
		s.pre.feed(s, seg, off, end-holdBack)
	}
	if s.blkCap.active {
		s.blkCap.feed(s, seg, off, end-holdBack)
	}
	if s.stCap.active {
		s.stCap.feed(s, seg, off, end)
		s.stateCheck(false)
	}
	// Keep the line's last bytes for the next piece.
	if len(seg) >= tailCap {
		s.tailLen = copy(s.tail[:], seg[len(seg)-tailCap:])
	} else {
		keep := min(s.tailLen, tailCap-len(seg))
		copy(s.tail[:], s.tail[s.tailLen-keep:s.tailLen])
		s.tailLen = keep + copy(s.tail[keep:], seg)
	}
}

// byteAt returns the byte at line offset o, looking into the current piece
// (which starts at line offset off) or the tail; -1 when not available.
func (s *textScan) byteAt(seg []byte, off, o int) int {
	if o >= off {
		if o-off < len(seg) {
			return int(seg[o-off])
		}
		return -1
	}
	i := s.tailLen - (off - o)
	if i < 0 || o < 0 {
		return -1
	}
	return int(s.tail[i])
}

// equalAt reports whether the line bytes at [start, start+len(w)) are w.
func (s *textScan) equalAt(seg []byte, off, start int, w string) bool {
	for i := 0; i < len(w); i++ {
		if s.byteAt(seg, off, start+i) != int(w[i]) {
			return false
		}
	}
	return true
}

// match handles pattern pi found ending at line offset end.
func (s *textScan) match(seg []byte, off, pi, end int) {
	p := &patterns[pi]
	start := end - len(p.text) + 1
	if !s.verified(seg, off, start, p) {
		return
	}
	switch p.kind {
	case pkKeyword, pkNoWork, pkQuestion, pkInput, pkResponse:
		if p.kind != pkInput && p.kind != pkResponse && !s.wordStart(seg, off, start) {
			return
		}
		s.wordEnd(seg, off, pi, end)
	case pkAwaiting:
		if s.awaitEnd < 0 && s.wordStart(seg, off, start) {
			s.awaitEnd = end + 1
		}
	case pkWaiting:
		if s.waitEnd < 0 && s.wordStart(seg, off, start) {
			s.waitEnd = end + 1
		}
	case pkTest, pkImpl, pkSummary, pkErr:
		s.flags |= lineFlag[p.kind]
	case pkQuote, pkQuoteColon, pkErrorWord:
		s.quoteMatch(p.kind, end)
	case pkStart:
		s.blockStart(seg, off, start, end)
	case pkEnd:
		s.blockEnd(seg, off, start)
	case pkState:
		if s.stateOpener(seg, off, start) {
			if s.stCap.active {
				s.stCap.feed(s, seg, off, start)
				s.stateCheck(true)
			}
			s.stCap.start(end + 1)
		}
	}
}

// lineFlag is the line flag a pattern kind sets.
var lineFlag = [...]uint32{pkTest: lfTest, pkImpl: lfImpl, pkSummary: lfSummary, pkErr: lfErr}

// verified: a pattern with alternatives (verify) matches one of them exactly
// at start.
func (s *textScan) verified(seg []byte, off, start int, p *pattern) bool {
	if p.verify == nil {
		return true
	}
	for _, v := range p.verify {
		if s.equalAt(seg, off, start, v) {
			return true
		}
	}
	return false
}

// quoteMatch tracks quoted strings on a line: an error word inside quotes
// followed by a colon right after the closing quote is a JSON key, not an
// error.
func (s *textScan) quoteMatch(kind patKind, end int) {
	switch kind {
	case pkQuote:
		s.qHadErr = s.inQuote && s.quoteErr
		s.qClosed = end
		s.inQuote, s.quoteErr = true, false
	case pkQuoteColon:
		if s.qClosed == end-1 && s.qHadErr {
			s.flags |= lfExcluded
		}
	case pkErrorWord:
		if s.inQuote {
			s.quoteErr = true
		}
	}
}

// blockStart opens a status block at a start marker.
func (s *textScan) blockStart(seg []byte, off, start, end int) {
	if s.preActive {
		s.pre.feed(s, seg, off, start)
		s.preLineEnd()
		s.preActive, s.pre.active = false, false
	}
	s.blkCount++
	s.blkOpen = true
	s.blk = StatusBlock{Line: s.lineNo, TestsStatus: "UNKNOWN"}
	s.blkCap.start(end + 1)
	s.blkBody = end + 1
}

// blockEnd closes the open status block at an end marker. An end marker
// sharing its dashes with the start marker is not one.
func (s *textScan) blockEnd(seg []byte, off, start int) {
	if s.blkOpen && (s.blk.Line != s.lineNo || start >= s.blkBody) {
		s.blkCap.feed(s, seg, off, start)
		s.blockLine()
		s.blkCap.active = false
		s.blkOpen = false
		s.blk.Complete = true
		s.blkLast, s.blkHave = s.blk, true
		s.blkClosed++
	}
}

// wordStart: the match at line offset start is preceded by a line start or
// a non-word character (grep -w).
func (s *textScan) wordStart(seg []byte, off, start int) bool {
	if start == 0 {
		return true
	}
	var b [4]byte
	n := 0
	for o := max(0, start-4); o < start; o++ {
		c := s.byteAt(seg, off, o)
		if c < 0 {
			n = 0 // not available: decide on what we have
			continue
		}
		b[n] = byte(c)
		n++
	}
	if n == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRune(b[:n])
	return !isWordRune(r)
}

// wordEnd checks (or defers) the right boundary of a word match ending at
// line offset end, then records it.
func (s *textScan) wordEnd(seg []byte, off, pi, end int) {
	i := end - off + 1 // index of the next byte in seg
	if i < len(seg) {
		rest := seg[i:]
		if rest[0] < utf8.RuneSelf || utf8.FullRune(rest) {
			r, _ := utf8.DecodeRune(rest)
			if !isWordRune(r) {
				s.word(pi, end)
			}
			return
		}
	}
	if s.npend == len(s.pend) {
		return // never more than a few words end at one piece boundary
	}
	w := &s.pend[s.npend]
	*w = pendingWord{pat: pi}
	if i < len(seg) {
		w.n = copy(w.buf[:], seg[i:])
	}
	s.npend++
}

func (s *textScan) resolvePending(seg []byte) {
	keep := 0
	for k := 0; k < s.npend; k++ {
		w := s.pend[k]
		w.n += copy(w.buf[w.n:], seg)
		if w.n > 0 && (w.buf[0] < utf8.RuneSelf || utf8.FullRune(w.buf[:w.n]) || w.n == 4) {
			r, _ := utf8.DecodeRune(w.buf[:w.n])
			if !isWordRune(r) {
				s.word(w.pat, -1)
			}
			continue
		}
		s.pend[keep] = w
		keep++
	}
	s.npend = keep
}

// word records a whole-word match; end is its line offset or -1 when it was
// resolved late (only the inputs of the sequence patterns use it).
func (s *textScan) word(pi, end int) {
	p := &patterns[pi]
	switch p.kind {
	case pkKeyword:
		s.keywords |= 1 << uint(p.idx)
	case pkNoWork:
		s.noWork |= 1 << uint(p.idx)
	case pkQuestion:
		s.qmask |= 1 << uint(p.idx)
	case pkInput:
		if s.awaitEnd >= 0 && (end < 0 || end-len(p.text)+1 >= s.awaitEnd) {
			s.qmask |= 1 << uint(len(questionPatterns))
		}
	case pkResponse:
		if s.waitEnd >= 0 && (end < 0 || end-len(p.text)+1 >= s.waitEnd) {
			s.qmask |= 1 << uint(len(questionPatterns)+1)
		}
	}
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r == '_' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
	}
	if r == utf8.RuneError {
		return false
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

func (s *textScan) endLine() {
	// Words still waiting for their right boundary end at the line end.
	for k := 0; k < s.npend; k++ {
		w := s.pend[k]
		ok := true
		if w.n > 0 {
			r, _ := utf8.DecodeRune(w.buf[:w.n])
			ok = !isWordRune(r)
		}
		if ok {
			s.word(w.pat, -1)
		}
	}
	s.npend = 0

	if s.pre.active {
		s.pre.feed(s, nil, s.lineLen, s.lineLen)
		s.preLineEnd()
	}
	if s.blkCap.active {
		s.blkCap.feed(s, nil, s.lineLen, s.lineLen)
		s.blockLine()
		s.blkCap.start(0)
	}
	if s.stCap.active {
		s.stCap.feed(s, nil, s.lineLen, s.lineLen)
		s.stateCheck(true)
	}

	head := s.head[:s.headLen]
	if s.flags&lfTest != 0 {
		s.testLines++
	}
	if s.flags&lfImpl != 0 {
		s.implLines++
	}
	if s.qmask != 0 {
		s.questions += bits.OnesCount32(s.qmask)
	}
	if !s.hasSummary && s.flags&lfSummary != 0 {
		s.hasSummary = true
		s.summary = cutBytes(head, summaryCut)
	}
	if s.flags&lfExcluded == 0 && (s.flags&lfErr != 0 || bytes.HasPrefix(head, []byte("Error:")) ||
		bytes.HasPrefix(head, []byte("ERROR:")) || bytes.HasPrefix(head, []byte("error:"))) {
		s.errCount++
		if len(s.errLines) < maxErrLines {
			s.errLines = append(s.errLines, ErrorLine{Line: s.lineNo, Text: string(bytes.TrimSuffix(head, []byte("\r")))})
		}
	}
	if s.limitRing {
		s.ring[s.ringPos] = append(s.ring[s.ringPos][:0], bytes.TrimSuffix(head, []byte("\r"))...)
		s.ringPos = (s.ringPos + 1) % ringSize
		s.ringN = min(s.ringN+1, ringSize)
	}

	s.lines++
	s.lineNo++
	s.lineLen, s.headLen, s.tailLen = 0, 0, 0
	s.flags, s.qmask = 0, 0
	s.st = 0
	s.inQuote, s.quoteErr, s.qHadErr, s.qClosed = false, false, false, -2
	s.awaitEnd, s.waitEnd = -1, -1
}

// cutBytes returns the first n bytes of b as a string, backing off to a rune
// boundary so the result stays valid UTF-8 when b is.
func cutBytes(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	b = b[:n]
	i := len(b) - 1
	for i > 0 && i > len(b)-utf8.UTFMax && !utf8.RuneStart(b[i]) {
		i--
	}
	if !utf8.FullRune(b[i:]) {
		b = b[:i]
	}
	return string(b)
}

// preLineEnd closes one line of the first paragraph.
func (s *textScan) preLineEnd() {
	line := strings.TrimRight(string(s.pre.buf), spaceChars)
	s.pre.start(0)
	if line == "" {
		if s.preLines > 0 {
			s.preActive, s.pre.active = false, false
		}
		return
	}
	s.preLines++
	if !s.hasDenial && denialLine(line) {
		s.hasDenial = true
		s.denial = cutBytes([]byte(line), 200)
	}
	if s.preLines >= preMaxLines {
		s.preActive, s.pre.active = false, false
	}
}

// blockLine parses one captured status-block line.
func (s *textScan) blockLine() {
	parseBlockLine(&s.blk, s.blkCap.buf)
	s.blkCap.buf = s.blkCap.buf[:0]
}

// stateOpener: "ralph:state" at line offset start is preceded by "<!--"
// and optional blanks.
func (s *textScan) stateOpener(seg []byte, off, start int) bool {
	o := start - 1
	for n := 0; n < 8 && o >= 0; n++ {
		c := s.byteAt(seg, off, o)
		if c != ' ' && c != '\t' {
			break
		}
		o--
	}
	return o >= 3 && s.equalAt(seg, off, o-3, "<!--")
}

// stateCheck parses the captured text after "ralph:state" once it holds
// "-->" (or at the line end when final).
func (s *textScan) stateCheck(final bool) {
	b := s.stCap.buf
	i := bytes.Index(b, []byte("-->"))
	if i < 0 && !final && !s.stCap.full {
		return
	}
	s.stCap.active = false
	s.stCap.buf = s.stCap.buf[:0]
	if i < 0 {
		return
	}
	if name, ok := parseStateName(b[:i]); ok && len(s.states) < maxStates {
		for _, have := range s.states {
			if have == name {
				return
			}
		}
		s.states = append(s.states, name)
	}
}

// parseStateName accepts blanks, a NAME of [A-Za-z0-9_.-] (up to 64), blanks.
func parseStateName(b []byte) (string, bool) {
	if len(b) == 0 || (b[0] != ' ' && b[0] != '\t') {
		return "", false
	}
	name := strings.Trim(string(b), " \t")
	if name == "" || len(name) > 64 {
		return "", false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || c == '-' || c == '.' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
			return "", false
		}
	}
	return name, true
}

// lineCapture copies part of the current line, from a line offset on, into
// a bounded buffer. CRs are dropped (the bash loop deletes them before
// parsing), and leading blanks too when skipLead is set.
type lineCapture struct {
	active   bool
	fedTo    int
	buf      []byte
	max      int
	skipLead bool
	full     bool
}

func (c *lineCapture) start(from int) {
	c.active = true
	c.fedTo = from
	c.buf = c.buf[:0]
	c.full = false
}

// feed copies line bytes [fedTo, upto); those before off come from the
// scanner's tail.
func (c *lineCapture) feed(s *textScan, seg []byte, off, upto int) {
	if !c.active || upto <= c.fedTo {
		return
	}
	from := c.fedTo
	c.fedTo = upto
	if c.full {
		return
	}
	if from < off {
		t0 := s.tailLen - (off - from)
		t1 := s.tailLen - max(0, off-upto)
		if t0 < 0 {
			t0 = 0
		}
		if t0 < t1 {
			c.add(s.tail[t0:t1])
		}
		from = off
	}
	if upto > from && from-off < len(seg) {
		c.add(seg[from-off : min(upto-off, len(seg))])
	}
}

func (c *lineCapture) add(b []byte) {
	for _, x := range b {
		if x == '\r' {
			continue
		}
		if c.skipLead && len(c.buf) == 0 && isSpace(x) {
			continue
		}
		if len(c.buf) >= c.max {
			c.full = true
			return
		}
		c.buf = append(c.buf, x)
	}
}

const spaceChars = " \t\n\v\f\r"

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// finish ends the text and returns what was found.
func (s *textScan) finish() *textFacts {
	if s.lineLen > 0 || s.npend > 0 {
		s.endLine()
	}
	f := &textFacts{
		Lines:       s.lines,
		Bytes:       s.textBytes,
		Blocks:      s.blkCount,
		ClosedBlock: s.blkClosed,
		Keywords:    s.keywords,
		NoWork:      s.noWork,
		TestLines:   s.testLines,
		ImplLines:   s.implLines,
		Questions:   s.questions,
		ErrorCount:  s.errCount,
		ErrorLines:  append([]ErrorLine(nil), s.errLines...),
		Summary:     s.summary,
		HasSummary:  s.hasSummary,
		Denial:      s.hasDenial,
		DenialLine:  s.denial,
		States:      append([]string(nil), s.states...),
		Text:        string(s.text),
		Truncated:   s.textBytes > int64(len(s.text)),
	}
	switch {
	case s.blkHave:
		b := s.blkLast
		f.Block = &b
	case s.blkOpen:
		b := s.blk
		f.Block = &b
	}
	for k := 0; k < s.ringN; k++ {
		i := (s.ringPos - s.ringN + k + ringSize) % ringSize
		f.LastLines = append(f.LastLines, string(s.ring[i]))
	}
	return f
}

// textFacts is what a textScan found in one text.
type textFacts struct {
	Lines       int
	Bytes       int64
	Blocks      int          // start markers seen
	ClosedBlock int          // blocks closed by an end marker
	Block       *StatusBlock // the block that counts: the last closed one, else the open one
	Keywords    uint32
	NoWork      uint32
	TestLines   int
	ImplLines   int
	Questions   int
	ErrorCount  int
	ErrorLines  []ErrorLine
	Summary     string // first line matching summary|completed|implemented, cut to 100 bytes
	HasSummary  bool
	Denial      bool   // the first paragraph reads as a permission refusal
	DenialLine  string // that line
	States      []string
	Text        string // prefix of the text (keepText bytes)
	Truncated   bool
	LastLines   []string // last lines (when the scanner kept them)
}

// firstKeyword returns the first completion keyword (in the bash loop's list
// order) found, or "".
func (f *textFacts) firstKeyword() string {
	if f == nil || f.Keywords == 0 {
		return ""
	}
	return completionKeywords[bits.TrailingZeros32(f.Keywords)]
}

func (f *textFacts) firstNoWork() string {
	if f == nil || f.NoWork == 0 {
		return ""
	}
	return noWorkPatterns[bits.TrailingZeros32(f.NoWork)]
}

// scanString runs a scanner over a whole string (tests, small texts).
func scanString(text string, keep int) *textFacts {
	s := newTextScan(keep, false)
	s.Write([]byte(text))
	return s.finish()
}
