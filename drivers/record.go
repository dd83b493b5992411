package drivers

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/ralphloop/ralph_loop/analysis"
)

// The agent CLIs' records (claude_format.go, codex_format.go,
// opencode_format.go) are decoded with go-json-experiment into structs of
// Values: a member of an unexpected type reads as empty, as jq's
// `.a.b // empty` does in the bash loop.

// Kind is the JSON type of a Value; None means the key was absent.
type Kind uint8

const (
	None Kind = iota
	Null
	False
	True
	Number
	String
	Object
	Array
)

// Value is a JSON value as jq -r prints it: its kind and, for strings and
// numbers, its text (a number's literal as written). Objects and arrays
// keep only their kind. Every record field that is a Value accepts any
// JSON value, as jq's `.a.b // empty` does in the bash loop.
type Value struct {
	Kind Kind
	Text string
}

// Str returns a string Value.
func Str(s string) Value { return Value{Kind: String, Text: s} }

// Present reports whether the key was there (with any value, null too).
func (v Value) Present() bool { return v.Kind != None }

// Set reports whether the key was there with a value other than null.
func (v Value) Set() bool { return v.Kind != None && v.Kind != Null }

// alt is jq's `v // def` printed with -r: absent, null and false give def.
func (v Value) alt(def string) string {
	switch v.Kind {
	case True:
		return "true"
	case Number, String:
		return v.Text
	}
	return def
}

// or is jq's `v // w` on two values.
func (v Value) or(w Value) Value {
	if v.Kind == None || v.Kind == Null || v.Kind == False {
		return w
	}
	return v
}

// Is reports whether v is the string s.
func (v Value) Is(s string) bool { return v.Kind == String && v.Text == s }

// str returns a string's text, "" for any other value.
func (v Value) str() string {
	if v.Kind == String {
		return v.Text
	}
	return ""
}

// num returns a number's value.
func (v Value) num() (float64, bool) {
	if v.Kind != Number {
		return 0, false
	}
	f, err := strconv.ParseFloat(v.Text, 64)
	return f, err == nil
}

// Int reads a number as an integer (0 when absent or not a number).
func (v Value) Int() int64 {
	f, _ := v.num()
	return int64(f)
}

// nonEmpty returns a non-empty string's text.
func (v Value) nonEmpty() (string, bool) {
	if v.Kind == String && v.Text != "" {
		return v.Text, true
	}
	return "", false
}

// UnmarshalJSONFrom reads any JSON value.
func (v *Value) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	switch dec.PeekKind() {
	case '{', '[':
		*v = Value{Kind: Object}
		if dec.PeekKind() == '[' {
			v.Kind = Array
		}
		return dec.SkipValue()
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	switch tok.Kind() {
	case 'n':
		*v = Value{Kind: Null}
	case 'f':
		*v = Value{Kind: False}
	case 't':
		*v = Value{Kind: True}
	case '0':
		*v = Value{Kind: Number, Text: tok.String()}
	default:
		*v = Value{Kind: String, Text: tok.String()}
	}
	return nil
}

// Either is a value that is an object of fields T in some records and a
// plain value in others (Claude's "error" is a string, Codex's an object):
// Self is the value's kind (and a string's text), Fields its members when
// it is an object.
type Either[T any] struct {
	Self   Value
	Fields T
}

// UnmarshalJSONFrom reads a string or an object.
func (e *Either[T]) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if dec.PeekKind() != '{' {
		return e.Self.UnmarshalJSONFrom(dec)
	}
	e.Self = Value{Kind: Object}
	return json.UnmarshalDecode(dec, &e.Fields, decodeOptions)
}

// decodeRecord reads one JSON document into a record. It fails only when
// data is not a single valid JSON value: a member of an unexpected type
// reads as empty (objects, lists) or as its Kind (a Value). Keys match
// exactly, a repeated key's last value counts, and invalid UTF-8 in
// strings reads as U+FFFD.
func decodeRecord(data []byte, rec any) error {
	return json.Unmarshal(data, rec, decodeOptions)
}

var decodeOptions = json.JoinOptions(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true),
	json.WithUnmarshalers(json.JoinUnmarshalers(tolerated...)))

// tolerated are the record types that read as empty when they arrive as
// another JSON type.
var tolerated = append(append(append([]*json.Unmarshalers{
	objectOnly[ErrBody](), objectOnly[ErrData](), objectOnly[Entry](), listOnly[Entry](), listOnly[Value](),
}, claudeTolerated...), codexTolerated...), openCodeTolerated...)

// ErrBody is an error object: {"message"} (Claude, Codex) or {"name",
// "data": {"message"}} (OpenCode).
type ErrBody struct {
	Message Value   `json:"message"`
	Name    Value   `json:"name"`
	Data    ErrData `json:"data"`
}

// ErrData is an error object's data.
type ErrData struct {
	Message Value `json:"message"`
}

// Entry is one element of a content or parts list: a typed piece of text.
type Entry struct {
	Type Value `json:"type"`
	Text Value `json:"text"`
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
func firstSession(vs ...Value) string {
	for _, x := range vs {
		if x.Kind != String && x.Kind != Number {
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
func errorMessages(dst []string, vs ...Value) []string {
	for _, v := range vs {
		if v.Kind != String || len(dst) >= maxErrMsgs {
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
func intPtr(v Value) *int64 {
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
func (j *joiner) entryTexts(list []Entry, typ string) {
	for _, e := range list {
		if !e.Type.Is(typ) {
			continue
		}
		j.entry(e.Text)
	}
}

// entry writes one entry's text (a string; anything else adds only the
// separator).
func (j *joiner) entry(text Value) {
	if j.entries > 0 {
		j.Write([]byte{'\n'})
	}
	j.entries++
	if text.Kind == String {
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
func joined(list []Entry, typ string) *analysis.Facts {
	t := analysis.NewText()
	j := joiner{w: t}
	j.entryTexts(list, typ)
	return t.Finish()
}
