package main

import (
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ralphloop/ralph_loop/internal/config"
)

// The command line is tested as functions: the line read, the command
// picked, its options, and every refusal, word for word where the bash
// loop (or the conformance suite) has the words.

// pick reads args and picks the command, as dispatch does.
func pick(args ...string) (*command, *line, error) {
	return readCommand(args, func(string) (string, bool) { return "", false })
}

// TestCommandLineErrors: every bad command line is a one-line
// *config.UsageError that names the flag or word, and exits 1.
func TestCommandLineErrors(t *testing.T) {
	cases := []struct {
		name      string
		args      []string
		key       string
		msg       []string // substrings of the message
		showUsage bool
	}{
		{"unknown long flag", []string{"--bogus-flag"}, "--bogus-flag", []string{"unknown flag --bogus-flag", "(ralph_loop --help-all lists all)"}, true},
		{"dry-run with report", []string{"--dry-run", "--report"}, "--report", []string{"--dry-run and --report cannot be used together"}, false},
		{"unknown short flag", []string{"-x"}, "-x", []string{"unknown flag -x", "(ralph_loop --help-all lists all)"}, true},
		{"unknown short in group", []string{"-xv"}, "-xv", []string{"unknown flag -xv", "(ralph_loop --help-all lists all)"}, true},
		{"unknown short after known", []string{"-vx"}, "-vx", []string{"unknown flag -vx", "(ralph_loop --help-all lists all)"}, true},
		{"single-dash long flag", []string{"-monitor"}, "-monitor", []string{"unknown flag -monitor; did you mean --monitor?"}, true},
		{"typo", []string{"--mointor"}, "--mointor", []string{"unknown flag --mointor; did you mean --monitor? (ralph_loop --help-all lists all)"}, true},
		{"typo with a value", []string{"--max-loop=3"}, "--max-loop", []string{"did you mean --max-loops?"}, true},
		{"stray word", []string{"foo"}, "foo", []string{"unexpected argument foo"}, true},
		{"stray word before bad value reported first", []string{"foo", "--timeout", "0"}, "foo", []string{"unexpected argument foo"}, true},
		{"double dash", []string{"--"}, "--", []string{"unexpected argument --"}, true},
		{"go test flag", []string{"-test.v"}, "-test.v", []string{"unknown flag -test.v", "(ralph_loop --help-all lists all)"}, true},
		{"triple dash", []string{"---x"}, "---x", []string{"unknown flag ---x", "(ralph_loop --help-all lists all)"}, true},
		{"calls last word", []string{"--calls"}, "--calls", []string{"--calls requires a value", "integer >= 1"}, false},
		{"short calls last word", []string{"-v", "-c"}, "--calls", []string{"--calls requires a value"}, false},
		{"prompt last word", []string{"-p"}, "--prompt", []string{"--prompt requires a value", "file name"}, false},
		{"allowed tools last word", []string{"--allowed-tools"}, "--allowed-tools", []string{"--allowed-tools requires a value"}, false},
		{"analyze last word", []string{"--analyze"}, "--analyze", []string{"--analyze requires a value", "file name"}, false},
		{"analyze empty", []string{"--analyze", ""}, "--analyze", []string{"--analyze requires a file name"}, false},
		{"pause with resume", []string{"--pause", "--resume"}, "--resume", []string{"--pause and --resume cannot be used together"}, false},
		{"monitor with report", []string{"--monitor", "--report"}, "--report", []string{"--monitor and --report cannot be used together"}, false},
		{"doctor with pause", []string{"--doctor", "--pause"}, "--pause", []string{"--doctor and --pause cannot be used together"}, false},
		{"doctor twice with monitor", []string{"--doctor", "--doctor", "--monitor"}, "--doctor", []string{"--doctor and --doctor cannot be used together"}, false},
		{"doctor with json", []string{"--doctor", "--json"}, "--json", []string{"--json only applies to --report"}, false},
		{"json without report", []string{"--json"}, "--json", []string{"--json only applies to --report"}, false},
		{"live with report", []string{"--live", "--report"}, "--live", []string{"--live does not apply with --report"}, false},
		{"doctor with live", []string{"--doctor", "--live"}, "--live", []string{"--live does not apply with --doctor"}, false},
		{"clean with live", []string{"--clean", "-l"}, "--live", []string{"--live does not apply with --clean"}, false},
		{"run without report", []string{"--run", "r1"}, "--run", []string{"--run only applies to --report"}, false},
		{"run empty", []string{"--report", "--run", ""}, "--run", []string{"--run requires a run id"}, false},
		{"report with status", []string{"--report", "--status"}, "--report", []string{"--report does not apply with --status"}, false},
		{"status with monitor", []string{"--status", "--monitor"}, "--monitor", []string{"--monitor does not apply with --status"}, false},
		{"status with help", []string{"--status", "--help"}, "--help", []string{"--help does not apply with --status"}, false},
		{"status with run", []string{"--status", "--run", "x"}, "--run", []string{"--run does not apply with --status"}, false},
		{"status with keep", []string{"--status", "--keep", "3"}, "--keep", []string{"--keep does not apply with --status"}, false},
		{"status with live", []string{"-s", "--live"}, "--live", []string{"--live does not apply with --status"}, false},
		{"status with stray word", []string{"--status", "now"}, "now", []string{"now"}, true},
		// The loop's settings' values, checked as the line is read.
		{"bad value before status", []string{"--timeout", "0", "--status"}, "--timeout", []string{"Timeout must be"}, false},
		{"bad value after status", []string{"--status", "--timeout", "0"}, "--timeout", []string{"Timeout must be"}, false},
		{"bool flag with value", []string{"--verbose=maybe"}, "--verbose", []string{"Invalid --verbose: 'maybe'; the flag takes no value"}, false},
		{"command switch with value", []string{"--report=maybe"}, "--report", []string{"Invalid --report: 'maybe'; the flag takes no value"}, false},
		// Each option is its command's.
		{"keep without clean", []string{"--keep", "3"}, "--keep", []string{"--keep only applies to --clean"}, false},
		{"keep not a number", []string{"--clean", "--keep", "abc"}, "--keep", []string{"Invalid --keep: 'abc'; expected an integer >= 0 (the agent calls whose logs --clean keeps)"}, false},
		{"keep negative", []string{"--keep", "-1"}, "--keep", []string{"Invalid --keep: '-1'"}, false},
		{"notify-test alone", []string{"--notify-test"}, "--notify-test", []string{"--notify-test only applies to --doctor"}, false},
		{"notify-test with report", []string{"--report", "--notify-test"}, "--notify-test", []string{"--notify-test only applies to --doctor"}, false},
		{"notify-test with status", []string{"--status", "--notify-test"}, "--notify-test", []string{"--notify-test does not apply with --status"}, false},
		{"serve with dashboard", []string{"--serve", "--dashboard"}, "--dashboard", []string{"--dashboard runs the loop and cannot be used with --serve; use --serve to watch a loop without running it"}, false},
		{"dashboard with monitor", []string{"--dashboard", "--monitor"}, "--dashboard", []string{"--dashboard runs the loop and cannot be used with --monitor"}, false},
		{"projects without serve", []string{"--projects", "a"}, "--projects", []string{"--projects only applies to --serve"}, false},
		{"serve with report", []string{"--serve", "--report"}, "--report", []string{"--serve and --report cannot be used together"}, false},
		{"serve with live", []string{"--serve", "--live"}, "--live", []string{"--live does not apply with --serve, which runs no loop; the dashboard shows the live output of the loop it watches"}, false},
		{"serve with a bad address", []string{"--serve", "nohost"}, "--serve", []string{"Invalid --serve: 'nohost'"}, false},
		{"status with dashboard", []string{"--status", "--dashboard"}, "--dashboard", []string{"--dashboard does not apply with --status"}, false},
		{"projects without a folder", []string{"--serve", "--projects"}, "--projects", []string{"--projects requires a value: one or more project folders"}, false},
		{"projects empty", []string{"--serve", "--projects", ""}, "--projects", []string{"--projects requires one or more project folders"}, false},
		// Several refused flags: the first on the line is named.
		{"first refused flag named", []string{"--report", "--keep", "3", "--run", "r1", "--notify-test"}, "--keep", []string{"--keep only applies to --clean"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := pick(tc.args...)
			if err == nil {
				t.Fatal("no error")
			}
			var ue *config.UsageError
			if !errors.As(err, &ue) {
				t.Fatalf("error %T %v is not a *config.UsageError", err, err)
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

// TestCommandLinesAccepted: lines close to the refused ones above.
func TestCommandLinesAccepted(t *testing.T) {
	for _, args := range [][]string{
		{"--prompt", "--status"}, // a value flag takes a dash word
		{"-vl", "-c5"},           // grouped short flags
		{"--timeout", "120", "--status"},
		{"--json", "-s", "--timeout", "5"},
		{"--pause", "--live"}, // --live goes with any command that does not refuse it
		{"--help", "--bogus"}, // --help ends the line
		{"--status=false", "--report", "--json"},
		{"--report", "--json=false", "--doctor=no"},
		{"--dashboard", "localhost:8000", "--live"},
		{"--serve", "--projects", "a", "b/.swarm"},
	} {
		if _, _, err := pick(args...); err != nil {
			t.Errorf("%q: %v", args, err)
		}
	}
}

// TestPickCommand: the command each line asks for.
func TestPickCommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want *command
	}{
		{nil, loopCommand},
		{[]string{"--help"}, helpCommand},
		{[]string{"-h"}, helpCommand},
		{[]string{"--help", "--bogus"}, helpCommand},
		{[]string{"--help-all"}, helpAllCommand},
		{[]string{"--version", "x"}, versionCommand},
		{[]string{"-s"}, statusCommand},
		{[]string{"--status", "--json"}, statusCommand},
		{[]string{"--json", "-s", "--timeout", "5"}, statusCommand},
		{[]string{"--circuit-status"}, circuitStatusCommand},
		{[]string{"--auto-reset-circuit", "--circuit-status"}, circuitStatusCommand},
		{[]string{"--reset-circuit"}, resetCircuitCommand},
		{[]string{"--reset-session"}, resetSessionCommand},
		{[]string{"--init"}, initCommand},
		{[]string{"-m", "--calls", "5"}, monitorCommand},
		{[]string{"-l"}, loopCommand},
		{[]string{"--dashboard"}, loopCommand},
		{[]string{"--pause"}, pauseCommand},
		{[]string{"--resume"}, resumeCommand},
		{[]string{"--report", "--json"}, reportCommand},
		{[]string{"--analyze", "out.log", "--driver", "codex"}, analyzeCommand},
		{[]string{"--status=false"}, loopCommand},
		{[]string{"--doctor", "--driver", "codex"}, doctorCommand},
		{[]string{"--doctor", "--monitor"}, doctorCommand},
		{[]string{"-m", "--doctor"}, doctorCommand},
		{[]string{"--dry-run", "--json"}, dryRunCommand},
		{[]string{"--clean", "--keep", "3"}, cleanCommand},
		{[]string{"--serve", "127.0.0.1:9000"}, serveCommand},
	} {
		c, _, err := pick(tc.args...)
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		if c != tc.want {
			t.Errorf("%q: command %q, want %q", tc.args, c.name(), tc.want.name())
		}
	}
}

// TestCommandOptions: each command's options, read from its flags.
func TestCommandOptions(t *testing.T) {
	read := func(args ...string) *line {
		t.Helper()
		_, l, err := pick(args...)
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		return l
	}
	for _, tc := range []struct {
		name      string
		got, want any
	}{
		{"report", reportOptionsOf(read("--report")), reportOptions{}},
		{"report one run", reportOptionsOf(read("--report", "--run", "r1", "--json")), reportOptions{run: "r1", json: true}},
		{"status", statusOptionsOf(read("--status")), statusOptions{}},
		{"status json", statusOptionsOf(read("--json", "--status")), statusOptions{json: true}},
		{"dry run json", dryRunOptionsOf(read("--dry-run", "--json")), dryRunOptions{json: true}},
		{"clean", cleanOptionsOf(read("--clean")), cleanOptions{keep: -1}},
		{"clean keep", cleanOptionsOf(read("--clean", "--keep", "0")), cleanOptions{keep: 0}},
		{"analyze", analyzeOptionsOf(read("--analyze", "out.log", "--driver", "codex")), analyzeOptions{file: "out.log"}},
		{"doctor", doctorOptionsOf(read("--doctor", "--driver", "codex")), doctorOptions{}},
		{"doctor monitor", doctorOptionsOf(read("--doctor", "--monitor")), doctorOptions{monitor: true}},
		{"monitor doctor", doctorOptionsOf(read("-m", "--doctor", "--notify-test")), doctorOptions{monitor: true, notifyTest: true}},
		{"serve", serveOptionsOf(read("--serve")), serveOptions{}},
		{"serve projects", serveOptionsOf(read("--serve", "--projects", "a", "b/.swarm")), serveOptions{projects: []string{"a", "b/.swarm"}}},
		{"loop", loopOptionsOf(read("--max-loops", "2")), loopOptions{}},
		{"loop dashboard", loopOptionsOf(read("--dashboard", "localhost:8000", "--live")), loopOptions{dashboard: true}},
	} {
		if d := cmp.Diff(tc.want, tc.got, cmp.AllowUnexported(reportOptions{}, statusOptions{}, dryRunOptions{}, cleanOptions{},
			analyzeOptions{}, doctorOptions{}, serveOptions{}, loopOptions{})); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
}

// TestCommandsSettings: a command that runs the loop (or previews its next
// call) has its settings checked strictly; the others warn and use the
// default, so --status works with a broken .ralphrc. --serve ADDR and
// --dashboard ADDR give SERVE_ADDR.
func TestCommandsSettings(t *testing.T) {
	for _, c := range commands {
		want := c == loopCommand || c == monitorCommand || c == dryRunCommand
		if c.loop != want {
			t.Errorf("%q: loop %v, want %v", c.name(), c.loop, want)
		}
	}
	env := func(k string) (string, bool) {
		return map[string]string{"MAX_CALLS_PER_HOUR": "abc"}[k], k == "MAX_CALLS_PER_HOUR"
	}
	for _, tc := range []struct {
		args []string
		addr string
	}{
		{[]string{"--serve"}, "127.0.0.1:8765"},
		{[]string{"--serve", "127.0.0.1:9000"}, "127.0.0.1:9000"},
		{[]string{"--serve=:9001"}, ":9001"},
		{[]string{"--dashboard", "localhost:8000", "--live"}, "localhost:8000"},
	} {
		c, l, err := pick(tc.args...)
		if err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		cfg, _, err := config.Load(&l.settings, c.loop, env, "/p", noFile)
		if c.loop {
			if err == nil {
				t.Errorf("%q: a bad MAX_CALLS_PER_HOUR accepted", tc.args)
			}
			cfg, _, err = config.Load(&l.settings, c.loop, nil, "/p", noFile)
		}
		if err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		if cfg.ServeAddr != tc.addr || cfg.Live != l.has("live") {
			t.Errorf("%q: SERVE_ADDR %q live %v", tc.args, cfg.ServeAddr, cfg.Live)
		}
	}
}

func noFile(string) ([]byte, error) { return nil, fs.ErrNotExist }

// TestHelpAndVersionReadNothing: --help and --version read no
// configuration; only a bad RALPH_DIR, checked before any flag as the bash
// loop checks it, stops them.
func TestHelpAndVersionReadNothing(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"--version"}} {
		c, _, err := readCommand(args, func(k string) (string, bool) { return "abc", k == "MAX_CALLS_PER_HOUR" })
		if err != nil || !c.noConfig {
			t.Errorf("%v: %v, noConfig %v", args, err, c.noConfig)
		}
		_, _, err = readCommand(args, func(k string) (string, bool) { return "x", k == "RALPH_DIR" })
		if err == nil || !strings.Contains(err.Error(), "RALPH_DIR must be") {
			t.Errorf("%v with RALPH_DIR=x: %v", args, err)
		}
	}
}

// TestOptionWordsNameTheirCommands: an option's refusal names the
// commands that take it.
func TestOptionWordsNameTheirCommands(t *testing.T) {
	for _, f := range allFlags() {
		if f.kind != optionFlag {
			continue
		}
		var takers []string
		for _, c := range commands {
			if c.takes(f.Long) && c.flag != nil {
				takers = append(takers, c.name())
			}
		}
		msg := f.refused("--other").Error()
		for _, name := range takers {
			if !strings.Contains(msg, name) {
				t.Errorf("--%s's refusal %q does not name %s, which takes it", f.Long, msg, name)
			}
		}
	}
}

// FuzzCommandLine: arbitrary command lines never panic, and an error is
// always a one-line *config.UsageError.
func FuzzCommandLine(f *testing.F) {
	for _, s := range []string{"", "--calls 5", "-c", "--bogus", "-vlx", "--timeout=0x10", "-- x", "-test.v",
		"--analyze f --driver codex", "--report --json", "--pause --resume", "-p --status", "--delay 1d",
		"--serve --projects a b", "--dashboard :1 --live", "--doctor --monitor --notify-test"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		args := strings.Split(s, " ")
		if s == "" {
			args = nil
		}
		c, l, err := pick(args...)
		if err == nil && !c.noConfig {
			_, _, err = config.Load(&l.settings, c.loop, nil, "/p", noFile)
		}
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("multi-line error for %q: %q", s, err)
			}
			if _, ok := err.(*config.UsageError); !ok {
				t.Errorf("error %T for %q", err, s)
			}
		}
	})
}
