package supervise

import "io"

// On Windows a call's Job Object is closed with ralph_loop, however it
// ends, and JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE ends every process in it:
// no sentinel is needed.

func watched(int, string) int { return 0 }

func unwatched(int) {}

// armSentinel and sentinelFirst do nothing on Windows: the Job Object
// does the sentinel's work.
func armSentinel(io.Writer) {}

func sentinelFirst() {}

// runSentinel is never started on Windows.
func runSentinel([]string) int { return 2 }
