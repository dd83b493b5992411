package templates

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFilesSet(t *testing.T) {
	f := Files()
	want := []string{".ralphrc", "@AGENT.md", "@fix_plan.md", "PROMPT.md", "REVIEW_PROMPT.md"}
	if diff := cmp.Diff(want, slices.Sorted(maps.Keys(f))); diff != "" {
		t.Fatalf("Files' names (-want +got):\n%s", diff)
	}
	for _, n := range want {
		b := f[n]
		if len(b) == 0 || b[len(b)-1] != '\n' || strings.Contains(string(b), "\r") {
			t.Errorf("%s: empty, without a final newline, or with CR", n)
		}
	}
	f["PROMPT.md"][0] = 'X'
	if Files()["PROMPT.md"][0] == 'X' {
		t.Fatal("Files hands out shared memory")
	}
}

func TestPromptExplainsTheStatusBlock(t *testing.T) {
	p := string(Files()["PROMPT.md"])
	for _, s := range []string{
		"[YOUR PROJECT NAME]", ".ralph/@fix_plan.md", "- [ ]", "- [x]",
		"---RALPH_STATUS---\nSTATUS: IN_PROGRESS | COMPLETE | BLOCKED\nTASKS_COMPLETED_THIS_LOOP: 0 | 1\nFILES_MODIFIED: ",
		"\nTESTS_STATUS: PASSING | FAILING | NOT_RUN\nWORK_TYPE: IMPLEMENTATION | TESTING | DOCUMENTATION | REFACTORING\nEXIT_SIGNAL: false | true\nRECOMMENDATION: ",
		"\n---END_RALPH_STATUS---\n", "EXIT_SIGNAL", "TASKS_COMPLETED_THIS_LOOP",
		"Next:", "Remaining tasks:", "Session continued", "TESTS FAILING", "QG fail", "REVIEW FINDINGS", "Changed:",
		"ANSWER FROM THE PERSON", "NOBODY ANSWERED", "\nQUESTION: ", "STATUS: BLOCKED",
	} {
		if !strings.Contains(p, s) {
			t.Errorf("PROMPT.md lacks %q", s)
		}
	}
	// Every example block must be one the analysis accepts: keys at the start
	// of the line, a lower-case EXIT_SIGNAL, an integer task count.
	blocks := regexp.MustCompile("(?s)---RALPH_STATUS---\n(.*?)---END_RALPH_STATUS---").FindAllStringSubmatch(p, -1)
	if len(blocks) < 4 {
		t.Fatalf("found %d status blocks, want the format and at least three examples", len(blocks))
	}
	for _, b := range blocks[1:] {
		fields := map[string]string{}
		for _, l := range strings.Split(strings.TrimSpace(b[1]), "\n") {
			k, v, ok := strings.Cut(l, ": ")
			if !ok {
				t.Fatalf("bad example line %q", l)
			}
			fields[k] = v
		}
		var keys []string
		for k := range fields {
			keys = append(keys, k)
		}
		if q, ok := fields["QUESTION"]; ok && (fields["STATUS"] != "BLOCKED" || q == "") {
			t.Errorf("example asks %q with STATUS %s", q, fields["STATUS"])
		}
		if n := len(keys); n != 7 && !(n == 8 && fields["QUESTION"] != "") {
			t.Errorf("example has keys %v", keys)
		}
		if fields["EXIT_SIGNAL"] != "true" && fields["EXIT_SIGNAL"] != "false" {
			t.Errorf("example EXIT_SIGNAL %q", fields["EXIT_SIGNAL"])
		}
		if !regexp.MustCompile(`^[01]$`).MatchString(fields["TASKS_COMPLETED_THIS_LOOP"]) {
			t.Errorf("example TASKS_COMPLETED_THIS_LOOP %q", fields["TASKS_COMPLETED_THIS_LOOP"])
		}
		if s := fields["STATUS"]; s != "IN_PROGRESS" && s != "COMPLETE" && s != "BLOCKED" {
			t.Errorf("example STATUS %q", s)
		}
		if s := fields["TESTS_STATUS"]; s != "PASSING" && s != "FAILING" && s != "NOT_RUN" {
			t.Errorf("example TESTS_STATUS %q", s)
		}
	}
}

func TestFixPlanTemplate(t *testing.T) {
	p := string(Files()["@fix_plan.md"])
	open := regexp.MustCompile(`(?m)^[ \t]*- \[ \]`).FindAllString(p, -1)
	done := regexp.MustCompile(`(?m)^[ \t]*- \[[xX]\]`).FindAllString(p, -1)
	stories := regexp.MustCompile(`(?m)^\s*-\s*\[([ xX])\]\s*Story\s+([\d.]+):\s*(.+?)$`).FindAllString(p, -1)
	if len(open) != 2 || len(done) != 0 || len(stories) != 2 {
		t.Fatalf("open=%d done=%d stories=%d, want 2 open story tasks", len(open), len(done), len(stories))
	}
	for _, h := range []string{"# Ralph Fix Plan\n", "\n## Stories to Implement\n", "\n## Completed\n", "\n## Notes\n"} {
		if !strings.Contains(p, h) {
			t.Errorf("@fix_plan.md lacks heading %q", h)
		}
	}
	if !regexp.MustCompile(`(?m)^- \[ \] Story 1\.1: .*\n  > `).MatchString(p) {
		t.Error("story 1.1 has no indented detail line")
	}
}

func TestAgentTemplateHeadings(t *testing.T) {
	p := string(Files()["@AGENT.md"])
	// bmalph's tech-stack customisation replaces the bash block after each.
	for _, h := range []string{"Project Setup", "Running Tests", "Build Commands", "Development Server"} {
		re := regexp.MustCompile(`(?m)^## ` + h + "\\s*\\n```bash\\n[\\s\\S]*?```")
		if !re.MatchString(p) {
			t.Errorf("@AGENT.md lacks a %q heading followed by a bash block", h)
		}
	}
}

func TestReviewPromptTemplate(t *testing.T) {
	p := string(Files()["REVIEW_PROMPT.md"])
	if !strings.Contains(p, "[YOUR PROJECT NAME]") {
		t.Error("REVIEW_PROMPT.md lacks the project-name placeholder")
	}
	m := regexp.MustCompile("(?s)\n---REVIEW_FINDINGS---\n(.*?)\n---END_REVIEW_FINDINGS---\n").FindStringSubmatch(p)
	if m == nil {
		t.Fatal("REVIEW_PROMPT.md lacks the findings markers on lines of their own")
	}
	var v struct {
		Severity    *string         `json:"severity"`
		IssuesFound *int            `json:"issues_found"`
		Summary     *string         `json:"summary"`
		Details     json.RawMessage `json:"details"`
	}
	if err := json.Unmarshal([]byte(m[1]), &v); err != nil || v.Severity == nil || v.IssuesFound == nil || v.Summary == nil || string(v.Details) != "[]" {
		t.Fatalf("example payload %q: %v", m[1], err)
	}
	for _, s := range []string{"LOW", "MEDIUM", "HIGH", "CRITICAL", `"file"`, `"line"`, `"issue"`, `"suggestion"`} {
		if !strings.Contains(p, s) {
			t.Errorf("REVIEW_PROMPT.md does not describe %s", s)
		}
	}
}

// The keys the bash loop's .ralphrc parser accepts, plus the one ralph_loop adds.
var rcKeys = strings.Fields("PLATFORM_DRIVER PROJECT_NAME PROJECT_TYPE MAX_CALLS_PER_HOUR CLAUDE_TIMEOUT_MINUTES CLAUDE_OUTPUT_FORMAT WRITE_TIMEOUT_MINUTES ALLOWED_TOOLS CLAUDE_PERMISSION_MODE PERMISSION_DENIAL_MODE SESSION_CONTINUITY SESSION_EXPIRY_HOURS TASK_SOURCES GITHUB_TASK_LABEL BEADS_FILTER CB_NO_PROGRESS_THRESHOLD CB_SAME_ERROR_THRESHOLD CB_OUTPUT_DECLINE_THRESHOLD CB_READ_ONLY_TIMEOUT_THRESHOLD CB_COOLDOWN_MINUTES CB_AUTO_RESET TEST_COMMAND QUALITY_GATES QUALITY_GATE_MODE QUALITY_GATE_TIMEOUT QUALITY_GATE_ON_COMPLETION_ONLY REVIEW_MODE REVIEW_ENABLED REVIEW_INTERVAL CLAUDE_MIN_VERSION RALPH_VERBOSE PROMPT_FILE FIX_PLAN_FILE AGENT_FILE CB_PERMISSION_DENIAL_THRESHOLD")

// parseRC reads .ralphrc text the way the bash loop's parser does (KEY=VALUE,
// outer quotes, ${VAR:-default}) and returns the settings and the lines it
// would warn about.
func parseRC(text string, env map[string]string) (map[string]string, []string) {
	keyRe := regexp.MustCompile(`^([A-Z_][A-Z0-9_]*)=(.*)`)
	refRe := regexp.MustCompile(`^\$\{([A-Z_][A-Z0-9_]*):-([^}]*)\}$`)
	allowed := map[string]bool{}
	for _, k := range rcKeys {
		allowed[k] = true
	}
	out := map[string]string{}
	var warn []string
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if strings.Contains(l, "$(") || strings.Contains(l, "`") {
			warn = append(warn, "substitution: "+l)
			continue
		}
		m := keyRe.FindStringSubmatch(l)
		if m == nil || !allowed[m[1]] {
			warn = append(warn, "rejected: "+l)
			continue
		}
		v := m[2]
		if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
			v = v[1 : len(v)-1]
		}
		if r := refRe.FindStringSubmatch(v); r != nil {
			v = r[2]
			if e := env[r[1]]; e != "" {
				v = e
			}
		}
		out[m[1]] = v
	}
	return out, warn
}

func TestRalphrcTemplate(t *testing.T) {
	rc, ours, found := strings.Cut(string(Files()[".ralphrc"]), "\n# --- ralph_loop only ---")
	if !found {
		t.Fatal("no ralph_loop-only section")
	}
	// The bash loop skips the lines of ralph_loop's own keys; ours sets a
	// new project to strict completion and keeps the session on a stop.
	_, ours, _ = strings.Cut(ours, "\n") // the rest of the heading line
	if got, warn := parseRC(ours, nil); len(warn) != 2 || len(got) != 0 || !strings.Contains(warn[0], `COMPLETION_MODE="${COMPLETION_MODE:-strict}"`) ||
		!strings.Contains(warn[1], `KEEP_SESSION_ON_STOP="${KEEP_SESSION_ON_STOP:-true}"`) {
		t.Errorf("the ralph_loop-only section: settings %v, the bash loop warns of %q; want COMPLETION_MODE=strict and KEEP_SESSION_ON_STOP=true alone", got, warn)
	}
	if first, _, _ := strings.Cut(rc, "\n"); first != `PLATFORM_DRIVER="${PLATFORM_DRIVER:-claude-code}"` {
		t.Fatalf("first line = %q", first)
	}
	got, warn := parseRC(rc, nil)
	if len(warn) != 0 {
		t.Fatalf("the bash loop's parser would warn about: %q", warn)
	}
	want := map[string]string{
		"PLATFORM_DRIVER": "claude-code", "PROJECT_NAME": "my-project", "PROJECT_TYPE": "unknown",
		"MAX_CALLS_PER_HOUR": "100", "CLAUDE_TIMEOUT_MINUTES": "15", "CLAUDE_OUTPUT_FORMAT": "json",
		"WRITE_TIMEOUT_MINUTES": "8", "RALPH_VERBOSE": "false",
		"ALLOWED_TOOLS":          "Write,Read,Edit,MultiEdit,Glob,Grep,Task,TodoWrite,WebFetch,WebSearch,EnterPlanMode,ExitPlanMode,NotebookEdit,Bash",
		"CLAUDE_PERMISSION_MODE": "bypassPermissions", "PERMISSION_DENIAL_MODE": "continue",
		"SESSION_CONTINUITY": "true", "SESSION_EXPIRY_HOURS": "24",
		"TASK_SOURCES": "local", "GITHUB_TASK_LABEL": "ralph-task", "BEADS_FILTER": "status:open",
		"CB_NO_PROGRESS_THRESHOLD": "3", "CB_SAME_ERROR_THRESHOLD": "5", "CB_PERMISSION_DENIAL_THRESHOLD": "2",
		"CB_READ_ONLY_TIMEOUT_THRESHOLD": "2", "CB_OUTPUT_DECLINE_THRESHOLD": "70", "CB_COOLDOWN_MINUTES": "30",
		"CB_AUTO_RESET": "false", "TEST_COMMAND": "", "QUALITY_GATES": "", "QUALITY_GATE_MODE": "warn",
		"QUALITY_GATE_TIMEOUT": "120", "QUALITY_GATE_ON_COMPLETION_ONLY": "false",
		"REVIEW_MODE": "off", "REVIEW_ENABLED": "false", "REVIEW_INTERVAL": "5", "CLAUDE_MIN_VERSION": "2.0.76",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("settings (-want +got):\n%s", diff)
	}
	// Every accepted key is listed, the path keys as comments.
	for _, k := range rcKeys {
		if !regexp.MustCompile(`(?m)^(# )?` + k + `=`).MatchString(rc) {
			t.Errorf("%s is not listed", k)
		}
	}
	// Every active line uses ${KEY:-default} for its own key, so the
	// environment always wins.
	env := map[string]string{}
	for k := range want {
		env[k] = "from-env"
	}
	fromEnv, _ := parseRC(rc, env)
	for k, v := range fromEnv {
		if v != "from-env" {
			t.Errorf("%s ignores the environment (got %q)", k, v)
		}
	}
}

func TestProjectName(t *testing.T) {
	rc := Files()[".ralphrc"]
	for _, c := range []struct{ folder, want string }{
		{"shop-api", "shop-api"},
		{"My App 2", "My-App-2"},
		{"$(touch pwned)", "touch-pwned"},
		{"`id`;\"x\"", "id-x"},
		{"café.v1", "caf-.v1"},
		{"---", "my-project"},
		{"", "my-project"},
	} {
		got := string(ProjectName(rc, c.folder))
		if !strings.Contains(got, "\nPROJECT_NAME=\"${PROJECT_NAME:-"+c.want+"}\"\n") {
			t.Errorf("folder %q: no PROJECT_NAME line with %q", c.folder, c.want)
		}
		if v, warn := parseRC(got, nil); len(warn) > 2 || v["PROJECT_NAME"] != c.want {
			t.Errorf("folder %q: PROJECT_NAME %q (warnings %q), want %q", c.folder, v["PROJECT_NAME"], warn, c.want)
		}
	}
}
