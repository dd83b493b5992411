// Package quota is the usage governor's reasoning (docs/USAGE-LIMITS.md):
// pure functions and plain data, no files, no processes, no clock of its
// own (every function takes the time).
//
//   - The person's pacing: USAGE_LIMITS's grammar (ParseLimits: window,
//     soft or hard, percent; "*" for every window), the USAGE_STOP_PERCENT
//     shorthand (*:hard:N) and the reserve (USAGE_RESERVE_PERCENT R:
//     *:soft:100−R), as one Policy.
//   - The ledger's content (Book): per account (a driver and the CLI's
//     configuration folder), every loop's calls and tokens (counters that
//     only grow, and each run's spend per minute, per hour once older than
//     six hours, for a little over a week), the last figure each window
//     reported (by a CLI or the person's probe) and what one token and one
//     call were learned to use of it; and the runs that spent. Book.Add
//     takes one call's spend and reports; Book.Prune keeps it bounded.
//   - What is known of a window now (Book.Readings): the last figure of
//     its period plus what the machine's calls since then use, said as an
//     estimate; after a reset, what the calls since the reset use; the
//     machine's spend in the window and which runs spent it; the burn of
//     the last hour and when, at that rate, the window is used up.
//   - The verdict before a call (Decide): a hard threshold reached stops
//     the run, a soft one waits for the window's reset; and the projection
//     that reaches a threshold before the reset (Reading.Crossing), told
//     once per machine (Book.Claim).
//   - USAGE_PROBE_COMMAND's output (ParseProbe).
//
// Package ledger keeps the Book in one file per machine, locked, and runs
// the probe; the engine asks it before each call and tells it after.
package quota
