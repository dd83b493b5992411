package main

import (
	"fmt"
	"io"
	"slices"

	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// command is one thing the command line asks for: the loop, or one of the
// commands that show or change its state. Each is declared in its own
// file, with its flags, its options (a struct its run reads from the
// line) and its rules.
type command struct {
	// flag names the command (--report); nil for the loop, which the line
	// asks for by naming no command.
	flag *flagSpec
	// options are its own options' flags (--report's --run); shares are
	// the options it takes that several commands share (--json).
	options []*flagSpec
	shares  []string
	// refuse is the command's own words for a flag it does not take
	// (--report refuses --live), nil when it takes it; an option of
	// another command is refused in that option's words.
	refuse func(name string) error
	// loop: the command runs the loop or previews its next call, so its
	// settings are checked strictly and the signals stay caught.
	loop bool
	// noConfig: the command reads no configuration (--help, --version).
	noConfig bool
	// noAgent: the command runs no agent, though it reads the driver
	// (--analyze): PLATFORM_DRIVER=command needs no AGENT_COMMAND.
	noAgent bool
	// where says where it works when run from a subfolder of a project.
	where subfolder
	run   func(e *runEnv, l *line) error
}

// subfolder is where a command works when it is run from a subfolder of a
// project (workDir).
type subfolder uint8

const (
	refuseInSubfolder subfolder = iota // it would write: it refuses, naming the project
	atProjectRoot                      // it only looks: it works at the project's root and says so
	whereItIs                          // it needs no project
)

// commands are every command (set in init: their runs read the table);
// the order is no one's (--help's is usage.go's layout).
var commands []*command

func init() {
	commands = []*command{
		loopCommand, helpCommand, helpAllCommand, versionCommand, initCommand,
		circuitStatusCommand, resetCircuitCommand, resetSessionCommand,
		statusCommand, pauseCommand, resumeCommand, answerCommand, reportCommand, doctorCommand,
		dryRunCommand, cleanCommand, analyzeCommand, monitorCommand, serveCommand,
		sharedOptions,
	}
}

// sharedOptions holds the options several commands take, declared once.
var sharedOptions = &command{options: []*flagSpec{jsonFlag}}

// jsonFlag is --json: --report's, --status's and --dry-run's output as
// JSON.
var jsonFlag = &flagSpec{
	Flag: config.Flag{Long: "json", Group: config.GroupCommands, Help: "with --report, --status or --dry-run: print JSON"},
	refused: func(string) error {
		return flagError("--json", "--json only applies to --report, --status and --dry-run")
	},
}

// runEnv is what a command runs with: the configuration, where it works,
// and the program's streams.
type runEnv struct {
	cfg      *config.Config
	warnings []config.Warning
	dir      *ralphdir.Dir
	cwd      string
	args     []string
	// reset is what closes an OPEN circuit by hand where the loop was
	// started ("" for ralph_loop's own).
	reset     string
	lookupEnv func(string) (string, bool)
	stdin     io.Reader
	// stdout and stderr are the program's own; safeOut and safeErr make
	// what they are given safe for a terminal (safetext), for every
	// command but the loop, whose console makes its own writes safe.
	stdout, stderr   io.Writer
	safeOut, safeErr io.Writer
	colour           func(io.Writer) bool
	sig              *signals
}

// name is the command's flag ("--report"), "" for the loop.
func (c *command) name() string {
	if c.flag == nil {
		return ""
	}
	return "--" + c.flag.Long
}

// takes reports whether the command takes the option named name.
func (c *command) takes(name string) bool {
	return slices.Contains(c.shares, name) || slices.ContainsFunc(c.options, func(f *flagSpec) bool { return f.Long == name })
}

// refuses is the error for a flag the line gives that the command does
// not take: its own words, or the option's; nil when it takes it.
func (c *command) refuses(name string) error {
	if c.refuse != nil {
		if err := c.refuse(name); err != nil {
			return err
		}
	}
	if f := flagsByName()[name]; f.kind == optionFlag && !c.takes(name) {
		return f.refused(c.name())
	}
	return nil
}

// commandNamed is the command whose flag is name ("--report").
func commandNamed(name string) *command {
	for _, c := range commands {
		if c.name() == name {
			return c
		}
	}
	panic("ralph_loop: no command " + name) // a bug in the tables
}

// pickCommand is the command the line asks for. --status runs on its own
// (statusAlone); a command that acts at once ends the line where it
// stands; otherwise at most one command is named (--doctor --monitor is
// --doctor's), the loop when none is, and each flag given must be one it
// takes. When several flags are refused, the first on the line is named.
func pickCommand(l *line) (*command, error) {
	named := l.commandFlags()
	if slices.Contains(named, statusCommand.name()) {
		return statusCommand, statusAlone(l)
	}
	if l.atOnce != "" {
		return commandNamed(l.atOnce), nil
	}
	if doctorMonitor(named) {
		named = []string{doctorCommand.name()}
	}
	if len(named) > 1 {
		return nil, flagError(named[1], fmt.Sprintf("%s and %s cannot be used together", named[0], named[1]))
	}
	c := loopCommand
	if len(named) == 1 {
		c = commandNamed(named[0])
	}
	for _, g := range l.flags {
		if err := c.refuses(g.name); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// readCommand reads the command line and picks its command. RALPH_DIR is
// checked first, as the bash loop checks it before any flag.
func readCommand(args []string, lookupEnv func(string) (string, bool)) (*command, *line, error) {
	if _, err := config.RalphDir(lookupEnv); err != nil {
		return nil, nil, err
	}
	l, err := readLine(args)
	if err != nil {
		return nil, nil, err
	}
	c, err := pickCommand(l)
	if err != nil {
		return nil, nil, err
	}
	return c, l, nil
}
