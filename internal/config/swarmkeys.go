package config

import "strconv"

// swarmKeys are the keys of --swarm (docs/SWARM.md). SWARM_WORKERS is
// read from the command line only: a repository's .ralphrc cannot turn a
// run into several, and a worker's loop, which inherits the environment,
// is never a swarm itself.
var swarmKeys = []*keySpec{
	{name: "SWARM_WORKERS", def: "0",
		flag:    &flagDef{long: "swarm", doc: "SWARM.md", arg: "N", group: GroupLoop, help: "work the plan's epics with N loops at once (2 to 6), each in a git worktree under .swarm/, merging each finished one only when the quality gates pass on the result"},
		accepts: "integer 2..6, 0 = no swarm", doc: "work the plan's epics with this many loops at once, each in a git worktree, merged through a queue that keeps the branch green",
		set: func(c *Config, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n != 0 && (n < 2 || n > 6) {
				return reject("expected an integer from 2 to 6")
			}
			c.SwarmWorkers = n
			return nil
		}},
}
