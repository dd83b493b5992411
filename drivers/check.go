package drivers

import (
	"context"
	"fmt"
	"strconv"

	"github.com/ralphloop/ralph_loop/internal/lazyre"
)

// version is a dotted major.minor.patch CLI version.
type version struct{ Major, Minor, Patch int }

func (v version) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }

// compare returns -1, 0 or +1 as v is older than, equal to or newer than w.
// Each part is compared as a number, so 2.10.0 is newer than 2.9.0 and
// 2.1.330 is older than 2.2.0.
func (v version) compare(w version) int {
	for _, d := range [3]int{v.Major - w.Major, v.Minor - w.Minor, v.Patch - w.Patch} {
		switch {
		case d < 0:
			return -1
		case d > 0:
			return 1
		}
	}
	return 0
}

var versionRE = lazyre.Compile(`(\d+)\.(\d+)\.(\d+)`)

// parseVersion finds the first major.minor.patch in s, which may be a whole
// `--version` output such as "2.1.330 (Claude Code)", "codex-cli 0.169.0" or
// "GitHub Copilot CLI 1.0.102.".
func parseVersion(s string) (version, bool) {
	m := versionRE().FindStringSubmatch(s)
	if m == nil {
		return version{}, false
	}
	var n [3]int
	for i := range n {
		x, err := strconv.Atoi(m[i+1])
		if err != nil { // more digits than an int holds
			return version{}, false
		}
		n[i] = x
	}
	return version{n[0], n[1], n[2]}, true
}

// CheckOptions tells Check how to find the CLI and read its version.
type CheckOptions struct {
	// Binary overrides d.Binary(); for the command driver it is the first
	// word of AGENT_COMMAND.
	Binary string
	// MinVersion overrides d.MinVersion() (e.g. CLAUDE_MIN_VERSION); "" keeps it.
	MinVersion string
	// LookPath resolves the executable (the caller's exec.LookPath); nil
	// finds nothing.
	LookPath func(string) (string, error)
	// Version returns the output of `<path> --version`; nil skips the
	// version check, and then Check starts nothing: the loop finds its
	// CLI this way, and only --doctor asks the version.
	Version func(ctx context.Context, path string) (string, error)
	// Key is the setting that chose the driver, named in the error of a
	// missing CLI; "" is PLATFORM_DRIVER.
	Key string
}

// CheckResult is what Check found.
type CheckResult struct {
	Path    string // resolved executable
	Version string // parsed version, "" when unknown or not asked
	Warning string // one line for the user, "" when all is well
}

// Check looks for the driver's CLI and, with o.Version, checks its
// version. A missing CLI is an error that names the package and how to
// install it. A version that is too old, or that cannot be read, is only a
// warning; a version output without a version number counts as compatible.
func Check(ctx context.Context, d Driver, o CheckOptions) (CheckResult, error) {
	lp := o.LookPath
	if lp == nil {
		lp = lookPath(Request{})
	}
	names := []string{d.Binary()}
	if c, ok := d.(interface{ candidates() []string }); ok {
		names = c.candidates()
	}
	if o.Binary != "" {
		names = []string{o.Binary}
	}
	if names[0] == "" {
		return CheckResult{}, fmt.Errorf("%s: no command to run: %w", d.Name(), errNoCommand)
	}
	path, ok := resolve(lp, names)
	if !ok {
		key := o.Key
		if key == "" {
			key = "PLATFORM_DRIVER"
		}
		return CheckResult{}, missingError(d, names[0], key)
	}
	res := CheckResult{Path: path}
	if o.Version == nil {
		return res, nil
	}
	out, err := o.Version(ctx, path)
	if err != nil {
		res.Warning = fmt.Sprintf("could not read the %s version (%s --version: %v); continuing", d.DisplayName(), path, err)
		return res, nil
	}
	res.Version, res.Warning = CheckVersion(d, out, o.MinVersion)
	return res, nil
}

// CheckVersion reads a version out of s (a `--version` output, or the
// version the CLI reports in its own output, such as Claude's init record)
// and compares it with minimum (CLAUDE_MIN_VERSION; "" is d.MinVersion()).
// It returns the version ("" when s holds none: compatible) and a warning
// when it is too old.
func CheckVersion(d Driver, s, minimum string) (ver, warning string) {
	v, ok := parseVersion(s)
	if !ok {
		return "", ""
	}
	if minimum == "" {
		minimum = d.MinVersion()
	}
	if mv, ok := parseVersion(minimum); ok && v.compare(mv) < 0 {
		warning = fmt.Sprintf("%s %s is older than the minimum supported version %s", d.DisplayName(), v, mv)
		if d.Install() != "" {
			warning += " (update with: " + d.Install() + ")"
		}
	}
	return v.String(), warning
}

func missingError(d Driver, bin, key string) error {
	if d.Install() == "" {
		return fmt.Errorf("the agent command %q (AGENT_COMMAND) was not found on PATH; install it, or set AGENT_COMMAND to its right name or full path", bin)
	}
	return fmt.Errorf("%s CLI %q not found on PATH: it comes from %s, install it with: %s (or pick another %s)", d.DisplayName(), bin, d.Package(), d.Install(), key)
}
