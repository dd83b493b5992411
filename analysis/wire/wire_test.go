package wire

import "testing"

func TestDecode(t *testing.T) {
	var l Line
	in := `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"hi \ud800 ` + "\xff" + `"},"odd"]},` +
		`"metadata":"not an object","item":{"content":"not a list"},"error":"rate_limit","tool_call":{"readToolCall":{}},"n":1.50e3,"type":"x"}`
	if err := Decode([]byte(in), &l); err != nil {
		t.Fatal(err)
	}
	if !l.Type.Is("x") || !l.Message.Role.Is("assistant") || l.Message.Self.Kind != Object || !l.Error.Self.Is("rate_limit") {
		t.Errorf("decoded %+v", l)
	}
	if len(l.Message.Content) != 2 || !l.Message.Content[0].Type.Is("text") || l.Message.Content[0].Text.Text != "hi \ufffd \ufffd" {
		t.Errorf("content %+v", l.Message.Content)
	}
	if l.ToolCall.Kind != "read" || l.Item.Content != nil {
		t.Errorf("tool call %+v, item %+v", l.ToolCall, l.Item)
	}
	if err := Decode([]byte(`{"Type":"x","message":"boom"}`), &l); err != nil || l.Type.Present() || !l.Message.Self.Is("boom") {
		t.Errorf("keys must match exactly and a string message is its text: %+v %v", l, err)
	}
	if Decode([]byte(`{"type":`), &l) == nil {
		t.Error("a cut line must fail")
	}
}
