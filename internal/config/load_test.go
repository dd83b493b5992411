package config

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ralphloop/ralph_loop/breaker"
)

const proj = "/p"

var errIsDir = syscall.EISDIR

// world is a fake environment and file system for Load.
type world struct {
	env   map[string]string
	files map[string]string // path -> content
	reads []string
}

func (w *world) lookup(k string) (string, bool) {
	v, ok := w.env[k]
	return v, ok
}

func (w *world) read(p string) ([]byte, error) {
	w.reads = append(w.reads, p)
	if s, ok := w.files[p]; ok {
		return []byte(s), nil
	}
	return nil, fmt.Errorf("open %s: %w", p, fs.ErrNotExist)
}

// rc builds the content of a .ralphrc from lines.
func rc(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

type setup struct {
	args   []string
	env    map[string]string
	rc     string // .ralph/.ralphrc
	rootRC string // ./.ralphrc
}

func (s setup) load(t *testing.T) (*Config, []Warning, error) {
	t.Helper()
	w := &world{env: s.env, files: map[string]string{}}
	if s.rc != "" {
		w.files[proj+"/.ralph/.ralphrc"] = s.rc
	}
	if s.rootRC != "" {
		w.files[proj+"/.ralphrc"] = s.rootRC
	}
	return loadLine(s.args, w.lookup, proj, w.read)
}

// loadLine is Load with the settings a command line gives, as the command
// line's reader (cmd/ralph_loop) hands them over: each setting flag
// through FlagValues.Set, --serve ADDR and --dashboard ADDR through
// SetKey. A command that does not run the loop (--status, --report,
// --serve…) makes the load lenient, as it is for those commands.
func loadLine(args []string, lookupEnv func(string) (string, bool), projectDir string, readFile func(string) ([]byte, error)) (*Config, []Warning, error) {
	fv, strict, err := flagsOf(args)
	if err != nil {
		return nil, nil, err
	}
	return Load(fv, strict, lookupEnv, projectDir, readFile)
}

// flagsOf reads args ("--calls 5", "-c 5", "--delay=1s", "-v") into
// FlagValues; strict is false when a command that does not run the loop
// is among them.
func flagsOf(args []string) (fv *FlagValues, strict bool, err error) {
	byName, byShort := map[string]Flag{}, map[string]Flag{}
	for _, f := range Flags() {
		byName[f.Long] = f
		if f.Short != "" {
			byShort[f.Short] = f
		}
	}
	fv, strict = &FlagValues{}, true
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch a {
		case "--status", "-s", "--report", "--reset-session", "--doctor", "--circuit-status":
			strict = false
			continue
		case "--dry-run": // previews the loop's next call: strict as a run
			continue
		case "--serve", "--dashboard":
			strict = strict && a == "--dashboard"
			if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				if err := fv.SetKey("SERVE_ADDR", args[i+1], a); err != nil {
					return nil, false, err
				}
				i++
			}
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f, ok := byName[name]
		if !strings.HasPrefix(a, "--") {
			f, ok = byShort[name]
		}
		if !ok {
			panic("flagsOf: no setting's flag " + a)
		}
		switch {
		case hasValue:
		case f.Arg == "":
			value = "true"
		default:
			i++
			value = args[i]
		}
		if err := fv.Set(f.Long, value); err != nil {
			return nil, false, err
		}
	}
	return fv, strict, nil
}

func (s setup) mustLoad(t *testing.T) (*Config, []Warning) {
	t.Helper()
	c, w, err := s.load(t)
	if err != nil {
		t.Fatalf("Load(%q) error: %v", s.args, err)
	}
	return c, w
}

func TestDefaults(t *testing.T) {
	c, warns := setup{}.mustLoad(t)
	if len(warns) != 0 {
		t.Errorf("warnings: %v", warns)
	}
	want := &Config{
		RalphDir: ".ralph", ProjectDir: proj,
		Driver: "claude-code", PromptMode: "stdin", OutputFormat: "json",
		AllowedTools:   []string{"Write", "Read", "Edit", "MultiEdit", "Glob", "Grep", "Task", "TodoWrite", "WebFetch", "WebSearch", "EnterPlanMode", "ExitPlanMode", "NotebookEdit", "Bash"},
		PermissionMode: "bypassPermissions", Timeout: 15 * time.Minute, Grace: time.Second,
		PromptFile: ".ralph/PROMPT.md", FixPlanFile: ".ralph/@fix_plan.md", AgentFile: ".ralph/@AGENT.md",
		MaxCallsPerHour: 100, SessionContinuity: true, SessionExpiry: 24 * time.Hour,
		PermissionDenialMode: "continue", WriteTimeout: 8 * time.Minute,
		Breaker: breaker.Config{NoProgressThreshold: 3, SameErrorThreshold: 5, OutputDeclineThreshold: 70,
			PermissionDenialThreshold: 2, ReadOnlyTimeoutThreshold: 2, Cooldown: 30 * time.Minute},
		QualityGates: []string{}, QualityGateMode: "warn", QualityGateTimeout: 120 * time.Second,
		CompletionMode: "signals", VerifyTimeout: 300 * time.Second,
		ReviewMode: "off", ReviewInterval: 5, MinVersion: "2.0.76", GithubTaskLabel: "ralph-task", TaskTimeout: time.Minute,
		LoopDelay: 5 * time.Second, MaxConsecutiveFailures: 5, RetryMaxDelay: 30 * time.Minute, OutageMax: 6 * time.Hour, MaxOutput: 256 << 20, LogKeep: 200, LogMaxMB: 50,
		ServeAddr:          "127.0.0.1:8765",
		UsageWarningAction: "continue", UsageLimitMaxWait: 6 * time.Hour, AskTimeout: 30 * time.Minute, AskTimeoutAction: "continue",
		Sandbox: "off", SandboxNetwork: true,
		NotifyOn: []string{"run_finished", "breaker_opened", "usage_limited", "usage_projected", "guard_gave_up", "question_asked"}, NotifyTimeout: 10 * time.Second,
	}
	got := *c
	got.Sources = nil
	if diff := cmp.Diff(want, &got, cmp.Comparer(func(a, b *regexp.Regexp) bool {
		return (a == nil) == (b == nil) && (a == nil || a.String() == b.String())
	})); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
	for _, k := range keys {
		if s := c.Sources[k.name]; s.Kind != SourceDefault {
			t.Errorf("Sources[%s] = %v, want default", k.name, s)
		}
	}
	if c.Sources["RALPH_DIR"].Kind != SourceDefault {
		t.Errorf("RALPH_DIR source = %v", c.Sources["RALPH_DIR"])
	}
	if c.RCFile != "" {
		t.Errorf("RCFile = %q, want none", c.RCFile)
	}
	if c.Timeout != 15*time.Minute || c.WriteTimeout != 8*time.Minute || c.SessionExpiry != 24*time.Hour ||
		c.Breaker.Cooldown != 30*time.Minute || c.QualityGateTimeout != 2*time.Minute || c.MaxOutput != 256<<20 {
		t.Errorf("durations wrong: %v %v %v %v %v %v", c.Timeout, c.WriteTimeout, c.SessionExpiry, c.Breaker.Cooldown, c.QualityGateTimeout, c.MaxOutput)
	}
}

func TestDefaultsAllParse(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range keys {
		if seen[k.name] {
			t.Errorf("key %s listed twice", k.name)
		}
		seen[k.name] = true
		var c Config
		if err := k.set(&c, k.def); err != nil {
			t.Errorf("default of %s (%q) does not parse: %v", k.name, k.def, err)
		}
		if k.accepts == "" || k.doc == "" {
			t.Errorf("key %s lacks accepts/doc text", k.name)
		}
	}
}

// TestPrecedence: flag > env > .ralphrc > default for every key, including
// the bash loop's gaps, which are fixed here.
func TestPrecedence(t *testing.T) {
	type check struct {
		key  string // Sources key
		src  string // expected Source.String()
		test func(c *Config) any
		want any
	}
	cases := []struct {
		name string
		s    setup
		chk  check
	}{
		{"calls default", setup{},
			check{"MAX_CALLS_PER_HOUR", "default", func(c *Config) any { return c.MaxCallsPerHour }, 100}},
		{"calls from ralphrc", setup{rc: rc("# comment", "", "MAX_CALLS_PER_HOUR=7")},
			check{"MAX_CALLS_PER_HOUR", ".ralph/.ralphrc:3", func(c *Config) any { return c.MaxCallsPerHour }, 7}},
		{"calls env over ralphrc", setup{rc: rc("MAX_CALLS_PER_HOUR=7"), env: map[string]string{"MAX_CALLS_PER_HOUR": "8"}},
			check{"MAX_CALLS_PER_HOUR", "env MAX_CALLS_PER_HOUR", func(c *Config) any { return c.MaxCallsPerHour }, 8}},
		{"calls flag over env", setup{args: []string{"--calls", "9"}, rc: rc("MAX_CALLS_PER_HOUR=7"), env: map[string]string{"MAX_CALLS_PER_HOUR": "8"}},
			check{"MAX_CALLS_PER_HOUR", "flag --calls", func(c *Config) any { return c.MaxCallsPerHour }, 9}},
		{"calls short flag", setup{args: []string{"-c", "3"}},
			check{"MAX_CALLS_PER_HOUR", "flag --calls", func(c *Config) any { return c.MaxCallsPerHour }, 3}},
		{"calls equals form", setup{args: []string{"--calls=4"}},
			check{"MAX_CALLS_PER_HOUR", "flag --calls", func(c *Config) any { return c.MaxCallsPerHour }, 4}},
		{"calls leading zero is decimal", setup{args: []string{"--calls", "010"}},
			check{"MAX_CALLS_PER_HOUR", "flag --calls", func(c *Config) any { return c.MaxCallsPerHour }, 10}},
		{"empty env counts as unset", setup{rc: rc("MAX_CALLS_PER_HOUR=7"), env: map[string]string{"MAX_CALLS_PER_HOUR": ""}},
			check{"MAX_CALLS_PER_HOUR", ".ralph/.ralphrc:1", func(c *Config) any { return c.MaxCallsPerHour }, 7}},
		{"empty ralphrc value counts as unset", setup{rc: rc(`MAX_CALLS_PER_HOUR=""`)},
			check{"MAX_CALLS_PER_HOUR", "default", func(c *Config) any { return c.MaxCallsPerHour }, 100}},
		{"ralphrc self default uses env only", setup{rc: rc(`MAX_CALLS_PER_HOUR="${MAX_CALLS_PER_HOUR:-11}"`)},
			check{"MAX_CALLS_PER_HOUR", ".ralph/.ralphrc:1", func(c *Config) any { return c.MaxCallsPerHour }, 11}},
		{"root ralphrc fallback", setup{rootRC: rc("MAX_CALLS_PER_HOUR=5")},
			check{"MAX_CALLS_PER_HOUR", ".ralphrc:1", func(c *Config) any { return c.MaxCallsPerHour }, 5}},
		{".ralph/.ralphrc wins over root", setup{rootRC: rc("MAX_CALLS_PER_HOUR=5"), rc: rc("MAX_CALLS_PER_HOUR=6")},
			check{"MAX_CALLS_PER_HOUR", ".ralph/.ralphrc:1", func(c *Config) any { return c.MaxCallsPerHour }, 6}},

		{"timeout flag over env", setup{args: []string{"-t", "30"}, env: map[string]string{"CLAUDE_TIMEOUT_MINUTES": "20"}},
			check{"CLAUDE_TIMEOUT_MINUTES", "flag --timeout", func(c *Config) any { return c.Timeout }, 30 * time.Minute}},
		{"timeout env over ralphrc", setup{rc: rc("CLAUDE_TIMEOUT_MINUTES=10"), env: map[string]string{"CLAUDE_TIMEOUT_MINUTES": "20"}},
			check{"CLAUDE_TIMEOUT_MINUTES", "env CLAUDE_TIMEOUT_MINUTES", func(c *Config) any { return c.Timeout }, 20 * time.Minute}},
		{"output format flag", setup{args: []string{"--output-format", "text"}, env: map[string]string{"CLAUDE_OUTPUT_FORMAT": "json"}},
			check{"CLAUDE_OUTPUT_FORMAT", "flag --output-format", func(c *Config) any { return c.OutputFormat }, "text"}},
		{"output format ralphrc", setup{rc: rc(`CLAUDE_OUTPUT_FORMAT="text"`)},
			check{"CLAUDE_OUTPUT_FORMAT", ".ralph/.ralphrc:1", func(c *Config) any { return c.OutputFormat }, "text"}},

		// ALLOWED_TOOLS: --allowed-tools > ALLOWED_TOOLS > CLAUDE_ALLOWED_TOOLS > .ralphrc.
		{"tools flag over env", setup{args: []string{"--allowed-tools", "Edit,Grep"}, env: map[string]string{"ALLOWED_TOOLS": "Write"}, rc: rc(`ALLOWED_TOOLS="Read"`)},
			check{"ALLOWED_TOOLS", "flag --allowed-tools", func(c *Config) any { return c.AllowedTools }, []string{"Edit", "Grep"}}},
		{"tools public env over internal env", setup{env: map[string]string{"ALLOWED_TOOLS": "Write", "CLAUDE_ALLOWED_TOOLS": "Read"}},
			check{"ALLOWED_TOOLS", "env ALLOWED_TOOLS", func(c *Config) any { return c.AllowedTools }, []string{"Write"}}},
		{"tools internal env over ralphrc", setup{env: map[string]string{"CLAUDE_ALLOWED_TOOLS": "Read"}, rc: rc(`ALLOWED_TOOLS="Edit"`)},
			check{"ALLOWED_TOOLS", "env CLAUDE_ALLOWED_TOOLS", func(c *Config) any { return c.AllowedTools }, []string{"Read"}}},
		{"tools env without any ralphrc", setup{env: map[string]string{"ALLOWED_TOOLS": "Read"}},
			check{"ALLOWED_TOOLS", "env ALLOWED_TOOLS", func(c *Config) any { return c.AllowedTools }, []string{"Read"}}},
		{"tools ralphrc with Bash pattern", setup{rc: rc(`ALLOWED_TOOLS="Read,Bash(git *)"`)},
			check{"ALLOWED_TOOLS", ".ralph/.ralphrc:1", func(c *Config) any { return c.AllowedTools }, []string{"Read", "Bash(git *)"}}},
		{"tools empty flag means none", setup{args: []string{"--allowed-tools", ""}},
			check{"ALLOWED_TOOLS", "flag --allowed-tools", func(c *Config) any { return c.AllowedTools }, []string{}}},
		{"tools trimmed, empties dropped", setup{args: []string{"--allowed-tools", " Read , ,Write "}},
			check{"ALLOWED_TOOLS", "flag --allowed-tools", func(c *Config) any { return c.AllowedTools }, []string{"Read", "Write"}}},

		// SESSION_CONTINUITY: --no-continue > SESSION_CONTINUITY > CLAUDE_USE_CONTINUE > .ralphrc.
		{"continuity flag", setup{args: []string{"--no-continue"}, env: map[string]string{"SESSION_CONTINUITY": "true"}},
			check{"SESSION_CONTINUITY", "flag --no-continue", func(c *Config) any { return c.SessionContinuity }, false}},
		{"continuity public env over internal", setup{env: map[string]string{"SESSION_CONTINUITY": "false", "CLAUDE_USE_CONTINUE": "true"}},
			check{"SESSION_CONTINUITY", "env SESSION_CONTINUITY", func(c *Config) any { return c.SessionContinuity }, false}},
		{"continuity internal env over ralphrc", setup{env: map[string]string{"CLAUDE_USE_CONTINUE": "false"}, rc: rc("SESSION_CONTINUITY=true")},
			check{"SESSION_CONTINUITY", "env CLAUDE_USE_CONTINUE", func(c *Config) any { return c.SessionContinuity }, false}},
		{"continuity ralphrc", setup{rc: rc("SESSION_CONTINUITY=false")},
			check{"SESSION_CONTINUITY", ".ralph/.ralphrc:1", func(c *Config) any { return c.SessionContinuity }, false}},

		{"expiry flag over ralphrc", setup{args: []string{"--session-expiry", "48"}, rc: rc("SESSION_EXPIRY_HOURS=2")},
			check{"SESSION_EXPIRY_HOURS", "flag --session-expiry", func(c *Config) any { return c.SessionExpiry }, 48 * time.Hour}},
		{"expiry public env over internal", setup{env: map[string]string{"SESSION_EXPIRY_HOURS": "3", "CLAUDE_SESSION_EXPIRY_HOURS": "4"}},
			check{"SESSION_EXPIRY_HOURS", "env SESSION_EXPIRY_HOURS", func(c *Config) any { return c.SessionExpiry }, 3 * time.Hour}},
		{"expiry internal env", setup{env: map[string]string{"CLAUDE_SESSION_EXPIRY_HOURS": "4"}, rc: rc("SESSION_EXPIRY_HOURS=2")},
			check{"SESSION_EXPIRY_HOURS", "env CLAUDE_SESSION_EXPIRY_HOURS", func(c *Config) any { return c.SessionExpiry }, 4 * time.Hour}},

		{"verbose flag over env", setup{args: []string{"-v"}, env: map[string]string{"RALPH_VERBOSE": "false"}},
			check{"RALPH_VERBOSE", "flag --verbose", func(c *Config) any { return c.Verbose }, true}},
		{"verbose public env over internal", setup{env: map[string]string{"RALPH_VERBOSE": "false", "VERBOSE_PROGRESS": "true"}},
			check{"RALPH_VERBOSE", "env RALPH_VERBOSE", func(c *Config) any { return c.Verbose }, false}},
		{"verbose internal env", setup{env: map[string]string{"VERBOSE_PROGRESS": "true"}},
			check{"RALPH_VERBOSE", "env VERBOSE_PROGRESS", func(c *Config) any { return c.Verbose }, true}},
		{"verbose flag false form", setup{args: []string{"--verbose=false"}, env: map[string]string{"RALPH_VERBOSE": "true"}},
			check{"RALPH_VERBOSE", "flag --verbose", func(c *Config) any { return c.Verbose }, false}},

		// CLAUDE_PERMISSION_MODE: a set-but-empty env value counts and means bypassPermissions.
		{"permission mode env over ralphrc", setup{env: map[string]string{"CLAUDE_PERMISSION_MODE": "plan"}, rc: rc(`CLAUDE_PERMISSION_MODE="acceptEdits"`)},
			check{"CLAUDE_PERMISSION_MODE", "env CLAUDE_PERMISSION_MODE", func(c *Config) any { return c.PermissionMode }, "plan"}},
		{"permission mode empty env beats ralphrc", setup{env: map[string]string{"CLAUDE_PERMISSION_MODE": ""}, rc: rc(`CLAUDE_PERMISSION_MODE="plan"`)},
			check{"CLAUDE_PERMISSION_MODE", "env CLAUDE_PERMISSION_MODE", func(c *Config) any { return c.PermissionMode }, "bypassPermissions"}},
		{"permission mode ralphrc", setup{rc: rc(`CLAUDE_PERMISSION_MODE="acceptEdits"`)},
			check{"CLAUDE_PERMISSION_MODE", ".ralph/.ralphrc:1", func(c *Config) any { return c.PermissionMode }, "acceptEdits"}},
		{"permission denial mode env", setup{env: map[string]string{"PERMISSION_DENIAL_MODE": "halt"}, rc: rc("PERMISSION_DENIAL_MODE=threshold")},
			check{"PERMISSION_DENIAL_MODE", "env PERMISSION_DENIAL_MODE", func(c *Config) any { return c.PermissionDenialMode }, "halt"}},

		// Gap fixed: PLATFORM_DRIVER from the environment beats a plain .ralphrc line.
		{"driver env over plain ralphrc", setup{env: map[string]string{"PLATFORM_DRIVER": "claude-code"}, rc: rc("PLATFORM_DRIVER=codex")},
			check{"PLATFORM_DRIVER", "env PLATFORM_DRIVER", func(c *Config) any { return c.Driver }, "claude-code"}},
		{"driver ralphrc", setup{rc: rc("PLATFORM_DRIVER=codex")},
			check{"PLATFORM_DRIVER", ".ralph/.ralphrc:1", func(c *Config) any { return c.Driver }, "codex"}},
		{"driver template form with env", setup{env: map[string]string{"PLATFORM_DRIVER": "opencode"}, rc: rc(`PLATFORM_DRIVER="${PLATFORM_DRIVER:-claude-code}"`)},
			check{"PLATFORM_DRIVER", "env PLATFORM_DRIVER", func(c *Config) any { return c.Driver }, "opencode"}},
		{"driver flag over env", setup{args: []string{"--driver", "cursor"}, env: map[string]string{"PLATFORM_DRIVER": "codex"}},
			check{"PLATFORM_DRIVER", "flag --driver", func(c *Config) any { return c.Driver }, "cursor"}},

		// Gap fixed: CB thresholds from the environment beat .ralphrc.
		{"no-progress threshold env over ralphrc", setup{env: map[string]string{"CB_NO_PROGRESS_THRESHOLD": "5"}, rc: rc("CB_NO_PROGRESS_THRESHOLD=1")},
			check{"CB_NO_PROGRESS_THRESHOLD", "env CB_NO_PROGRESS_THRESHOLD", func(c *Config) any { return c.Breaker.NoProgressThreshold }, 5}},
		{"same-error threshold env over ralphrc", setup{env: map[string]string{"CB_SAME_ERROR_THRESHOLD": "9"}, rc: rc("CB_SAME_ERROR_THRESHOLD=5")},
			check{"CB_SAME_ERROR_THRESHOLD", "env CB_SAME_ERROR_THRESHOLD", func(c *Config) any { return c.Breaker.SameErrorThreshold }, 9}},
		{"output-decline threshold env over ralphrc", setup{env: map[string]string{"CB_OUTPUT_DECLINE_THRESHOLD": "50"}, rc: rc("CB_OUTPUT_DECLINE_THRESHOLD=70")},
			check{"CB_OUTPUT_DECLINE_THRESHOLD", "env CB_OUTPUT_DECLINE_THRESHOLD", func(c *Config) any { return c.Breaker.OutputDeclineThreshold }, 50}},
		{"permission-denial threshold in ralphrc", setup{rc: rc("CB_PERMISSION_DENIAL_THRESHOLD=4")},
			check{"CB_PERMISSION_DENIAL_THRESHOLD", ".ralph/.ralphrc:1", func(c *Config) any { return c.Breaker.PermissionDenialThreshold }, 4}},
		{"read-only threshold env", setup{env: map[string]string{"CB_READ_ONLY_TIMEOUT_THRESHOLD": "3"}, rc: rc("CB_READ_ONLY_TIMEOUT_THRESHOLD=2")},
			check{"CB_READ_ONLY_TIMEOUT_THRESHOLD", "env CB_READ_ONLY_TIMEOUT_THRESHOLD", func(c *Config) any { return c.Breaker.ReadOnlyTimeoutThreshold }, 3}},
		{"cooldown ralphrc", setup{rc: rc("CB_COOLDOWN_MINUTES=0")},
			check{"CB_COOLDOWN_MINUTES", ".ralph/.ralphrc:1", func(c *Config) any { return c.Breaker.Cooldown }, time.Duration(0)}},

		// Gap fixed: --auto-reset-circuit beats CB_AUTO_RESET=false in .ralphrc.
		{"auto-reset flag over ralphrc", setup{args: []string{"--auto-reset-circuit"}, rc: rc("CB_AUTO_RESET=false")},
			check{"CB_AUTO_RESET", "flag --auto-reset-circuit", func(c *Config) any { return c.Breaker.AutoReset }, true}},
		{"auto-reset env over ralphrc", setup{env: map[string]string{"CB_AUTO_RESET": "true"}, rc: rc("CB_AUTO_RESET=false")},
			check{"CB_AUTO_RESET", "env CB_AUTO_RESET", func(c *Config) any { return c.Breaker.AutoReset }, true}},

		// Gap fixed: --prompt beats PROMPT_FILE in .ralphrc; .ralphrc names are relative to .ralph/.
		{"prompt flag over ralphrc", setup{args: []string{"--prompt", "prompts/custom.md"}, rc: rc(`PROMPT_FILE="ALT_PROMPT.md"`)},
			check{"PROMPT_FILE", "flag --prompt", func(c *Config) any { return c.PromptFile }, "prompts/custom.md"}},
		{"prompt ralphrc relative to ralph dir", setup{rc: rc(`PROMPT_FILE="ALT_PROMPT.md"`)},
			check{"PROMPT_FILE", ".ralph/.ralphrc:1", func(c *Config) any { return c.PromptFile }, ".ralph/ALT_PROMPT.md"}},
		{"prompt ralphrc written from project root kept", setup{rc: rc(`PROMPT_FILE=".ralph/OTHER.md"`)},
			check{"PROMPT_FILE", ".ralph/.ralphrc:1", func(c *Config) any { return c.PromptFile }, ".ralph/OTHER.md"}},
		{"prompt ralphrc absolute kept", setup{rc: rc(`PROMPT_FILE=/abs/P.md`)},
			check{"PROMPT_FILE", ".ralph/.ralphrc:1", func(c *Config) any { return c.PromptFile }, "/abs/P.md"}},
		{"prompt env relative to project", setup{env: map[string]string{"PROMPT_FILE": "docs/P.md"}, rc: rc(`PROMPT_FILE="ALT_PROMPT.md"`)},
			check{"PROMPT_FILE", "env PROMPT_FILE", func(c *Config) any { return c.PromptFile }, "docs/P.md"}},
		{"fix plan ralphrc", setup{rc: rc(`FIX_PLAN_FILE="plan.md"`)},
			check{"FIX_PLAN_FILE", ".ralph/.ralphrc:1", func(c *Config) any { return c.FixPlanFile }, ".ralph/plan.md"}},
		{"agent file default under absolute ralph dir", setup{env: map[string]string{"RALPH_DIR": "/tmp/rd"}},
			check{"AGENT_FILE", "default", func(c *Config) any { return c.AgentFile }, "/tmp/rd/@AGENT.md"}},

		{"quality gates split", setup{rc: rc(`QUALITY_GATES="npm run lint; npm test ;;"`)},
			check{"QUALITY_GATES", ".ralph/.ralphrc:1", func(c *Config) any { return c.QualityGates }, []string{"npm run lint", "npm test"}}},
		{"quality gate env over ralphrc", setup{env: map[string]string{"QUALITY_GATE_MODE": "block"}, rc: rc("QUALITY_GATE_MODE=warn")},
			check{"QUALITY_GATE_MODE", "env QUALITY_GATE_MODE", func(c *Config) any { return c.QualityGateMode }, "block"}},
		{"gate timeout", setup{rc: rc(`QUALITY_GATE_TIMEOUT="${QUALITY_GATE_TIMEOUT:-60}"`)},
			check{"QUALITY_GATE_TIMEOUT", ".ralph/.ralphrc:1", func(c *Config) any { return c.QualityGateTimeout }, time.Minute}},
		{"test command keeps shell text", setup{rc: rc(`TEST_COMMAND="npm test -- $ARGS; echo done"`)},
			check{"TEST_COMMAND", ".ralph/.ralphrc:1", func(c *Config) any { return c.TestCommand }, "npm test -- $ARGS; echo done"}},
		{"write timeout zero", setup{env: map[string]string{"WRITE_TIMEOUT_MINUTES": "0"}},
			check{"WRITE_TIMEOUT_MINUTES", "env WRITE_TIMEOUT_MINUTES", func(c *Config) any { return c.WriteTimeout }, time.Duration(0)}},
		{"project name template form", setup{rc: rc(`PROJECT_NAME="${PROJECT_NAME:-my-project}"`)},
			check{"PROJECT_NAME", ".ralph/.ralphrc:1", func(c *Config) any { return c.ProjectName }, "my-project"}},

		// New keys.
		{"max loops flag", setup{args: []string{"--max-loops", "10"}, env: map[string]string{"MAX_LOOPS": "3"}},
			check{"MAX_LOOPS", "flag --max-loops", func(c *Config) any { return c.MaxLoops }, 10}},
		{"delay flag", setup{args: []string{"--delay", "1m"}},
			check{"LOOP_DELAY", "flag --delay", func(c *Config) any { return c.LoopDelay }, time.Minute}},
		{"delay plain seconds in ralphrc", setup{rc: rc("LOOP_DELAY=10")},
			check{"LOOP_DELAY", ".ralph/.ralphrc:1", func(c *Config) any { return c.LoopDelay }, 10 * time.Second}},
		{"delay zero", setup{env: map[string]string{"LOOP_DELAY": "0"}},
			check{"LOOP_DELAY", "env LOOP_DELAY", func(c *Config) any { return c.LoopDelay }, time.Duration(0)}},
		{"idle backoff defaults to 2 with idle delay", setup{env: map[string]string{"IDLE_DELAY": "30s"}},
			check{"IDLE_BACKOFF", "default", func(c *Config) any { return c.IdleBackoff }, 2.0}},
		{"idle backoff off without idle delay", setup{},
			check{"IDLE_BACKOFF", "default", func(c *Config) any { return c.IdleBackoff }, 0.0}},
		{"idle backoff explicit", setup{env: map[string]string{"IDLE_DELAY": "30s", "IDLE_BACKOFF": "1.5"}},
			check{"IDLE_BACKOFF", "env IDLE_BACKOFF", func(c *Config) any { return c.IdleBackoff }, 1.5}},
		{"idle max delay", setup{rc: rc("IDLE_DELAY=1m", "IDLE_MAX_DELAY=1h")},
			check{"IDLE_MAX_DELAY", ".ralph/.ralphrc:2", func(c *Config) any { return c.IdleMaxDelay }, time.Hour}},
		{"idle max", setup{rc: rc("IDLE_MAX=6h")},
			check{"IDLE_MAX", ".ralph/.ralphrc:1", func(c *Config) any { return c.IdleMax }, 6 * time.Hour}},
		{"idle max plain seconds", setup{env: map[string]string{"IDLE_MAX": "90"}},
			check{"IDLE_MAX", "env IDLE_MAX", func(c *Config) any { return c.IdleMax }, 90 * time.Second}},
		{"stall limit", setup{env: map[string]string{"STALL_LIMIT": "6"}},
			check{"STALL_LIMIT", "env STALL_LIMIT", func(c *Config) any { return c.StallLimit }, 6}},
		{"done pattern flag", setup{args: []string{"--done-pattern", `ALL (DONE|FINISHED)`}},
			check{"DONE_PATTERN", "flag --done-pattern", func(c *Config) any { return c.DonePattern.String() }, `ALL (DONE|FINISHED)`}},
		{"usage limit patterns", setup{rc: rc(`USAGE_LIMIT_PATTERNS='quota exceeded; credits? exhausted'`)},
			check{"USAGE_LIMIT_PATTERNS", ".ralph/.ralphrc:1", func(c *Config) any {
				return len(c.UsageLimitPatterns) == 2 && c.UsageLimitPatterns[1].MatchString("credit exhausted")
			}, true}},
		{"done pattern ralphrc", setup{rc: rc(`DONE_PATTERN='^DONE$'`)},
			check{"DONE_PATTERN", ".ralph/.ralphrc:1", func(c *Config) any { return c.DonePattern.MatchString("DONE") }, true}},
		{"inactivity timeout", setup{args: []string{"--inactivity-timeout", "10m"}},
			check{"INACTIVITY_TIMEOUT", "flag --inactivity-timeout", func(c *Config) any { return c.Inactivity }, 10 * time.Minute}},
		{"max cost", setup{args: []string{"--max-cost", "12.50"}},
			check{"MAX_COST_USD", "flag --max-cost", func(c *Config) any { return c.MaxCostUSD }, 12.5}},
		{"max cost env", setup{env: map[string]string{"MAX_COST_USD": "3"}},
			check{"MAX_COST_USD", "env MAX_COST_USD", func(c *Config) any { return c.MaxCostUSD }, 3.0}},
		{"max tokens", setup{args: []string{"--max-tokens", "5000000"}},
			check{"MAX_TOKENS", "flag --max-tokens", func(c *Config) any { return c.MaxTokens }, int64(5000000)}},
		{"max consecutive failures", setup{rc: rc("MAX_CONSECUTIVE_FAILURES=0")},
			check{"MAX_CONSECUTIVE_FAILURES", ".ralph/.ralphrc:1", func(c *Config) any { return c.MaxConsecutiveFailures }, 0}},
		{"max output flag", setup{args: []string{"--max-output-mb", "1"}},
			check{"MAX_OUTPUT_MB", "flag --max-output-mb", func(c *Config) any { return c.MaxOutput }, int64(1 << 20)}},
		{"max output rc", setup{rc: rc("MAX_OUTPUT_MB=64")},
			check{"MAX_OUTPUT_MB", ".ralph/.ralphrc:1", func(c *Config) any { return c.MaxOutput }, int64(64 << 20)}},
		{"max output env off", setup{env: map[string]string{"MAX_OUTPUT_MB": "0"}},
			check{"MAX_OUTPUT_MB", "env MAX_OUTPUT_MB", func(c *Config) any { return c.MaxOutput }, int64(0)}},
		{"agent prompt mode", setup{env: map[string]string{"AGENT_PROMPT_MODE": "arg"}},
			check{"AGENT_PROMPT_MODE", "env AGENT_PROMPT_MODE", func(c *Config) any { return c.PromptMode }, "arg"}},
		{"events stdout", setup{args: []string{"--events", "-"}},
			check{"EVENTS_FILE", "flag --events", func(c *Config) any { return c.EventsFile }, "-"}},
		{"events ralphrc relative to ralph dir", setup{rc: rc("EVENTS_FILE=logs/events.jsonl")},
			check{"EVENTS_FILE", ".ralph/.ralphrc:1", func(c *Config) any { return c.EventsFile }, ".ralph/logs/events.jsonl"}},
		{"events ralphrc stdout", setup{rc: rc("EVENTS_FILE=-")},
			check{"EVENTS_FILE", ".ralph/.ralphrc:1", func(c *Config) any { return c.EventsFile }, "-"}},
		{"command driver argv", setup{env: map[string]string{"PLATFORM_DRIVER": "command", "MODEL": "m 1"}, rc: rc(`AGENT_COMMAND='my-agent --model "$MODEL" 'a b' ${MODEL}'`)},
			check{"AGENT_COMMAND", ".ralph/.ralphrc:1", func(c *Config) any { return c.AgentArgv }, []string{"my-agent", "--model", "m 1", "a b", "m", "1"}}},

		{"ralph dir absolute", setup{env: map[string]string{"RALPH_DIR": "/tmp/x/.ralph"}},
			check{"RALPH_DIR", "env RALPH_DIR", func(c *Config) any { return c.RalphDir }, "/tmp/x/.ralph"}},
		{"ralph dir explicit default", setup{env: map[string]string{"RALPH_DIR": ".ralph"}},
			check{"RALPH_DIR", "env RALPH_DIR", func(c *Config) any { return c.RalphDir }, ".ralph"}},
		{"ralph dir empty", setup{env: map[string]string{"RALPH_DIR": ""}},
			check{"RALPH_DIR", "default", func(c *Config) any { return c.RalphDir }, ".ralph"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := tc.s.mustLoad(t)
			if diff := cmp.Diff(tc.chk.want, tc.chk.test(c)); diff != "" {
				t.Errorf("%s value (-want +got):\n%s", tc.chk.key, diff)
			}
			if got := c.Sources[tc.chk.key].String(); got != tc.chk.src {
				t.Errorf("Sources[%s] = %q, want %q", tc.chk.key, got, tc.chk.src)
			}
		})
	}
}

func TestRCFileAndAbsoluteRalphDir(t *testing.T) {
	w := &world{
		env:   map[string]string{"RALPH_DIR": "/abs/rd"},
		files: map[string]string{"/abs/rd/.ralphrc": rc("MAX_CALLS_PER_HOUR=3", "PROMPT_FILE=P.md")},
	}
	c, _, err := Load(nil, true, w.lookup, proj, w.read)
	if err != nil {
		t.Fatal(err)
	}
	if c.RCFile != "/abs/rd/.ralphrc" || c.MaxCallsPerHour != 3 || c.PromptFile != "/abs/rd/P.md" {
		t.Errorf("RCFile=%q calls=%d prompt=%q", c.RCFile, c.MaxCallsPerHour, c.PromptFile)
	}

	c, _ = setup{rc: rc("MAX_CALLS_PER_HOUR=3")}.mustLoad(t)
	if c.RCFile != ".ralph/.ralphrc" {
		t.Errorf("RCFile = %q", c.RCFile)
	}
	c, _ = setup{rootRC: rc("MAX_CALLS_PER_HOUR=3")}.mustLoad(t)
	if c.RCFile != ".ralphrc" {
		t.Errorf("RCFile = %q", c.RCFile)
	}
}

func TestReadErrors(t *testing.T) {
	denied := errors.New("permission denied")
	read := func(p string) ([]byte, error) {
		if p == proj+"/.ralph/.ralphrc" {
			return nil, fmt.Errorf("open %s: %w", p, denied)
		}
		return nil, fs.ErrNotExist
	}
	_, _, err := Load(nil, true, nil, proj, read)
	if !errors.Is(err, denied) || !strings.Contains(err.Error(), "read .ralph/.ralphrc") {
		t.Errorf("err = %v, want wrapped permission error naming the file", err)
	}
	var ue *UsageError
	if errors.As(err, &ue) {
		t.Errorf("a read error is not a usage error")
	}

	// A directory where the file should be is skipped, like a missing file.
	read = func(p string) ([]byte, error) {
		switch p {
		case proj + "/.ralph/.ralphrc":
			return nil, &fs.PathError{Op: "read", Path: p, Err: errIsDir}
		case proj + "/.ralphrc":
			return []byte("MAX_CALLS_PER_HOUR=4\n"), nil
		}
		return nil, fs.ErrNotExist
	}
	c, _, err := Load(nil, true, nil, proj, read)
	if err != nil || c.MaxCallsPerHour != 4 {
		t.Errorf("directory not skipped: %v %+v", err, c)
	}
}

func TestReviewDerivation(t *testing.T) {
	cases := []struct {
		name        string
		s           setup
		mode        string
		enabled     bool
		modeSrc     string
		enabledSrc  string
		description string
	}{
		{"defaults", setup{}, "off", false, "default", "default", ""},
		{"legacy enabled", setup{rc: rc("REVIEW_ENABLED=true")}, "enhanced", true, "derived from REVIEW_ENABLED", ".ralph/.ralphrc:1", ""},
		{"bmalph off env with legacy file", setup{env: map[string]string{"REVIEW_MODE": "off"}, rc: rc("REVIEW_ENABLED=true")}, "enhanced", true, "derived from REVIEW_ENABLED", ".ralph/.ralphrc:1", ""},
		{"ultimate enables", setup{env: map[string]string{"REVIEW_MODE": "ultimate"}}, "ultimate", true, "env REVIEW_MODE", "derived from REVIEW_MODE", ""},
		{"mode wins over enabled=false", setup{env: map[string]string{"REVIEW_MODE": "enhanced", "REVIEW_ENABLED": "false"}}, "enhanced", true, "env REVIEW_MODE", "derived from REVIEW_MODE", ""},
		{"bmalph enhanced", setup{env: map[string]string{"REVIEW_MODE": "enhanced", "REVIEW_ENABLED": "true", "REVIEW_INTERVAL": "5"}}, "enhanced", true, "env REVIEW_MODE", "env REVIEW_ENABLED", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := tc.s.mustLoad(t)
			if c.ReviewMode != tc.mode || c.ReviewEnabled != tc.enabled {
				t.Errorf("mode=%q enabled=%v, want %q %v", c.ReviewMode, c.ReviewEnabled, tc.mode, tc.enabled)
			}
			if got := c.Sources["REVIEW_MODE"].String(); got != tc.modeSrc {
				t.Errorf("REVIEW_MODE source %q, want %q", got, tc.modeSrc)
			}
			if got := c.Sources["REVIEW_ENABLED"].String(); got != tc.enabledSrc {
				t.Errorf("REVIEW_ENABLED source %q, want %q", got, tc.enabledSrc)
			}
		})
	}
}

// TestValueForms runs every accepted spelling of each value type through
// Load from the environment.
func TestValueForms(t *testing.T) {
	cases := []struct {
		key, value string
		get        func(*Config) any
		want       any
	}{
		{"SESSION_CONTINUITY", "true", func(c *Config) any { return c.SessionContinuity }, true},
		{"SESSION_CONTINUITY", "FALSE", func(c *Config) any { return c.SessionContinuity }, false},
		{"SESSION_CONTINUITY", "no", func(c *Config) any { return c.SessionContinuity }, false},
		{"SESSION_CONTINUITY", "0", func(c *Config) any { return c.SessionContinuity }, false},
		{"CB_AUTO_RESET", "yes", func(c *Config) any { return c.Breaker.AutoReset }, true},
		{"CB_AUTO_RESET", "On", func(c *Config) any { return c.Breaker.AutoReset }, true},
		{"CB_AUTO_RESET", "1", func(c *Config) any { return c.Breaker.AutoReset }, true},
		{"CB_AUTO_RESET", " true ", func(c *Config) any { return c.Breaker.AutoReset }, true},
		{"MAX_CALLS_PER_HOUR", " 42 ", func(c *Config) any { return c.MaxCallsPerHour }, 42},
		{"CLAUDE_TIMEOUT_MINUTES", "120", func(c *Config) any { return c.Timeout }, 120 * time.Minute},
		{"CLAUDE_TIMEOUT_MINUTES", "1", func(c *Config) any { return c.Timeout }, time.Minute},
		{"LOOP_DELAY", "30s", func(c *Config) any { return c.LoopDelay }, 30 * time.Second},
		{"LOOP_DELAY", "5m", func(c *Config) any { return c.LoopDelay }, 5 * time.Minute},
		{"LOOP_DELAY", "6h", func(c *Config) any { return c.LoopDelay }, 6 * time.Hour},
		{"LOOP_DELAY", "1d", func(c *Config) any { return c.LoopDelay }, 24 * time.Hour},
		{"LOOP_DELAY", "2.5", func(c *Config) any { return c.LoopDelay }, 2500 * time.Millisecond},
		{"LOOP_DELAY", "1h30m", func(c *Config) any { return c.LoopDelay }, 90 * time.Minute},
		{"MAX_COST_USD", ".5", func(c *Config) any { return c.MaxCostUSD }, 0.5},
		{"MAX_COST_USD", "0", func(c *Config) any { return c.MaxCostUSD }, 0.0},
		{"IDLE_BACKOFF", "1", func(c *Config) any { return c.IdleBackoff }, 1.0},
		{"CLAUDE_MIN_VERSION", "2.1", func(c *Config) any { return c.MinVersion }, "2.1"},
		{"CLAUDE_PERMISSION_MODE", "dontAsk", func(c *Config) any { return c.PermissionMode }, "dontAsk"},
		{"QUALITY_GATE_MODE", "circuit-breaker", func(c *Config) any { return c.QualityGateMode }, "circuit-breaker"},
	}
	for _, tc := range cases {
		t.Run(tc.key+"="+tc.value, func(t *testing.T) {
			c, _ := setup{env: map[string]string{tc.key: tc.value, "IDLE_DELAY": "1s"}}.mustLoad(t)
			if diff := cmp.Diff(tc.want, tc.get(c)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestUsageErrors: every invalid input is a *UsageError whose one-line
// message names the key or flag, the value, where it came from and what is
// accepted.
func TestUsageErrors(t *testing.T) {
	cases := []struct {
		name      string
		s         setup
		key       string
		msg       []string // substrings of the message
		showUsage bool
	}{
		// Command line (the bash loop's wording where the conformance suite checks it).
		{"timeout 0", setup{args: []string{"--timeout", "0"}}, "--timeout", []string{"Timeout must be a positive integer between 1 and 120 minutes", "'0'"}, false},
		{"timeout 121", setup{args: []string{"-t", "121"}}, "--timeout", []string{"Timeout must be a positive integer between 1 and 120"}, false},
		{"timeout abc", setup{args: []string{"--timeout", "abc"}}, "--timeout", []string{"Timeout must be a positive integer between 1 and 120"}, false},
		{"timeout -5", setup{args: []string{"--timeout", "-5"}}, "--timeout", []string{"Timeout must be a positive integer between 1 and 120"}, false},
		{"timeout hex", setup{args: []string{"--timeout=0x10"}}, "--timeout", []string{"Timeout must be"}, false},
		{"session expiry 0", setup{args: []string{"--session-expiry", "0"}}, "--session-expiry", []string{"--session-expiry requires a positive integer"}, false},
		{"session expiry abc", setup{args: []string{"--session-expiry", "abc"}}, "--session-expiry", []string{"--session-expiry requires a positive integer"}, false},
		{"session expiry empty", setup{args: []string{"--session-expiry", ""}}, "--session-expiry", []string{"--session-expiry requires a positive integer"}, false},
		{"output format xml", setup{args: []string{"--output-format", "xml"}}, "--output-format", []string{"--output-format must be 'json' or 'text'", "'xml'"}, false},
		{"calls abc", setup{args: []string{"--calls", "abc"}}, "--calls", []string{"Invalid --calls: 'abc'", "positive integer"}, false},
		{"calls 0", setup{args: []string{"-c", "0"}}, "--calls", []string{"Invalid --calls: '0'"}, false},
		{"calls negative", setup{args: []string{"--calls", "-1"}}, "--calls", []string{"Invalid --calls: '-1'"}, false},
		{"prompt empty", setup{args: []string{"--prompt", ""}}, "--prompt", []string{"Invalid --prompt: ''", "file name"}, false},
		{"bool flag with value", setup{args: []string{"--verbose=maybe"}}, "--verbose", []string{"Invalid --verbose: 'maybe'"}, false},
		{"max loops abc", setup{args: []string{"--max-loops", "abc"}}, "--max-loops", []string{"Invalid --max-loops: 'abc'", "integer >= 0"}, false},
		{"delay bad unit", setup{args: []string{"--delay", "5x"}}, "--delay", []string{"Invalid --delay: '5x'", "30s, 5m, 6h, 1d"}, false},
		{"delay negative", setup{args: []string{"--delay", "-1s"}}, "--delay", []string{"Invalid --delay: '-1s'"}, false},
		{"done pattern bad regex", setup{args: []string{"--done-pattern", "("}}, "--done-pattern", []string{"Invalid --done-pattern: '('", "regular expression", "missing closing )"}, false},
		{"max cost negative", setup{args: []string{"--max-cost", "-1"}}, "--max-cost", []string{"Invalid --max-cost: '-1'", ">= 0"}, false},
		{"max cost NaN", setup{args: []string{"--max-cost", "NaN"}}, "--max-cost", []string{"Invalid --max-cost: 'NaN'"}, false},
		{"max cost Inf", setup{args: []string{"--max-cost", "Inf"}}, "--max-cost", []string{"Invalid --max-cost: 'Inf'"}, false},
		{"max tokens float", setup{args: []string{"--max-tokens", "1.5"}}, "--max-tokens", []string{"Invalid --max-tokens: '1.5'"}, false},
		{"driver flag unknown", setup{args: []string{"--driver", "nope"}}, "--driver", []string{"Platform driver not found: 'nope' (--driver)", "claude-code codex cursor copilot opencode command"}, false},
		{"bad value before status", setup{args: []string{"--timeout", "0", "--status"}}, "--timeout", []string{"Timeout must be"}, false},
		{"bad value after status", setup{args: []string{"--status", "--timeout", "0"}}, "--timeout", []string{"Timeout must be"}, false},

		// Tools: claude-code only.
		{"tool flag invalid", setup{args: []string{"--allowed-tools", "Write,Hack"}}, "--allowed-tools", []string{"Invalid tool in --allowed-tools: 'Hack'", "valid tools: Write Read", "Bash(...)"}, false},
		{"tool env invalid", setup{env: map[string]string{"ALLOWED_TOOLS": "Read,bash"}}, "ALLOWED_TOOLS", []string{"Invalid tool in ALLOWED_TOOLS: 'bash' (env ALLOWED_TOOLS)"}, false},
		{"tool ralphrc invalid", setup{rc: rc("", `ALLOWED_TOOLS="Read,Bash()"`)}, "ALLOWED_TOOLS", []string{"Invalid tool in ALLOWED_TOOLS: 'Bash()' (.ralph/.ralphrc:2)"}, false},

		// Environment and .ralphrc.
		{"permission denial mode env", setup{env: map[string]string{"PERMISSION_DENIAL_MODE": "bogus"}}, "PERMISSION_DENIAL_MODE", []string{"Invalid PERMISSION_DENIAL_MODE: 'bogus' (env PERMISSION_DENIAL_MODE)", "Valid modes: continue halt threshold"}, false},
		{"permission mode ralphrc", setup{rc: rc(`CLAUDE_PERMISSION_MODE="yolo"`)}, "CLAUDE_PERMISSION_MODE", []string{"Invalid CLAUDE_PERMISSION_MODE: 'yolo' (.ralph/.ralphrc:1)", "auto acceptEdits bypassPermissions default dontAsk plan"}, false},
		{"quality gate mode", setup{rc: rc(`TEST_COMMAND="true"`, "QUALITY_GATE_MODE=nope")}, "QUALITY_GATE_MODE", []string{"Invalid QUALITY_GATE_MODE: 'nope' (.ralph/.ralphrc:2)", "warn block circuit-breaker"}, false},
		{"quality gate timeout 0", setup{env: map[string]string{"QUALITY_GATE_TIMEOUT": "0"}}, "QUALITY_GATE_TIMEOUT", []string{"Invalid QUALITY_GATE_TIMEOUT: '0'"}, false},
		{"review mode unknown", setup{env: map[string]string{"REVIEW_MODE": "sometimes"}}, "REVIEW_MODE", []string{"Invalid REVIEW_MODE: 'sometimes'", "off enhanced ultimate"}, false},
		{"review interval 0", setup{rc: rc("REVIEW_INTERVAL=0")}, "REVIEW_INTERVAL", []string{"Invalid REVIEW_INTERVAL: '0' (.ralph/.ralphrc:1)", "positive integer"}, false},
		{"threshold not numeric", setup{rc: rc("CB_NO_PROGRESS_THRESHOLD=abc")}, "CB_NO_PROGRESS_THRESHOLD", []string{"Invalid CB_NO_PROGRESS_THRESHOLD: 'abc' (.ralph/.ralphrc:1)"}, false},
		{"same error threshold 0", setup{env: map[string]string{"CB_SAME_ERROR_THRESHOLD": "0"}}, "CB_SAME_ERROR_THRESHOLD", []string{"Invalid CB_SAME_ERROR_THRESHOLD: '0'"}, false},
		{"output decline > 100", setup{env: map[string]string{"CB_OUTPUT_DECLINE_THRESHOLD": "101"}}, "CB_OUTPUT_DECLINE_THRESHOLD", []string{"from 0 to 100"}, false},
		{"cooldown negative", setup{env: map[string]string{"CB_COOLDOWN_MINUTES": "-1"}}, "CB_COOLDOWN_MINUTES", []string{"Invalid CB_COOLDOWN_MINUTES: '-1'"}, false},
		{"auto reset not bool", setup{rc: rc("CB_AUTO_RESET=sometimes")}, "CB_AUTO_RESET", []string{"Invalid CB_AUTO_RESET: 'sometimes'", "true or false"}, false},
		{"continuity not bool", setup{env: map[string]string{"CLAUDE_USE_CONTINUE": "maybe"}}, "SESSION_CONTINUITY", []string{"Invalid SESSION_CONTINUITY: 'maybe' (env CLAUDE_USE_CONTINUE)"}, false},
		{"calls inline comment", setup{rc: rc("MAX_CALLS_PER_HOUR=7 # seven")}, "MAX_CALLS_PER_HOUR", []string{"Invalid MAX_CALLS_PER_HOUR: '7 # seven' (.ralph/.ralphrc:1)"}, false},
		{"timeout env 0", setup{env: map[string]string{"CLAUDE_TIMEOUT_MINUTES": "0"}}, "CLAUDE_TIMEOUT_MINUTES", []string{"Invalid CLAUDE_TIMEOUT_MINUTES: '0' (env CLAUDE_TIMEOUT_MINUTES)", "from 1 to 120"}, false},
		{"output format env", setup{env: map[string]string{"CLAUDE_OUTPUT_FORMAT": "yaml"}}, "CLAUDE_OUTPUT_FORMAT", []string{"Invalid CLAUDE_OUTPUT_FORMAT: 'yaml'", "json text"}, false},
		{"expiry env", setup{env: map[string]string{"SESSION_EXPIRY_HOURS": "x"}}, "SESSION_EXPIRY_HOURS", []string{"Invalid SESSION_EXPIRY_HOURS: 'x' (env SESSION_EXPIRY_HOURS)"}, false},
		{"write timeout", setup{env: map[string]string{"WRITE_TIMEOUT_MINUTES": "5m"}}, "WRITE_TIMEOUT_MINUTES", []string{"Invalid WRITE_TIMEOUT_MINUTES: '5m'"}, false},
		{"min version", setup{rc: rc("CLAUDE_MIN_VERSION=latest")}, "CLAUDE_MIN_VERSION", []string{"Invalid CLAUDE_MIN_VERSION: 'latest'"}, false},
		{"idle backoff < 1", setup{env: map[string]string{"IDLE_DELAY": "1s", "IDLE_BACKOFF": "0.5"}}, "IDLE_BACKOFF", []string{"Invalid IDLE_BACKOFF: '0.5'", ">= 1"}, false},
		{"idle max delay below idle delay", setup{env: map[string]string{"IDLE_DELAY": "1m", "IDLE_MAX_DELAY": "30s"}}, "IDLE_MAX_DELAY", []string{"Invalid IDLE_MAX_DELAY: '30s' (env IDLE_MAX_DELAY)", "at least IDLE_DELAY (1m0s)"}, false},
		{"done pattern env", setup{env: map[string]string{"DONE_PATTERN": "a(b"}}, "DONE_PATTERN", []string{"Invalid DONE_PATTERN: 'a(b' (env DONE_PATTERN)"}, false},
		{"usage limit patterns", setup{rc: rc("USAGE_LIMIT_PATTERNS='quota (exceeded;credits? exhausted'")}, "USAGE_LIMIT_PATTERNS", []string{"Invalid USAGE_LIMIT_PATTERNS: 'quota (exceeded;credits? exhausted' (.ralph/.ralphrc:1)", "pattern 1 (quota (exceeded)"}, false},
		{"usage stop percent", setup{env: map[string]string{"USAGE_STOP_PERCENT": "120"}}, "USAGE_STOP_PERCENT", []string{"Invalid USAGE_STOP_PERCENT: '120'", "from 0 to 100"}, false},
		{"usage warning action", setup{env: map[string]string{"USAGE_WARNING_ACTION": "pause"}}, "USAGE_WARNING_ACTION", []string{"Invalid USAGE_WARNING_ACTION: 'pause'", "continue wait stop"}, false},
		{"usage max wait", setup{env: map[string]string{"USAGE_LIMIT_MAX_WAIT": "soon"}}, "USAGE_LIMIT_MAX_WAIT", []string{"Invalid USAGE_LIMIT_MAX_WAIT: 'soon'"}, false},
		{"prompt mode", setup{rc: rc("AGENT_PROMPT_MODE=file")}, "AGENT_PROMPT_MODE", []string{"Invalid AGENT_PROMPT_MODE: 'file'", "stdin arg"}, false},
		{"max failures", setup{env: map[string]string{"MAX_CONSECUTIVE_FAILURES": "x"}}, "MAX_CONSECUTIVE_FAILURES", []string{"Invalid MAX_CONSECUTIVE_FAILURES: 'x'"}, false},
		{"max output negative", setup{env: map[string]string{"MAX_OUTPUT_MB": "-1"}}, "MAX_OUTPUT_MB", []string{"Invalid MAX_OUTPUT_MB: '-1'"}, false},

		// Driver.
		{"driver unknown env", setup{env: map[string]string{"PLATFORM_DRIVER": "nope"}}, "PLATFORM_DRIVER", []string{"Platform driver not found: 'nope' (env PLATFORM_DRIVER)", "available drivers"}, false},
		{"driver path traversal", setup{env: map[string]string{"PLATFORM_DRIVER": "../lib/date_utils"}}, "PLATFORM_DRIVER", []string{"Invalid PLATFORM_DRIVER (path traversal): '../lib/date_utils'"}, false},
		{"driver with slash", setup{rc: rc("PLATFORM_DRIVER=drivers/codex")}, "PLATFORM_DRIVER", []string{"Invalid PLATFORM_DRIVER (path traversal): 'drivers/codex' (.ralph/.ralphrc:1)"}, false},
		{"driver helper wrapper is not a driver", setup{env: map[string]string{"PLATFORM_DRIVER": "cursor-agent-wrapper"}}, "PLATFORM_DRIVER", []string{"Platform driver not found"}, false},
		{"command driver without command", setup{env: map[string]string{"PLATFORM_DRIVER": "command"}}, "AGENT_COMMAND", []string{"PLATFORM_DRIVER=command (env PLATFORM_DRIVER) needs AGENT_COMMAND"}, false},
		{"command driver with substitution", setup{env: map[string]string{"PLATFORM_DRIVER": "command", "AGENT_COMMAND": "agent $(whoami)"}}, "AGENT_COMMAND", []string{"Invalid AGENT_COMMAND: 'agent $(whoami)' (env AGENT_COMMAND)", "command substitution"}, false},
		{"command driver with pipe", setup{env: map[string]string{"PLATFORM_DRIVER": "command", "AGENT_COMMAND": "agent | tee x"}}, "AGENT_COMMAND", []string{"Invalid AGENT_COMMAND", "plain command"}, false},

		// RALPH_DIR (the bash loop's wording).
		{"ralph dir relative", setup{env: map[string]string{"RALPH_DIR": "custom-dir"}}, "RALPH_DIR", []string{"RALPH_DIR must be '.ralph' or an absolute path, got: 'custom-dir'"}, false},
		{"ralph dir dot slash", setup{env: map[string]string{"RALPH_DIR": "./.ralph"}}, "RALPH_DIR", []string{"RALPH_DIR must be '.ralph' or an absolute path"}, false},
		{"ralph dir dotdot", setup{env: map[string]string{"RALPH_DIR": "/tmp/../etc"}}, "RALPH_DIR", []string{"RALPH_DIR must not contain '..': '/tmp/../etc'"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _, err := tc.s.load(t)
			if err == nil {
				t.Fatal("no error")
			}
			var ue *UsageError
			if !errors.As(err, &ue) {
				t.Fatalf("error %T %v is not a *UsageError", err, err)
			}
			if c != nil {
				t.Errorf("config returned together with an error")
			}
			if ue.ExitCode() != 1 {
				t.Errorf("exit code %d", ue.ExitCode())
			}
			if ue.Key != tc.key {
				t.Errorf("Key = %q, want %q", ue.Key, tc.key)
			}
			if ue.Unknown != tc.showUsage {
				t.Errorf("Unknown = %v", ue.Unknown)
			}
			msg := ue.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("message is not one line: %q", msg)
			}
			for _, sub := range tc.msg {
				if !strings.Contains(msg, sub) {
					t.Errorf("message %q lacks %q", msg, sub)
				}
			}
		})
	}
}

// TestNoFalseErrors: inputs close to the error cases above that are valid.
func TestNoFalseErrors(t *testing.T) {
	cases := []struct {
		name string
		s    setup
	}{
		{"Bash patterns and AskUserQuestion", setup{args: []string{"--allowed-tools", "Read,Bash(git *),Bash(make test),AskUserQuestion,EnterPlanMode,ExitPlanMode"}}},
		{"non-claude driver ignores tool names", setup{env: map[string]string{"PLATFORM_DRIVER": "codex"}, args: []string{"--allowed-tools", "Read,Write,shell"}}},
		{"non-claude driver ignores bad ralphrc tools", setup{env: map[string]string{"PLATFORM_DRIVER": "copilot"}, rc: rc("ALLOWED_TOOLS=shell(git:*)")}},
		{"every driver", setup{env: map[string]string{"PLATFORM_DRIVER": "opencode"}}},
		{"gate mode valid without gates", setup{env: map[string]string{"QUALITY_GATE_MODE": "block"}}},
		{"timeout 120 then status", setup{args: []string{"--timeout", "120", "--status"}}},
		{"valid values then status", setup{args: []string{"--session-expiry", "48", "--output-format", "text", "--status"}}},
		{"calls 1", setup{args: []string{"--calls", "1"}}},
		{"big session expiry", setup{args: []string{"--session-expiry", "100000"}}},
		{"command driver", setup{env: map[string]string{"PLATFORM_DRIVER": "command", "AGENT_COMMAND": "/usr/bin/agent --yes"}}},
		{"idle max delay equal", setup{env: map[string]string{"IDLE_DELAY": "1m", "IDLE_MAX_DELAY": "60"}}},
		{"template-like file", setup{rc: rc(
			`PLATFORM_DRIVER="${PLATFORM_DRIVER:-claude-code}"`,
			`QUALITY_GATES="${QUALITY_GATES:-}"`,
			`TEST_COMMAND="${TEST_COMMAND:-}"`,
			`CB_AUTO_RESET=false`,
			`ALLOWED_TOOLS="Write,Read,Edit,MultiEdit,Glob,Grep,Task,TodoWrite,WebFetch,WebSearch,EnterPlanMode,ExitPlanMode,NotebookEdit,Bash"`,
		)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := tc.s.load(t); err != nil {
				t.Errorf("unexpected error: %v", err)
			}
		})
	}
}

// TestMaintenanceIsLenient: a broken .ralphrc or environment value does not
// stop a command that does not run the loop (--status and friends: not
// strict); it becomes a warning and the default is used.
func TestMaintenanceIsLenient(t *testing.T) {
	w := &world{env: map[string]string{"PLATFORM_DRIVER": "nope", "ALLOWED_TOOLS": "Hack"},
		files: map[string]string{proj + "/.ralph/.ralphrc": rc("MAX_CALLS_PER_HOUR=abc", "CB_COOLDOWN_MINUTES=5")}}
	for _, args := range [][]string{nil, {"--calls", "7"}} {
		fv, _, err := flagsOf(args)
		if err != nil {
			t.Fatal(err)
		}
		c, warns, err := Load(fv, false, w.lookup, proj, w.read)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if want := map[bool]int{false: 100, true: 7}[args != nil]; c.MaxCallsPerHour != want {
			t.Errorf("%v: calls %d from %v", args, c.MaxCallsPerHour, c.Sources["MAX_CALLS_PER_HOUR"])
		}
		if c.Driver != "claude-code" || c.Breaker.Cooldown != 5*time.Minute {
			t.Errorf("%v: driver %q cooldown %v", args, c.Driver, c.Breaker.Cooldown)
		}
		if diff := cmp.Diff(defaultTools(), c.AllowedTools); diff != "" {
			t.Errorf("%v: tools: %s", args, diff)
		}
		var text []string
		for _, w := range warns {
			text = append(text, w.String())
			if !w.Invalid {
				t.Errorf("%v: %q not marked Invalid", args, w.String())
			}
		}
		all := strings.Join(text, "\n")
		for _, want := range []string{"Platform driver not found: 'nope'", "Invalid tool in ALLOWED_TOOLS: 'Hack'", "using the default"} {
			if !strings.Contains(all, want) {
				t.Errorf("%v: warnings lack %q:\n%s", args, want, all)
			}
		}
	}
	// Flags stay strict even for maintenance commands.
	fv, _, err := flagsOf([]string{"--allowed-tools", "Hack"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load(fv, false, w.lookup, proj, w.read); err == nil {
		t.Error("bad --allowed-tools accepted from the command line of a maintenance command")
	}
}

func TestWarnings(t *testing.T) {
	s := setup{
		env: map[string]string{"AGENT_COMMAND": "x", "IDLE_BACKOFF": "3"},
		rc: rc(
			"FOO_BAR=1",
			"export MAX_CALLS_PER_HOUR=5",
			"MAX_CALLS_PER_HOUR=12",
			"CLAUDE_ALLOWED_TOOLS=Read",
			`PROJECT_NAME=$(touch pwned)`,
			"PROJECT_TYPE=`touch pwned`",
		),
	}
	c, warns := s.mustLoad(t)
	if c.MaxCallsPerHour != 12 || c.ProjectName != "" || c.ProjectType != "" {
		t.Errorf("calls %d name %q type %q", c.MaxCallsPerHour, c.ProjectName, c.ProjectType)
	}
	var got []string
	for _, w := range warns {
		got = append(got, w.String())
	}
	want := []string{
		".ralph/.ralphrc:1: unknown key ignored: FOO_BAR",
		".ralph/.ralphrc:2: skipped (not KEY=VALUE): export MAX_CALLS_PER_HOUR=5 (drop the 'export')",
		".ralph/.ralphrc:4: unknown key ignored: CLAUDE_ALLOWED_TOOLS (use ALLOWED_TOOLS)",
		".ralph/.ralphrc:5: rejected (command substitution): PROJECT_NAME=$(touch pwned)",
		".ralph/.ralphrc:6: rejected (command substitution): PROJECT_TYPE=`touch pwned`",
		"IDLE_BACKOFF has no effect without IDLE_DELAY",
		"AGENT_COMMAND is ignored unless PLATFORM_DRIVER=command",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func TestNilArguments(t *testing.T) {
	c, _, err := Load(nil, true, nil, t.TempDir(), nil) // real os.ReadFile, no .ralphrc there
	if err != nil || c.MaxCallsPerHour != 100 || c.RCFile != "" {
		t.Fatalf("err=%v config=%+v", err, c)
	}
}

func TestActionString(t *testing.T) {
	if got := defaultTools(); len(got) != 14 || got[13] != "Bash" {
		t.Errorf("defaultTools() = %v", got)
	}
}
