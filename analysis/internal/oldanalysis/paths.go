package oldanalysis

import (
	"fmt"
	"reflect"
	"strings"
	"unsafe"

	"github.com/ralphloop/ralph_loop/analysis/internal/oldanalysis/wire"
)

// The paths the JSON reader keeps are not listed here: they are the fields
// of wire.Line, walked once from their json tags into a tree of nodes. While
// it reads, the decoder holds the node of each open value; a key that is not
// a field of the record has no node, and nothing below it is looked at.

// node is one JSON path of wire.Line.
type node struct {
	children map[string]*node
	elem     *node // the elements of a list

	// Where the path's Value is stored: which record (base) and at what
	// offset in it; hasValue is false for objects without a value of their
	// own and for list elements.
	base     uint8
	off      uintptr
	hasValue bool

	role   uint8 // how the reader treats the value (the field's analysis tag)
	target uint8 // for rEntry: which joined text its pieces belong to
}

// records a node's Value lives in
const (
	bLine   uint8 = iota // eventState.line
	bEntry               // eventState.entry: the list entry being read
	bDenial              // eventState.denial: the permission denial being read
)

// roles, from the analysis tags of package wire
const (
	rPlain   uint8 = iota // a small value, kept whole (up to capSmall bytes)
	rText                 // "text": a long string, into a text scanner
	rMessage              // "message": an error message, when a string
	rEntry                // "entry=T": its "text" pieces join into text T
	rPiece                // "piece": the text of an entry
	rDenials              // "denials": the permission_denials list
	rDenial               // an element of that list
)

var entryTargets = map[string]uint8{
	"assistant": tAssistant,
	"codex":     tCodexContent,
	"parts":     tParts,
	"step":      tStep,
	"delta":     tDelta,
}

// lineRoot is the root of the tree: a whole event.
var lineRoot = buildNode(reflect.TypeFor[wire.Line](), bLine, 0, "")

var valueType = reflect.TypeFor[wire.Value]()

// buildNode makes the node of a value of type t stored in record base at
// offset off (for a Value, or a struct holding a Self Value), with the
// field's analysis tag.
func buildNode(t reflect.Type, base uint8, off uintptr, tag string) *node {
	n := &node{base: base, off: off}
	switch role, arg, _ := strings.Cut(tag, "="); role {
	case "":
	case "text":
		n.role = rText
	case "message":
		n.role = rMessage
	case "piece":
		n.role = rPiece
	case "denials":
		n.role = rDenials
	case "entry":
		n.role = rEntry
		n.target = entryTargets[arg]
	default:
		panic(fmt.Sprintf("analysis: unknown analysis tag %q", tag))
	}
	switch {
	case t == valueType:
		n.hasValue = true
	case t.Kind() == reflect.Slice:
		n.elem = buildElem(t.Elem(), base, n)
	case t.Kind() == reflect.Struct:
		n.children = map[string]*node{}
		for i := range t.NumField() {
			f := t.Field(i)
			name := f.Tag.Get("json")
			if name == "-" {
				if f.Name == "Self" && f.Type == valueType {
					n.hasValue, n.off = true, off+f.Offset
					if f.Tag.Get("analysis") != "" {
						n.role = buildNode(f.Type, base, 0, f.Tag.Get("analysis")).role
					}
				}
				continue
			}
			if f.Tag.Get("analysis") == "-" {
				continue // shown live, never analysed
			}
			name, _, _ = strings.Cut(name, ",")
			n.children[name] = buildNode(f.Type, base, off+f.Offset, f.Tag.Get("analysis"))
		}
	}
	return n
}

// buildElem makes the node of the elements of list node n. A list's
// elements have no place of their own: entries and denials are read into a
// scratch record, messages are collected. The list's own role moves to its
// elements, except that a denials list stays one (its presence counts).
func buildElem(t reflect.Type, base uint8, n *node) *node {
	var e *node
	switch n.role {
	case rEntry:
		e = buildNode(t, bEntry, 0, "")
		e.role, e.target = rEntry, n.target
		n.role, n.target = rPlain, 0
	case rDenials:
		e = buildNode(t, bDenial, 0, "")
		e.role = rDenial
	case rMessage:
		e = buildNode(t, base, 0, "message")
		n.role = rPlain
	default:
		e = buildNode(t, base, 0, "")
	}
	e.hasValue = false
	return e
}

// child is the node of key below n (nil when n is nil or key is not kept).
func (n *node) child(key []byte) *node {
	if n == nil || n.children == nil {
		return nil
	}
	return n.children[string(key)]
}

// elemNode is the node of n's list elements (nil when n is nil).
func (n *node) elemNode() *node {
	if n == nil {
		return nil
	}
	return n.elem
}

// value is where node n's Value is stored in the event being read, or nil.
// The offsets come from reflect over plain nested structs (no pointers), so
// the address stays inside the record.
func (e *eventState) value(n *node) *wire.Value {
	if n == nil || !n.hasValue {
		return nil
	}
	var base unsafe.Pointer
	switch n.base {
	case bLine:
		base = unsafe.Pointer(&e.line)
	case bEntry:
		base = unsafe.Pointer(&e.entry)
	default:
		base = unsafe.Pointer(&e.denial)
	}
	return (*wire.Value)(unsafe.Add(base, n.off))
}
