package config

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// flagValue is a config value given on the command line.
type flagValue struct {
	value string
	flag  string // "--calls"
}

// cli is the result of reading the command line.
type cli struct {
	action      string   // the command's flag without dashes, "" for the loop
	modes       []string // non-loop action flags in order ("--pause", ...)
	values      map[string]flagValue
	live        bool
	json        bool
	status      bool   // --status: read the rest of the line for --json
	actionFlag  string // the immediate action's flag ("--help")
	analyzeFile string
	reportRun   string
	answer      string // --answer TEXT
	monitor     bool   // --doctor --monitor
	keep        int    // --keep N, -1 when not given
	dashboard   bool   // --dashboard [ADDR]
	projects    []string
	notifyTest  bool // --doctor --notify-test
}

// noAddr is the value pflag gives --serve and --dashboard without an
// address: the configured SERVE_ADDR applies.
const noAddr = "\x00"

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

// errStop ends parsing at an action that acts at once, as the bash loop
// does: later words are never looked at.
var errStop = errors.New("stop parsing")

// immediate are the actions that end parsing where they stand.
var immediate = map[string]bool{
	"help": true, "help-all": true, "version": true, "circuit-status": true,
	"reset-circuit": true, "reset-session": true, "init": true,
}

func newFlagSet() *pflag.FlagSet {
	fs := pflag.NewFlagSet("ralph_loop", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.SortFlags = false
	fs.SetInterspersed(false) // a stray word ends parsing and is reported in order
	for _, f := range flagDefs {
		if f.arg == "" {
			fs.BoolP(f.long, f.short, false, "")
		} else {
			fs.StringP(f.long, f.short, "", "")
		}
	}
	fs.Lookup("serve").NoOptDefVal = noAddr
	fs.Lookup("dashboard").NoOptDefVal = noAddr
	return fs
}

// parseArgs reads the command line left to right. Value flags are checked
// as they are met, so the first bad word is the one reported.
func parseArgs(args []string) (*cli, error) {
	fs := newFlagSet()
	args = optionalValues(args)
	if err := rejectGotestArgs(fs, args); err != nil {
		return nil, err
	}
	st := &cli{values: map[string]flagValue{}, keep: -1}
	err := fs.ParseAll(args, func(f *pflag.Flag, value string) error {
		return st.apply(f, value)
	})
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
	if st.status {
		return st, statusOnly(st)
	}
	if st.action != "" {
		return st, nil // an immediate action wins over everything else
	}
	return st, st.pickMode()
}

// pickMode turns the mode flags into the one action of the command line
// and refuses the flags that do not go with it.
func (st *cli) pickMode() error {
	if len(st.modes) == 2 && st.modes[0] != st.modes[1] && doctorMonitor(st.modes) {
		// --doctor --monitor checks what a monitored run needs (tmux).
		st.modes, st.monitor = []string{"--doctor"}, true
	}
	if len(st.modes) > 1 {
		return &UsageError{Key: st.modes[1], Msg: fmt.Sprintf("%s and %s cannot be used together", st.modes[0], st.modes[1])}
	}
	if len(st.modes) == 1 {
		st.action = strings.TrimPrefix(st.modes[0], "--")
	}
	if st.reportRun != "" && st.action != "report" {
		return &UsageError{Key: "--run", Msg: "--run only applies to --report"}
	}
	if st.keep >= 0 && st.action != "clean" {
		return &UsageError{Key: "--keep", Msg: "--keep only applies to --clean"}
	}
	if st.live && (st.action == "report" || st.action == "doctor" || st.action == "clean" || st.action == "answer") {
		return &UsageError{Key: "--live", Msg: fmt.Sprintf("--live does not apply with %s (it shows a running call's output); drop --live", st.modes[0])}
	}
	if err := st.serveFlags(); err != nil {
		return err
	}
	if st.notifyTest && st.action != "doctor" {
		return &UsageError{Key: "--notify-test", Msg: "--notify-test only applies to --doctor"}
	}
	if st.json && st.action != "report" && st.action != "dry-run" {
		return &UsageError{Key: "--json", Msg: "--json only applies to --report, --status and --dry-run"}
	}
	return nil
}

func (st *cli) apply(f *pflag.Flag, value string) error {
	name := "--" + f.Name
	if f.Value.Type() == "bool" {
		b, ok := parseBool(value)
		if !ok {
			return &UsageError{Key: name, Value: value, Source: Source{Kind: sourceFlag, Name: name},
				Accepted: "no value", Msg: fmt.Sprintf("Invalid %s: '%s'; the flag takes no value", name, show(value))}
		}
		if immediate[f.Name] {
			if !b {
				return nil
			}
			st.action, st.actionFlag = f.Name, name
			return errStop
		}
		switch f.Name {
		case "status":
			st.status = b
		case "monitor", "pause", "resume", "report", "doctor", "dry-run", "clean":
			if b {
				st.modes = append(st.modes, name)
			}
		case "live":
			st.live = b
		case "json":
			st.json = b
		case "notify-test":
			st.notifyTest = b
		}
		if fd := flagByName[f.Name]; fd.set != nil {
			st.values[fd.set.name] = flagValue{value: fmt.Sprint(b != fd.negate), flag: name}
		}
		return nil
	}
	if done, err := st.commandValue(f.Name, name, value); done {
		return err
	}
	spec := flagByName[f.Name].set
	var scratch Config
	if err := spec.set(&scratch, value); err != nil {
		return flagValueError(name, value, err)
	}
	st.values[spec.name] = flagValue{value: value, flag: name}
	return nil
}

// commandValue reads the flags whose value belongs to a command rather than
// to the configuration (--analyze FILE, --run ID, --keep N); done is false
// for any other flag.
func (st *cli) commandValue(flag, name, value string) (done bool, err error) {
	switch flag {
	case "analyze":
		if value == "" {
			return true, &UsageError{Key: name, Source: Source{Kind: sourceFlag, Name: name}, Accepted: "a file name",
				Msg: "--analyze requires a file name (a saved agent output)"}
		}
		st.analyzeFile = value
		st.modes = append(st.modes, name)
	case "answer":
		if strings.TrimSpace(value) == "" {
			return true, &UsageError{Key: name, Source: Source{Kind: sourceFlag, Name: name}, Accepted: "the answer's text",
				Msg: "--answer requires your answer to the agent's question, in quotes: ralph_loop --answer \"SQLite, one file\""}
		}
		st.answer = value
		st.modes = append(st.modes, name)
	case "run":
		if value == "" {
			return true, &UsageError{Key: name, Source: Source{Kind: sourceFlag, Name: name}, Accepted: "a run id",
				Msg: "--run requires a run id (ralph_loop --report lists them)"}
		}
		st.reportRun = value
	case "serve", "dashboard":
		if value != noAddr {
			var scratch Config
			if err := addrSetter(&scratch, value); err != nil {
				return true, flagValueError(name, value, err)
			}
			st.values["SERVE_ADDR"] = flagValue{value: value, flag: name}
		}
		if flag == "serve" {
			st.modes = append(st.modes, name)
		} else {
			st.dashboard = true
		}
	case "projects":
		if value == "" {
			return true, &UsageError{Key: name, Source: Source{Kind: sourceFlag, Name: name}, Accepted: "one or more folders",
				Msg: "--projects requires one or more project folders (each holding .ralph/), or a folder of worktrees"}
		}
		st.projects = append(st.projects, value)
	case "keep":
		n, err := strconv.Atoi(value)
		if err != nil || n < 0 {
			return true, &UsageError{Key: name, Value: value, Source: Source{Kind: sourceFlag, Name: name}, Accepted: "integer >= 0",
				Msg: fmt.Sprintf("Invalid --keep: '%s'; expected an integer >= 0 (the agent calls whose logs --clean keeps)", show(value))}
		}
		st.keep = n
	default:
		return false, nil
	}
	return true, nil
}

// serveFlags refuses --dashboard and --projects where they do not apply.
func (st *cli) serveFlags() error {
	if st.dashboard && st.action != "" {
		return &UsageError{Key: "--dashboard", Msg: fmt.Sprintf("--dashboard runs the loop and cannot be used with %s; use --serve to watch a loop without running it", st.modes[0])}
	}
	if len(st.projects) > 0 && st.action != "serve" {
		return &UsageError{Key: "--projects", Msg: "--projects only applies to --serve"}
	}
	if st.live && st.action == "serve" {
		return &UsageError{Key: "--live", Msg: "--live does not apply with --serve, which runs no loop; the dashboard shows the live output of the loop it watches"}
	}
	return nil
}

// flagValueError words a bad flag value; three flags keep the bash loop's
// wording.
func flagValueError(name, value string, err error) *UsageError {
	src := Source{Kind: sourceFlag, Name: name}
	var msg string
	switch name {
	case "--timeout":
		msg = fmt.Sprintf("Timeout must be a positive integer between 1 and 120 minutes, got --timeout '%s'", show(value))
	case "--output-format":
		msg = fmt.Sprintf("--output-format must be 'json' or 'text', got '%s'", show(value))
	case "--session-expiry":
		msg = fmt.Sprintf("--session-expiry requires a positive integer (hours), got '%s'", show(value))
	default:
		return valueUsageError(name, value, src, err)
	}
	return &UsageError{Key: name, Value: value, Source: src, Accepted: err.Error(), Msg: msg}
}

// valueUsageError turns a setter error into a UsageError. label is how the
// key is named in the message: the key itself, or the flag.
func valueUsageError(label, value string, src Source, err error) *UsageError {
	var ve *valueError
	if errors.As(err, &ve) && ve.head != "" {
		msg := ve.head + " (" + src.describe() + ")"
		if ve.accepted != "" {
			msg += "; " + ve.Error()
		}
		return &UsageError{Key: label, Value: value, Source: src, Accepted: ve.accepted, Msg: msg}
	}
	return invalidValue(label, value, src, err.Error())
}

// unknownOption is the one-line error for an unknown flag or a stray
// word, with the nearest known flag when the word looks like a typo of one.
func unknownOption(word string) *UsageError {
	const more = " (ralph_loop --help-all lists all)"
	if !strings.HasPrefix(word, "-") || word == "--" {
		return &UsageError{Key: word, Unknown: true, Msg: "unexpected argument " + show(word) + "; ralph_loop takes only flags" + more}
	}
	msg := "unknown flag " + show(word)
	name := "--" + strings.TrimLeft(strings.SplitN(word, "=", 2)[0], "-")
	if s := nearest(name, flagNames()); s != "" && s != word {
		msg += "; did you mean " + s + "?"
	}
	return &UsageError{Key: word, Unknown: true, Msg: msg + more}
}

// translateParseError words pflag's errors the bash loop's way.
func translateParseError(err error, args []string) error {
	var ue *UsageError
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
		f := ve.GetFlag()
		name := "--" + f.Name
		accepted := "a value"
		switch {
		case f.Name == "analyze":
			accepted = "a file name (a saved agent output)"
		case f.Name == "run":
			accepted = "a run id (ralph_loop --report lists them)"
		case f.Name == "projects":
			accepted = "one or more project folders (each holding .ralph/), or a folder of worktrees"
		case flagByName[f.Name].set != nil:
			accepted = flagByName[f.Name].set.accepts
		}
		return &UsageError{Key: name, Source: Source{Kind: sourceFlag, Name: name}, Accepted: accepted,
			Msg: fmt.Sprintf("%s requires a value: %s", name, accepted)}
	}
	return &UsageError{Msg: show(err.Error())}
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

// doctorMonitor reports whether modes are --doctor and --monitor, in
// either order.
func doctorMonitor(modes []string) bool {
	m := map[string]bool{modes[0]: true, modes[1]: true}
	return m["--doctor"] && m["--monitor"]
}

// statusOnly checks a command line with --status: --json and value flags
// (checked as for a run) go with it; another action flag or --live does not.
func statusOnly(st *cli) error {
	other := ""
	switch {
	case st.action != "":
		other = st.actionFlag
	case len(st.modes) > 0:
		other = st.modes[0]
	case st.live:
		other = "--live"
	case st.reportRun != "":
		other = "--run"
	case st.keep >= 0:
		other = "--keep"
	case st.dashboard:
		other = "--dashboard"
	case len(st.projects) > 0:
		other = "--projects"
	case st.notifyTest:
		other = "--notify-test"
	}
	if other != "" {
		return &UsageError{Key: other, Msg: fmt.Sprintf("%s does not apply with --status; run ralph_loop --status [--json] on its own", other)}
	}
	st.action = "status"
	return nil
}
