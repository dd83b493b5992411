package safetext

import (
	"bytes"
	"encoding/binary"
	"io"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestForms(t *testing.T) {
	for _, tc := range []struct{ name, in, str, line, colour string }{
		{"plain", "héllo\tworld\n", "héllo\tworld\n", `héllo	world\u000a`, "héllo\tworld\n"},
		{"OSC 52", "a\x1b]52;c;aGk=\x07b", `a\u001b]52;c;aGk=\u0007b`, `a\u001b]52;c;aGk=\u0007b`, `a\u001b]52;c;aGk=\u0007b`},
		{"title", "\x1b]0;pwned\x1b\\", `\u001b]0;pwned\u001b\`, `\u001b]0;pwned\u001b\`, `\u001b]0;pwned\u001b\`},
		{"clear", "\x1b[2J\x1b[H", `\u001b[2J\u001b[H`, `\u001b[2J\u001b[H`, `\u001b[2J\u001b[H`},
		{"colour", "\x1b[1;31mred\x1b[0m", `\u001b[1;31mred\u001b[0m`, `\u001b[1;31mred\u001b[0m`, "\x1b[1;31mred\x1b[0m"},
		{"truecolour", "\x1b[38:2:1:2:3mx", `\u001b[38:2:1:2:3mx`, `\u001b[38:2:1:2:3mx`, "\x1b[38:2:1:2:3mx"},
		{"private SGR-like", "\x1b[?25l", `\u001b[?25l`, `\u001b[?25l`, `\u001b[?25l`},
		{"8-bit CSI", "\x9b2J", `\x9b2J`, `\x9b2J`, `\x9b2J`},
		{"C1 rune", "\u009b2J", `\u009b2J`, `\u009b2J`, `\u009b2J`},
		{"invalid", "a\xff\xc3", `a\xff\xc3`, `a\xff\xc3`, `a\xff\xc3`},
		{"bidi", "a\u202eb\u2066c", `a\u202eb\u2066c`, `a\u202eb\u2066c`, `a\u202eb\u2066c`},
		{"CR", "a\r\nb\rc\r", "a\nb\\u000dc\\u000d", `a\u000ab\u000dc\u000d`, "a\nb\\u000dc\\u000d"},
		{"DEL and BEL", "\x7f\x07", `\u007f\u0007`, `\u007f\u0007`, `\u007f\u0007`},
		{"lone ESC", "\x1b", `\u001b`, `\u001b`, `\u001b`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := visible(tc.in); got != tc.str {
				t.Errorf("visible(%q) = %q, want %q", tc.in, got, tc.str)
			}
			if got := Line(tc.in); got != tc.line {
				t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.line)
			}
			if got := Colour(tc.in); got != tc.colour {
				t.Errorf("Colour(%q) = %q, want %q", tc.in, got, tc.colour)
			}
		})
	}
}

func TestLongSGRIsNotKept(t *testing.T) {
	in := "\x1b[" + strings.Repeat("1;", 40) + "m"
	if got := Colour(in); strings.Contains(got, "\x1b") {
		t.Errorf("Colour kept a %d-byte sequence: %q", len(in), got)
	}
}

func TestLines(t *testing.T) {
	got := Lines("one\n\x1b[2Jtwo\n")
	if len(got) != 2 || got[0] != "one" || got[1] != `\u001b[2Jtwo` {
		t.Errorf("Lines = %q", got)
	}
}

func TestWriterHoldsCutSequences(t *testing.T) {
	in := "a\x1b[31mé\r\nb\x1b]0;t\x07"
	for cut := 0; cut <= len(in); cut++ {
		var b bytes.Buffer
		w := NewWriter(&b)
		w.Write([]byte(in[:cut]))
		w.Write([]byte(in[cut:]))
		w.Flush()
		if want := Colour(in); b.String() != want {
			t.Errorf("cut at %d: %q, want %q", cut, b.String(), want)
		}
	}
}

// sgr is a whole SGR sequence, the one escape Colour lets through.
var sgr = regexp.MustCompile(`^\x1b\[[0-9;:]*m`)

// checkSafe fails unless out has no control but tab, newline (when
// newlines stay) and SGR sequences (when colours stay), and is valid
// UTF-8.
func checkSafe(t *testing.T, form string, out string, newline, colour bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("%s: invalid UTF-8 %q", form, out)
	}
	for i, r := range out {
		switch {
		case r == '\t', r == '\n' && newline:
		case r == 0x1b && colour:
			if !sgr.MatchString(out[i:]) {
				t.Fatalf("%s: an ESC that starts no SGR sequence at %d: %q", form, i, out)
			}
		case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f, isControl(r):
			t.Fatalf("%s: control %U at %d: %q", form, r, i, out)
		}
	}
}

func FuzzString(f *testing.F) {
	for _, s := range []string{
		"\x1b]52;c;aGVsbG8=\x07",   // OSC 52: the clipboard
		"\x1b]0;pwned\x07",         // OSC 0: the window title
		"\x1b]2;pwned\x1b\\",       // OSC 2, ended by ST
		"\x1b[2J\x1b[3J",           // clear screen and scrollback
		"\x1b[10;10H\x1b[A\x1b[2K", // cursor moves, erase line
		"\x1bP+q544e\x1b\\",        // DCS
		"\x9b2J",                   // 8-bit CSI, a raw byte
		"\u009b2J\u009d0;t\u009c",  // C1 controls as runes
		"\xff\xfe\xc3(\xe2\x82",    // invalid UTF-8
		"\x1b[1;31mred\x1b[0m",     // colour
		"\x1b[38:2:1:2:3m",         // colon sub-parameters
		"a\u202eb\u2067c",          // bidi override and isolate
		"line\r\nover\rwrite\r",    // carriage returns
		"\x1b[" + strings.Repeat("9", 70) + "m",
	} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, cut int) {
		str, line, col := visible(s), Line(s), Colour(s)
		checkSafe(t, "String", str, true, false)
		checkSafe(t, "Line", line, false, false)
		checkSafe(t, "Colour", col, true, true)
		if visible(str) != str || Line(line) != line || Colour(col) != col {
			t.Fatalf("not idempotent on %q", s)
		}
		for _, l := range Lines(s) {
			checkSafe(t, "Lines", l, false, false)
		}
		// Written in two pieces, the text comes out as Colour makes it.
		at := int(uint(cut) % uint(len(s)+1))
		var b bytes.Buffer
		w := NewWriter(&b)
		w.Write([]byte(s[:at]))
		w.Write([]byte(s[at:]))
		w.Flush()
		if b.String() != col {
			t.Fatalf("Writer cut at %d: %q, Colour: %q", at, b.String(), col)
		}
	})
}

// TestPrintable8 checks the eight-at-a-time test against the byte rule
// for every byte value at every position, beside printable neighbours and
// beside the values whose borrow or carry could hide it.
func TestPrintable8(t *testing.T) {
	for _, fill := range []byte{' ', '~', 'a', 0x00, 0x7f, 0xff} {
		for pos := 0; pos < 8; pos++ {
			for v := 0; v < 256; v++ {
				var b [8]byte
				for i := range b {
					b[i] = fill
				}
				b[pos] = byte(v)
				want := true
				for _, c := range b {
					if c < 0x20 || c > 0x7e {
						want = false
					}
				}
				x := binary.LittleEndian.Uint64(b[:])
				if got := printable8(x); got != want {
					t.Fatalf("printable8(% x) = %v, want %v", b, got, want)
				}
			}
		}
	}
}

func BenchmarkWriter(b *testing.B) {
	line := []byte(strings.Repeat("All tests pass; the plan's next task is the parser. ", 2) + "\n")
	chunk := bytes.Repeat(line, 32<<10/len(line))
	w := NewWriter(io.Discard)
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		w.Write(chunk)
	}
}
