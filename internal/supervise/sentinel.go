package supervise

// sentinelArg, as a program's first argument, makes it the sentinel that
// startSentinel starts (on Unix; on Windows a Job Object does its work).
// It is not an option for people.
const sentinelArg = "--ralph-loop-sentinel"

// Sentinel runs this program as the sentinel (see startSentinel) when
// args (the program's arguments, without its name) begin with the
// sentinel's own argument, and returns its exit code and true; for any
// other args it does nothing and returns false. The program's main calls
// it first.
func Sentinel(args []string) (code int, ok bool) {
	if len(args) == 0 || args[0] != sentinelArg {
		return 0, false
	}
	return runSentinel(args[1:]), true
}
