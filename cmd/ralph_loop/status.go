package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/readmodel"
	"github.com/ralphloop/ralph_loop/internal/swarm"
)

// statusCommand is --status [--json]. It runs on its own (statusAlone).
var statusCommand = &command{
	flag: &flagSpec{Flag: config.Flag{Long: "status", Short: "s", Doc: "STATUS.md", Group: config.GroupMain, Common: true,
		Help: "print status.json and a summary (--json: one object), exit"}, kind: commandFlag},
	shares: []string{"json"},
	where:  atProjectRoot,
	run: func(e *runEnv, l *line) error {
		o := statusOptionsOf(l)
		defer showSwarmStatus(e.dir, o, e.safeOut)
		return showStatus(e.dir, e.cfg, o, e.safeOut)
	},
}

// statusOptions are --status's: the View as one JSON object (--json).
type statusOptions struct {
	json bool
}

func statusOptionsOf(l *line) statusOptions { return statusOptions{json: l.has("json")} }

// statusAlone is --status's rule: it runs on its own. The settings' flags
// go with it (checked as for a run), and --json; any other command's flag
// or option, or --live, is refused.
func statusAlone(l *line) error {
	for _, g := range l.flags {
		f := flagsByName()[g.name]
		if g.name == "status" || g.name == "json" || f.kind == settingFlag && g.name != "live" {
			continue
		}
		name := "--" + g.name
		return flagError(name, name+" does not apply with --status; run ralph_loop --status [--json] on its own")
	}
	return nil
}

// showStatus is --status: status.json, pretty-printed, then a short
// summary; --status --json prints the View as one JSON object instead.
// Nothing under .ralph/ is written.
func showStatus(d *ralphdir.Dir, c *config.Config, o statusOptions, stdout io.Writer) error {
	v := readmodel.Load(d, c.MaxCallsPerHour, time.Now())
	openQuestion(d, v)
	if q := newQuotaSource(c); q != nil {
		v.Quota = q.View(time.Now())
	}
	if o.json {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%s\n", b)
		return err
	}
	if v.StatusErr != nil {
		return fmt.Errorf("cannot show the status: %w", v.StatusErr)
	}
	if !v.StatusFound {
		if swarm.Here(filepath.Dir(d.Root())) {
			// The project ran --swarm: its loops are the workers', each
			// with its own status.json (listed below), not this folder's.
			fmt.Fprintln(stdout, "No loop of its own has run in this folder: it ran --swarm, whose workers' loops run in .swarm/worker-i (below).")
		} else {
			fmt.Fprintln(stdout, "No status file found. Ralph may not be running.")
		}
		if v.State.Running { // a loop that is starting up
			v.WriteSummary(stdout)
		}
		return nil
	}
	// The summary a person reads first; the bash loop's status.json dump
	// ("Current Status:") after it (docs/COMPATIBILITY.md).
	var summary bytes.Buffer
	v.WriteSummary(&summary)
	stdout.Write(bytes.TrimPrefix(summary.Bytes(), []byte("\n")))
	fmt.Fprintln(stdout, "\nCurrent Status:")
	var pretty bytes.Buffer
	if json.Indent(&pretty, bytes.TrimSpace(v.StatusData), "", "  ") == nil {
		pretty.WriteByte('\n')
		stdout.Write(pretty.Bytes())
		return nil
	}
	// Read-only: a damaged file is shown as it is, never moved or fixed here.
	stdout.Write(v.StatusData)
	fmt.Fprintf(stdout, "\n(warning: %s is not valid JSON; the loop will move it aside on its next write)\n", d.Path(ralphdir.Status))
	return nil
}
