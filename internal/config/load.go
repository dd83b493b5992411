package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/internal/clip"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// Load resolves the configuration from the command line's settings (flags,
// as its reader met them), the environment (lookupEnv) and the .ralphrc
// file, with one precedence for every key: flag > environment > .ralphrc
// > default.
//
// It reads <projectDir>/<RALPH_DIR>/.ralphrc, or else <projectDir>/.ralphrc,
// through readFile (ralphdir.ReadConfig, a bounded read of a regular file,
// when nil); a nil lookupEnv means an empty environment. It starts no
// process and touches nothing but those reads.
//
// Errors: a bad RALPH_DIR or an invalid value is a *UsageError. With
// strict (the command runs the loop: the loop, --monitor, --dry-run),
// environment and .ralphrc values are checked strictly; otherwise an
// invalid one is a Warning and the default is used, so --status or
// --reset-circuit still work with a broken .ralphrc. A .ralphrc that
// cannot be read (other than missing, or a directory, which is a warning)
// is a plain error when strict and a warning otherwise.
func Load(flags *FlagValues, strict bool, lookupEnv func(string) (string, bool), projectDir string, readFile func(string) ([]byte, error)) (*Config, []Warning, error) {
	if lookupEnv == nil {
		lookupEnv = func(string) (string, bool) { return "", false }
	}
	if readFile == nil {
		readFile = ralphdir.ReadConfig
	}
	if flags == nil {
		flags = &FlagValues{}
	}
	ralphDir, dirSrc, err := resolveRalphDir(lookupEnv)
	if err != nil {
		return nil, nil, err
	}

	c := &Config{
		RalphDir:   ralphDir,
		ProjectDir: projectDir,
		Live:       flags.live,
		Grace:      time.Second,
		Sources:    map[string]Source{"RALPH_DIR": dirSrc},
	}
	for _, k := range keys {
		v := k.def
		if k.path && v != "" {
			v = filepath.Join(ralphDir, v)
		}
		if err := k.set(c, v); err != nil {
			panic(fmt.Sprintf("config: default of %s does not parse: %v", k.name, err)) // a bug in the key table
		}
		c.Sources[k.name] = Source{Kind: SourceDefault}
	}
	l := &loader{c: c, flags: flags.values, noAgent: flags.noAgent, env: lookupEnv, strict: strict}
	if err := l.readRC(projectDir, readFile); err != nil {
		return nil, l.warns, err
	}
	for _, k := range keys {
		if err := l.resolve(k); err != nil {
			return nil, l.warns, err
		}
	}
	if err := l.finish(); err != nil {
		return nil, l.warns, err
	}
	c.derive()
	return c, l.warns, nil
}

// derive sets the fields that follow from the resolved keys and where they
// came from.
func (c *Config) derive() {
	c.Breaker.CountPermissionDenials = c.PermissionDenialMode == "threshold"
	c.PromptFromRepo = c.Sources["PROMPT_FILE"].Kind == sourceFile
	c.ToolsGiven = c.Sources["ALLOWED_TOOLS"].Kind == sourceFlag || !slices.Equal(c.AllowedTools, defaultTools())
}

// RalphDir is RALPH_DIR as the bash loop checks it: unset, empty or
// ".ralph", or an absolute path without ".." (a *UsageError otherwise).
// The command line's reader asks first, as the bash loop does: a bad
// RALPH_DIR is reported before any flag.
func RalphDir(lookupEnv func(string) (string, bool)) (string, error) {
	dir, _, err := resolveRalphDir(lookupEnv)
	return dir, err
}

// resolveRalphDir is RalphDir, with where its value came from.
func resolveRalphDir(lookupEnv func(string) (string, bool)) (string, Source, error) {
	v, ok := lookupEnv("RALPH_DIR")
	if !ok || v == "" {
		return ".ralph", Source{Kind: SourceDefault}, nil
	}
	src := Source{Kind: sourceEnv, Name: "RALPH_DIR"}
	accepted := "use .ralph or an absolute path without '..'"
	switch {
	case v == ".ralph":
		return v, src, nil
	case strings.Contains(v, ".."):
		return "", src, &UsageError{Key: "RALPH_DIR", Value: v, Source: src, Accepted: accepted,
			Msg: fmt.Sprintf("RALPH_DIR must not contain '..': '%s' (env RALPH_DIR)", clip.Value(v))}
	case !strings.HasPrefix(v, "/") && !filepath.IsAbs(v):
		return "", src, &UsageError{Key: "RALPH_DIR", Value: v, Source: src, Accepted: accepted,
			Msg: fmt.Sprintf("RALPH_DIR must be '.ralph' or an absolute path, got: '%s' (env RALPH_DIR)", clip.Value(v))}
	}
	return v, src, nil
}

type loader struct {
	c      *Config
	flags  map[string]flagValue // the command line's, by key
	env    func(string) (string, bool)
	strict bool
	// noAgent: the command runs no agent (FlagValues.RunsNoAgent)
	noAgent bool
	rc      map[string]rcValue
	rcFile  string
	// rcTrusted: the .ralphrc read is the person's own, not the project's
	rcTrusted bool
	warns     []Warning
}

// readRC loads <RalphDir>/.ralphrc, falling back to the project root's
// .ralphrc. A missing file is skipped; a directory in its place is skipped
// with a warning. A file that cannot be read as a .ralphrc (a named pipe, a
// link to a device, over the size limit, no permission) is an error when
// the action runs the loop and a warning otherwise. The error names the
// path once.
func (l *loader) readRC(projectDir string, readFile func(string) ([]byte, error)) error {
	for _, name := range []string{filepath.Join(l.c.RalphDir, ".ralphrc"), ".ralphrc"} {
		p := name
		if !filepath.IsAbs(p) && projectDir != "" {
			p = filepath.Join(projectDir, p)
		}
		data, err := readFile(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				continue
			}
			if errors.Is(err, syscall.EISDIR) || isDir(p) {
				l.warns = append(l.warns, Warning{Msg: fmt.Sprintf("%s is a directory, not a .ralphrc file; ignoring it", clip.Value(name))})
				continue
			}
			rerr := rcReadError(name, err)
			if l.strict {
				return rerr
			}
			l.warns = append(l.warns, Warning{Msg: rerr.Error() + "; using the defaults", Invalid: true})
			return nil
		}
		l.rcFile = name
		l.c.RCFile = name
		l.rcTrusted = rcTrusted(p, projectDir)
		l.c.RCOwn = l.rcTrusted
		l.rc, l.warns = parseRC(data, name, rcAllowed, l.env)
		return nil
	}
	return nil
}

// rcReadError words a failed .ralphrc read in one line, naming the file
// once (as the user wrote it, relative to the project).
func rcReadError(name string, err error) error {
	var fe *ralphdir.FileError
	if errors.As(err, &fe) {
		return fmt.Errorf("cannot read %s: it %s; %s", clip.Value(name), fe.Problem, fe.Fix)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // its path is the one named here
	}
	return fmt.Errorf("cannot read %s: %w", clip.Value(name), err)
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// lookup finds a key's value: flag, then environment names in order, then
// .ralphrc. Empty environment and .ralphrc values count as unset, except
// for keys with envEmptyCounts.
func (l *loader) lookup(k *keySpec) (string, Source, bool) {
	if fv, ok := l.flags[k.name]; ok {
		return fv.value, Source{Kind: sourceFlag, Name: fv.flag}, true
	}
	for _, name := range k.env {
		if v, ok := l.env(name); ok && (v != "" || k.envEmptyCounts) {
			return v, Source{Kind: sourceEnv, Name: name}, true
		}
	}
	if k.rc {
		if rv, ok := l.rc[k.name]; ok && rv.Value != "" {
			v := rv.Value
			if why := l.refused(k, v); why != "" {
				l.warns = append(l.warns, Warning{File: l.rcFile, Line: rv.Line, Msg: why})
				return "", Source{}, false
			}
			if k.path {
				v = rcPath(l.c.RalphDir, v)
			}
			return v, Source{Kind: sourceFile, File: l.rcFile, Line: rv.Line}, true
		}
	}
	return "", Source{}, false
}

// refused says why the .ralphrc read may not set k to v, or "": a
// project's .ralphrc may not, for a key whose row has a fromRepo rule that
// refuses v; the person's own may.
func (l *loader) refused(k *keySpec, v string) string {
	if k.fromRepo == nil || l.rcTrusted {
		return ""
	}
	return k.fromRepo(v)
}

// rcPath resolves a file name from .ralphrc against the Ralph directory (the
// template documents them as relative to .ralph/). A name that already
// starts with ".ralph/" was written relative to the project root, which is
// how the bash loop reads it, and is kept.
func rcPath(ralphDir, v string) string {
	if v == "-" || filepath.IsAbs(v) {
		return v
	}
	clean := filepath.Clean(v)
	if ralphDir == ".ralph" && (clean == ".ralph" || strings.HasPrefix(clean, ".ralph"+string(filepath.Separator))) {
		return clean
	}
	return filepath.Join(ralphDir, v)
}

// fail records an invalid value: an error when strict (or when the value
// came from a flag), otherwise a warning.
func (l *loader) fail(ue *UsageError, src Source) error {
	if l.strict || src.Kind == sourceFlag {
		return ue
	}
	l.warns = append(l.warns, Warning{Msg: ue.Msg + "; using the default", Invalid: true})
	return nil
}

func (l *loader) resolve(k *keySpec) error {
	v, src, ok := l.lookup(k)
	if !ok {
		return nil // the default is already in place
	}
	if err := k.set(l.c, v); err != nil {
		label := k.name
		if src.Kind == sourceFlag {
			label = src.Name
		}
		return l.fail(valueUsageError(label, v, src, err), src)
	}
	l.c.Sources[k.name] = src
	return nil
}

// finish applies the rules that involve more than one key.
func (l *loader) finish() error {
	c := l.c

	if c.Sources["IDLE_BACKOFF"].Kind == SourceDefault && c.IdleDelay > 0 {
		c.IdleBackoff = 2.0
	} else if c.Sources["IDLE_BACKOFF"].Kind != SourceDefault && c.IdleDelay == 0 {
		l.warns = append(l.warns, Warning{Msg: "IDLE_BACKOFF has no effect without IDLE_DELAY"})
	}
	if c.IdleDelay > 0 && c.IdleMaxDelay > 0 && c.IdleMaxDelay < c.IdleDelay {
		src := c.Sources["IDLE_MAX_DELAY"]
		ue := invalidValue("IDLE_MAX_DELAY", c.IdleMaxDelay.String(), src,
			fmt.Sprintf("must be at least IDLE_DELAY (%s)", c.IdleDelay))
		if err := l.fail(ue, src); err != nil {
			return err
		}
		c.IdleMaxDelay = 0
		c.Sources["IDLE_MAX_DELAY"] = Source{Kind: SourceDefault}
	}

	// Review mode: an old REVIEW_ENABLED=true means
	// enhanced, as the bash loop reads it; REVIEW_ENABLED then mirrors the mode.
	if c.ReviewMode == "off" && c.ReviewEnabled {
		c.ReviewMode = "enhanced"
		c.Sources["REVIEW_MODE"] = Source{Kind: sourceDerived, Name: "REVIEW_ENABLED"}
	}
	if enabled := c.ReviewMode != "off"; enabled != c.ReviewEnabled {
		c.ReviewEnabled = enabled
		c.Sources["REVIEW_ENABLED"] = Source{Kind: sourceDerived, Name: "REVIEW_MODE"}
	}

	if c.Driver == "claude-code" {
		if err := l.checkTools(); err != nil {
			return err
		}
	}

	l.confineNotify()
	l.warnUsageLimits()
	if err := l.splitNotifyCommand(); err != nil {
		return err
	}
	l.capNotifyTimeout()

	if c.Driver == "command" {
		// --analyze reads a saved output and runs nothing: the driver
		// only says which format to read, and needs no command line.
		if l.noAgent && strings.TrimSpace(c.AgentCommand) == "" {
			return l.checkFallback()
		}
		if ue := l.agentArgv("PLATFORM_DRIVER", c.Sources["PLATFORM_DRIVER"]); ue != nil {
			return l.failDriver(ue, ue.Source)
		}
	} else if c.AgentCommand != "" && c.FallbackDriver != "command" {
		l.warns = append(l.warns, Warning{Msg: "AGENT_COMMAND is ignored unless PLATFORM_DRIVER=command"})
	}
	return l.checkFallback()
}

// agentArgv splits AGENT_COMMAND into c.AgentArgv for the command driver
// that key (set in src) chose; a blank or unsplittable AGENT_COMMAND is the
// problem returned.
func (l *loader) agentArgv(key string, src Source) *UsageError {
	c := l.c
	if strings.TrimSpace(c.AgentCommand) == "" {
		return &UsageError{Key: "AGENT_COMMAND", Source: src, Accepted: "the agent's command line",
			Msg: fmt.Sprintf("%s=command (%s) needs AGENT_COMMAND, the agent's command line (e.g. AGENT_COMMAND=\"my-agent --yes\")", key, src.describe())}
	}
	argv, err := splitCommand(c.AgentCommand, l.env)
	if err != nil {
		return invalidValue("AGENT_COMMAND", c.AgentCommand, c.Sources["AGENT_COMMAND"], err.Error())
	}
	c.AgentArgv = argv
	return nil
}

// splitNotifyCommand splits NOTIFY_COMMAND into words as AGENT_COMMAND
// is split; in lenient mode a bad one is dropped.
func (l *loader) splitNotifyCommand() error {
	c := l.c
	if strings.TrimSpace(c.NotifyCommand) == "" {
		return nil
	}
	argv, err := splitCommand(c.NotifyCommand, l.env)
	if err == nil {
		c.NotifyArgv = argv
		return nil
	}
	src := c.Sources["NOTIFY_COMMAND"]
	label := "NOTIFY_COMMAND"
	if src.Kind == sourceFlag {
		label = src.Name
	}
	if err := l.fail(invalidValue(label, c.NotifyCommand, src, err.Error()), src); err != nil {
		return err
	}
	c.NotifyCommand = ""
	return nil
}

// failDriver handles a problem with the command driver; in lenient mode
// the driver falls back to its default.
func (l *loader) failDriver(ue *UsageError, src Source) error {
	if err := l.fail(ue, src); err != nil {
		return err
	}
	l.c.Driver = "claude-code"
	l.c.Sources["PLATFORM_DRIVER"] = Source{Kind: SourceDefault}
	return l.checkTools()
}

// checkTools validates ALLOWED_TOOLS against the Claude Code tool names:
// exact names, or Bash(<anything>).
func (l *loader) checkTools() error {
	c := l.c
	for _, t := range c.AllowedTools {
		if drivers.AllowedTool(claudeCode, t) {
			continue
		}
		src := c.Sources["ALLOWED_TOOLS"]
		label := "ALLOWED_TOOLS"
		if src.Kind == sourceFlag {
			label = src.Name
		}
		accepted := "valid tools: " + strings.Join(claudeTools, " ") + "; Bash(...) patterns with any content are allowed (e.g. 'Bash(git *)')"
		msg := fmt.Sprintf("Invalid tool in %s: '%s'", label, clip.Value(t))
		if src.Kind != sourceFlag {
			msg += " (" + src.describe() + ")"
		}
		ue := &UsageError{Key: label, Value: t, Source: src, Accepted: accepted, Msg: msg + "; " + accepted}
		if err := l.fail(ue, src); err != nil {
			return err
		}
		c.AllowedTools = defaultTools()
		c.Sources["ALLOWED_TOOLS"] = Source{Kind: SourceDefault}
		return nil
	}
	return nil
}
