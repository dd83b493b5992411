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

// showStatus is --status: status.json, pretty-printed, then a short
// summary; --status --json prints the View as one JSON object instead.
// Nothing under .ralph/ is written.
func showStatus(d *ralphdir.Dir, c *config.Config, stdout io.Writer) error {
	v := readmodel.Load(d, c.MaxCallsPerHour, time.Now())
	openQuestion(d, v)
	if q := newQuotaSource(c); q != nil {
		v.Quota = q.View(time.Now())
	}
	if c.JSON {
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
