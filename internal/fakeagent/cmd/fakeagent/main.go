// Command fakeagent is the tests' scriptable fake agent CLI as a program of
// its own, for trying the loop by hand and for benchmarks without an API
// key. Linked or copied under an agent CLI's name (claude, codex,
// cursor-agent, copilot, opencode) and found on PATH, it answers each call
// from the script directory named by $FAKE_AGENT_DIR, as internal/fakeagent
// describes. Under its own name it also lays out and inspects that
// directory:
//
//	fakeagent reply [-exit] [-tasks N] [-rc N] [-wait] TEXT   every call answers as "claude -p --output-format json" with TEXT
//	                                                         and a status block; -wait: each waits for its release
//	fakeagent count                                          how many calls it has taken
//	fakeagent argv N                                         call N's arguments, one per line
//	fakeagent started N [SECONDS]                            wait (60 s at most) until call N has answered
//	fakeagent release N                                      let call N, which waits, go on
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/internal/fakeagent"
)

func main() {
	if filepath.Base(os.Args[0]) != "fakeagent" || len(os.Args) < 2 {
		fakeagent.Main()
	}
	os.Exit(tool(os.Args[1:], os.Getenv(fakeagent.EnvDir), os.Stdout, os.Stderr))
}

// tool runs one of the subcommands on the script directory dir.
func tool(args []string, dir string, stdout, stderr io.Writer) int {
	if dir == "" {
		fmt.Fprintf(stderr, "fakeagent: $%s is not set (point it at a script directory)\n", fakeagent.EnvDir)
		return 2
	}
	var err error
	switch args[0] {
	case "reply":
		err = reply(args[1:], dir, stderr)
	case "count":
		var n int
		if n, err = fakeagent.Count(dir); err == nil {
			fmt.Fprintln(stdout, n)
		}
	case "argv":
		err = argv(args[1:], dir, stdout)
	case "started":
		err = started(args[1:], dir)
	case "release":
		err = release(args[1:], dir)
	default:
		err = fmt.Errorf("unknown command %q (reply, count, argv, started or release)", args[0])
	}
	if err != nil {
		fmt.Fprintf(stderr, "fakeagent: %v\n", err)
		return 2
	}
	return 0
}

// reply writes a script whose every call prints a Claude JSON result: the
// text and a RALPH_STATUS block, in session sess-<call>.
func reply(args []string, dir string, stderr io.Writer) error {
	fs := flag.NewFlagSet("fakeagent reply", flag.ContinueOnError)
	fs.SetOutput(stderr)
	exit := fs.Bool("exit", false, "EXIT_SIGNAL: true and STATUS: COMPLETE")
	tasks := fs.Int("tasks", 0, "TASKS_COMPLETED_THIS_LOOP; 1 also ticks the plan's first open box")
	rc := fs.Int("rc", 0, "exit code of every call")
	wait := fs.Bool("wait", false, "each call waits, once it has answered, until 'fakeagent release N'")
	if err := fs.Parse(args); err != nil {
		return err
	}
	status := "IN_PROGRESS"
	if *exit {
		status = "COMPLETE"
	}
	text := strings.Join(fs.Args(), " ")
	out := fakeagent.ClaudeJSON(text+"\n"+fakeagent.StatusBlock(status, *exit, *tasks), "sess-{{CALL}}")
	s := fakeagent.Script{Default: fakeagent.Reply{Out: out, RC: *rc, Check: *tasks > 0, Wait: *wait}}
	return s.Write(dir)
}

// callNumber is args[0], a call number; cmd names the subcommand.
func callNumber(cmd string, args []string) (int, error) {
	if len(args) < 1 {
		return 0, fmt.Errorf("%s needs a call number", cmd)
	}
	n, err := strconv.Atoi(args[0])
	if err != nil {
		return 0, fmt.Errorf("call number %q is not an integer", args[0])
	}
	return n, nil
}

// started waits until call N has answered (calls/N.started), at most
// args[1] seconds (default 60).
func started(args []string, dir string) error {
	n, err := callNumber("started", args)
	if err != nil {
		return err
	}
	limit := time.Minute
	if len(args) > 1 {
		secs, err := strconv.Atoi(args[1])
		if err != nil || secs < 1 {
			return fmt.Errorf("seconds %q is not a positive integer", args[1])
		}
		limit = time.Duration(secs) * time.Second
	}
	return fakeagent.AwaitStarted(dir, n, limit)
}

// release lets call N, which waits at its latch, go on.
func release(args []string, dir string) error {
	n, err := callNumber("release", args)
	if err != nil {
		return err
	}
	return fakeagent.Release(dir, n)
}

// argv prints the arguments of call N, one per line.
func argv(args []string, dir string, stdout io.Writer) error {
	n, err := callNumber("argv", args)
	if err != nil {
		return err
	}
	a, err := fakeagent.Argv(dir, n)
	if err != nil {
		return err
	}
	for _, s := range a {
		fmt.Fprintln(stdout, s)
	}
	return nil
}
