package wire

import (
	"errors"
	"reflect"
	"strconv"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

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
// keep only their kind.
type Value struct {
	Kind Kind
	Text string
}

// Str returns a string Value.
func Str(s string) Value { return Value{Kind: String, Text: s} }

// Present reports whether the key was there (with any value, null too).
func (v Value) Present() bool { return v.Kind != None }

// Alt is jq's `v // def` printed with -r: absent, null and false give def.
func (v Value) Alt(def string) string {
	switch v.Kind {
	case True:
		return "true"
	case Number, String:
		return v.Text
	}
	return def
}

// Or is jq's `v // w` on two values.
func (v Value) Or(w Value) Value {
	if v.Kind == None || v.Kind == Null || v.Kind == False {
		return w
	}
	return v
}

// Is reports whether v is the string s.
func (v Value) Is(s string) bool { return v.Kind == String && v.Text == s }

// Num returns a number's value.
func (v Value) Num() (float64, bool) {
	if v.Kind != Number {
		return 0, false
	}
	f, err := strconv.ParseFloat(v.Text, 64)
	return f, err == nil
}

// NonEmpty returns a non-empty string's text.
func (v Value) NonEmpty() (string, bool) {
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

// UnmarshalJSONFrom reads a string or an object.
func (e *Error) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	type fields Error // without this method
	return objectOrSelf(dec, (*fields)(e), &e.Self)
}

// UnmarshalJSONFrom reads a string or an object.
func (m *Message) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	type fields Message // without this method
	return objectOrSelf(dec, (*fields)(m), &m.Self)
}

// objectOrSelf reads an object into fields, and any value's kind (and a
// string's or number's text) into self. Like the analyser, it keeps what an
// earlier duplicate of the key set.
func objectOrSelf[T any](dec *jsontext.Decoder, fields *T, self *Value) error {
	if dec.PeekKind() != '{' {
		return self.UnmarshalJSONFrom(dec)
	}
	err := json.UnmarshalDecode(dec, fields)
	*self = Value{Kind: Object}
	return err
}

// UnmarshalJSONFrom reads the name, and the kind of a single
// "<kind>ToolCall" member.
func (t *ToolCall) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	*t = ToolCall{}
	if dec.PeekKind() != '{' {
		return dec.SkipValue()
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	members := 0
	var only string
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return err
		}
		members++
		only = name.String()
		if only == "name" {
			err = t.Name.UnmarshalJSONFrom(dec)
		} else {
			err = dec.SkipValue()
		}
		if err != nil {
			return err
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	if kind, ok := cutSuffix(only, "ToolCall"); members == 1 && ok && kind != "" {
		t.Kind = kind
	}
	return nil
}

func cutSuffix(s, suffix string) (string, bool) {
	if len(s) >= len(suffix) && s[len(s)-len(suffix):] == suffix {
		return s[:len(s)-len(suffix)], true
	}
	return s, false
}

// tolerant makes an object or a list that arrives as another JSON type read
// as empty instead of failing the whole line.
var tolerant = json.WithUnmarshalers(json.UnmarshalFromFunc(func(dec *jsontext.Decoder, v any) error {
	if _, custom := v.(json.UnmarshalerFrom); custom {
		return errors.ErrUnsupported
	}
	var want jsontext.Kind
	switch reflect.TypeOf(v).Elem().Kind() {
	case reflect.Struct:
		want = '{'
	case reflect.Slice:
		want = '['
	default:
		return errors.ErrUnsupported
	}
	if k := dec.PeekKind(); k != want && k != 'n' {
		return dec.SkipValue()
	}
	return errors.ErrUnsupported
}))
