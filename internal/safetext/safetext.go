// Package safetext makes text that comes from outside the loop (the
// repository's files, the agent and what it prints, answers from the
// network) safe to show on a terminal or to write to a log that is shown
// on one: every control character a terminal would act on is made
// visible instead.
//
// What changes, in every form:
//
//   - C0 controls other than tab and newline, DEL and the C1 controls
//     (U+0080–U+009F) become \u001b, \u007f, \u009b...: an escape sequence
//     (OSC 52 to the clipboard, a window title, clear screen, cursor moves)
//     cannot reach the terminal, and a carriage return cannot overwrite a
//     line. A carriage return just before a newline is dropped.
//   - The bidirectional overrides and isolates (U+202A–U+202E,
//     U+2066–U+2069) become \u202e...: text cannot be shown in another
//     order than it is stored.
//   - A byte that is not part of valid UTF-8 becomes \xff: a raw 0x9b (the
//     8-bit CSI) is one of them.
//
// The forms escape runes as JSON does (\u001b), so a JSON document stays
// valid and means the same after it went through a Writer. The result is
// always valid UTF-8, and making text safe twice changes nothing.
package safetext

import (
	"io"
	"strings"
	"unicode/utf8"
)

// mode says what passes as it is.
type mode uint8

const (
	keepNewline mode = 1 << iota // a newline stays one
	keepSGR                      // SGR sequences (colours) stay
)

// maxSGR bounds an SGR sequence that passes: ESC, '[', parameters, 'm'.
const maxSGR = 64

// visible is s with its controls made visible; tabs and newlines stay.
func visible(s string) string { return convert(s, keepNewline) }

// Line is s made safe as one line of a log: newlines are made visible too.
func Line(s string) string { return convert(s, 0) }

// Colour is visible, except that SGR sequences (ESC '[' digits, ';' and
// ':' 'm': colours and text attributes) stay, and nothing else that
// starts with ESC.
func Colour(s string) string { return convert(s, keepNewline|keepSGR) }

func convert(s string, m mode) string {
	if safePrefix(s, m) == len(s) {
		return s
	}
	b, _ := appendSafe(make([]byte, 0, len(s)+16), []byte(s), m, true)
	return string(b)
}

// safePrefix is the length of the longest start of s that appendSafe
// leaves as it is, whatever follows it.
func safePrefix[T string | []byte](s T, m mode) int {
	i := 0
	for i < len(s) {
		if i+8 <= len(s) && printable8(uint64(s[i])|uint64(s[i+1])<<8|uint64(s[i+2])<<16|uint64(s[i+3])<<24|
			uint64(s[i+4])<<32|uint64(s[i+5])<<40|uint64(s[i+6])<<48|uint64(s[i+7])<<56) {
			i += 8
			continue
		}
		c := s[i]
		switch {
		case c >= 0x20 && c < 0x7f, c == '\t', c == '\n' && m&keepNewline != 0:
			i++
		case c == 0x1b && m&keepSGR != 0:
			n, _ := sgrLen(string(s[i:min(len(s), i+maxSGR)]))
			if n == 0 {
				return i
			}
			i += n
		case c < utf8.RuneSelf:
			return i
		default:
			r, size := decodeRune(s[i:])
			if r == utf8.RuneError && size == 1 || isControl(r) {
				return i
			}
			i += size
		}
	}
	return i
}

// printable8 reports whether the eight bytes of x are all printable ASCII
// (0x20 to 0x7e), eight at a time: a byte under 0x20 sets its top bit in
// x-0x20 (no lower byte borrows, as the lowest such byte has none under
// it), 0x7f sets it in x+1 (a lower byte carries only from 0xff, set in x
// itself), and any byte from 0x80 has it in x.
func printable8(x uint64) bool {
	const low, top = 0x0101010101010101, 0x8080808080808080
	return ((x-0x20*low)|(x+low)|x)&top == 0
}

func decodeRune[T string | []byte](s T) (rune, int) {
	if b, ok := any(s).([]byte); ok {
		return utf8.DecodeRune(b)
	}
	return utf8.DecodeRuneInString(string(s))
}

// appendSafe appends the safe form of p to dst. Unless final, a sequence
// that p's end may have cut (a UTF-8 rune, an SGR sequence, a carriage
// return before a newline) is left out and its length returned, so that
// text made safe piece by piece comes out as it would whole.
func appendSafe(dst, p []byte, m mode, final bool) ([]byte, int) {
	for i := 0; i < len(p); {
		n := safePrefix(p[i:], m)
		dst = append(dst, p[i:i+n]...)
		if i += n; i == len(p) {
			break
		}
		c := p[i]
		switch {
		case c == '\r':
			if i+1 == len(p) && !final {
				return dst, len(p) - i
			}
			if i+1 < len(p) && p[i+1] == '\n' {
				i++ // the newline follows
				continue
			}
			dst = appendRune(dst, '\r')
			i++
		case c == 0x1b && m&keepSGR != 0:
			n, decided := sgrLen(string(p[i:min(len(p), i+maxSGR)]))
			if n > 0 {
				dst = append(dst, p[i:i+n]...)
				i += n
				continue
			}
			if !decided && !final {
				return dst, len(p) - i
			}
			dst = appendRune(dst, 0x1b)
			i++
		case c < utf8.RuneSelf: // a control: a printable one is in the safe prefix
			dst = appendRune(dst, rune(c))
			i++
		default:
			if !final && !utf8.FullRune(p[i:]) {
				return dst, len(p) - i
			}
			r, size := utf8.DecodeRune(p[i:])
			if r == utf8.RuneError && size == 1 {
				dst = append(dst, '\\', 'x', hex[c>>4], hex[c&0xf])
			} else {
				dst = appendRune(dst, r) // a control: any other rune is in the safe prefix
			}
			i += size
		}
	}
	return dst, 0
}

// sgrLen is the length of the SGR sequence s starts with (0: none), and
// whether that is decided: false when s ends before it could be. s holds
// at most maxSGR bytes of the text.
func sgrLen(s string) (n int, decided bool) {
	if len(s) < 2 {
		return 0, false
	}
	if s[1] != '[' {
		return 0, true
	}
	for j := 2; j < len(s) && j < maxSGR; j++ {
		switch c := s[j]; {
		case c >= '0' && c <= '9' || c == ';' || c == ':':
		case c == 'm':
			return j + 1, true
		default:
			return 0, true
		}
	}
	return 0, len(s) >= maxSGR
}

// isControl reports whether r is a rune made visible (beside the C0
// controls and DEL, which are ASCII).
func isControl(r rune) bool {
	return r >= 0x80 && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

const hex = "0123456789abcdef"

// appendRune appends r as \uXXXX.
func appendRune(dst []byte, r rune) []byte {
	return append(dst, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
}

// Writer makes what is written to it safe as Colour does, on its way to
// the underlying writer. A sequence cut between two writes is held until
// the next one, so the result does not depend on how the text was cut;
// Flush writes what is held at the end.
type Writer struct {
	w       io.Writer
	pending []byte
	buf     []byte
}

// NewWriter returns a Writer writing to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write makes p safe and writes it. It reports len(p) and the underlying
// writer's error.
func (w *Writer) Write(p []byte) (int, error) {
	if len(w.pending) == 0 && safePrefix(p, keepNewline|keepSGR) == len(p) {
		_, err := w.w.Write(p)
		return len(p), err
	}
	in := p
	if len(w.pending) > 0 {
		w.pending = append(w.pending, p...)
		in = w.pending
	}
	var rest int
	w.buf, rest = appendSafe(w.buf[:0], in, keepNewline|keepSGR, false)
	w.pending = append(w.pending[:0], in[len(in)-rest:]...)
	if len(w.buf) == 0 {
		return len(p), nil
	}
	_, err := w.w.Write(w.buf)
	return len(p), err
}

// Flush writes what a last write left held (a cut sequence), made safe.
func (w *Writer) Flush() error {
	if len(w.pending) == 0 {
		return nil
	}
	w.buf, _ = appendSafe(w.buf[:0], w.pending, keepNewline|keepSGR, true)
	w.pending = w.pending[:0]
	_, err := w.w.Write(w.buf)
	return err
}

// Unwrap is the underlying writer (a terminal file, say).
func (w *Writer) Unwrap() io.Writer { return w.w }

// Lines is s made safe and cut into lines, a newline at its end ignored:
// a message shown as log lines, each of which gets its own stamp.
func Lines(s string) []string {
	return strings.Split(strings.TrimSuffix(visible(s), "\n"), "\n")
}
