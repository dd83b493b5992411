// Package drivers turns one agent call into a command line for the agent
// CLI chosen by PLATFORM_DRIVER. A driver builds a command; it never starts
// a process (the supervise package does).
//
// Drivers, one file each: claude-code (claude.go), codex, cursor, copilot,
// opencode, and command (any CLI given by AGENT_COMMAND).
//
// API:
//
//	Names() []string                          valid PLATFORM_DRIVER values
//	Get(name string) (Driver, error)          unknown or path-like names are errors listing Names()
//	Driver.Build(Request) (Spec, error)       argv, env, dir, stdin and output format of one call
//	Driver.{Name,DisplayName,Binary,Package,Install,MinVersion,ValidTools,
//	        SupportsAllowedTools,SupportsSessions,SupportsLive,PermissionHelp}
//	AllowedTool(d Driver, t string) bool      an allowlist entry d accepts (config checks Claude's)
//	Diagnose(d Driver, text string) Diagnosis a failed call's error text, last line first, read
//	                                          with the driver's patterns: transient or permanent
//	NotStarted(d Driver, argv0, err, missing) Diagnosis a CLI that is not installed is permanent
//	Check(ctx, d Driver, CheckOptions) (CheckResult, error)   CLI present? version ok?
//	InstalledVersion(d, path, InstallFiles) Installed   the version an install's files say
//	                                          (Claude's npm package.json, its native installer)
//	ParseVersion(s string) (Version, bool); Version.Compare
//	NewLiveRenderer(format string, w io.Writer) *LiveRenderer   --live display of raw stdout
//	Formats(name string) []func() analysis.FormatReader   how the analysis reads name's output
//	SessionFinder                             extra session-id sources (opencode)
//
// The engine fills a Request per call: the prompt file's content, the loop
// context (empty under --no-continue), extra guidance (review findings, the
// write-heartbeat sentence), the session id to resume (empty when sessions
// are off or the driver has none), live mode, Claude's output format,
// allowlist and permission mode, the CLI version (its install's files or its
// own output), the project root, the loop's environment (passed on
// unchanged) and, for the command driver, AGENT_COMMAND's words and prompt
// mode.
//
// Claude takes the context through one --append-system-prompt; every other
// driver gets context, extra guidance and prompt joined by blank lines as
// its prompt. Spec.Format tells the analysis package and NewLiveRenderer how
// stdout is encoded. docs/DRIVERS.md lists each driver's argv and how it was
// checked against the real CLIs; docs/compat/drivers.md lists where this
// package differs from the bash loop and why.
package drivers
