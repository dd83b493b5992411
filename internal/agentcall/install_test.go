//go:build unix

package agentcall

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ralphloop/ralph_loop/drivers"
)

// Claude Code's installs as npm and its native installer lay them out, on
// real files: the version comes from the package.json or the program's
// name, through the links npm and the installer make; anything odd is
// unknown.
func TestInstalled(t *testing.T) {
	claude, err := drivers.Get("claude-code")
	if err != nil {
		t.Fatal(err)
	}
	const pkgJSON = `{"name": "@anthropic-ai/claude-code", "version": "2.1.197", "bin": {"claude": "bin/claude.exe"}}`
	// npm lays out a global install under prefix and links prefix/bin/claude
	// to the package's program, relatively.
	npm := func(t *testing.T, entry string) (bin, pkg string) {
		root := t.TempDir()
		pkg = filepath.Join(root, "lib", "node_modules", "@anthropic-ai", "claude-code")
		write(t, filepath.Join(pkg, entry), "#!/usr/bin/env node\n", 0o755)
		write(t, filepath.Join(pkg, "package.json"), pkgJSON, 0o644)
		bin = filepath.Join(root, "bin", "claude")
		link(t, filepath.Join("..", "lib", "node_modules", "@anthropic-ai", "claude-code", entry), bin)
		return bin, pkg
	}

	t.Run("npm bin/claude.exe", func(t *testing.T) {
		bin, pkg := npm(t, filepath.Join("bin", "claude.exe"))
		want := drivers.Installed{Version: "2.1.197", Via: drivers.ViaPackageJSON, File: filepath.Join(real(t, pkg), "package.json")}
		if got := Installed(claude, bin); got != want {
			t.Errorf("Installed = %+v, want %+v", got, want)
		}
	})
	t.Run("npm cli.js, through a second link", func(t *testing.T) {
		bin, pkg := npm(t, "cli.js")
		other := filepath.Join(t.TempDir(), "claude")
		link(t, bin, other)
		if got := Installed(claude, other); got.Version != "2.1.197" || got.File != filepath.Join(real(t, pkg), "package.json") {
			t.Errorf("Installed = %+v", got)
		}
	})
	t.Run("native", func(t *testing.T) {
		home := t.TempDir()
		prog := filepath.Join(home, ".local", "share", "claude", "versions", "2.1.330")
		write(t, prog, "\x7fELF", 0o755)
		bin := filepath.Join(home, ".local", "bin", "claude")
		link(t, prog, bin)
		want := drivers.Installed{Version: "2.1.330", Via: drivers.ViaNative, File: real(t, prog)}
		if got := Installed(claude, bin); got != want {
			t.Errorf("Installed = %+v, want %+v", got, want)
		}
	})
	t.Run("the other drivers", func(t *testing.T) {
		bin, _ := npm(t, "cli.js")
		codex, _ := drivers.Get("codex")
		if got := Installed(codex, bin); got != (drivers.Installed{}) {
			t.Errorf("codex: Installed = %+v, want unknown", got)
		}
	})

	// unknown, and quickly: nothing hangs, nothing is followed out
	for name, spoil := range map[string]func(t *testing.T, pkg string){
		"package.json a link": func(t *testing.T, pkg string) {
			elsewhere := filepath.Join(t.TempDir(), "package.json")
			write(t, elsewhere, pkgJSON, 0o644)
			replace(t, filepath.Join(pkg, "package.json"))
			link(t, elsewhere, filepath.Join(pkg, "package.json"))
		},
		"package.json a named pipe": func(t *testing.T, pkg string) {
			replace(t, filepath.Join(pkg, "package.json"))
			if err := syscall.Mkfifo(filepath.Join(pkg, "package.json"), 0o644); err != nil {
				t.Skip(err)
			}
		},
		"package.json a folder": func(t *testing.T, pkg string) {
			replace(t, filepath.Join(pkg, "package.json"))
			if err := os.Mkdir(filepath.Join(pkg, "package.json"), 0o755); err != nil {
				t.Fatal(err)
			}
		},
		"package.json huge": func(t *testing.T, pkg string) {
			write(t, filepath.Join(pkg, "package.json"), pkgJSON+strings.Repeat(" ", 1<<20), 0o644)
		},
		"package.json gone": func(t *testing.T, pkg string) {
			replace(t, filepath.Join(pkg, "package.json"))
		},
		"the program gone (a broken link)": func(t *testing.T, pkg string) {
			replace(t, filepath.Join(pkg, "bin", "claude.exe"))
		},
		"another package": func(t *testing.T, pkg string) {
			write(t, filepath.Join(pkg, "package.json"), strings.Replace(pkgJSON, "claude-code", "claude-code-linux-x64", 1), 0o644)
		},
	} {
		t.Run(name, func(t *testing.T) {
			bin, pkg := npm(t, filepath.Join("bin", "claude.exe"))
			spoil(t, pkg)
			if got := Installed(claude, bin); got != (drivers.Installed{}) {
				t.Errorf("Installed = %+v, want unknown", got)
			}
		})
	}
}

// An npm .cmd shim (Windows) leads to the program it runs. On Linux the
// shim's backslashes name one file beside it, which is enough to see
// that the program is the one the shim names, with links resolved.
func TestProgramThroughShim(t *testing.T) {
	dir := t.TempDir()
	shim, err := os.ReadFile("../cmdshim/testdata/cmdshim8-claude-exe.cmd")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "claude.cmd"), string(shim), 0o644)
	target := filepath.Join(t.TempDir(), "claude.exe")
	write(t, target, "MZ", 0o755)
	link(t, target, dir+`\node_modules\@anthropic-ai\claude-code\bin\claude.exe`)
	if got, err := program(filepath.Join(dir, "claude.cmd")); err != nil || got != real(t, target) {
		t.Errorf("program = %q, %v; want %q", got, err, real(t, target))
	}
	write(t, filepath.Join(dir, "mine.cmd"), "@echo off\r\nmy-agent %*\r\n", 0o644)
	if got, err := program(filepath.Join(dir, "mine.cmd")); err == nil {
		t.Errorf("a batch file of one's own: program = %q, want an error", got)
	}
}

func write(t *testing.T, p, s string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), mode); err != nil {
		t.Fatal(err)
	}
}

func link(t *testing.T, target, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

func replace(t *testing.T, p string) {
	t.Helper()
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
}

func real(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
