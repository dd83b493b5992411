package analysis

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// A record too long to hold (a line past longAt: a reply of many megabytes
// in one result object) is read as its bytes come, in one pass and bounded
// memory. longRecord keeps its skeleton, the record with each string value
// longer than longString cut to its first bytes, and gives each such
// string that the formats read (reads, by its path), decoded piece by
// piece with jsontext.AppendUnquote, to the text rules (Text). The formats
// decode the skeleton as the record and take a long string's reading by
// its path (LongReader.Long).
type longRecord struct {
	skel   []byte                 // the record so far, its long strings cut short
	stack  []longFrame            // the open objects and arrays
	inStr  bool                   // inside a string
	key    bool                   // the string is an object's key
	str    []byte                 // the string's raw bytes not yet in the skeleton or decoded
	bs     int                    // backslashes ending the string's bytes so far
	long   bool                   // the string is long: read in pieces
	text   *Text                  // its reading, when the formats read it
	path   string                 // its path ("result", "item.text", "[2].result")
	quoted []byte                 // a piece of it between quotes, to decode (reused)
	dec    []byte                 // that piece decoded (reused)
	longs  map[string]*Facts      // the readings of the long strings read, by path
	reads  func(path string) bool // the formats read the long string at path
	failed bool                   // the record cannot be read
}

type longFrame struct {
	obj  bool
	key  bool   // the object awaits a key
	name []byte // the raw key of the object's current member
	idx  int    // the array's current element
}

const (
	longString = 64 << 10 // a string value longer than this is read in pieces
	keepString = 1 << 10  // raw bytes of such a string kept in the skeleton
	maxLongs   = 8        // long strings whose reading a record keeps (the last ones)
	maxDepth   = 10000    // jsontext's limit too
)

// newLongRecord starts reading a long record whose long strings at the
// paths reads accepts are read with the text rules (the others are only
// checked).
func newLongRecord(reads func(path string) bool) *longRecord {
	return &longRecord{reads: reads}
}

// Write takes the record's next bytes; it fails once the record cannot be
// read (not JSON, nested too deep, a key or skeleton too long).
func (l *longRecord) Write(p []byte) bool {
	for len(p) > 0 && !l.failed {
		if l.inStr {
			p = l.string(p)
			continue
		}
		i := bytes.IndexByte(p, '"')
		if i < 0 {
			i = len(p)
		}
		for _, c := range p[:i] {
			if l.structure(c); l.failed {
				return false
			}
		}
		l.skel = append(l.skel, p[:i]...)
		if i == len(p) {
			break
		}
		top := l.top()
		l.key = top != nil && top.obj && top.key
		l.skel = append(l.skel, '"')
		l.inStr, l.bs, l.str = true, 0, l.str[:0]
		p = p[i+1:]
	}
	l.failed = l.failed || len(l.skel)+len(l.str) > MaxLine
	return !l.failed
}

// End ends the record: its skeleton (the record with its long strings
// cut short, which the formats read as the record), the text rules'
// reading of each long string they read, by its path ("result",
// "item.text", "[2].result"), and whether it was one whole record.
func (l *longRecord) End() (skeleton []byte, longs map[string]*Facts, ok bool) {
	return l.skel, l.longs, !l.failed && !l.inStr
}

func (l *longRecord) top() *longFrame {
	if len(l.stack) == 0 {
		return nil
	}
	return &l.stack[len(l.stack)-1]
}

// structure follows the nesting outside strings.
func (l *longRecord) structure(c byte) {
	top := l.top()
	switch {
	case c == '{' || c == '[':
		l.stack = append(l.stack, longFrame{obj: c == '{', key: c == '{'})
		l.failed = l.failed || len(l.stack) > maxDepth
	case c == '}' || c == ']':
		if top == nil {
			l.failed = true
			return
		}
		l.stack = l.stack[:len(l.stack)-1]
	case top == nil:
	case c == ',' && top.obj:
		top.key = true
	case c == ',':
		top.idx++
	case c == ':':
		top.key = false
	}
}

// string reads a string's bytes up to its closing quote, and returns the
// bytes after it.
func (l *longRecord) string(p []byte) []byte {
	end := -1
	for from := 0; end < 0; {
		j := bytes.IndexByte(p[from:], '"')
		if j < 0 {
			break
		}
		j += from
		// A quote after an odd run of backslashes is escaped.
		if k := backslashes(p[:j]); (k == j && (k+l.bs)%2 == 1) || (k < j && k%2 == 1) {
			from = j + 1
			continue
		}
		end = j
	}
	piece := p
	if end >= 0 {
		piece = p[:end]
	}
	if k := backslashes(piece); k == len(piece) {
		l.bs += k
	} else {
		l.bs = k
	}
	l.add(piece)
	if end < 0 {
		return nil
	}
	l.close()
	return p[end+1:]
}

// add takes more of the string's raw bytes: a value past longString is
// read in pieces from then on.
func (l *longRecord) add(b []byte) {
	for len(b) > longString && !l.failed {
		l.add(b[:longString])
		b = b[longString:]
	}
	l.str = append(l.str, b...)
	if !l.long {
		if len(l.str) <= longString {
			return
		}
		if l.key {
			l.failed = true // a key that long is no record's
			return
		}
		l.skel = append(append(l.skel, l.str[:safeCut(l.str, keepString)]...), '"')
		l.path, l.long = l.pathOf(), true
		if l.reads(l.path) {
			l.text = NewText()
		}
	}
	if len(l.str) >= longString {
		switch c := safeCut(l.str, len(l.str)-1); {
		case c > 0:
			l.decode(c)
		case len(l.str) > 4*longString:
			l.failed = true // no place to cut: no text is written so
		}
	}
}

// close ends the string.
func (l *longRecord) close() {
	l.inStr = false
	if !l.long {
		if top := l.top(); l.key && top != nil {
			top.name = append(top.name[:0], l.str...)
		}
		l.skel = append(append(l.skel, l.str...), '"')
		return
	}
	l.decode(len(l.str))
	l.long = false
	if l.text == nil {
		return
	}
	if l.longs == nil {
		l.longs = map[string]*Facts{}
	}
	if len(l.longs) == maxLongs {
		clear(l.longs)
	}
	l.longs[l.path] = l.text.Finish()
	l.text = nil
}

// decode gives the first n raw bytes of the string, decoded, to its reading.
func (l *longRecord) decode(n int) {
	l.quoted = append(append(append(l.quoted[:0], '"'), l.str[:n]...), '"')
	var err error
	l.dec, err = jsontext.AppendUnquote(l.dec[:0], l.quoted)
	// Invalid UTF-8 and lone surrogates read as U+FFFD, as in a record
	// (AllowInvalidUTF8); anything else is not JSON.
	if err != nil && !jsontext.Value(l.quoted).IsValid(jsontext.AllowInvalidUTF8(true)) {
		l.failed = true
		return
	}
	if l.text != nil {
		l.text.Write(l.dec)
	}
	l.str = l.str[:copy(l.str, l.str[n:])]
}

// pathOf names the current value: its keys joined with dots, an array's
// elements by their index ("result", "item.text", "[2].result").
func (l *longRecord) pathOf() string {
	var b []byte
	for _, f := range l.stack {
		if !f.obj {
			b = strconv.AppendInt(append(b, '['), int64(f.idx), 10)
			b = append(b, ']')
			continue
		}
		if len(b) > 0 {
			b = append(b, '.')
		}
		b, _ = jsontext.AppendUnquote(b, append(append([]byte{'"'}, f.name...), '"'))
	}
	return string(b)
}

// safeCut is the last place, at or before n and before the end of the raw
// string bytes b (which start where an escape may), where b can be cut in
// two strings that decode to the same text: not inside an escape or a
// UTF-8 sequence, nor between the escapes of a surrogate pair. It is 0
// when there is none near n.
func safeCut(b []byte, n int) int {
	for c := min(n, len(b)-1); c > 0 && c > n-64; c-- {
		if runeCut(b, c) && !inEscape(b, c) && !(highSurrogate(b, c) && lowSurrogate(b[c:])) {
			return c
		}
	}
	return 0
}

// runeCut: position c of b is not inside a UTF-8 sequence (invalid bytes
// read as U+FFFD each, wherever b is cut).
func runeCut(b []byte, c int) bool {
	for s := c - 1; s >= 0 && s >= c-3; s-- {
		if utf8.RuneStart(b[s]) {
			_, n := utf8.DecodeRune(b[s:])
			return utf8.FullRune(b[s:]) && s+n <= c
		}
	}
	return true
}

// inEscape: position c of b is inside an escape sequence.
func inEscape(b []byte, c int) bool {
	if k := backslashes(b[:c]); k > 0 {
		return k%2 == 1
	}
	for j := max(c-5, 0); j < c-1; j++ {
		if b[j] == '\\' && b[j+1] == 'u' && backslashes(b[:j+1])%2 == 1 {
			return true
		}
	}
	return false
}

// highSurrogate: b[:c] ends with the escape of a high surrogate.
func highSurrogate(b []byte, c int) bool {
	if c < 6 || b[c-6] != '\\' || b[c-5] != 'u' || backslashes(b[:c-5])%2 == 0 {
		return false
	}
	v, err := strconv.ParseUint(string(b[c-4:c]), 16, 16)
	return err == nil && v >= 0xD800 && v <= 0xDBFF
}

// lowSurrogate: b starts with the escape of a low surrogate, or may (it
// is too short to tell).
func lowSurrogate(b []byte) bool {
	if len(b) < 6 {
		return len(b) == 0 || b[0] == '\\'
	}
	if b[0] != '\\' || b[1] != 'u' {
		return false
	}
	v, err := strconv.ParseUint(string(b[2:6]), 16, 16)
	return err == nil && v >= 0xDC00 && v <= 0xDFFF
}

// backslashes counts the backslashes that end b.
func backslashes(b []byte) int {
	k := 0
	for k < len(b) && b[len(b)-1-k] == '\\' {
		k++
	}
	return k
}
