package main

import (
	"io"
	"path/filepath"

	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/swarm"
)

// showSwarmStatus ends --status in a project that ran --swarm with one
// line per worker. --status --json stays one object and leaves it out.
func showSwarmStatus(d *ralphdir.Dir, o statusOptions, stdout io.Writer) {
	if o.json {
		return
	}
	swarm.WriteStatus(stdout, filepath.Dir(d.Root()))
}
