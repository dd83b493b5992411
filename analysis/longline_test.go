package analysis

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
)

// testRecord is the part of longLine's record the test compares, decoded
// as the drivers decode a record (duplicate names allowed, invalid UTF-8
// read as U+FFFD).
type testRecord struct {
	Result    string         `json:"result"`
	SessionID string         `json:"session_id"`
	Usage     map[string]int `json:"usage"`
	Errors    []string       `json:"errors"`
}

func decodeTestRecord(line []byte, r *testRecord) error {
	*r = testRecord{}
	return json.Unmarshal(line, r, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
}

// readsResult reads the long strings a Claude result's reader reads.
func readsResult(path string) bool { return path == "result" }

// scanText is the rules' reading of a whole text.
func scanText(text string) *Facts { return scanString(text, maxResultText) }

// longLine is a Claude result record whose "result" is raw (the bytes
// between its quotes) repeated past longString.
func longLine(raw string) []byte {
	n := 5*longString/max(len(raw), 1) + 2 // past 4*longString: cut in pieces
	return []byte(`{"type":"result","is_error":false,"result":"` + strings.Repeat(raw, n) +
		`","session_id":"s-1","usage":{"output_tokens":7},"errors":["` + strings.Repeat("e", longString+10) + `"]}`)
}

// checkLong reads line as a long record in pieces of random sizes (one
// reading per seed) and compares it with the record decoded whole: the
// same reading of the result text, the same other fields; a line that is
// not a record is not read either way. The whole record is decoded and
// read once, for every seed.
func checkLong(t *testing.T, line []byte, seeds ...int64) {
	t.Helper()
	var whole testRecord
	wholeErr := decodeTestRecord(line, &whole)
	var wholeText *Facts
	if wholeErr == nil && len(whole.Result) > longString {
		wholeText = scanText(whole.Result)
	}
	for _, seed := range seeds {
		r := rand.New(rand.NewSource(seed))
		l := newLongRecord(readsResult)
		ok := true
		for rest := line; len(rest) > 0 && ok; {
			n := min(len(rest), 1+r.Intn(3*longString))
			ok = l.Write(rest[:n])
			rest = rest[n:]
		}
		skel, longs, ended := l.End()
		var rec testRecord
		if !ok || !ended || decodeTestRecord(skel, &rec) != nil {
			if wholeErr == nil {
				t.Fatalf("seed %d: a valid record was not read as a long one (write ok %v, end ok %v)", seed, ok, ended)
			}
			continue
		}
		if wholeErr != nil {
			t.Fatalf("seed %d: an invalid record (%v) was read as a long one", seed, wholeErr)
		}
		if wholeText == nil {
			continue // the content closed the string: not a long result
		}
		if len(skel) > 4*keepString {
			t.Errorf("seed %d: skeleton of %d bytes", seed, len(skel))
		}
		if d := cmp.Diff(wholeText, longs["result"]); d != "" {
			t.Errorf("seed %d: the long result reads differently (-whole +long):\n%s", seed, d)
		}
		if _, ok := longs["errors[0]"]; ok || len(longs) != 1 {
			t.Errorf("seed %d: long strings read: %v; want only the result", seed, longs)
		}
		if !strings.HasPrefix(whole.Result, rec.Result) || rec.SessionID != whole.SessionID || !cmp.Equal(rec.Usage, whole.Usage) ||
			len(rec.Errors) != 1 || !strings.HasPrefix(whole.Errors[0], rec.Errors[0]) {
			t.Errorf("seed %d: skeleton reads as %+v", seed, rec)
		}
	}
}

// TestLongRecord: a long record read in pieces reads as the record decoded
// whole, whatever its escapes and wherever the pieces are cut.
func TestLongRecord(t *testing.T) {
	for i, raw := range []string{
		`Line one.\n---RALPH_STATUS---\nEXIT_SIGNAL: true\n---END_RALPH_STATUS---\n`,
		`\"quoted\" \\ back\\\\slashes \\\" caf\u00e9 \u00E9 \ud83d\ude00 \ud83d \ude00 \u2028 \/ \b\f\r\t` + "é😀\xff\xe2\x82",
		`\u4e2d\u6587\u5b57`, `\ud83d\ude00`, `\\`, `\\\"`, `\ud83d`, `\udc00`, "\xe2\x82", "\xa9", "é",
		strings.Repeat("x", 300) + `\n`,
		`bad \x escape`, "raw \x01 control", `lone \u12 hex`,
	} {
		seeds := make([]int64, 8)
		for j := range seeds {
			seeds[j] = int64(i)*100 + int64(j)
		}
		checkLong(t, longLine(raw), seeds...)
	}
	if l := newLongRecord(readsResult); !l.Write([]byte(`{"result":"` + strings.Repeat("a", 2*longString))) {
		t.Fatal("write failed")
	} else if _, _, ok := l.End(); ok {
		t.Error("a record cut inside a long string was read")
	}
}

// FuzzLongRecord: any string content, repeated past longString, reads the
// same in pieces as whole.
func FuzzLongRecord(f *testing.F) {
	for _, s := range []string{`a\nb`, `\ud83d\ude00`, `\\\"`, "\xff", `\u00e9x`, `"`} {
		f.Add([]byte(s), int64(1))
	}
	f.Fuzz(func(t *testing.T, raw []byte, seed int64) {
		if len(raw) == 0 || bytes.IndexByte(raw, '\n') >= 0 {
			return
		}
		checkLong(t, longLine(string(raw)), seed)
	})
}
