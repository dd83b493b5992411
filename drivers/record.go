package drivers

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/ralphloop/ralph_loop/analysis"
)

// The agent CLIs' records (claude_format.go, codex_format.go,
// opencode_format.go) are decoded with go-json-experiment into structs of
// values: a member of an unexpected type reads as empty, as jq's
// `.a.b // empty` does in the bash loop.

// kind is the JSON type of a value; kindNone means the key was absent.
type kind uint8

const (
	kindNone kind = iota
	kindNull
	kindFalse
	kindTrue
	kindNumber
	kindString
	kindObject
	kindArray
)

// value is a JSON value as jq -r prints it: its kind and, for strings and
// numbers, its text (a number's literal as written). Objects and arrays
// keep only their kind. Every record field that is a value accepts any
// JSON value, as jq's `.a.b // empty` does in the bash loop.
type value struct {
	Kind kind
	Text string
}

// stringValue returns a string value.
func stringValue(s string) value { return value{Kind: kindString, Text: s} }

// present reports whether the key was there (with any value, null too).
func (v value) present() bool { return v.Kind != kindNone }

// Set reports whether the key was there with a value other than null.
func (v value) Set() bool { return v.Kind != kindNone && v.Kind != kindNull }

// alt is jq's `v // def` printed with -r: absent, null and false give def.
func (v value) alt(def string) string {
	switch v.Kind {
	case kindTrue:
		return "true"
	case kindNumber, kindString:
		return v.Text
	}
	return def
}

// or is jq's `v // w` on two values.
func (v value) or(w value) value {
	if v.Kind == kindNone || v.Kind == kindNull || v.Kind == kindFalse {
		return w
	}
	return v
}

// Is reports whether v is the string s.
func (v value) Is(s string) bool { return v.Kind == kindString && v.Text == s }

// str returns a string's text, "" for any other value.
func (v value) str() string {
	if v.Kind == kindString {
		return v.Text
	}
	return ""
}

// num returns a number's value.
func (v value) num() (float64, bool) {
	if v.Kind != kindNumber {
		return 0, false
	}
	f, err := strconv.ParseFloat(v.Text, 64)
	return f, err == nil
}

// Int reads a number as an integer (0 when absent or not a number).
func (v value) Int() int64 {
	f, _ := v.num()
	return int64(f)
}

// nonEmpty returns a non-empty string's text.
func (v value) nonEmpty() (string, bool) {
	if v.Kind == kindString && v.Text != "" {
		return v.Text, true
	}
	return "", false
}

// UnmarshalJSONFrom reads any JSON value.
func (v *value) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	switch dec.PeekKind() {
	case '{', '[':
		*v = value{Kind: kindObject}
		if dec.PeekKind() == '[' {
			v.Kind = kindArray
		}
		return dec.SkipValue()
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	switch tok.Kind() {
	case 'n':
		*v = value{Kind: kindNull}
	case 'f':
		*v = value{Kind: kindFalse}
	case 't':
		*v = value{Kind: kindTrue}
	case '0':
		*v = value{Kind: kindNumber, Text: tok.String()}
	default:
		*v = value{Kind: kindString, Text: tok.String()}
	}
	return nil
}

// either is a value that is an object of fields T in some records and a
// plain value in others (Claude's "error" is a string, Codex's an object):
// Self is the value's kind (and a string's text), Fields its members when
// it is an object.
type either[T any] struct {
	Self   value
	Fields T
}

// UnmarshalJSONFrom reads a string or an object.
func (e *either[T]) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if dec.PeekKind() != '{' {
		return e.Self.UnmarshalJSONFrom(dec)
	}
	e.Self = value{Kind: kindObject}
	return json.UnmarshalDecode(dec, &e.Fields, decodeOptions())
}

// decodeRecord reads one JSON document into a record. It fails only when
// data is not a single valid JSON value: a member of an unexpected type
// reads as empty (objects, lists) or as its kind (a value). Keys match
// exactly, a repeated key's last value counts, and invalid UTF-8 in
// strings reads as U+FFFD.
func decodeRecord(data []byte, rec any) error {
	return json.Unmarshal(data, rec, decodeOptions())
}

// decodeOptions are made at the first decode, not at start-up: building
// the tolerated types' unmarshalers takes reflection over each of them.
var decodeOptions = sync.OnceValue(func() json.Options {
	return json.JoinOptions(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true),
		json.WithUnmarshalers(json.JoinUnmarshalers(tolerated()...)))
})

// tolerated are the record types that read as empty when they arrive as
// another JSON type.
func tolerated() []*json.Unmarshalers {
	return slices.Concat([]*json.Unmarshalers{
		objectOnly[errBody](), objectOnly[errData](), objectOnly[entry](), listOnly[entry](), listOnly[value](),
	}, claudeTolerated(), codexTolerated(), openCodeTolerated())
}

// errBody is an error object: {"message"} (Claude, Codex) or {"name",
// "data": {"message"}} (OpenCode).
type errBody struct {
	Message value   `json:"message"`
	Name    value   `json:"name"`
	Data    errData `json:"data"`
}

// errData is an error object's data.
type errData struct {
	Message value `json:"message"`
}

// entry is one element of a content or parts list: a typed piece of text.
type entry struct {
	Type value `json:"type"`
	Text value `json:"text"`
}

// objectOnly and listOnly skip a value of T that is not an object (a list)
// or null, and leave the rest to the default decoding.
func objectOnly[T any]() *json.Unmarshalers {
	return json.UnmarshalFromFunc(func(dec *jsontext.Decoder, _ *T) error { return onlyKind(dec, '{') })
}

func listOnly[T any]() *json.Unmarshalers {
	return json.UnmarshalFromFunc(func(dec *jsontext.Decoder, _ *[]T) error { return onlyKind(dec, '[') })
}

func onlyKind(dec *jsontext.Decoder, want jsontext.Kind) error {
	if k := dec.PeekKind(); k != want && k != 'n' {
		return dec.SkipValue()
	}
	return errors.ErrUnsupported
}

// validString is b as a string with each invalid UTF-8 byte replaced by
// U+FFFD, as jq and encoding/json read JSON strings.
func validString(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return string([]rune(string(b)))
}

// firstSession returns the first usable session id: jq's `a // b // c`,
// then the first line without CR and blanks; "", "0" and "null" are no id.
func firstSession(vs ...value) string {
	for _, x := range vs {
		if x.Kind != kindString && x.Kind != kindNumber {
			continue
		}
		s := x.Text
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[:i]
		}
		s = strings.TrimSpace(strings.ReplaceAll(s, "\r", ""))
		if s == "" || s == "0" || s == "null" {
			continue
		}
		return s
	}
	return ""
}

// errorMessages appends the string messages (trimmed, the first 512 bytes
// of each, five in all) to dst.
func errorMessages(dst []string, vs ...value) []string {
	for _, v := range vs {
		if v.Kind != kindString || len(dst) >= maxErrMsgs {
			continue
		}
		m := v.Text
		if len(m) > capMessage {
			m = validString([]byte(m[:capMessage]))
		}
		if m = strings.TrimSpace(m); m != "" {
			dst = append(dst, m)
		}
	}
	return dst
}

const (
	capMessage = 512 // bytes kept of each structured error message
	maxErrMsgs = 5
	maxDenials = 100
)

// intPtr is a number's integer part, nil for any other value.
func intPtr(v value) *int64 {
	f, ok := v.num()
	if !ok {
		return nil
	}
	n := int64(f)
	return &n
}

// joiner joins texts into one analysis.Text: "\n" between the entries of
// a group, and "\n" before the group's first byte when prefix is set.
type joiner struct {
	w       *analysis.Text
	entries int
	prefix  bool
	wrote   bool
}

// entryTexts writes the text of each entry of type typ, one entry each.
func (j *joiner) entryTexts(list []entry, typ string) {
	for _, e := range list {
		if !e.Type.Is(typ) {
			continue
		}
		j.entry(e.Text)
	}
}

// entry writes one entry's text (a string; anything else adds only the
// separator).
func (j *joiner) entry(text value) {
	if j.entries > 0 {
		j.Write([]byte{'\n'})
	}
	j.entries++
	if text.Kind == kindString {
		j.Write([]byte(text.Text))
	}
}

func (j *joiner) Write(p []byte) {
	if len(p) == 0 {
		return
	}
	if j.prefix {
		j.prefix = false
		j.w.Write([]byte{'\n'})
	}
	j.wrote = true
	j.w.Write(p)
}

// joined is the text of the entries of type typ, one a line.
func joined(list []entry, typ string) *analysis.Facts {
	t := analysis.NewText()
	j := joiner{w: t}
	j.entryTexts(list, typ)
	return t.Finish()
}
