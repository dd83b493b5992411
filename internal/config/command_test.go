package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplitCommand(t *testing.T) {
	env := envOf(map[string]string{"X": "x 1", "HOME": "/home/u", "EMPTY": ""})
	good := []struct {
		in   string
		want []string
	}{
		{"agent", []string{"agent"}},
		{"  agent  --yes  ", []string{"agent", "--yes"}},
		{`agent "a b" 'c d' e\ f`, []string{"agent", "a b", "c d", "e f"}},
		{`agent "$X" $X ${X}`, []string{"agent", "x 1", "x", "1", "x", "1"}},
		{`agent '$X'`, []string{"agent", "$X"}},
		{`agent "*.go" *.go`, []string{"agent", "*.go", "*.go"}},
		{"~/bin/agent -p", []string{"/home/u/bin/agent", "-p"}},
		{`agent $EMPTY ""`, []string{"agent", ""}},
		{"$EMPTY agent", []string{"agent"}},
	}
	for _, tc := range good {
		got, err := splitCommand(tc.in, env)
		if err != nil {
			t.Errorf("splitCommand(%q): %v", tc.in, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("splitCommand(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
	bad := []struct{ in, msg string }{
		{"agent $(id)", "command substitution"},
		{"agent `id`", "command substitution"},
		{`agent "$(id)"`, "command substitution"},
		{"agent <(ls)", "not a simple command line"},
		{"agent $((1+2))", "not allowed"},
		{"agent ${X:-y}", "only $NAME"},
		{"agent ${#X}", "only $NAME"},
		{"agent $1", "only $NAME"},
		{"agent $@", "only $NAME"},
		{"~root/agent", "~user"},
		{"agent > out", "plain command"},
		{"agent | tee", "plain command"},
		{"agent &", "plain command"},
		{"! agent", "plain command"},
		{"X=1 agent", "plain command"},
		{"a; b", "single command"},
		{"a\nb", "single command"},
		{"if a; then b; fi", "plain command"},
		{`agent "unclosed`, "not a simple command line"},
		{`"$EMPTY" agent`, "command name is empty"},
		{"", "single command"},
	}
	for _, tc := range bad {
		got, err := splitCommand(tc.in, env)
		if err == nil {
			t.Errorf("splitCommand(%q) = %q, want error", tc.in, got)
			continue
		}
		if !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("splitCommand(%q) error %q lacks %q", tc.in, err, tc.msg)
		}
	}
}

func TestCommandDriverLenient(t *testing.T) {
	c, warns := setup{args: []string{"--status"}, env: map[string]string{"PLATFORM_DRIVER": "command"}}.mustLoad(t)
	if c.Driver != "claude-code" || c.Sources["PLATFORM_DRIVER"].Kind != SourceDefault {
		t.Errorf("driver %q from %v", c.Driver, c.Sources["PLATFORM_DRIVER"])
	}
	if len(warns) != 1 || !strings.Contains(warns[0].Msg, "needs AGENT_COMMAND") {
		t.Errorf("warnings %v", warns)
	}
}

// On Windows a backslash outside quotes is a path separator unless it
// escapes a blank, a quote, a $, a backtick or a backslash, and ~ falls back
// to %USERPROFILE%; other systems keep POSIX splitting.
func TestSplitCommandWindows(t *testing.T) {
	env := envOf(map[string]string{"USERPROFILE": `C:\Users\ann`, "X": "x"})
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{`C:\tools\agent.exe --yes`, []string{`C:\tools\agent.exe`, "--yes"}},
		{`"C:\Program Files\Agent\agent.exe" -p`, []string{`C:\Program Files\Agent\agent.exe`, "-p"}},
		{`'C:\a b\agent.exe'`, []string{`C:\a b\agent.exe`}},
		{`C:\a\ b\agent.exe`, []string{`C:\a b\agent.exe`}},
		{`agent \$X \\srv\share "a\"b"`, []string{"agent", "$X", `\srv\share`, `a"b`}},
		{`~/bin/agent.exe`, []string{`C:\Users\ann/bin/agent.exe`}},
		{`agent.exe C:\x\`, []string{"agent.exe", `C:\x\`}},
	} {
		got, err := splitCommandOn("windows", tc.in, env)
		if err != nil {
			t.Errorf("windows %q: %v", tc.in, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("windows %q (-want +got):\n%s", tc.in, diff)
		}
	}
	got, err := splitCommandOn("linux", `C:\tools\agent.exe`, env)
	if err != nil || len(got) != 1 || got[0] != `C:toolsagent.exe` {
		t.Errorf("linux: %q, %v; want POSIX escapes", got, err)
	}
}
