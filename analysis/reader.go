package analysis

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// MaxLine is the per-line cap: a longer line of output that is not a long
// record is skipped (Result.SkippedLines, noted), a longer line of the
// agent's text cut there.
const MaxLine = 16 << 20

// reading is one output read line by line, by Analyze and by a Stream.
type reading struct {
	stats rawStats

	partial []byte // the current line, until its newline
	over    bool   // the current line passed MaxLine: its bytes are dropped
	started bool   // a byte other than a blank or the byte-order mark was seen
	json    bool   // the output started like JSON: its lines are records
	bom     int    // > 0 until the first line, whose byte-order mark is dropped

	long    *longRecord       // the current line, past longAt, read as it comes
	longs   map[string]*Facts // the long strings of the record being read
	skipped int               // lines over MaxLine
	docs    int               // valid JSON documents
	invalid int               // lines that were not valid JSON

	pending      []byte // a document spread over several lines, joined so far
	pendingLines int
	depth        int

	formats []FormatReader // the driver's first; none: plain text
	limits  limits
	window  func(LimitWindow, int64) // limits.put, made once
	raw     *Text                    // the output as plain text (in a JSON output: its lines that are not JSON)
}

func newReading(opts Options) *reading {
	rd := &reading{raw: NewText(), bom: 3}
	rd.window = rd.limits.put
	for _, f := range opts.Formats {
		rd.formats = append(rd.formats, f())
	}
	return rd
}

// Write feeds the next bytes of the output.
func (rd *reading) Write(p []byte) {
	rd.stats.Write(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		switch {
		case i < 0:
			rd.keep(p)
			return
		case len(rd.partial) == 0 && rd.long == nil && !rd.over && i <= MaxLine && (i <= longAt || !rd.longStart(p)):
			rd.line(p[:i], true) // a whole line in p: read in place
		default:
			rd.keep(p[:i])
			rd.endLine(true)
		}
		p = p[i+1:]
	}
}

// keep holds the start of a line that goes on in the next write. A line of
// JSON past longAt is not held: a longRecord reads it as it comes.
func (rd *reading) keep(p []byte) {
	n := len(rd.partial) + len(p)
	switch {
	case rd.over:
		return
	case rd.long == nil && n > longAt && rd.longStart(p):
		rd.over = !rd.long.Write(rd.partial)
		rd.partial = rd.partial[:0]
		fallthrough
	case rd.long != nil:
		rd.over = rd.over || !rd.long.Write(p)
		return
	case n > MaxLine:
		rd.partial, rd.over = nil, true
		return
	case n > cap(rd.partial): // double: append grows a large slice by a quarter
		rd.partial = append(make([]byte, 0, min(max(2*cap(rd.partial), n), MaxLine)), rd.partial...)
	}
	rd.partial = append(rd.partial, p...)
}

// longStart reads the current line (held so far, then p) as a long
// record, when it is JSON in an output of JSON.
func (rd *reading) longStart(p []byte) bool {
	head := bytes.TrimLeft(rd.partial, " \t\r\xef\xbb\xbf")
	if len(head) == 0 {
		head = bytes.TrimLeft(p, " \t\r\xef\xbb\xbf")
	}
	if rd.pending != nil || rd.started && !rd.json || len(head) == 0 || head[0] != '{' && head[0] != '[' {
		return false
	}
	for _, f := range rd.formats {
		if l, ok := f.(LongReader); ok {
			rd.long = newLongRecord(l.ReadsLong)
			return true
		}
	}
	return false
}

// endLine reads the line held or read as a long record.
func (rd *reading) endLine(nl bool) {
	switch {
	case rd.over:
		rd.skipped++
	case rd.long != nil:
		skel, longs, ok := rd.long.End()
		if !ok {
			rd.skipped++
			break
		}
		rd.longs = longs
		rd.line(skel, nl)
		rd.longs = nil
	default:
		rd.line(rd.partial, nl)
	}
	rd.partial, rd.over, rd.long = rd.partial[:0], false, nil
}

// end reads the last line, which has no newline.
func (rd *reading) end() {
	if rd.over || rd.long != nil || len(rd.partial) > 0 {
		rd.endLine(false)
	}
	rd.partial = nil
	if rd.pending != nil && rd.stats.trailNL > 0 {
		rd.invalid++ // the end of the output is counted as one more line of a document it cut
	}
	rd.flushPending()
}

// line reads one line of the output; nl tells whether a newline ended it.
func (rd *reading) line(l []byte, nl bool) {
	t := l
	if rd.bom > 0 {
		t = bytes.TrimPrefix(t, []byte("\xef\xbb\xbf"))
		rd.bom = 0
	}
	t = bytes.TrimLeft(t, " \t\r")
	if !rd.started && len(t) > 0 {
		rd.started = true
		rd.json = len(rd.formats) > 0 && (t[0] == '{' || t[0] == '[')
	}
	if !rd.json {
		rd.raw.writeLine(l, nl)
		return
	}
	if rd.pending != nil {
		rd.join(l, t)
		return
	}
	if len(t) == 0 || t[0] != '{' && t[0] != '[' {
		rd.invalid += min(len(t), 1)
		rd.raw.writeLine(l, true) // not part of a JSON document
		return
	}
	if rd.fast(t) {
		return
	}
	rd.documents(l, t)
}

// fast counts a line without decoding it when a format reads nothing of
// it (yet): Claude's tool results, Codex's command outputs. The first
// document is always read.
func (rd *reading) fast(t []byte) bool {
	if rd.docs == 0 || t[len(t)-1] != '}' {
		return false
	}
	typ, known := recordType(t)
	if !known {
		return false
	}
	for i, f := range rd.formats {
		open := false
		for j, g := range rd.formats {
			open = open || j != i && g.Open()
		}
		if f.Skip(typ, t, open) {
			rd.docs++
			return true
		}
	}
	return false
}

// documents reads the JSON documents of a line (one that does not end on
// it is joined with the next lines); a line of one document is decoded
// once, by the formats.
func (rd *reading) documents(l, t []byte) {
	if e := bytes.TrimRight(t, " \t\r"); e[len(e)-1] == '}' && rd.document(e) {
		return
	}
	var dec jsontext.Decoder
	dec.Reset(bytes.NewBuffer(t), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	for first := true; ; first = false {
		v, err := dec.ReadValue()
		if err == io.EOF {
			return
		}
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) && first {
				rd.pending = append([]byte(nil), l...)
				rd.pending = append(rd.pending, '\n')
				rd.pendingLines, rd.depth = 1, nesting(t)
				return
			}
			rd.invalid++
			rd.raw.writeLine(l, true)
			return
		}
		if !rd.document(v) {
			rd.docs++ // valid JSON that no record type takes
		}
	}
}

// join adds a line to a document spread over lines: it ends when its
// brackets close. A line that starts a new document at its first column
// and cannot continue the one joined so far ends that one, cut short.
func (rd *reading) join(l, t []byte) {
	if len(l) > 0 && (l[0] == '{' || l[0] == '[') && rd.depth > 0 && !validPrefix(append(rd.pending, l...)) {
		rd.flushPending()
		rd.line(l, true)
		return
	}
	if len(rd.pending)+len(l) > MaxLine {
		rd.skipped += rd.pendingLines + 1
		rd.pending = nil
		return
	}
	rd.pending = append(append(rd.pending, l...), '\n')
	rd.pendingLines++
	if rd.depth += nesting(t); rd.depth > 0 {
		return
	}
	doc := rd.pending
	n := rd.pendingLines
	rd.pending = nil
	if !jsontext.Value(bytes.TrimSpace(doc)).IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)) {
		rd.invalid += n
		rd.raw.Write(doc)
		return
	}
	rd.document(bytes.TrimSpace(doc))
}

// validPrefix reports whether b is JSON so far: a whole value, or the start
// of one.
func validPrefix(b []byte) bool {
	var dec jsontext.Decoder
	dec.Reset(bytes.NewBuffer(b), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	_, err := dec.ReadValue()
	return err == nil || errors.Is(err, io.ErrUnexpectedEOF)
}

// flushPending ends a document that was never closed: its lines are not JSON.
func (rd *reading) flushPending() {
	if rd.pending == nil {
		return
	}
	rd.invalid += rd.pendingLines
	rd.raw.Write(rd.pending)
	rd.pending = nil
}

// nesting is how much a line of JSON opens: '{' and '[' minus '}' and ']'
// outside strings.
func nesting(line []byte) int {
	d, in := 0, false
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case in:
		case c == '{' || c == '[':
			d++
		case c == '}' || c == ']':
			d--
		}
	}
	return d
}

// document reads one JSON document: an object is a record of any format;
// the first document may be Claude's message array. It reports false,
// having read nothing, when v is not one valid JSON value.
func (rd *reading) document(v []byte) bool {
	if rd.longs != nil { // the strings a longRecord read, for the formats that take them
		rd.lend(rd.longs)
		defer rd.lend(nil)
	}
	valid := func() bool {
		return jsontext.Value(v).IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	}
	if v[0] == '[' {
		if !valid() {
			return false
		}
		for _, f := range rd.formats {
			if rd.docs == 0 {
				_ = f.Record(v, true, rd.window) // v is valid
			}
		}
		rd.docs++
		return true
	}
	// The first format that reads the record checks it; the others read
	// it only when it was valid. A record with no leading type is
	// offered to every format.
	typ, known := recordType(v)
	checked := false
	for _, f := range rd.formats {
		if known && !f.Reads(typ, v, rd.docs == 0) {
			continue
		}
		if err := f.Record(v, rd.docs == 0, rd.window); err != nil && !checked {
			return false
		}
		checked = true
	}
	if !checked && !valid() {
		return false
	}
	rd.docs++
	return true
}

func (rd *reading) lend(longs map[string]*Facts) {
	for _, f := range rd.formats {
		if l, ok := f.(LongReader); ok {
			l.Long(longs)
		}
	}
}

// recordType is the "type" of a record that starts with it, as every
// CLI writes them.
func recordType(v []byte) ([]byte, bool) {
	if !bytes.HasPrefix(v, []byte(`{"type":"`)) {
		return nil, false
	}
	rest := v[len(`{"type":"`):]
	i := bytes.IndexByte(rest, '"')
	if i < 0 || bytes.IndexByte(rest[:i], '\\') >= 0 {
		return nil, false
	}
	return rest[:i], true
}

// Analyze reads one agent output and analyses it. It fails only when
// reading fails; malformed output is analysed as well as it can be.
func Analyze(r io.Reader, opts Options) (Result, error) {
	rd := newReading(opts)
	buf := make([]byte, 4<<10)
	for {
		n, err := r.Read(buf)
		rd.Write(buf[:n])
		if n == len(buf) && len(buf) < 256<<10 {
			buf = make([]byte, 2*len(buf))
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return Result{}, fmt.Errorf("read agent output: %w", err)
		}
	}
	rd.end()
	return rd.build(opts), nil
}

// Stream analyses an output while it is being written (beside the output
// log, in the pass that writes it): the reading Analyze does, fed by the
// writer, so Finish gives the Result Analyze gives for the same bytes.
type Stream struct {
	mu     sync.Mutex
	opts   Options
	rd     *reading
	closed bool
}

// Ending is what is known of a call only once its output has ended.
type Ending struct {
	ExitCode int       // the agent's exit code
	TimedOut bool      // the call was stopped by a timeout
	Now      time.Time // the analysis time (timestamp field)
}

// NewStream starts the analysis of one output; Finish's Ending gives
// what opts' ExitCode, TimedOut and Now would.
func NewStream(opts Options) *Stream {
	return &Stream{opts: opts, rd: newReading(opts)}
}

// Write feeds the next bytes of the output. It never fails: a stream
// written after Close drops the bytes.
func (s *Stream) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.rd.Write(p)
	}
	return len(p), nil
}

// Close ends the output. It never fails.
func (s *Stream) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		s.rd.end()
	}
	return nil
}

// Finish ends the output and analyses it with the ending given. It may be
// called again with another ending: the output is not read again.
func (s *Stream) Finish(e Ending) (Result, error) {
	s.Close()
	opts := s.opts
	opts.ExitCode, opts.TimedOut, opts.Now = e.ExitCode, e.TimedOut, e.Now
	return s.rd.build(opts), nil
}

// rawStats counts what the bash loop's output_length needs: characters of
// the output without NUL bytes and without trailing newlines.
type rawStats struct {
	bytes   int64
	runes   int64
	trailNL int64
	carry   [utf8.UTFMax]byte
	ncarry  int
}

func (s *rawStats) Write(p []byte) {
	s.bytes += int64(len(p))
	// trailing newlines (NUL bytes do not interrupt them: bash drops NULs)
	i := len(p) - 1
	var nl int64
	for ; i >= 0 && (p[i] == '\n' || p[i] == 0); i-- {
		if p[i] == '\n' {
			nl++
		}
	}
	if i < 0 {
		s.trailNL += nl
	} else {
		s.trailNL = nl
	}
	// characters, NUL bytes removed first, runes cut between writes carried over
	for len(p) > 0 {
		i := bytes.IndexByte(p, 0)
		if i < 0 {
			s.count(p)
			break
		}
		s.count(p[:i])
		p = p[i+1:]
	}
}

// count adds the characters of p, which continues the bytes counted so far.
func (s *rawStats) count(p []byte) {
	if len(p) == 0 {
		return
	}
	if s.ncarry > 0 {
		var tmp [2 * utf8.UTFMax]byte
		c := copy(tmp[:], s.carry[:s.ncarry])
		m := copy(tmp[c:], p[:min(len(p), utf8.UTFMax)])
		b := tmp[:c+m]
		j := 0
		for j < c {
			if !utf8.FullRune(b[j:]) {
				s.ncarry = copy(s.carry[:], b[j:])
				return
			}
			_, size := utf8.DecodeRune(b[j:])
			s.runes++
			j += size
		}
		p = p[j-c:]
		s.ncarry = 0
	}
	end := len(p)
	for k := 1; k <= utf8.UTFMax-1 && k <= len(p); k++ {
		if utf8.RuneStart(p[len(p)-k]) {
			if !utf8.FullRune(p[len(p)-k:]) {
				end = len(p) - k
			}
			break
		}
	}
	s.runes += int64(runeCount(p[:end]))
	s.ncarry = copy(s.carry[:], p[end:])
}

func (s *rawStats) length() int {
	r := s.runes + int64(runeCount(s.carry[:s.ncarry]))
	return int(r - s.trailNL)
}

// runeCount is utf8.RuneCount (each invalid byte counts as one), without
// the string conversion that makes the library function allocate.
func runeCount(p []byte) int {
	n := 0
	for i := 0; i < len(p); {
		if i+8 <= len(p) && binary.LittleEndian.Uint64(p[i:])&0x8080808080808080 == 0 {
			n += 8
			i += 8
			continue
		}
		if p[i] < utf8.RuneSelf {
			n++
			i++
			continue
		}
		_, size := utf8.DecodeRune(p[i:])
		n++
		i += size
	}
	return n
}
