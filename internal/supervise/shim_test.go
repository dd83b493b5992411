package supervise

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// An npm .cmd shim runs as the node command line it wraps; when the .cmd
// is not one, its sh sibling is read; anything else runs as it is.
func TestResolveShim(t *testing.T) {
	shim, err := os.ReadFile("../cmdshim/testdata/cmdshim8-claude.cmd")
	if err != nil {
		t.Fatal(err)
	}
	sh, err := os.ReadFile("../cmdshim/testdata/cmdshim8-claude.sh")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	argv := []string{"claude", "-p", "line one\nline two"}
	script := dir + `\node_modules\@anthropic-ai\claude-code\cli.js`

	p := write("claude.cmd", shim)
	if got, want := resolveShim(p, argv), []string{"node", script, "-p", "line one\nline two"}; !slices.Equal(got, want) {
		t.Errorf("npm shim: %q, want %q", got, want)
	}
	// The shim's folder joins with a backslash, as on Windows; on Linux that
	// names a file beside the folder.
	if err := os.WriteFile(dir+`\node.exe`, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := resolveShim(p, argv); got[0] != dir+`\node.exe` {
		t.Errorf("npm shim with node.exe beside it: %q", got)
	}

	// Claude Code's package of today: bin/claude.exe has no #! line, and
	// its shim runs it directly.
	exe, err := os.ReadFile("../cmdshim/testdata/cmdshim8-claude-exe.cmd")
	if err != nil {
		t.Fatal(err)
	}
	p = write("claude-exe.cmd", exe)
	if got, want := resolveShim(p, argv), []string{dir + `\node_modules\@anthropic-ai\claude-code\bin\claude.exe`, "-p", "line one\nline two"}; !slices.Equal(got, want) {
		t.Errorf("npm shim of a native program: %q, want %q", got, want)
	}

	p = write("codex.cmd", []byte("@echo off\r\ncall \"%~dp0\\x.bat\" %*\r\n"))
	write("codex", sh)
	if got := resolveShim(p, argv); got[1] != script {
		t.Errorf("sh sibling: %q, want the script %q second", got, script)
	}

	p = write("mine.cmd", []byte("@echo off\r\nmy-agent %*\r\n"))
	if got := resolveShim(p, argv); !slices.Equal(got, argv) {
		t.Errorf("own batch file: %q, want it run as it is", got)
	}
	p = write("big.cmd", []byte(strings.Repeat("rem\r\n", shimCap)))
	if got := resolveShim(p, argv); !slices.Equal(got, argv) {
		t.Errorf("oversized batch file: %q, want it run as it is", got)
	}
}
