package config

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite ../../docs/CONFIG.md")

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/config -update)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got; go test ./internal/config -update rewrites it):\n%s", path, diff)
	}
}

// TestConfigDoc keeps docs/CONFIG.md in step with the key table: every
// setting, and every setting's flag.
func TestConfigDoc(t *testing.T) {
	doc := configDoc()
	golden(t, filepath.Join("..", "..", "docs", "CONFIG.md"), []byte(doc))
	for _, f := range Flags() {
		if !strings.Contains(doc, "--"+f.Long+"`") {
			t.Errorf("docs/CONFIG.md does not name --%s", f.Long)
		}
	}
}

func configDoc() string {
	var b strings.Builder
	b.WriteString(`# ralph_loop configuration reference

Generated from ` + "`internal/config/keys.go`" + ` by ` + "`go test ./internal/config -update`" + `; do not edit by hand.

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
		if k.flag != nil {
			flagCol = "`--" + k.flag.long + "`"
			if k.flag.short != "" {
				flagCol = "`-" + k.flag.short + "`, " + flagCol
			}
		}
		rcCol := "`" + k.name + "`"
		switch {
		case !k.rc && len(k.env) == 0:
			rcCol += " (command line only)"
		case !k.rc:
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
`)
	fmt.Fprintf(&b, "| `-%s, --%s` | flag | %s |\n", liveFlag.short, liveFlag.long, liveFlag.help)
	b.WriteString(`
The commands and their options (` + "`--status`" + `, ` + "`--report --run ID`" + `, ` + "`--clean --keep N`" + `, …) are
the command line's, not settings: ` + "`ralph_loop --help-all`" + ` and README's flag table list them.
`)
	return b.String()
}
