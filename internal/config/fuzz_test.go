package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseRC: the .ralphrc reader never panics, only sets allowlisted keys,
// reports lines that exist, and never lets a command substitution through.
func FuzzParseRC(f *testing.F) {
	for _, s := range []string{
		"", "\n", "A=1", "MAX_CALLS_PER_HOUR=\"${MAX_CALLS_PER_HOUR:-11}\"\n",
		"PROJECT_NAME=$(touch pwned)\nPROJECT_TYPE=`id`\n", "export X=1\r\nX = 2\n# c\n",
		"TEST_COMMAND='${TEST_COMMAND:-}'\nQUALITY_GATES=\"a;b\"\n", "A=\"\nB='\n", "PROMPT_FILE=${HOME}\n",
	} {
		f.Add([]byte(s))
	}
	if data, err := os.ReadFile(filepath.Join("testdata", "ralphrc.bmalph")); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		vals, warns := parseRC(data, "f", rcAllowed, nil)
		lines := strings.Count(string(data), "\n") + 1
		for k, v := range vals {
			if !rcAllowed(k) {
				t.Errorf("key %q not in the allowlist", k)
			}
			if strings.Contains(v.Value, "$(") || strings.Contains(v.Value, "`") {
				t.Errorf("command substitution let through: %s=%q", k, v.Value)
			}
			if v.Line < 1 || v.Line > lines {
				t.Errorf("line %d out of range 1..%d", v.Line, lines)
			}
		}
		for _, w := range warns {
			if w.Line < 1 || w.Line > lines || w.File != "f" || w.Msg == "" || strings.ContainsAny(w.String(), "\n\r\x1b") {
				t.Errorf("bad warning %+v", w)
			}
		}
	})
}

// FuzzSplitCommand: AGENT_COMMAND splitting never panics and never returns
// an empty command name without an error.
func FuzzSplitCommand(f *testing.F) {
	for _, s := range []string{
		"agent --yes", `agent "a b" 'c d' $X ${Y}`, "agent $(id)", "agent `id`", "a | b", "a; b",
		"a >x", "X=1 a", "~/bin/agent", "~root/x", "agent <(x)", "agent $((1+2))", "agent ${X:-y}",
		"agent \\\n x", "\"\"", "$EMPTY", "a &", "! a", "{ a; }", "if a; then b; fi",
	} {
		f.Add(s)
	}
	env := func(k string) (string, bool) {
		switch k {
		case "X":
			return "x 1", true
		case "HOME":
			return "/home/u", true
		}
		return "", false
	}
	f.Fuzz(func(t *testing.T, s string) {
		argv, err := splitCommand(s, env)
		if err == nil && (len(argv) == 0 || argv[0] == "") {
			t.Errorf("splitCommand(%q) = %q without error", s, argv)
		}
	})
}
