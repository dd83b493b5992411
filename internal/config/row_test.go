package config

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// The person's own .ralphrc (under an absolute RALPH_DIR outside the
// project), which may set every key, the trusted ones included.
const ownDir = "/home/me/.ralph"

// rowSetup loads with RALPH_DIR=ownDir, rc as its .ralphrc, env and args.
func rowSetup(t *testing.T, rcText string, env map[string]string, args ...string) (*Config, error) {
	t.Helper()
	e := map[string]string{"RALPH_DIR": ownDir}
	for k, v := range env {
		e[k] = v
	}
	w := &world{env: e, files: map[string]string{}}
	if rcText != "" {
		w.files[ownDir+"/.ralphrc"] = rcText
	}
	c, _, err := loadLine(args, w.lookup, proj, w.read)
	return c, err
}

// candidates are values tried on each key, after its default, to find two
// that it accepts (for a key whose default is empty: at least one).
var candidates = []string{"1", "2", "x", "y", "true", "codex", "a;b", "http://h/x", "0123456789abcdef0123",
	"127.0.0.1:1", "docker", "3s", "stdin", "arg", "block", "enhanced", "halt", "wait", "text", "/opt/x", "*:soft:90"}

// accepted are up to two distinct values Load accepts for k from the
// environment, with the loop's strict checks.
func accepted(t *testing.T, k *keySpec) []string {
	var out []string
	for _, v := range append([]string{k.def}, candidates...) {
		if v == "" || slices.Contains(out, v) {
			continue
		}
		var c *Config
		var err error
		want := sourceEnv
		if len(k.env) == 0 { // a key of the command line only
			want = sourceFlag
			c, err = rowSetup(t, "", nil, flagArgs(k, v)...)
		} else {
			c, err = rowSetup(t, "", map[string]string{k.env[0]: v})
		}
		if err == nil && c.Sources[k.name].Kind == want {
			out = append(out, v)
		}
		if len(out) == 2 {
			break
		}
	}
	return out
}

// flagArgs sets k to v on the command line: the flag and its value, or the
// switch alone (v is then unused).
func flagArgs(k *keySpec, v string) []string {
	if k.flag.arg == "" {
		return []string{"--" + k.flag.long}
	}
	return []string{"--" + k.flag.long, v}
}

// sameValues compares two configurations but for where their values came from.
func sameValues(a, b *Config) bool {
	x, y := *a, *b
	x.Sources, y.Sources, x.RCFile, y.RCFile, x.RCOwn, y.RCOwn = nil, nil, "", "", false, false
	return reflect.DeepEqual(x, y)
}

// checkRow checks that k is read from .ralphrc, the environment (each of its
// names) and its flag, with the documented precedence: flag > environment >
// .ralphrc > default, the winner's value in effect.
func checkRow(t *testing.T, k *keySpec) {
	t.Helper()
	vals := accepted(t, k)
	if len(vals) == 0 {
		t.Errorf("%s: none of %q is accepted; add a value it takes to candidates", k.name, candidates)
		return
	}
	a, b := vals[0], vals[len(vals)-1]
	line := k.name + "=" + a + "\n"
	load := func(rcText string, env map[string]string, args ...string) *Config {
		t.Helper()
		c, err := rowSetup(t, rcText, env, args...)
		if err != nil {
			t.Fatalf("%s: Load(rc %q, env %v, args %q): %v", k.name, rcText, env, args, err)
		}
		return c
	}
	if src := load("", nil).Sources[k.name]; src.Kind != SourceDefault {
		t.Errorf("%s: with nothing set its source is %v, want default", k.name, src)
	}
	if k.rc {
		if src := load(line, nil).Sources[k.name]; src.Kind != sourceFile {
			t.Errorf("%s=%s in .ralphrc: source %v, want the .ralphrc", k.name, a, src)
		}
	}
	for _, name := range k.env {
		env := map[string]string{name: b}
		c := load(line, env)
		if src := c.Sources[k.name]; src.Kind != sourceEnv || src.Name != name {
			t.Errorf("%s=%s in .ralphrc, %s=%s in the environment: source %v, want env %s", k.name, a, name, b, src, name)
		}
		if !sameValues(c, load("", env)) {
			t.Errorf("%s: the environment's %s=%s does not win over the .ralphrc's %s", k.name, name, b, a)
		}
	}
	if k.flag == nil {
		return
	}
	args := flagArgs(k, a)
	env := map[string]string{}
	if len(k.env) > 0 {
		env[k.env[0]] = b
	}
	c := load(line, env, args...)
	if src := c.Sources[k.name]; src.Kind != sourceFlag || src.Name != "--"+k.flag.long {
		t.Errorf("%s: %q over the environment and .ralphrc: source %v, want flag --%s", k.name, args, src, k.flag.long)
	}
	if !sameValues(c, load("", nil, args...)) {
		t.Errorf("%s: %q does not win over the environment and .ralphrc", k.name, args)
	}
}

// checkShown checks that k is in docs/CONFIG.md's table and, with a flag,
// that Flags gives the flag with the key's default in its help
// (cmd/ralph_loop's tests check --help-all and README list every flag of
// Flags).
func checkShown(t *testing.T, k *keySpec) {
	t.Helper()
	if !strings.Contains(configDoc(), "| `"+k.name+"` ") {
		t.Errorf("docs/CONFIG.md has no row for %s", k.name)
	}
	if k.flag == nil {
		return
	}
	var f *Flag
	for _, g := range Flags() {
		if g.Long == k.flag.long {
			f = &g
		}
	}
	if f == nil || f.Key != k.name {
		t.Fatalf("--%s is not the flag of %s", k.flag.long, k.name)
	}
	if f.Arg != "" && !k.flag.noDefault && k.def != "" && !strings.Contains(f.Help, "(default: ") {
		t.Errorf("--%s's help does not show %s's default: %q", k.flag.long, k.name, f.Help)
	}
}

// TestEveryRow: every key of the table is documented, and read from each
// of its sources with the one precedence.
func TestEveryRow(t *testing.T) {
	for _, k := range keys {
		t.Run(k.name, func(t *testing.T) {
			checkShown(t, k)
			checkRow(t, k)
		})
	}
}

// useKeys makes ks the key table for the rest of the test: the indexes
// are made from it as they are at start-up.
func useKeys(t *testing.T, ks []*keySpec) {
	oldKeys, oldIndex, oldFlagKeys := keys, keyIndex, flagKeys
	t.Cleanup(func() { keys, keyIndex, flagKeys = oldKeys, oldIndex, oldFlagKeys })
	keys, keyIndex, flagKeys = ks, indexKeys(ks), indexFlagKeys(ks)
}

// TestAddingARowIsEnough: a new setting with a flag is one row of the key
// table. Without touching anything else, its flag is among Flags with its
// default (so the command line reads it, and --help-all and README's table
// list it last in its group: cmd/ralph_loop's TestEverySettingFlagShown),
// docs/CONFIG.md documents it, and .ralphrc, the environment and the flag
// set it with the usual precedence. (Its use needs a field of Config; here
// the row's setter keeps the value aside.)
func TestAddingARowIsEnough(t *testing.T) {
	var got time.Duration
	row := &keySpec{name: "MADE_UP_WAIT", env: []string{"MADE_UP_WAIT", "OLD_MADE_UP_WAIT"}, rc: true, def: "2m",
		flag:    &flagDef{long: "made-up-wait", arg: "DURATION", group: GroupLoop, help: "give up on the made-up thing after this long"},
		accepts: "duration", doc: "how long the made-up thing may take",
		set: func(c *Config, v string) error {
			d, err := parseDuration(v)
			if err != nil {
				return reject("expected a duration")
			}
			got = d
			return nil
		}}
	useKeys(t, append(slices.Clone(keys), row))

	checkShown(t, row)
	checkRow(t, row)
	if _, err := rowSetup(t, "", map[string]string{"MADE_UP_WAIT": "9s"}, "--made-up-wait", "3m"); err != nil || got != 3*time.Minute {
		t.Errorf("--made-up-wait 3m over MADE_UP_WAIT=9s: %v, %v", got, err)
	}
	if _, err := rowSetup(t, "", nil, "--made-up-wait", "soon"); err == nil || err.Error() != "Invalid --made-up-wait: 'soon'; expected a duration" {
		t.Errorf("--made-up-wait soon: %v", err)
	}
}
