// Command ralph_loop runs an AI coding agent CLI again and again, each time
// with a fresh context, until the project's plan is done: a drop-in for
// bmalph's ralph_loop.sh. See README.md.
package main

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/ralphloop/ralph_loop/internal/supervise"
)

// version is set at build time (-ldflags "-X main.version=...", from
// CHANGELOG.md through scripts/version.sh); a binary built by `go install
// ...@VERSION` has no stamp and takes the module's version
// (programVersion). Nothing assigns it at run time.
var version = devVersion

func main() {
	// The sentinel that outlives the loop is this program too.
	if code, ok := supervise.Sentinel(os.Args[1:]); ok {
		os.Exit(code)
	}
	// A write to a closed stdout/stderr (bmalph's dashboard detaches by
	// closing our pipes) must fail with EPIPE, not kill the loop. Notify,
	// unlike Ignore, keeps SIGPIPE at its default for the agent we start.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.LookupEnv))
}
