package main

import (
	"io"
	"path/filepath"

	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/swarm"
)

// showSwarmStatus ends --status in a project that ran --swarm with one
// line per worker. --status --json stays one object and leaves it out.
func showSwarmStatus(d *ralphdir.Dir, c *config.Config, stdout io.Writer) {
	if c.JSON {
		return
	}
	swarm.WriteStatus(stdout, filepath.Dir(d.Root()))
}
