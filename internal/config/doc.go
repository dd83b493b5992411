// Package config turns the command line, the environment and .ralphrc into
// one validated Config; it is a pure function with no processes and no
// globals.
//
// API:
//
//	func Load(args []string, lookupEnv func(string) (string, bool), projectDir string,
//		readFile func(string) ([]byte, error)) (*Config, []Warning, error)
//	func Usage(w io.Writer, all bool)              // the --help text; all: --help-all's
//	type Config, Source, Warning, UsageError  // Config.Command: the command flag ("" = the loop)
//
// Config is also the engine's settings (engine.Run reads this value): each
// key is held in the unit the code uses (CLAUDE_TIMEOUT_MINUTES as the
// duration Timeout, MAX_OUTPUT_MB as bytes, the CB_* keys in Breaker).
//
// Every key is one row of the key table (keys.go): its names, default,
// validation, documentation, trust for a project's .ralphrc and its flag.
// The parser, --help and --help-all (with the defaults), docs/CONFIG.md and
// README's flag table are all made from the rows; see docs/DESIGN.md,
// "Where to add things".
//
// Precedence is the same for every key: flag > environment > .ralphrc >
// default. Environment aliases are tried in order (ALLOWED_TOOLS before
// CLAUDE_ALLOWED_TOOLS, SESSION_CONTINUITY before CLAUDE_USE_CONTINUE,
// SESSION_EXPIRY_HOURS before CLAUDE_SESSION_EXPIRY_HOURS, RALPH_VERBOSE
// before VERBOSE_PROGRESS). An empty environment or .ralphrc value counts
// as unset, except CLAUDE_PERMISSION_MODE set to "" in the environment,
// which means bypassPermissions (as the bash loop does). Config.Sources says
// where each value came from.
//
// .ralphrc is read from <projectDir>/<RALPH_DIR>/.ralphrc, else
// <projectDir>/.ralphrc, with the bash loop's line grammar (a hand parser:
// it only recognises KEY=VALUE lines and can execute nothing): allowlisted
// upper-case keys, one pair of outer quotes removed, a whole value of
// ${NAME:-default}, ${NAME} or $NAME resolved against earlier lines and the
// environment, lines with "$(" or a backtick rejected, anything else
// skipped with a Warning naming file and line. File names in .ralphrc
// (PROMPT_FILE, FIX_PLAN_FILE, AGENT_FILE, EVENTS_FILE) are relative to the
// Ralph directory; from flags and the environment they are relative to the
// project directory.
//
// Command-line parsing follows the bash loop: one left-to-right pass;
// --help, --version, --status, --circuit-status, --reset-circuit and
// --reset-session act where they stand (later words are not examined);
// value flags take the next word whatever it is; a stray word or an unknown
// flag is a one-line error naming the nearest flag (UsageError.Unknown,
// printed on stderr without the help text). pflag extras are
// accepted too: --flag=value, -c5, grouped short flags.
//
// Every invalid value is a *UsageError: one line naming the key or flag,
// the value, its source (file:line, env NAME) and what is accepted; the
// exit code is 1. The driver-dependent checks (ALLOWED_TOOLS names for
// claude-code, AGENT_COMMAND for the command driver) run after everything
// else is resolved. Logging the warnings, "Loaded configuration from
// <RCFile>" and the "ignored by <driver>" notice for ALLOWED_TOOLS is the
// caller's job.
//
// Of this module it imports only ralphdir (to read .ralphrc), internal/clip
// and the leaves whose settings it fills (breaker: Config.Breaker).
package config
