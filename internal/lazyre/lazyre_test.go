package lazyre

import "testing"

func TestCompileOnce(t *testing.T) {
	re := Compile(`^a+$`)
	if !re().MatchString("aaa") || re().MatchString("b") {
		t.Fatal("the pattern does not match as compiled")
	}
	if first, again := re(), re(); first != again {
		t.Error("each call compiled the pattern again")
	}
}

func TestCompileInvalidPanicsAtFirstUse(t *testing.T) {
	re := Compile(`(`) // no panic here
	defer func() {
		if recover() == nil {
			t.Error("an invalid pattern did not panic at its first use")
		}
	}()
	re()
}
