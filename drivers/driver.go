package drivers

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/ralphloop/ralph_loop/internal/lazyre"
)

// Output formats a Spec can declare. They tell the analysis package (and
// NewLiveRenderer) how the agent's stdout is encoded.
const (
	FormatText             = "text"               // plain text (copilot, command, claude with text output)
	FormatClaudeJSON       = "claude-json"        // one Claude result object
	FormatClaudeStreamJSON = "claude-stream-json" // Claude stream-json NDJSON (live mode)
	FormatCodexJSONL       = "codex-jsonl"        // codex exec --json events
	FormatCursorJSON       = "cursor-json"        // one Cursor result object
	FormatCursorStreamJSON = "cursor-stream-json" // Cursor stream-json NDJSON (live mode)
	FormatOpenCodeJSONL    = "opencode-jsonl"     // opencode run --format json events
)

// Prompt delivery modes of the command driver.
const (
	promptStdin = "stdin" // the prompt is written to the command's stdin (default)
	promptArg   = "arg"   // the prompt is the command's last argument
)

// Request is everything a driver needs to build one agent call. The engine
// fills it; drivers only read it.
type Request struct {
	// Prompt is the prompt file's content. Trailing newlines are removed, as
	// the bash loop's $(cat file) does.
	Prompt string
	// Context is the loop context ("" = none; the engine passes "" under
	// --no-continue).
	Context string
	// SystemExtra is additional guidance for this call: review findings and the
	// write-heartbeat sentence. It travels with the context (see DRIVERS.md).
	SystemExtra string
	// SessionID resumes this session when non-empty (already validated and
	// gated on session continuity by the engine). Drivers without sessions
	// ignore it.
	SessionID string
	// Live selects the streaming variant of the command (--live).
	Live bool
	// OutputFormat is "json" or "text" (CLAUDE_OUTPUT_FORMAT); Claude only.
	OutputFormat string
	// AllowedTools are the allowlist entries, each one argv element
	// ("Bash(git add *)"); Claude only.
	AllowedTools []string
	// PermissionMode is CLAUDE_PERMISSION_MODE; "" means bypassPermissions.
	PermissionMode string
	// CLIVersion is the CLI's version as its install's files say it
	// (InstalledVersion) or, once a call has shown it, its own output
	// (VersionWatch); "" = unknown. Flags that only newer CLIs accept are
	// added only when the version is known to have them.
	CLIVersion string
	// Dir is the working directory (the project root).
	Dir string
	// Env is the environment for the agent: the loop's own. Drivers pass it
	// on without the nested-session markers (see agentEnv); nil inherits the
	// loop's environment as it is.
	Env []string
	// LookPath resolves executables (cursor's absolute path): the caller's
	// exec.LookPath, as drivers start no process and look at no file; nil
	// finds nothing.
	LookPath func(string) (string, error)
	// Command is AGENT_COMMAND split into words (config.Config.AgentArgv); command
	// driver only.
	Command []string
	// PromptMode is PromptStdin ("" too) or PromptArg; command driver only.
	PromptMode string
}

// Spec is a command ready to run. Drivers build it; the supervise package
// starts it.
type Spec struct {
	Argv []string // Argv[0] is the executable (a name looked up on PATH or a path)
	Env  []string // environment of the process
	Dir  string   // working directory
	// Stdin is written to the process's standard input; "" means /dev/null.
	Stdin string
	// Format is how stdout is encoded (one of the Format* constants).
	Format string
}

// Driver turns a Request into a Spec for one agent CLI. It never starts a
// process.
type Driver interface {
	Name() string        // PLATFORM_DRIVER value: "claude-code", "codex", ...
	DisplayName() string // human name used in log lines: "Claude Code", "OpenAI Codex", ...
	Binary() string      // executable name ("" for command: it comes from AGENT_COMMAND)
	Package() string     // where the CLI comes from (npm package name or web page)
	Install() string     // how to install it, as a command line
	MinVersion() string  // oldest CLI version the driver is known to work with ("" = no check)
	// ValidTools are the names --allowed-tools accepts for this driver.
	ValidTools() []string
	// SupportsAllowedTools tells whether AllowedTools reaches the CLI; the
	// engine warns that the allowlist is ignored when it does not.
	SupportsAllowedTools() bool
	// SupportsSessions tells whether the engine should load, pass and save
	// session ids for this driver.
	SupportsSessions() bool
	// SupportsLive tells whether --live works; when false the engine falls
	// back to background mode with a warning.
	SupportsLive() bool
	// HomePaths are the files and folders under $HOME that the CLI reads or
	// writes (its configuration and credentials); a sandbox (SANDBOX) lets
	// the CLI reach these, read-only unless it writes them, and hides the
	// rest.
	HomePaths() []HomePath
	// PermissionHelp returns guidance lines printed when the loop halts on
	// permission denials. ralphrc is the config file to point the user at.
	PermissionHelp(ralphrc string) []string
	// Traits are what the loop does differently for this CLI.
	Traits() Traits
	// Build returns the command for one call.
	Build(Request) (Spec, error)
}

// Traits are the ways one CLI's calls differ that the loop, not the
// driver, acts on. The zero value is a CLI with none of them.
type Traits struct {
	// ResultStream: its live stream ends in a "type":"result" record, so
	// with session continuity the output log keeps only that record and
	// the whole stream goes to a log of its own, as the bash loop does.
	ResultStream bool
	// OutputFormat: Request.OutputFormat (CLAUDE_OUTPUT_FORMAT) reaches the
	// CLI, and the loop says which mode it runs in.
	OutputFormat bool
	// MinVersionSetting: CLAUDE_MIN_VERSION overrides MinVersion.
	MinVersionSetting bool
}

var registry = []Driver{
	claudeCode{},
	codex{},
	cursor{},
	copilot{},
	opencode{},
	command{},
}

// Names returns the valid PLATFORM_DRIVER values in a fixed order.
func Names() []string {
	names := make([]string, len(registry))
	for i, d := range registry {
		names[i] = d.Name()
	}
	return names
}

// Get returns the driver called name. An unknown name, or one that looks
// like a path, is an error that lists the valid names.
func Get(name string) (Driver, error) {
	if strings.Contains(name, "/") || strings.Contains(name, `\`) || strings.Contains(name, "..") {
		return nil, fmt.Errorf("invalid PLATFORM_DRIVER %q: a driver is a name, not a path (valid: %s)", name, strings.Join(Names(), ", "))
	}
	for _, d := range registry {
		if d.Name() == name {
			return d, nil
		}
	}
	return nil, fmt.Errorf("unknown PLATFORM_DRIVER %q (valid: %s)", name, strings.Join(Names(), ", "))
}

// AllowedTool reports whether t is an allowlist entry d accepts: one of
// d.ValidTools() exactly, or Bash(<pattern>) with any non-empty pattern.
func AllowedTool(d Driver, t string) bool {
	return slices.Contains(d.ValidTools(), t) || bashPattern().MatchString(t)
}

var bashPattern = lazyre.Compile(`^Bash\(.+\)$`)

// maxArgLen is the longest single argument Linux accepts (MAX_ARG_STRLEN,
// 32 pages, minus the terminating NUL). Other systems only limit the total.
const maxArgLen = 32*4096 - 1

// errNoPrompt is returned when a request has no prompt text.
var errNoPrompt = errors.New("the prompt is empty (check the prompt file)")

// promptText returns the prompt as the bash loop reads it: trailing newlines
// removed.
func promptText(req Request) (string, error) {
	p := strings.TrimRight(req.Prompt, "\n")
	if p == "" {
		return "", errNoPrompt
	}
	return p, nil
}

// joinBlocks joins the non-empty blocks with a blank line.
func joinBlocks(blocks ...string) string {
	var out []string
	for _, b := range blocks {
		if b != "" {
			out = append(out, b)
		}
	}
	return strings.Join(out, "\n\n")
}

// combinedPrompt is the prompt for drivers that take no system prompt: loop
// context, extra guidance and prompt, separated by blank lines.
func combinedPrompt(req Request) (string, error) {
	p, err := promptText(req)
	if err != nil {
		return "", err
	}
	return joinBlocks(req.Context, req.SystemExtra, p), nil
}

// positional appends the prompt as a positional argument, preceded by "--"
// when it starts with a dash so that the CLI does not parse it as an option.
func positional(argv []string, prompt string) []string {
	if strings.HasPrefix(prompt, "-") {
		argv = append(argv, "--")
	}
	return append(argv, prompt)
}

// finish checks the argv and fills the fields every driver sets the same way.
func finish(req Request, argv []string, stdin, format string) (Spec, error) {
	for _, a := range argv {
		if strings.IndexByte(a, 0) >= 0 {
			return Spec{}, fmt.Errorf("build %s command: an argument contains a NUL byte (remove it from the prompt file)", argv[0])
		}
		if runtime.GOOS == "linux" && len(a) > maxArgLen {
			return Spec{}, fmt.Errorf("build %s command: an argument is %d bytes, Linux allows %d per argument (shorten the prompt file)", argv[0], len(a), maxArgLen)
		}
	}
	return Spec{Argv: argv, Env: agentEnv(req.Env), Dir: req.Dir, Stdin: stdin, Format: format}, nil
}

func lookPath(req Request) func(string) (string, error) {
	if req.LookPath != nil {
		return req.LookPath
	}
	return func(name string) (string, error) { return "", fmt.Errorf("%s: no LookPath given", name) }
}
