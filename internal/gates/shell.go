package gates

import (
	"path/filepath"
	"strings"
)

// ShellArgv is the command line that runs command as a gate runs it
// (bash -c, or cmd.exe without bash): for the person's USAGE_PROBE_COMMAND.
func ShellArgv(command string) []string { return shellArgv(command) }

// shellArgv is the command line that runs a gate command.
func shellArgv(command string) []string {
	bash, systemRoot, comspec := hostShells()
	return shellFor(command, bash, systemRoot, comspec)
}

// shellFor runs command with `bash -c` when bash is found — on Windows Git
// for Windows' bash, never System32's bash.exe, which starts WSL's Linux
// instead — and otherwise with cmd.exe (comspec) `/d /s /c`.
func shellFor(command, bash, systemRoot, comspec string) []string {
	if bash != "" && !within(bash, systemRoot) {
		return []string{bash, "-c", command}
	}
	if comspec == "" {
		comspec = "cmd.exe"
	}
	return []string{comspec, "/d", "/s", "/c", command}
}

// within reports whether the Windows path p lies under dir (any case,
// either slash).
func within(p, dir string) bool {
	if dir == "" {
		return false
	}
	norm := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, "/", `\`)) }
	d := strings.TrimRight(norm(dir), `\`) + `\`
	return strings.HasPrefix(norm(filepath.Clean(p)), d)
}
