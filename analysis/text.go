package analysis

import (
	"bytes"
	"cmp"
	"math/bits"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text applies the bash loop's text rules to one text (the whole
// plain-text output, or the agent's reply decoded from its JSON records)
// line by line, as it is written, and keeps only what the analysis needs:
// flags and counts per line, the status blocks, the first paragraph, a few
// captured lines and a bounded prefix of the text. A line is looked at
// whole (up to MaxLine bytes); memory does not grow with the text.
//
// The phrases (patterns.go) are searched for in each line case-folded; the
// word boundaries and exact spellings are then checked on the line itself.
type Text struct {
	keepText int // bytes of the text to keep (prefix)

	partial []byte      // the current line, until its newline
	lineNo  int         // 1-based number of the current line
	cur     lineState   // what the current line has shown so far
	evs     []scanEvent // the current line's matches (reused from line to line)

	// Totals of the lines so far.
	lines      int         // lines read
	testLines  int         // lines that speak of tests
	implLines  int         // lines that speak of implementation
	questions  int         // questions asked
	errCount   int         // error lines (all are counted)
	errLines   []ErrorLine // the first maxErrLines of them
	keywords   uint32      // the completion keywords found, a bit each (completionKeywords' order)
	noWork     uint32      // the no-work phrases found, a bit each (noWorkPatterns' order)
	summary    string      // the first summary line outside a status block, cut to summaryCut bytes
	hasSummary bool        // a summary line was found

	// The agent's prose: paragraphs of lines outside the status blocks
	// and the ralph:state markers.
	para        []byte // the paragraph being read, words joined by spaces, cut to proseCap bytes
	paraFull    bool   // para reached proseCap: later lines add nothing
	lastPara    []byte // the last paragraph before it that was not empty
	openProse   []byte // the paragraph before the block opened last
	closedProse []byte // the paragraph before the last closed block

	// The first paragraph before the first status block (permission
	// denials).
	preActive bool   // the paragraph is still being read
	preLines  int    // its lines so far
	hasDenial bool   // one of them reads as a refusal
	denial    string // that line

	// Status blocks.
	blkOpen   bool        // a block is open
	blk       StatusBlock // the open block (or the last one opened)
	blkLast   StatusBlock // the last closed block
	blkHave   bool        // blkLast is set
	blkCount  int         // start markers seen
	blkClosed int         // blocks closed by an end marker
	blkBody   int         // line offset where the open block's body starts (on its first line)

	states []string // <!-- ralph:state NAME --> names, in order, each once

	question string // the last RALPH_QUESTION: line's question

	text      []byte // the text's first keepText bytes
	textBytes int64  // the text's length

	ring    [ringSize][]byte // the last lines (usage-limit phrases)
	ringPos int              // where the next line goes in ring
	ringN   int              // lines in ring
}

// lineState is what the rules found on the line being read; line starts
// each line with a fresh one (newLine).
type lineState struct {
	flags    uint32 // line flags: lfTest, lfImpl, ...
	qmask    uint32 // the question patterns found, a bit each
	inQuote  bool   // inside a quoted string
	quoteErr bool   // the open quoted string holds an error word
	qHadErr  bool   // the quoted string that closed last held one
	qClosed  int    // where that string's closing quote is (-2: none)
	awaitEnd int    // where "awaiting" ends, for "awaiting.*input" (-1: none)
	waitEnd  int    // where "waiting" ends, for "waiting.*response" (-1: none)
	bodyFrom int    // where the open status block's body starts on this line (-1: none)
	inBlock  bool   // the line is part of a status block (open at its start, or one starts on it)
	marker   bool   // the line holds a ralph:state marker
}

// newLine is the state a line starts in: nothing found, and the open
// status block's body (if one is open) from the line's start.
func (s *Text) newLine() lineState {
	st := lineState{qClosed: -2, awaitEnd: -1, waitEnd: -1, bodyFrom: -1}
	if s.blkOpen {
		st.bodyFrom = 0
		st.inBlock = true
	}
	return st
}

const (
	headCap     = 256  // bytes of each line kept for captured lines
	blockCap    = 1024 // bytes kept of each status-block line
	preCap      = 4096 // bytes kept of each first-paragraph line
	stateCap    = 96   // bytes after "ralph:state" looked at
	maxErrLines = 100  // error lines kept (all are counted)
	maxStates   = 32
	ringSize    = 20
	summaryCut  = 100 // the bash loop's `cut -c 1-100`
	proseCap    = 200 // bytes kept of the paragraph before the status block
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
	i  int // index in the line of the match's last byte
	pi int // the pattern
}

// ErrorLine is one output line that matched the error patterns.
type ErrorLine struct {
	Line int    // 1-based line number within the analysed text
	Text string // the line (first 256 bytes, trailing CR removed)
}

// NewText starts the rules on a text of which maxResultText bytes are kept.
func NewText() *Text { return newText(maxResultText) }

func newText(keepText int) *Text {
	return &Text{keepText: keepText, lineNo: 1, preActive: true}
}

// Write feeds the next piece of the text. It never fails.
func (s *Text) Write(p []byte) (int, error) {
	n := len(p)
	if s.textBytes < int64(s.keepText) {
		k := min(s.keepText-len(s.text), len(p))
		s.text = append(s.text, p[:k]...)
	}
	s.textBytes += int64(n)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.partial = appendCapped(s.partial, p)
			break
		}
		if len(s.partial) > 0 {
			s.partial = appendCapped(s.partial, p[:i])
			s.line(s.partial)
			s.partial = s.partial[:0]
		} else {
			s.line(p[:i])
		}
		p = p[i+1:]
	}
	return n, nil
}

// writeLine feeds a whole line (without its newline; nl tells whether
// one ended it): Write without copying the line.
func (s *Text) writeLine(l []byte, nl bool) {
	if !nl || len(s.partial) > 0 {
		s.Write(l)
		if nl {
			s.Write([]byte{'\n'})
		}
		return
	}
	if s.textBytes < int64(s.keepText) {
		s.text = append(s.text, l[:min(s.keepText-len(s.text), len(l))]...)
		if len(s.text) < s.keepText {
			s.text = append(s.text, '\n')
		}
	}
	s.textBytes += int64(len(l)) + 1
	s.line(l[:min(len(l), MaxLine)])
}

// appendCapped appends p to a line, keeping at most MaxLine bytes of it
// (in a buffer that doubles: append grows a large slice by a quarter).
func appendCapped(line, p []byte) []byte {
	p = p[:min(len(p), max(0, MaxLine-len(line)))]
	if n := len(line) + len(p); n > cap(line) {
		line = append(make([]byte, 0, min(max(2*cap(line), n), MaxLine)), line...)
	}
	return append(line, p...)
}

// line applies the rules to one whole line (without its newline).
func (s *Text) line(l []byte) {
	s.cur = s.newLine()

	for _, e := range s.scan(l) {
		s.match(l, e.pi, e.i)
	}

	if s.preActive {
		s.preLine(l)
	}
	if s.cur.bodyFrom >= 0 {
		parseBlockLine(&s.blk, capture(l[s.cur.bodyFrom:], blockCap, true))
	}
	if q, ok := questionLine(l); ok {
		s.question = q
	}
	head := l[:min(len(l), headCap)]
	if s.cur.flags&lfTest != 0 {
		s.testLines++
	}
	if s.cur.flags&lfImpl != 0 {
		s.implLines++
	}
	s.questions += bits.OnesCount32(s.cur.qmask)
	if !s.hasSummary && s.cur.flags&lfSummary != 0 && !s.cur.inBlock {
		s.hasSummary = true
		s.summary = cutBytes(head, summaryCut)
	}
	s.proseLine(head)
	trimmed := bytes.TrimSuffix(head, []byte("\r"))
	if s.cur.flags&lfExcluded == 0 && (s.cur.flags&lfErr != 0 || bytes.HasPrefix(head, []byte("Error:")) ||
		bytes.HasPrefix(head, []byte("ERROR:")) || bytes.HasPrefix(head, []byte("error:"))) {
		s.errCount++
		if len(s.errLines) < maxErrLines {
			s.errLines = append(s.errLines, ErrorLine{Line: s.lineNo, Text: string(trimmed)})
		}
	}
	s.ring[s.ringPos] = append(s.ring[s.ringPos][:0], trimmed...)
	s.ringPos = (s.ringPos + 1) % ringSize
	s.ringN = min(s.ringN+1, ringSize)
	s.lines++
	s.lineNo++
}

// scan finds the phrases in line l, case-folded: the three bytes at every
// other offset are tested against the phrases' (tri), and those that start
// there or one byte before are compared; the matches come in the order of
// their last byte.
func (s *Text) scan(l []byte) []scanEvent {
	evs := s.evs[:0]
	for q := 0; q+3 <= len(l); q += 2 {
		if h := triHash(l[q:]); tri[h/64]&(1<<(h%64)) != 0 {
			evs = phrasesAt(l, q, phrasesAt(l, q-1, evs, false), false)
		}
	}
	for i, j := 0, bytes.IndexByte(l, '"'); j >= 0; j = bytes.IndexByte(l[i:], '"') {
		evs = phrasesAt(l, i+j, evs, true)
		i += j + 1
	}
	slices.SortFunc(evs, func(a, b scanEvent) int { return cmp.Or(a.i-b.i, a.pi-b.pi) })
	s.evs = evs
	return evs
}

// phrasesAt appends the phrases that start at offset i of l (quotes or not).
func phrasesAt(l []byte, i int, evs []scanEvent, quote bool) []scanEvent {
	if i < 0 || (l[i] == '"') != quote {
		return evs
	}
	for _, pi := range byFirst[foldByte(l[i])] {
		if p := patterns[pi].low; len(l)-i >= len(p) && folded(l[i:i+len(p)], p) {
			evs = append(evs, scanEvent{i + len(p) - 1, pi})
		}
	}
	return evs
}

// folded reports whether b case-folded is low.
func folded(b, low []byte) bool {
	for i, c := range low {
		if foldByte(b[i]) != c {
			return false
		}
	}
	return true
}

// match handles pattern pi found ending at line offset end.
func (s *Text) match(l []byte, pi, end int) {
	p := &patterns[pi]
	start := end - len(p.text) + 1
	if p.verify != nil && !verified(l[start:end+1], p.verify) {
		return
	}
	switch p.kind {
	case pkKeyword, pkNoWork, pkQuestion, pkInput, pkResponse:
		s.wordMatch(l, p, start, end)
	case pkAwaiting:
		if s.cur.awaitEnd < 0 && wordStart(l, start) {
			s.cur.awaitEnd = end + 1
		}
	case pkWaiting:
		if s.cur.waitEnd < 0 && wordStart(l, start) {
			s.cur.waitEnd = end + 1
		}
	case pkTest, pkImpl, pkSummary, pkErr:
		s.cur.flags |= lineFlag[p.kind]
	case pkQuote, pkQuoteColon, pkErrorWord:
		s.quoteMatch(p.kind, end)
	case pkStart:
		s.blockStart(l, start, end)
	case pkEnd:
		s.blockEnd(l, start)
	case pkState:
		if stateOpener(l, start) {
			s.cur.marker = true
			s.state(l, end+1)
		}
	}
}

// wordMatch records a match that must be a whole word (the inputs of the
// sequence patterns need only its end).
func (s *Text) wordMatch(l []byte, p *pattern, start, end int) {
	if p.kind != pkInput && p.kind != pkResponse && !wordStart(l, start) {
		return
	}
	if end+1 < len(l) {
		if r, _ := utf8.DecodeRune(l[end+1:]); isWordRune(r) {
			return
		}
	}
	s.word(p, start)
}

// blockStart opens a status block at a start marker.
func (s *Text) blockStart(l []byte, start, end int) {
	if s.preActive {
		s.preLine(l[:start])
		s.preActive = false
	}
	s.blkCount++
	s.blkOpen = true
	s.cur.inBlock = true
	p := s.para // this line's prose comes after proseLine
	if len(p) == 0 {
		p = s.lastPara
	}
	s.openProse = append(s.openProse[:0], p...)
	s.blk = StatusBlock{Line: s.lineNo, TestsStatus: "UNKNOWN"}
	s.cur.bodyFrom = end + 1
	s.blkBody = end + 1
}

// blockEnd closes the open status block at an end marker. An end marker
// sharing its dashes with the start marker is not one.
func (s *Text) blockEnd(l []byte, start int) {
	if !s.blkOpen || s.blk.Line == s.lineNo && start < s.blkBody {
		return
	}
	if s.cur.bodyFrom >= 0 && s.cur.bodyFrom <= start {
		parseBlockLine(&s.blk, capture(l[s.cur.bodyFrom:start], blockCap, true))
	}
	s.cur.bodyFrom = -1
	s.blkOpen = false
	s.blk.Complete = true
	s.closedProse = append(s.closedProse[:0], s.openProse...)
	s.blkLast = s.blk
	s.blkHave = true
	s.blkClosed++
}

// questionMarker starts a line that asks the person a question, for
// agents that write no status block.
const questionMarker = "RALPH_QUESTION:"

// questionLine reads a line that is RALPH_QUESTION: and a question, on
// its own (leading blanks allowed): the question, trimmed and cut to
// QuestionMax bytes; ok is false for any other line and for an empty
// question.
func questionLine(l []byte) (q string, ok bool) {
	i := 0
	for i < len(l) && isSpace(l[i]) {
		i++
	}
	if len(l)-i <= len(questionMarker) || l[i] != 'R' || string(l[i:i+len(questionMarker)]) != questionMarker {
		return "", false
	}
	q = boundQuestion(strings.Trim(string(capture(l[i+len(questionMarker):], QuestionMax+utf8.UTFMax, true)), spaceChars))
	return q, q != ""
}

// lineFlag is the line flag a pattern kind sets.
var lineFlag = [...]uint32{pkTest: lfTest, pkImpl: lfImpl, pkSummary: lfSummary, pkErr: lfErr}

// verified: the bytes matched are one of the exact spellings.
func verified(b []byte, spellings []string) bool {
	for _, v := range spellings {
		if string(b) == v {
			return true
		}
	}
	return false
}

// quoteMatch tracks quoted strings on a line: an error word inside quotes
// followed by a colon right after the closing quote is a JSON key, not an
// error.
func (s *Text) quoteMatch(kind patKind, end int) {
	switch kind {
	case pkQuote:
		s.cur.qHadErr = s.cur.inQuote && s.cur.quoteErr
		s.cur.qClosed = end
		s.cur.inQuote = true
		s.cur.quoteErr = false
	case pkQuoteColon:
		if s.cur.qClosed == end-1 && s.cur.qHadErr {
			s.cur.flags |= lfExcluded
		}
	case pkErrorWord:
		if s.cur.inQuote {
			s.cur.quoteErr = true
		}
	}
}

// word records a whole-word match that starts at line offset start.
func (s *Text) word(p *pattern, start int) {
	switch p.kind {
	case pkKeyword:
		s.keywords |= 1 << uint(p.idx)
	case pkNoWork:
		s.noWork |= 1 << uint(p.idx)
	case pkQuestion:
		s.cur.qmask |= 1 << uint(p.idx)
	case pkInput:
		if s.cur.awaitEnd >= 0 && start >= s.cur.awaitEnd {
			s.cur.qmask |= 1 << uint(len(questionPatterns))
		}
	case pkResponse:
		if s.cur.waitEnd >= 0 && start >= s.cur.waitEnd {
			s.cur.qmask |= 1 << uint(len(questionPatterns)+1)
		}
	}
}

// wordStart: the match at start is preceded by the line start or a
// non-word character (grep -w).
func wordStart(l []byte, start int) bool {
	if start == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRune(l[max(0, start-utf8.UTFMax):start])
	return !isWordRune(r)
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

// capture is part of a line as the bash loop parses it: CRs removed,
// leading blanks too when skipLead is set, at most max bytes.
func capture(b []byte, max int, skipLead bool) []byte {
	out := make([]byte, 0, min(len(b), max))
	for _, x := range b {
		if x == '\r' || (skipLead && len(out) == 0 && isSpace(x)) {
			continue
		}
		if len(out) >= max {
			break
		}
		out = append(out, x)
	}
	return out
}

// cutBytes returns the first n bytes of b as a string, backing off to a rune
// boundary so the result stays valid UTF-8 when b is.
func cutBytes(b []byte, n int) string { return string(b[:cutLen(b, n)]) }

// cutLen is the length of cutBytes(b, n).
func cutLen(b []byte, n int) int {
	if len(b) <= n {
		return len(b)
	}
	b = b[:n]
	i := len(b) - 1
	for i > 0 && i > len(b)-utf8.UTFMax && !utf8.RuneStart(b[i]) {
		i--
	}
	if !utf8.FullRune(b[i:]) {
		return i
	}
	return n
}

// proseLine reads the agent's prose: a line outside the status blocks
// adds its words to the paragraph; a blank line, a block line or a
// ralph:state marker ends it. Words are split at ASCII blanks; the buffers
// are reused.
func (s *Text) proseLine(head []byte) {
	switch {
	case s.cur.inBlock || s.cur.marker || blank(head):
		if len(s.para) > 0 {
			s.lastPara = append(s.lastPara[:0], s.para...)
		}
		s.para, s.paraFull = s.para[:0], false
		return
	case s.paraFull:
		return
	}
	s.para = appendWords(s.para, head)
	if len(s.para) >= proseCap {
		s.para, s.paraFull = s.para[:cutLen(s.para, proseCap)], true
	}
}

// blank: b holds only ASCII blanks.
func blank(b []byte) bool {
	for _, c := range b {
		if !isSpace(c) {
			return false
		}
	}
	return true
}

// appendWords appends the words of line (split at ASCII blanks) to dst,
// each after a single space unless dst is empty.
func appendWords(dst, line []byte) []byte {
	for i := 0; i < len(line); {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		j := i
		for j < len(line) && !isSpace(line[j]) {
			j++
		}
		if j > i {
			if len(dst) > 0 {
				dst = append(dst, ' ')
			}
			dst = append(dst, line[i:j]...)
		}
		i = j
	}
	return dst
}

// preLine reads one line of the first paragraph.
func (s *Text) preLine(b []byte) {
	line := strings.TrimRight(string(capture(b, preCap, true)), spaceChars)
	if line == "" {
		if s.preLines > 0 {
			s.preActive = false
		}
		return
	}
	s.preLines++
	if !s.hasDenial && denialLine(line) {
		s.hasDenial = true
		s.denial = cutBytes([]byte(line), 200)
	}
	if s.preLines >= preMaxLines {
		s.preActive = false
	}
}

// stateOpener: "ralph:state" at start is preceded by "<!--" and up to
// eight blanks.
func stateOpener(l []byte, start int) bool {
	o := start - 1
	for n := 0; n < 8 && o >= 0 && (l[o] == ' ' || l[o] == '\t'); n++ {
		o--
	}
	return o >= 3 && string(l[o-3:o+1]) == "<!--"
}

// state reads a <!-- ralph:state NAME --> marker whose name starts at
// from: up to the next "ralph:state" opener or the line's end.
func (s *Text) state(l []byte, from int) {
	rest := l[from:]
	for i := bytes.Index(rest, []byte("ralph:state")); i >= 0; {
		if stateOpener(rest, i) {
			rest = rest[:i]
			break
		}
		j := bytes.Index(rest[i+1:], []byte("ralph:state"))
		if j < 0 {
			break
		}
		i += 1 + j
	}
	b := capture(rest, stateCap, false)
	i := bytes.Index(b, []byte("-->"))
	if i < 0 {
		return
	}
	if name, ok := parseStateName(b[:i]); ok && len(s.states) < maxStates && !contains(s.states, name) {
		s.states = append(s.states, name)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
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

const spaceChars = " \t\n\v\f\r"

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// Finish ends the text and returns what was found.
func (s *Text) Finish() *Facts {
	if len(s.partial) > 0 {
		s.line(s.partial)
		s.partial = s.partial[:0]
	}
	f := &Facts{
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
		ErrorLines:  s.errLines,
		Summary:     s.summary,
		HasSummary:  s.hasSummary,
		Denial:      s.hasDenial,
		DenialLine:  s.denial,
		States:      s.states,
		Question:    s.question,
		Text:        string(s.text),
		Truncated:   s.textBytes > int64(len(s.text)),
	}
	switch {
	case s.blkHave:
		b := s.blkLast
		f.Block = &b
		f.Prose = string(s.closedProse)
	case s.blkOpen:
		b := s.blk
		f.Block = &b
		f.Prose = string(s.openProse)
	}
	for k := 0; k < s.ringN; k++ {
		f.LastLines = append(f.LastLines, string(s.ring[(s.ringPos-s.ringN+k+ringSize)%ringSize]))
	}
	return f
}

// Facts is what Text found in one text.
type Facts struct {
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
	Summary     string // first line outside a status block matching summary|completed|implemented, cut to 100 bytes
	HasSummary  bool
	// Prose is the agent's last paragraph before the status block that
	// counts (Block): words joined by single spaces, at most 200 bytes; ""
	// without a block or without prose before it.
	Prose      string
	Denial     bool   // the first paragraph reads as a permission refusal
	DenialLine string // that line
	States     []string
	Question   string // the last RALPH_QUESTION: line's question ("" when none)
	Text       string // prefix of the text (keepText bytes)
	Truncated  bool
	LastLines  []string // the last lines
}

// firstKeyword returns the first completion keyword (in the bash loop's list
// order) found, or "".
func (f *Facts) firstKeyword() string {
	if f == nil || f.Keywords == 0 {
		return ""
	}
	return completionKeywords[bits.TrailingZeros32(f.Keywords)]
}

func (f *Facts) firstNoWork() string {
	if f == nil || f.NoWork == 0 {
		return ""
	}
	return noWorkPatterns[bits.TrailingZeros32(f.NoWork)]
}

// scanString applies the rules to a whole string.
func scanString(text string, keep int) *Facts {
	s := newText(keep)
	s.Write([]byte(text))
	return s.Finish()
}
