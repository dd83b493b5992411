package config

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"
)

var update = flag.Bool("update", false, "rewrite testdata/usage.golden and ../docs/CONFIG.md")

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./config -update)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got; go test ./config -update rewrites it):\n%s", path, diff)
	}
}

func TestUsageGolden(t *testing.T) {
	var b bytes.Buffer
	Usage(&b)
	golden(t, filepath.Join("testdata", "usage.golden"), b.Bytes())
}

// TestUsageNamesEveryFlag: each flag the parser knows is documented, with
// its short form, and the bash loop's flags are all there.
func TestUsageNamesEveryFlag(t *testing.T) {
	var b bytes.Buffer
	Usage(&b)
	text := b.String()
	newFlagSet().VisitAll(func(f *pflag.Flag) {
		want := "--" + f.Name
		if f.Shorthand != "" {
			want = "-" + f.Shorthand + ", --" + f.Name
		}
		if !strings.Contains(text, "  "+want) {
			t.Errorf("usage lacks %q", want)
		}
	})
	for _, f := range []string{"-h, --help", "-c, --calls NUM", "-p, --prompt FILE", "-s, --status", "-m, --monitor",
		"-v, --verbose", "-l, --live", "-t, --timeout MIN", "--reset-circuit", "--circuit-status",
		"--auto-reset-circuit", "--reset-session", "--output-format FORMAT", "--allowed-tools TOOLS",
		"--no-continue", "--session-expiry HOURS", "Usage:"} {
		if !strings.Contains(text, f) {
			t.Errorf("usage lacks the bash loop's flag %q", f)
		}
	}
	for i, line := range strings.Split(text, "\n") {
		if len(line) > 100 {
			t.Errorf("usage line %d is %d columns wide", i+1, len(line))
		}
	}
}

// TestConfigDoc keeps docs/CONFIG.md in step with the key table.
func TestConfigDoc(t *testing.T) {
	golden(t, filepath.Join("..", "docs", "CONFIG.md"), []byte(configDoc()))
}

func configDoc() string {
	var b strings.Builder
	b.WriteString(`# ralph_loop configuration reference

Generated from ` + "`config/keys.go`" + ` by ` + "`go test ./config -update`" + `; do not edit by hand.

Every key can be set, from lowest to highest precedence, by its built-in
default, a line ` + "`KEY=value`" + ` in ` + "`.ralph/.ralphrc`" + ` (or, when that file does not
exist, ` + "`.ralphrc`" + ` in the project root), an environment variable, and a
command-line flag where one exists. The same order holds for every key.
Where several environment names are listed, the first one that is set and
non-empty wins. An empty value in the environment or in ` + "`.ralphrc`" + ` counts as
unset, except ` + "`CLAUDE_PERMISSION_MODE=`" + ` in the environment, which means
` + "`bypassPermissions`" + `.

` + "`.ralphrc`" + ` is read as data, never run: only ` + "`KEY=value`" + ` lines with a key
from the table below; one pair of outer quotes is removed; a whole value of
` + "`${NAME:-default}`" + `, ` + "`${NAME}`" + ` or ` + "`$NAME`" + ` takes NAME from earlier lines of the file,
then the environment; lines containing ` + "`$(`" + ` or a backtick are rejected; other
lines (` + "`export KEY=value`" + ` included) are skipped with a warning naming file and line.
File names in ` + "`.ralphrc`" + ` are relative to ` + "`.ralph/`" + `; from flags and the
environment they are relative to the project directory.

A project's ` + "`.ralphrc`" + ` comes with the repository, so it cannot expose the loop:
` + "`SERVE_TOKEN`" + ` and ` + "`SERVE_CONTROL`" + ` from it are ignored, and so is a ` + "`SERVE_ADDR`" + ` that
is not a loopback address, each with one warning line. Set them with a flag or in the
environment (or in a ` + "`.ralphrc`" + ` of your own under an absolute ` + "`RALPH_DIR`" + ` outside the
project).

Booleans accept true/false, yes/no, on/off, 1/0. Integers are plain decimal
digits. A duration is ` + "`30s`" + `, ` + "`5m`" + `, ` + "`6h`" + `, ` + "`1d`" + `, a combination such as
` + "`1h30m`" + `, or a plain number of seconds. An invalid value stops the loop at
start-up with exit code 1 and a message naming the key, the value, where it
came from and what is accepted; ` + "`--status`" + ` and the other maintenance commands
report it as a warning and use the default.

| Key | Default | Environment | Flag | Accepted | Meaning |
|---|---|---|---|---|---|
`)
	for _, k := range keys {
		def := k.def
		switch {
		case k.path && def != "":
			def = ".ralph/" + def
		case k.name == "IDLE_BACKOFF":
			def = "2 with IDLE_DELAY"
		}
		if def == "" {
			def = "(empty)"
		}
		flagCol := ""
		if k.flag != "" {
			flagCol = "`--" + k.flag + "`"
			if f := newFlagSet().Lookup(k.flag); f != nil && f.Shorthand != "" {
				flagCol = "`-" + f.Shorthand + "`, " + flagCol
			}
		}
		rcCol := "`" + k.name + "`"
		if !k.rc {
			rcCol += " (env only)"
		}
		env := make([]string, len(k.env))
		for i, e := range k.env {
			env[i] = "`" + e + "`"
		}
		fmt.Fprintf(&b, "| %s | `%s` | %s | %s | %s | %s |\n", rcCol, def, strings.Join(env, ", "), flagCol,
			strings.ReplaceAll(k.accepts, "|", `\|`), k.doc)
	}
	b.WriteString(`
Notes:
- ` + "`--no-continue`" + ` sets ` + "`SESSION_CONTINUITY=false`" + `, ` + "`--verbose`" + ` sets ` + "`RALPH_VERBOSE=true`" + `,
  ` + "`--auto-reset-circuit`" + ` sets ` + "`CB_AUTO_RESET=true`" + `.
- ` + "`ALLOWED_TOOLS`" + ` names are checked only for the claude-code driver: exact Claude Code
  tool names (` + "`" + strings.Join(claudeTools, "`, `") + "`" + `) or any ` + "`Bash(...)`" + ` pattern.
  Other drivers ignore the list.
- ` + "`REVIEW_ENABLED=true`" + ` with ` + "`REVIEW_MODE=off`" + ` means ` + "`REVIEW_MODE=enhanced`" + `; afterwards
  ` + "`REVIEW_ENABLED`" + ` is true exactly when ` + "`REVIEW_MODE`" + ` is not ` + "`off`" + `.
- ` + "`PLATFORM_DRIVER=command`" + ` needs ` + "`AGENT_COMMAND`" + `, split into words like a shell would
  (quotes, backslashes, ` + "`$NAME`" + ` from the environment), never run through a shell.

## Not in .ralphrc

| Name | Where | Meaning |
|---|---|---|
| ` + "`RALPH_DIR`" + ` | environment | the Ralph directory: ` + "`.ralph`" + ` (default) or an absolute path without ` + "`..`" + ` |
| ` + "`-l`, `--live`" + ` | flag | stream the agent's output |
| ` + "`-m`, `--monitor`" + ` | flag | run inside tmux with a monitor |
| ` + "`-s`, `--status` [`--json`]" + ` | flag | print status.json and a summary, then exit |
| ` + "`--circuit-status`, `--reset-circuit`, `--reset-session`" + ` | flag | breaker and session maintenance, then exit |
| ` + "`--pause`, `--resume`" + ` | flag | pause or resume a running loop, then exit |
| ` + "`--report` [`--json`] [`--run ID`]" + ` | flag | the last run, per-task receipts and one line per run (or run ID alone), then exit |
| ` + "`--dry-run` [`--json`]" + ` | flag | start-up checks and the next agent call, shown and not made; writes nothing ([DRY-RUN.md](DRY-RUN.md)) |
| ` + "`--analyze FILE` [`--driver NAME`]" + ` | flag | analyse a saved agent output, then exit |
| ` + "`--doctor` [`--monitor`] [`--notify-test`]" + ` | flag | pre-flight checks for an unattended run, then exit; ` + "`--notify-test`" + ` sends a test notification to each notifier ([NOTIFY.md](NOTIFY.md)) |
| ` + "`--version`, `-h`, `--help`" + ` | flag | version or help, then exit |
`)
	return b.String()
}
