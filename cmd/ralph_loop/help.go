package main

import "github.com/ralphloop/ralph_loop/internal/config"

// --help and --help-all: the common options, or every one (usage.go).

var helpCommand = &command{
	flag: &flagSpec{Flag: config.Flag{Long: "help", Short: "h", Group: config.GroupMain, Common: true, Help: "show the common options and exit"},
		kind: atOnceFlag},
	noConfig: true,
	where:    whereItIs,
	run: func(e *runEnv, _ *line) error {
		usage(e.safeOut, false)
		return nil
	},
}

var helpAllCommand = &command{
	flag: &flagSpec{Flag: config.Flag{Long: "help-all", Group: config.GroupMain, Common: true, Help: "show every option and exit"},
		kind: atOnceFlag},
	noConfig: true,
	where:    whereItIs,
	run: func(e *runEnv, _ *line) error {
		usage(e.safeOut, true)
		return nil
	},
}
