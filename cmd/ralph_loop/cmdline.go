package main

import (
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/ralphloop/ralph_loop/internal/clip"
	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/typo"
)

// The command line is one flat line of flags, as the bash loop's, read left
// to right: a setting's flag (package config's key rows: --calls,
// --timeout…) gives that setting; a command's flag names the command
// (--report) or gives it an option (--run ID). Each command declares its
// own flags in its file (commands.go lists the commands); readLine reads
// them all, and the command picked says what it makes of them
// (pickCommand).

// flagKind is what a command's flag does on the command line.
type flagKind uint8

const (
	// optionFlag gives the command an option (--run ID, --json): one that
	// another command does not take is refused.
	optionFlag flagKind = iota
	// commandFlag names a command (--report); two cannot go together.
	commandFlag
	// atOnceFlag names a command that acts at once (--help, --init):
	// nothing after it is read, as the bash loop does.
	atOnceFlag
	// settingFlag sets a setting (config.Flags).
	settingFlag
)

// flagSpec is one flag of the command line: how --help shows it, and how it
// is read.
type flagSpec struct {
	config.Flag
	kind flagKind
	// check is a value's own rule, checked as it is met, so the first
	// bad word on the line is the one reported.
	check func(value string) error
	// refused is an option's words when it is given with a command that
	// does not take it (with: that command's flag, "" for the loop).
	refused func(with string) error
	// setting is the setting a command's value also gives (--serve ADDR
	// gives SERVE_ADDR).
	setting string
}

// given is one flag as the line gives it: its name without the dashes
// and its value ("true" for a switch).
type given struct {
	name, value string
}

// line is the command line as read: the settings it gives (for
// config.Load) and every flag met, in order.
type line struct {
	settings config.FlagValues
	flags    []given
	// atOnce is the flag of a command that acts at once, where reading
	// stopped ("--help"), if any.
	atOnce string
}

// has reports whether the line gives the flag named name.
func (l *line) has(name string) bool {
	for _, g := range l.flags {
		if g.name == name {
			return true
		}
	}
	return false
}

// value is the last value the line gives the flag named name ("" for
// none).
func (l *line) value(name string) string {
	v := ""
	for _, g := range l.flags {
		if g.name == name {
			v = g.value
		}
	}
	return v
}

// values are every value the line gives the flag named name, in order.
func (l *line) values(name string) []string {
	var vs []string
	for _, g := range l.flags {
		if g.name == name {
			vs = append(vs, g.value)
		}
	}
	return vs
}

// commandFlags are the flags that name a command, in the order given
// ("--report").
func (l *line) commandFlags() []string {
	var out []string
	for _, g := range l.flags {
		if flagsByName()[g.name].kind == commandFlag {
			out = append(out, "--"+g.name)
		}
	}
	return out
}

// allFlags are every flag of the command line: the settings' and the
// commands'.
func allFlags() []*flagSpec {
	var out []*flagSpec
	for _, f := range config.Flags() {
		out = append(out, &flagSpec{Flag: f, kind: settingFlag})
	}
	for _, c := range commands {
		if c.flag != nil {
			out = append(out, c.flag)
		}
		out = append(out, c.options...)
	}
	return out
}

// flagsByName are allFlags by name, made when first read rather than at
// start-up (the sentinel reads no flag).
var flagsByName = sync.OnceValue(func() map[string]*flagSpec {
	m := map[string]*flagSpec{}
	for _, f := range allFlags() {
		if m[f.Long] != nil {
			panic("ralph_loop: two flags named --" + f.Long) // a bug in the tables
		}
		m[f.Long] = f
	}
	return m
})

// noAddr is the value pflag gives --serve and --dashboard without an
// address: the configured SERVE_ADDR applies.
const noAddr = "\x00"

// errStop ends reading at a command that acts at once.
var errStop = errors.New("stop reading")

func newFlagSet() *pflag.FlagSet {
	fs := pflag.NewFlagSet("ralph_loop", pflag.ContinueOnError)
	fs.SetOutput(discard{})
	fs.Usage = func() {}
	fs.SortFlags = false
	fs.SetInterspersed(false) // a stray word ends parsing and is reported in order
	for _, f := range allFlags() {
		if f.Arg == "" {
			fs.BoolP(f.Long, f.Short, false, "")
		} else {
			fs.StringP(f.Long, f.Short, "", "")
		}
		if f.Optional {
			fs.Lookup(f.Long).NoOptDefVal = noAddr
		}
	}
	return fs
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// readLine reads the command line left to right. Values are checked as
// they are met, so the first bad word is the one reported.
func readLine(args []string) (*line, error) {
	fs := newFlagSet()
	args = optionalValues(args)
	if err := rejectGotestArgs(fs, args); err != nil {
		return nil, err
	}
	l := &line{}
	err := fs.ParseAll(args, func(pf *pflag.Flag, value string) error { return l.take(flagsByName()[pf.Name], value) })
	if err != nil && !errors.Is(err, errStop) {
		return nil, translateParseError(err, args)
	}
	if err == nil {
		// With interspersed parsing off, pflag stops at the first stray word
		// or at "--"; the bash loop knows neither.
		if fs.ArgsLenAtDash() >= 0 {
			return nil, unknownOption("--")
		}
		if rest := fs.Args(); len(rest) > 0 {
			return nil, unknownOption(rest[0])
		}
	}
	return l, nil
}

// take reads one flag of the line.
func (l *line) take(f *flagSpec, value string) error {
	name := "--" + f.Long
	if f.kind == settingFlag {
		if err := l.settings.Set(f.Long, value); err != nil {
			return err
		}
		l.flags = append(l.flags, given{f.Long, value})
		return nil
	}
	if f.Arg == "" { // a command's switch: given only when true
		on, err := config.SwitchValue(name, value)
		if err != nil || !on {
			return err
		}
		value = "true"
	} else if f.check != nil {
		if err := f.check(value); err != nil {
			return err
		}
	}
	if f.setting != "" && value != noAddr {
		if err := l.settings.SetKey(f.setting, value, name); err != nil {
			return err
		}
	}
	l.flags = append(l.flags, given{f.Long, value})
	if f.kind == atOnceFlag {
		l.atOnce = name
		return errStop
	}
	return nil
}

// required is the check of a value that may not be empty: err when it is.
func required(err error) func(string) error {
	return func(v string) error {
		if v == "" {
			return err
		}
		return nil
	}
}

// flagError is a one-line usage error about flag.
func flagError(flag, msg string) *config.UsageError {
	return &config.UsageError{Key: flag, Msg: msg}
}

// optionalValues rewrites the words that pflag cannot read as flag values:
// the address after --serve or --dashboard (which may be left out) and the
// folders after --projects (one or more).
func optionalValues(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		out = append(out, a)
		switch a {
		case "--serve", "--dashboard":
			if i+1 < len(args) && args[i+1] != "" && !strings.HasPrefix(args[i+1], "-") {
				out[len(out)-1] = a + "=" + args[i+1]
				i++
			}
		case "--projects":
			out = out[:len(out)-1]
			n := 0
			for i+1 < len(args) && args[i+1] != "" && !strings.HasPrefix(args[i+1], "-") {
				out = append(out, "--projects="+args[i+1])
				i++
				n++
			}
			if n == 0 {
				out = append(out, a)
			}
		case "--":
			return append(out, args[i+1:]...)
		}
	}
	return out
}

// unknownOption is the one-line error for an unknown flag or a stray
// word, with the nearest known flag when the word looks like a typo of one.
func unknownOption(word string) *config.UsageError {
	const more = " (ralph_loop --help-all lists all)"
	if !strings.HasPrefix(word, "-") || word == "--" {
		return &config.UsageError{Key: word, Unknown: true, Msg: "unexpected argument " + clip.Value(word) + "; ralph_loop takes only flags" + more}
	}
	msg := "unknown flag " + clip.Value(word)
	name := "--" + strings.TrimLeft(strings.SplitN(word, "=", 2)[0], "-")
	if s := typo.Nearest(name, flagNames()); s != "" && s != word {
		msg += "; did you mean " + s + "?"
	}
	return &config.UsageError{Key: word, Unknown: true, Msg: msg + more}
}

// flagNames are the long flags, "--name", sorted.
func flagNames() []string {
	var names []string
	for name := range flagsByName() {
		names = append(names, "--"+name)
	}
	slices.Sort(names)
	return names
}

// translateParseError words pflag's errors the bash loop's way.
func translateParseError(err error, args []string) error {
	var ue *config.UsageError
	if errors.As(err, &ue) {
		return ue
	}
	var ne *pflag.NotExistError
	if errors.As(err, &ne) {
		if group := ne.GetSpecifiedShortnames(); group != "" {
			// Name the whole word as typed ("-monitor", "-vx"), as the
			// bash loop does; pflag only knows the unparsed rest of it.
			for _, a := range args {
				if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.HasSuffix(a, group) {
					return unknownOption(a)
				}
			}
			return unknownOption("-" + group)
		}
		return unknownOption("--" + ne.GetSpecifiedName())
	}
	var se *pflag.InvalidSyntaxError
	if errors.As(err, &se) {
		return unknownOption(se.GetSpecifiedFlag())
	}
	var ve *pflag.ValueRequiredError
	if errors.As(err, &ve) {
		name := "--" + ve.GetFlag().Name
		accepted := flagsByName()[ve.GetFlag().Name].Accepts
		if accepted == "" {
			accepted = "a value"
		}
		return &config.UsageError{Key: name, Msg: name + " requires a value: " + accepted}
	}
	return &config.UsageError{Msg: clip.Value(err.Error())}
}

// rejectGotestArgs reports "-test.*" words in flag position: pflag would skip
// them silently (it reserves them for go test).
func rejectGotestArgs(fs *pflag.FlagSet, args []string) error {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--" || len(a) < 2 || a[0] != '-':
			return nil // parsing stops here
		case strings.HasPrefix(a, "-test."):
			return unknownOption(a)
		case strings.HasPrefix(a, "--"):
			if strings.Contains(a, "=") {
				continue
			}
			if f := fs.Lookup(a[2:]); f != nil && f.NoOptDefVal == "" {
				i++ // the next word is this flag's value
			}
		default:
			for j := 1; j < len(a); j++ {
				f := fs.ShorthandLookup(a[j : j+1])
				if f == nil {
					return nil // pflag reports it
				}
				if f.NoOptDefVal == "" {
					if j == len(a)-1 {
						i++
					}
					break
				}
			}
		}
	}
	return nil
}
