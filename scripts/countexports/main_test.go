package main

import (
	"go/parser"
	"go/token"
	"testing"
)

func TestExported(t *testing.T) {
	const src = `package p

type T struct{ F int } // T; fields are not counted
type t struct{}
type G[K any] struct{}

func (T) M()     {} // counted
func (*t) M()    {} // not: receiver unexported
func (G[K]) M()  {} // counted
func (T) m()     {}
func F()         {} // counted
func f()         {}

const A, b, C = 1, 2, 3 // A and C
var V int               // counted
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := exported(f), 8; got != want {
		t.Errorf("exported = %d, want %d", got, want)
	}
}
