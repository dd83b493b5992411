package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func allowAll(string) bool { return true }

func envOf(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestParseRC(t *testing.T) {
	cases := []struct {
		name  string
		data  string
		env   map[string]string
		want  map[string]rcValue
		warns []string
	}{
		{"empty", "", nil, map[string]rcValue{}, nil},
		{"only newline", "\n", nil, map[string]rcValue{}, nil},
		{"plain", "A=1\n", nil, map[string]rcValue{"A": {"1", 1}}, nil},
		{"last line without newline", "A=1\nB=2", nil, map[string]rcValue{"A": {"1", 1}, "B": {"2", 2}}, nil},
		{"comments and blanks count as lines", "# c\n\n   \nA=1\n", nil, map[string]rcValue{"A": {"1", 4}}, nil},
		{"indented comment", "   # A=1\n", nil, map[string]rcValue{}, nil},
		{"surrounding blanks and CRLF", "  A=1  \r\nB=2\r\n", nil, map[string]rcValue{"A": {"1", 1}, "B": {"2", 2}}, nil},
		{"quotes and comments with CRLF", "# c\r\nA=\"x y\"\r\nB='z'\r\n", nil, map[string]rcValue{"A": {"x y", 2}, "B": {"z", 3}}, nil},
		{"inline comment is value", "A=1 # one\n", nil, map[string]rcValue{"A": {"1 # one", 1}}, nil},
		{"double quotes", `A="x y"` + "\n", nil, map[string]rcValue{"A": {"x y", 1}}, nil},
		{"single quotes", `A='x y'` + "\n", nil, map[string]rcValue{"A": {"x y", 1}}, nil},
		{"only one pair removed", `A=""x""` + "\n", nil, map[string]rcValue{"A": {`"x"`, 1}}, nil},
		{"mismatched quotes kept", `A="x'` + "\n", nil, map[string]rcValue{"A": {`"x'`, 1}}, nil},
		{"lone quote kept", `A="` + "\n", nil, map[string]rcValue{"A": {`"`, 1}}, nil},
		{"empty quoted", `A=""` + "\n", nil, map[string]rcValue{"A": {"", 1}}, nil},
		{"empty", "A=\n", nil, map[string]rcValue{"A": {"", 1}}, nil},
		{"no unescaping", `A="a\"b"` + "\n", nil, map[string]rcValue{"A": {`a\"b`, 1}}, nil},
		{"semicolons kept", `A="npm run lint;npm test"` + "\n", nil, map[string]rcValue{"A": {"npm run lint;npm test", 1}}, nil},
		{"equals in value", "A=b=c\n", nil, map[string]rcValue{"A": {"b=c", 1}}, nil},
		{"repeated key: last wins", "A=1\nA=2\n", nil, map[string]rcValue{"A": {"2", 2}}, nil},
		{"default unset", `A="${X:-d}"` + "\n", nil, map[string]rcValue{"A": {"d", 1}}, nil},
		{"default env set", `A="${X:-d}"` + "\n", map[string]string{"X": "e"}, map[string]rcValue{"A": {"e", 1}}, nil},
		{"default env empty", `A="${X:-d}"` + "\n", map[string]string{"X": ""}, map[string]rcValue{"A": {"d", 1}}, nil},
		{"empty default", `A="${X:-}"` + "\n", nil, map[string]rcValue{"A": {"", 1}}, nil},
		{"default with spaces", `A="${X:-npm test}"` + "\n", nil, map[string]rcValue{"A": {"npm test", 1}}, nil},
		{"unquoted default form", `A=${X:-d}` + "\n", nil, map[string]rcValue{"A": {"d", 1}}, nil},
		{"single-quoted default form resolved too", `A='${X:-d}'` + "\n", nil, map[string]rcValue{"A": {"d", 1}}, nil},
		{"self default ignores built-in defaults", `MAX_CALLS_PER_HOUR="${MAX_CALLS_PER_HOUR:-11}"` + "\n", nil, map[string]rcValue{"MAX_CALLS_PER_HOUR": {"11", 1}}, nil},
		{"earlier line beats env", "X=file\n" + `A="${X:-d}"` + "\n", map[string]string{"X": "env"}, map[string]rcValue{"X": {"file", 1}, "A": {"file", 2}}, nil},
		{"braced reference", `A="${X}"` + "\n", map[string]string{"X": "e"}, map[string]rcValue{"A": {"e", 1}}, nil},
		{"plain reference", `A=$X` + "\n", map[string]string{"X": "e"}, map[string]rcValue{"A": {"e", 1}}, nil},
		{"plain reference unset", `A=$X` + "\n", nil, map[string]rcValue{"A": {"", 1}}, nil},
		{"partial reference literal", `A="pre-${X}"` + "\n", map[string]string{"X": "e"}, map[string]rcValue{"A": {"pre-${X}", 1}}, nil},
		{"other operator literal", `A="${X:=d}"` + "\n", nil, map[string]rcValue{"A": {"${X:=d}", 1}}, nil},
		{"trailing text literal", `A="${X:-a}b"` + "\n", nil, map[string]rcValue{"A": {"${X:-a}b", 1}}, nil},
		{"nested literal", `A="${X:-${Y}}"` + "\n", nil, map[string]rcValue{"A": {"${X:-${Y}}", 1}}, nil},
		{"special parameter literal", `A=$1` + "\n", nil, map[string]rcValue{"A": {"$1", 1}}, nil},
		{"command substitution rejected", "A=$(touch x)\nB=1\n", nil, map[string]rcValue{"B": {"1", 2}},
			[]string{"f:1: rejected (command substitution): A=$(touch x)"}},
		{"backtick rejected", "A=`touch x`\n", nil, map[string]rcValue{},
			[]string{"f:1: rejected (command substitution): A=`touch x`"}},
		{"substitution inside quotes rejected", `A="ok $(id)"` + "\n", nil, map[string]rcValue{},
			[]string{`f:1: rejected (command substitution): A="ok $(id)"`}},
		{"arithmetic rejected too", "A=$((1+2))\n", nil, map[string]rcValue{},
			[]string{"f:1: rejected (command substitution): A=$((1+2))"}},
		{"substitution in comment ignored", "# A=$(x)\n", nil, map[string]rcValue{}, nil},
		{"export skipped", "export A=1\n", nil, map[string]rcValue{},
			[]string{"f:1: skipped (not KEY=VALUE): export A=1 (drop the 'export')"}},
		{"spaces around equals", "A = 1\n", nil, map[string]rcValue{},
			[]string{"f:1: skipped (not KEY=VALUE): A = 1"}},
		{"lower-case key", "a=1\n", nil, map[string]rcValue{},
			[]string{"f:1: skipped (not KEY=VALUE): a=1"}},
		{"digit first", "1A=1\n", nil, map[string]rcValue{},
			[]string{"f:1: skipped (not KEY=VALUE): 1A=1"}},
		{"shell statement", "source other.sh\n", nil, map[string]rcValue{},
			[]string{"f:1: skipped (not KEY=VALUE): source other.sh"}},
		{"underscore key", "_A_1=x\n", nil, map[string]rcValue{"_A_1": {"x", 1}}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, warns := parseRC([]byte(tc.data), "f", allowAll, envOf(tc.env))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("values (-want +got):\n%s", diff)
			}
			var ws []string
			for _, w := range warns {
				ws = append(ws, w.String())
			}
			if diff := cmp.Diff(tc.warns, ws); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseRCAllowlist(t *testing.T) {
	data := "MAX_CALLS_PER_HOUR=1\nFOO_BAR=2\nRALPH_DIR=/x\nVERBOSE_PROGRESS=true\nCB_PERMISSION_DENIAL_THRESHOLD=3\nMAX_LOOP=3\nPROMT_FILE=x.md\n"
	got, warns := parseRC([]byte(data), ".ralph/.ralphrc", rcAllowed, nil)
	want := map[string]rcValue{"MAX_CALLS_PER_HOUR": {"1", 1}, "CB_PERMISSION_DENIAL_THRESHOLD": {"3", 5}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	var ws []string
	for _, w := range warns {
		ws = append(ws, w.String())
	}
	wantW := []string{
		".ralph/.ralphrc:2: unknown key ignored: FOO_BAR",
		".ralph/.ralphrc:3: unknown key ignored: RALPH_DIR (RALPH_DIR can only be set in the environment)",
		".ralph/.ralphrc:4: unknown key ignored: VERBOSE_PROGRESS (use RALPH_VERBOSE)",
		".ralph/.ralphrc:6: unknown key ignored: MAX_LOOP; did you mean MAX_LOOPS?",
		".ralph/.ralphrc:7: unknown key ignored: PROMT_FILE; did you mean PROMPT_FILE?",
	}
	if diff := cmp.Diff(wantW, ws); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// TestBashLoopAllowlist: every key the bash loop accepts in .ralphrc is
// accepted here too (35 keys).
func TestBashLoopAllowlist(t *testing.T) {
	ref := strings.Fields(`PLATFORM_DRIVER PROJECT_NAME PROJECT_TYPE MAX_CALLS_PER_HOUR
		CLAUDE_TIMEOUT_MINUTES CLAUDE_OUTPUT_FORMAT WRITE_TIMEOUT_MINUTES ALLOWED_TOOLS
		CLAUDE_PERMISSION_MODE PERMISSION_DENIAL_MODE SESSION_CONTINUITY SESSION_EXPIRY_HOURS
		TASK_SOURCES GITHUB_TASK_LABEL BEADS_FILTER CB_NO_PROGRESS_THRESHOLD CB_SAME_ERROR_THRESHOLD
		CB_OUTPUT_DECLINE_THRESHOLD CB_READ_ONLY_TIMEOUT_THRESHOLD CB_COOLDOWN_MINUTES CB_AUTO_RESET
		TEST_COMMAND QUALITY_GATES QUALITY_GATE_MODE QUALITY_GATE_TIMEOUT
		QUALITY_GATE_ON_COMPLETION_ONLY REVIEW_MODE REVIEW_ENABLED REVIEW_INTERVAL CLAUDE_MIN_VERSION
		RALPH_VERBOSE PROMPT_FILE FIX_PLAN_FILE AGENT_FILE`)
	if len(ref) != 34 {
		t.Fatalf("the bash loop's list has %d keys", len(ref))
	}
	for _, k := range ref {
		if !rcAllowed(k) {
			t.Errorf("%s not accepted in .ralphrc", k)
		}
	}
	for _, k := range []string{"CLAUDE_ALLOWED_TOOLS", "CLAUDE_USE_CONTINUE", "VERBOSE_PROGRESS", "CLAUDE_SESSION_EXPIRY_HOURS", "RALPH_DIR"} {
		if rcAllowed(k) {
			t.Errorf("%s accepted in .ralphrc; the bash loop takes it from the environment only", k)
		}
	}
}

// TestBmalphTemplate loads a file with every assignment bmalph's
// ralphrc.template writes, and, when a copy of bmalph's template is at
// hand, the template itself.
func TestBmalphTemplate(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "ralphrc.bmalph"))
	if err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, data []byte) {
		w := &world{
			env:   map[string]string{"PLATFORM_DRIVER": "codex", "REVIEW_MODE": "off"},
			files: map[string]string{proj + "/.ralph/.ralphrc": string(data)},
		}
		c, warns, err := Load(nil, true, w.lookup, proj, w.read)
		if err != nil {
			t.Fatal(err)
		}
		if len(warns) != 0 {
			t.Errorf("warnings: %v", warns)
		}
		if c.Driver != "codex" || c.Sources["PLATFORM_DRIVER"].String() != "env PLATFORM_DRIVER" {
			t.Errorf("driver %q from %v", c.Driver, c.Sources["PLATFORM_DRIVER"])
		}
		if c.ProjectName != "my-project" || c.ProjectType != "unknown" || c.MaxCallsPerHour != 100 ||
			c.Breaker.NoProgressThreshold != 3 || c.Breaker.AutoReset || !slices.Equal(c.TaskSources, []string{"local"}) ||
			c.QualityGateMode != "warn" || c.ReviewMode != "off" || c.PromptFile != ".ralph/PROMPT.md" {
			t.Errorf("unexpected values: %+v", c)
		}
		if c.Sources["MAX_CALLS_PER_HOUR"].Kind != sourceFile {
			t.Errorf("MAX_CALLS_PER_HOUR source %v", c.Sources["MAX_CALLS_PER_HOUR"])
		}
	}
	t.Run("testdata", func(t *testing.T) { check(t, data) })
	t.Run("bmalph template", func(t *testing.T) {
		if refTemplate == "" {
			t.Skip("set RALPHRC_TEMPLATE to bmalph's ralphrc.template to check it too")
		}
		ref, err := os.ReadFile(refTemplate)
		if err != nil {
			t.Fatal(err)
		}
		check(t, ref)
	})
}

// refTemplate names bmalph's ralph/templates/ralphrc.template when the
// file is at hand (RALPHRC_TEMPLATE=/path go test ./internal/config).
var refTemplate = os.Getenv("RALPHRC_TEMPLATE")
