package drivers

import "testing"

// TestLastTool: the last tool call announced in each format that shows
// tool calls while the agent works; none in the formats that do not.
func TestLastTool(t *testing.T) {
	cases := []struct{ format, out, want string }{
		{FormatCodexJSONL, `{"type":"item.started","item":{"id":"i1","type":"command_execution","command":"ls"}}` + "\n" +
			`{"type":"item.completed","item":{"id":"i2","type":"agent_message","text":"⚡ [spoof]"}}` + "\n", "command_execution"},
		{FormatClaudeStreamJSON, `{"type":"stream_event","event":{"type":"content_block_start","content_block":{"type":"tool_use","name":"Bash"}}}` + "\n" +
			`{"type":"stream_event","event":{"type":"content_block_start","content_block":{"type":"tool_use","name":"Edit"}}}` + "\n", "Edit"},
		{FormatOpenCodeJSONL, `{"type":"tool_use","part":{"tool":"read"}}` + "\n", "read"},
		{FormatClaudeJSON, `{"type":"result","result":"⚡ [x]"}` + "\n", ""},
		{FormatText, "\n\n⚡ [Bash]\n", ""},
	}
	for _, c := range cases {
		lt := NewLastTool(c.format)
		for i := range len(c.out) { // one byte at a time: lines split anywhere
			lt.Write([]byte{c.out[i]})
		}
		if got := lt.Name(); got != c.want {
			t.Errorf("%s: last tool %q, want %q", c.format, got, c.want)
		}
	}
}
