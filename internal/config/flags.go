package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ralphloop/ralph_loop/internal/clip"
)

// Flag is one flag of the command line as --help shows it: how it is
// written, what it does and under which heading. The settings' flags are
// declared in their keys' rows (Flags lists them); cmd/ralph_loop, which
// reads the command line, declares its commands' own.
type Flag struct {
	Long     string // its name, without the dashes
	Short    string // its one-letter form, if any
	Arg      string // its value's name in the help ("NUM"); "" for a switch
	Optional bool   // the value may be left out (--serve [ADDR])
	Group    string // the heading --help lists it under (Groups)
	Common   bool   // --help lists it; --help-all lists every flag
	Help     string // what it does; a setting's built-in default is said at its end
	Doc      string // the doc that tells more, linked from README's flag table
	Accepts  string // what its value may be, said when it is left out
	Key      string // the setting it sets ("" for --live, which has no key)
}

// SetupHint is the one way to set up a project, as --help, the README, the
// error messages and --doctor say it.
const SetupHint = "'ralph_loop --init' (in a bmalph project: 'bmalph init')"

// The headings --help lists the flags under.
const (
	GroupMain     = "Options"
	GroupAgent    = "Agent"
	GroupLoop     = "Loop control"
	GroupNotify   = "Notifications (docs/NOTIFY.md)"
	GroupCommands = "Commands"
	GroupWeb      = "Web dashboard (docs/DASHBOARD.md)"
)

// Groups are the headings, in the order --help shows them.
var Groups = []string{GroupMain, GroupAgent, GroupLoop, GroupNotify, GroupCommands, GroupWeb}

// flagDef is a setting's flag as its key's row declares it.
type flagDef struct {
	long, short string
	arg         string // the value's name in the help ("NUM"); "" for a switch
	group       string // the heading it is listed under
	common      bool   // --help lists it; --help-all lists every flag
	help        string // what it does: one or two sentences, wrapped to fit
	noDefault   bool   // the key's default is too long to show here
	doc         string // the doc that tells more, linked from README's table
	// negate: the switch sets its key to false (--no-continue).
	negate bool
}

// liveFlag is --live, the loop's one setting without a key: show the
// agent's output as it comes.
var liveFlag = flagDef{long: "live", short: "l", group: GroupMain, common: true, help: "stream the agent's output as it works (uses JSON output)"}

// Flags are the settings' flags, in the order of the key table, then
// --live; a flag's help ends with its key's built-in default.
func Flags() []Flag {
	var out []Flag
	for _, k := range keys {
		if f := k.flag; f != nil {
			out = append(out, Flag{Long: f.long, Short: f.short, Arg: f.arg, Group: f.group, Common: f.common,
				Help: f.text(k), Doc: f.doc, Accepts: k.accepts, Key: k.name})
		}
	}
	return append(out, Flag{Long: liveFlag.long, Short: liveFlag.short, Group: liveFlag.group, Common: liveFlag.common, Help: liveFlag.help})
}

// text is what the help says of the flag of k: its meaning and, for a
// flag with a value, k's built-in default.
func (f flagDef) text(k *keySpec) string {
	t := f.help
	if f.arg != "" && !f.noDefault && k.def != "" {
		def := strings.ReplaceAll(k.def, ",", ", ") // a list wraps at its commas
		if k.path {
			def = ".ralph/" + def
		}
		t += " (default: " + def + ")"
	}
	return t
}

// flagKeys are the keys by the long name of their flag.
var flagKeys = indexFlagKeys(keys)

func indexFlagKeys(ks []*keySpec) map[string]*keySpec {
	m := map[string]*keySpec{}
	for _, k := range ks {
		if k.flag != nil {
			m[k.flag.long] = k
		}
	}
	return m
}

// flagValue is a setting's value given on the command line.
type flagValue struct {
	value string
	flag  string // "--calls"
}

// FlagValues are the settings the command line gives, as its reader meets
// them; Load gives them precedence over the environment and the .ralphrc.
// The zero value gives none.
type FlagValues struct {
	values map[string]flagValue // by key
	live   bool
	// noAgent: the command runs no agent (--analyze reads a saved
	// output), so PLATFORM_DRIVER=command needs no AGENT_COMMAND.
	noAgent bool
}

// RunsNoAgent says the command runs no agent: the command driver only
// says which format to read, and needs no command line.
func (v *FlagValues) RunsNoAgent() { v.noAgent = true }

// Set takes the value of the setting flag named long (Flags), as written:
// a switch's "true" (or its "=value"), a flag's value. A value the setting
// does not accept is a *UsageError, so the first bad word on the command
// line is the one reported.
func (v *FlagValues) Set(long, value string) error {
	name := "--" + long
	if long == liveFlag.long {
		b, err := SwitchValue(name, value)
		v.live = b
		return err
	}
	k := flagKeys[long]
	if k == nil {
		panic("config: --" + long + " is no setting's flag") // a bug in the caller
	}
	if k.flag.arg == "" {
		b, err := SwitchValue(name, value)
		if err != nil {
			return err
		}
		value = fmt.Sprint(b != k.flag.negate)
	} else if err := k.set(&Config{}, value); err != nil {
		return flagValueError(name, value, err)
	}
	v.put(k.name, flagValue{value: value, flag: name})
	return nil
}

// SetKey takes the value a command's flag gives a setting (--serve ADDR
// and --dashboard ADDR give SERVE_ADDR), checked as Set checks.
func (v *FlagValues) SetKey(key, value, flag string) error {
	k := keyIndex[key]
	if k == nil {
		panic("config: " + key + " is no key") // a bug in the caller
	}
	if err := k.set(&Config{}, value); err != nil {
		return flagValueError(flag, value, err)
	}
	v.put(key, flagValue{value: value, flag: flag})
	return nil
}

func (v *FlagValues) put(key string, fv flagValue) {
	if v.values == nil {
		v.values = map[string]flagValue{}
	}
	v.values[key] = fv
}

// SwitchValue reads the value of a switch (flag "--verbose"): "true" when
// it stands alone, or what follows its "=" (true/false, yes/no, on/off,
// 1/0). Any other value is a *UsageError: the flag takes none.
func SwitchValue(flag, value string) (bool, error) {
	b, ok := parseBool(value)
	if !ok {
		return false, &UsageError{Key: flag, Value: value, Source: Source{Kind: sourceFlag, Name: flag},
			Accepted: "no value", Msg: fmt.Sprintf("Invalid %s: '%s'; the flag takes no value", flag, clip.Value(value))}
	}
	return b, nil
}

// flagValueError words a bad flag value; three flags keep the bash loop's
// wording.
func flagValueError(name, value string, err error) *UsageError {
	src := Source{Kind: sourceFlag, Name: name}
	var msg string
	switch name {
	case "--timeout":
		msg = fmt.Sprintf("Timeout must be a positive integer between 1 and 120 minutes, got --timeout '%s'", clip.Value(value))
	case "--output-format":
		msg = fmt.Sprintf("--output-format must be 'json' or 'text', got '%s'", clip.Value(value))
	case "--session-expiry":
		msg = fmt.Sprintf("--session-expiry requires a positive integer (hours), got '%s'", clip.Value(value))
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
