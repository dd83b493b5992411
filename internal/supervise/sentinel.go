package supervise

// SentinelArg, as a program's first argument, makes it the sentinel that
// StartSentinel starts (on Unix; on Windows a Job Object does its work);
// the program's main hands such a run to Sentinel. It is not an option for
// people.
const SentinelArg = "--ralph-loop-sentinel"
