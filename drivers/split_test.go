package drivers

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"mvdan.cc/sh/v3/syntax"
)

func TestSplitCommand(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr string
	}{
		{`aider --yes-always --message-file -`, []string{"aider", "--yes-always", "--message-file", "-"}, ""},
		{`  my-agent   "two words" 'single $HOME' x\ y  `, []string{"my-agent", "two words", "single $HOME", "x y"}, ""},
		{`agent --flag="a \"quoted\" \$x" 'it'\''s'`, []string{"agent", `--flag=a "quoted" $x`, "it's"}, ""},
		{"agent \\\n  --long", []string{"agent", "--long"}, ""},
		{`agent $'tab\there'`, []string{"agent", "tab\there"}, ""},
		{`/usr/local/bin/agent --x=1 # a comment`, []string{"/usr/local/bin/agent", "--x=1"}, ""},
		{`agent '*.go' "[x]" \* \~`, []string{"agent", "*.go", "[x]", "*", "~"}, ""},
		{`agent a~b`, []string{"agent", "a~b"}, ""},
		{"", nil, "AGENT_COMMAND is empty"},
		{"   \n ", nil, "AGENT_COMMAND is empty"},
		{"# only a comment", nil, "AGENT_COMMAND is empty"},
		{`''`, nil, "AGENT_COMMAND is empty"},
		{`agent "unterminated`, nil, "parse AGENT_COMMAND: 1:7: reached EOF without closing quote"},
		{`agent $HOME`, nil, "1:7: variables are not expanded"},
		{`agent "${MODEL}"`, nil, "1:8: variables are not expanded"},
		{`agent $(whoami)`, nil, "1:7: command substitution is not allowed"},
		{"agent `whoami`", nil, "command substitution is not allowed"},
		{`agent "$(rm -rf /)"`, nil, "command substitution is not allowed"},
		{`agent $((1+2))`, nil, "arithmetic expansion is not allowed"},
		{`agent <(ls)`, nil, "process substitution is not allowed"},
		{`agent > out.txt`, nil, "redirections are not allowed"},
		{`agent 2>&1`, nil, "redirections are not allowed"},
		{`agent | tee log`, nil, "pipes and && / || lists are not allowed"},
		{`agent && echo done`, nil, "pipes and && / || lists are not allowed"},
		{`agent; echo done`, nil, "only one command is allowed, found 2"},
		{"agent\necho done", nil, "only one command is allowed, found 2"},
		{`agent &`, nil, "background jobs are not allowed"},
		{`! agent`, nil, `"!" is not allowed`},
		{`FOO=1 agent`, nil, "VAR=value prefixes are not allowed"},
		{`(agent)`, nil, "only a simple command is allowed"},
		{`if true; then agent; fi`, nil, "only a simple command is allowed"},
		{`agent *.go`, nil, "glob, brace and ~ characters are not expanded"},
		{`agent file?`, nil, "not expanded"},
		{`agent {a,b}`, nil, "not expanded"},
		{`~/bin/agent`, nil, "not expanded"},
		{`agent @(a|b)`, nil, "not expanded"},
	}
	for _, tc := range tests {
		got, err := SplitCommand(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("SplitCommand(%q) = %q, %v; want error %q", tc.in, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("SplitCommand(%q): %v", tc.in, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("SplitCommand(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

// FuzzSplitCommand: never panics; whatever it accepts is a non-empty list
// of words that, quoted back with the shell's own quoting, splits the same.
func FuzzSplitCommand(f *testing.F) {
	for _, s := range []string{`a b`, `a "b c" 'd'`, `a\ b`, `a $'\n'`, `a $(b)`, `a | b`, `a > b`, `"a`, "a\\\nb", `a *`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, err := SplitCommand(s)
		if err != nil {
			return
		}
		if len(words) == 0 || words[0] == "" {
			t.Fatalf("SplitCommand(%q) accepted %q", s, words)
		}
		quoted := make([]string, len(words))
		for i, w := range words {
			q, err := syntax.Quote(w, syntax.LangBash)
			if err != nil {
				return // e.g. invalid UTF-8 or NUL: cannot be quoted back
			}
			quoted[i] = q
		}
		again, err := SplitCommand(strings.Join(quoted, " "))
		if err != nil {
			t.Fatalf("re-split of %q (from %q): %v", quoted, s, err)
		}
		if !cmp.Equal(words, again) {
			t.Fatalf("round trip of %q: %q became %q", s, words, again)
		}
	})
}
