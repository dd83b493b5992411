package oldanalysis

import (
	"errors"
	"io"
	"unicode/utf8"

	"github.com/ralphloop/ralph_loop/analysis/internal/oldanalysis/wire"
)

// source is the byte stream every decoder reads: a fixed buffer refilled
// from the input. Each byte read is also shown once, in order, to the raw
// observers (output length, and the plain-text scanner when the output may
// turn out to be text).
type source struct {
	r    io.Reader
	buf  []byte
	pos  int
	end  int
	eof  bool
	err  error // read error other than io.EOF
	line int   // newlines consumed by the JSON reader (for invalid-line counts)
	obs  []io.Writer
	esc  [utf8.UTFMax]byte // decoded escape (a field, so it does not escape to the heap)
	// nlBefore: the last skipWS crossed a newline, so the byte it stopped
	// at starts a line (after blanks).
	nlBefore bool
}

const bufSize = 64 << 10

func (s *source) init(r io.Reader, obs ...io.Writer) {
	s.r = r
	if s.buf == nil {
		s.buf = make([]byte, bufSize)
	}
	s.obs = obs
}

// fill reads more input, keeping buf[pos:end]. It reports false when no
// byte was added (end of input or a read error).
func (s *source) fill() bool {
	if s.eof {
		return false
	}
	if s.pos > 0 {
		n := copy(s.buf, s.buf[s.pos:s.end])
		s.pos, s.end = 0, n
	}
	if s.end == len(s.buf) {
		// Only escapes and literals need look-ahead, never a whole buffer.
		panic("analysis: source buffer full")
	}
	for tries := 0; tries < 100; tries++ {
		n, err := s.r.Read(s.buf[s.end:])
		if n > 0 {
			for _, o := range s.obs {
				o.Write(s.buf[s.end : s.end+n])
			}
			s.end += n
		}
		if err != nil {
			s.eof = true
			if err != io.EOF {
				s.err = err
			}
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
	s.eof = true
	s.err = io.ErrNoProgress
	return false
}

// ensure makes n bytes available from pos; false at the end of input.
func (s *source) ensure(n int) bool {
	for s.end-s.pos < n {
		if !s.fill() {
			return false
		}
	}
	return true
}

// drain passes the rest of the input to the observers.
func (s *source) drain() {
	s.pos = s.end
	for s.fill() {
		s.pos = s.end
	}
}

var errSyntax = errors.New("invalid JSON")

// strSafe marks bytes that may appear unescaped inside a JSON string.
var strSafe = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return
}()

// skipWS skips JSON whitespace and returns the next byte.
func (s *source) skipWS() (byte, bool) {
	s.nlBefore = false
	for {
		for s.pos < s.end {
			c := s.buf[s.pos]
			switch c {
			case ' ', '\t', '\r':
				s.pos++
			case '\n':
				s.line++
				s.pos++
				s.nlBefore = true
			default:
				return c, true
			}
		}
		if !s.fill() {
			return 0, false
		}
	}
}

// skipLine drops the rest of the current line, its newline included.
func (s *source) skipLine() {
	for {
		for s.pos < s.end {
			c := s.buf[s.pos]
			s.pos++
			if c == '\n' {
				s.line++
				return
			}
		}
		if !s.fill() {
			return
		}
	}
}

// strSink receives the decoded bytes of a JSON string, in pieces.
type strSink interface {
	Write(p []byte) (int, error)
}

// readString reads a JSON string (pos at the opening quote), writing its
// decoded content to sink (nil skips). Invalid escapes and raw control
// characters are syntax errors; unpaired surrogates become U+FFFD.
func (s *source) readString(sink strSink) error {
	s.pos++
	for {
		buf, i, end := s.buf, s.pos, s.end
		for i < end && strSafe[buf[i]] {
			i++
		}
		if i > s.pos && sink != nil {
			sink.Write(buf[s.pos:i])
		}
		s.pos = i
		if i == end {
			if !s.fill() {
				return errSyntax
			}
			continue
		}
		switch buf[i] {
		case '"':
			s.pos++
			return nil
		case '\\':
			if err := s.escape(sink); err != nil {
				return err
			}
		default:
			return errSyntax // raw control character (a newline ends the line)
		}
	}
}

// simpleEscape is the byte each one-letter escape stands for (0: none).
var simpleEscape = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

func (s *source) escape(sink strSink) error {
	if !s.ensure(2) {
		return errSyntax
	}
	c := s.buf[s.pos+1]
	if c == 'u' {
		return s.unicodeEscape(sink)
	}
	out := simpleEscape[c]
	if out == 0 {
		return errSyntax
	}
	s.pos += 2
	if sink != nil {
		s.esc[0] = out
		sink.Write(s.esc[:1])
	}
	return nil
}

// unicodeEscape reads \uXXXX, joining a surrogate pair; an unpaired
// surrogate becomes U+FFFD.
func (s *source) unicodeEscape(sink strSink) error {
	if !s.ensure(6) {
		return errSyntax
	}
	r, ok := hex4(s.buf[s.pos+2 : s.pos+6])
	if !ok {
		return errSyntax
	}
	s.pos += 6
	switch {
	case r >= 0xD800 && r < 0xDC00:
		hi := r
		r = utf8.RuneError
		if s.ensure(6) && s.buf[s.pos] == '\\' && s.buf[s.pos+1] == 'u' {
			if lo, ok := hex4(s.buf[s.pos+2 : s.pos+6]); ok && lo >= 0xDC00 && lo < 0xE000 {
				r = 0x10000 + (hi-0xD800)<<10 + (lo - 0xDC00)
				s.pos += 6
			}
		}
	case r >= 0xDC00 && r < 0xE000:
		r = utf8.RuneError
	}
	if sink != nil {
		n := utf8.EncodeRune(s.esc[:], r)
		sink.Write(s.esc[:n])
	}
	return nil
}

func hex4(b []byte) (rune, bool) {
	var r rune
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// The JSON number grammar as a table: numState[state][class] is the next
// state, or nsBad when the byte cannot continue the number.
const (
	nsStart = iota // nothing read
	nsMinus        // '-'
	nsZero         // a leading 0
	nsInt          // integer digits
	nsDot          // '.'
	nsFrac         // fraction digits
	nsE            // 'e' or 'E'
	nsSign         // exponent sign
	nsExp          // exponent digits
	nsBad
)

// byte classes of a number
const (
	ncOther = iota
	ncMinus
	ncPlus
	ncZero
	ncDigit // 1-9
	ncDot
	ncE
)

var numClass = func() (t [256]uint8) {
	for c := '1'; c <= '9'; c++ {
		t[c] = ncDigit
	}
	t['0'], t['-'], t['+'], t['.'], t['e'], t['E'] = ncZero, ncMinus, ncPlus, ncDot, ncE, ncE
	return
}()

var numState = func() (t [nsBad][7]uint8) {
	for i := range t {
		for j := range t[i] {
			t[i][j] = nsBad
		}
	}
	set := func(from int, class int, to uint8) { t[from][class] = to }
	set(nsStart, ncMinus, nsMinus)
	for _, from := range []int{nsStart, nsMinus} {
		set(from, ncZero, nsZero)
		set(from, ncDigit, nsInt)
	}
	set(nsInt, ncZero, nsInt)
	set(nsInt, ncDigit, nsInt)
	for _, from := range []int{nsDot, nsFrac} {
		set(from, ncZero, nsFrac)
		set(from, ncDigit, nsFrac)
	}
	for _, from := range []int{nsE, nsSign, nsExp} {
		set(from, ncZero, nsExp)
		set(from, ncDigit, nsExp)
	}
	set(nsZero, ncDot, nsDot)
	set(nsInt, ncDot, nsDot)
	for _, from := range []int{nsZero, nsInt, nsFrac} {
		set(from, ncE, nsE)
	}
	set(nsE, ncPlus, nsSign)
	set(nsE, ncMinus, nsSign)
	return
}()

// readNumber reads a JSON number into dst (kept up to len(dst)); it returns
// the kept bytes.
func (s *source) readNumber(dst []byte) ([]byte, error) {
	st := uint8(nsStart)
	n := 0
	for {
		if s.pos == s.end && !s.fill() {
			break
		}
		c := s.buf[s.pos]
		next := numState[st][numClass[c]]
		if next == nsBad {
			break
		}
		st = next
		if n < len(dst) {
			dst[n] = c
		}
		n++
		s.pos++
	}
	if st != nsZero && st != nsInt && st != nsFrac && st != nsExp {
		return nil, errSyntax
	}
	return dst[:min(n, len(dst))], nil
}

// readLiteral reads true, false or null.
func (s *source) readLiteral() (wire.Kind, error) {
	var word string
	var k wire.Kind
	switch s.buf[s.pos] {
	case 't':
		word, k = "true", wire.True
	case 'f':
		word, k = "false", wire.False
	default:
		word, k = "null", wire.Null
	}
	if !s.ensure(len(word)) || string(s.buf[s.pos:s.pos+len(word)]) != word {
		return 0, errSyntax
	}
	s.pos += len(word)
	return k, nil
}
