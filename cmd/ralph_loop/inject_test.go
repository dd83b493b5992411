//go:build unix

package main

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ralphloop/ralph_loop/internal/readmodel"
)

func init() {
	extraCmds["unescape"] = cmdUnescape
}

// hexEscape is \xNN in a scenario's file.
var hexEscape = regexp.MustCompile(`\\x[0-9a-fA-F]{2}`)

// unescape FILE...: replace each \xNN in the files with the byte 0xNN, so
// that a scenario can hold escape sequences and invalid UTF-8.
func cmdUnescape(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 {
		ts.Fatalf("usage: unescape FILE...")
	}
	for _, name := range args {
		p := ts.MkAbs(name)
		data, err := os.ReadFile(p)
		ts.Check(err)
		data = hexEscape.ReplaceAllFunc(data, func(m []byte) []byte {
			b, _ := strconv.ParseUint(string(m[2:]), 16, 8)
			return []byte{byte(b)}
		})
		ts.Check(os.WriteFile(p, data, 0o644))
	}
}

// The status pane of --monitor shows what the state files say (the
// repository's, or the agent's words) with its controls made visible: the
// pane's own escapes are the only ones it writes.
func TestStatusScreenEscapes(t *testing.T) {
	v := &readmodel.View{}
	v.State.Phase = "stopped"
	v.State.Reason = "\x1b]0;pwned\x07 \x1b[2J"
	v.Progress.Task = "- [ ] \x1b]52;c;cHduZWQ=\x07Task \u009b2J \u202eA"
	v.Progress.TasksTotal = 1
	text := strings.Join(statusScreen(v, time.Now(), 80, 24), "\n")
	if strings.ContainsAny(text, "\x1b\x07\u009b\u202e") {
		t.Errorf("a control reaches the pane:\n%q", text)
	}
	for _, want := range []string{`\u001b]0;pwned\u0007 \u001b[2J`, `\u001b]52;c;cHduZWQ=\u0007Task \u009b2J \u202eA`} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in\n%s", want, text)
		}
	}
}
