package supervise

import (
	"fmt"
	"os"
	"sync/atomic"
	"time"
)

// tokenVar is the environment variable Run sets, with a value unique to the
// call, for the command and so for every descendant that keeps its
// environment. It is how Run finds the descendants that left the process
// group (setsid, a daemon's double fork) once the call is over.
const tokenVar = "RALPH_LOOP_CALL"

var calls atomic.Int64

// newToken is tokenVar=<value> for one call.
func newToken() string {
	return fmt.Sprintf("%s=%d-%d-%d", tokenVar, os.Getpid(), calls.Add(1), time.Now().UnixNano())
}
