package cmdshim

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The fixtures are the shims npm's cmd-shim writes (versions 2.1, 4.1 and
// 8.0, generated for a package laid out as @anthropic-ai/claude-code is;
// codex-args has a shebang with a node option; claude-exe is the shim of
// the package's bin/claude.exe of today, which has no #! line), and the IF EXIST shim of
// older npm.
func TestResolve(t *testing.T) {
	const dir = `C:\Users\ann\AppData\Roaming\npm`
	const script = dir + `\node_modules\@anthropic-ai\claude-code\cli.js`
	const exe = dir + `\node_modules\@anthropic-ai\claude-code\bin\claude.exe`
	localNode := func(p string) bool { return p == dir+`\node.exe` }
	none := func(string) bool { return false }
	for _, tc := range []struct {
		file   string
		exists func(string) bool
		want   []string
	}{
		{"cmdshim8-claude.cmd", none, []string{"node", script}},
		{"cmdshim8-claude.cmd", localNode, []string{dir + `\node.exe`, script}},
		{"cmdshim8-codex-args.cmd", none, []string{"node", "--no-warnings", dir + `\node_modules\@openai\codex\bin\codex.js`}},
		{"cmdshim4-claude.cmd", none, []string{"node", script}},
		{"cmdshim4-claude.cmd", localNode, []string{dir + `\node.exe`, script}},
		{"cmdshim2-claude.cmd", none, []string{"node", script}},
		{"cmdshim2-claude.cmd", localNode, []string{dir + `\node.exe`, script}},
		{"npm5-claude.cmd", none, []string{"node", script}},
		{"npm5-claude.cmd", localNode, []string{dir + `\node.exe`, script}},
		{"cmdshim8-claude.sh", none, []string{"node", script}},
		{"cmdshim8-claude.sh", localNode, []string{dir + `\node`, script}},
		{"cmdshim4-claude.sh", none, []string{"node", script}},
		{"cmdshim2-claude.sh", localNode, []string{dir + `\node`, script}},
		{"cmdshim8-claude-exe.cmd", none, []string{exe}},
		{"cmdshim8-claude-exe.cmd", localNode, []string{exe}},
		{"cmdshim8-claude-exe.sh", none, []string{exe}},
		{"cmdshim8-claude-exe.sh", localNode, []string{exe}},
	} {
		text, err := os.ReadFile(filepath.Join("testdata", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		sh := filepath.Ext(tc.file) == ".sh"
		got, ok := Resolve(string(text), dir, sh, tc.exists)
		if !ok || !slices.Equal(got, tc.want) {
			t.Errorf("%s: Resolve = %q, %v; want %q", tc.file, got, ok, tc.want)
		}
	}
}

// A batch file that is not an npm shim, or whose command line needs
// cmd.exe (a variable, a redirection), is left to cmd.exe.
func TestResolveUnknown(t *testing.T) {
	ps1, err := os.ReadFile(filepath.Join("testdata", "cmdshim8-claude.ps1"))
	if err != nil {
		t.Fatal(err)
	}
	none := func(string) bool { return false }
	for name, text := range map[string]string{
		"empty":       "",
		"plain batch": "@echo off\r\nnode %~dp0\\cli.js %*\r\n",
		"powershell":  string(ps1),
		"variable":    "@SETLOCAL\r\n@IF EXIST \"%~dp0\\node.exe\" (\r\n  @SET \"_prog=%~dp0\\node.exe\"\r\n) ELSE (\r\n  @SET \"_prog=node\"\r\n)\r\n\"%_prog%\" \"%APPDATA%\\cli.js\" %*\r\n",
		"redirection": "@SETLOCAL\r\n@IF EXIST \"%~dp0\\node.exe\" (\r\n  @SET \"_prog=%~dp0\\node.exe\"\r\n) ELSE (\r\n  @SET \"_prog=node\"\r\n)\r\n\"%_prog%\" \"%~dp0\\cli.js\" > log %*\r\n",
		"open quote":  "@SETLOCAL\r\n@IF EXIST \"%~dp0\\node.exe\" (\r\n  @SET \"_prog=%~dp0\\node.exe\"\r\n) ELSE (\r\n  @SET \"_prog=node\"\r\n)\r\n\"%_prog%\" \"%~dp0\\cli.js %*\r\n",
		"no script":   "@SETLOCAL\r\n@IF EXIST \"%~dp0\\node.exe\" (\r\n  @SET \"_prog=%~dp0\\node.exe\"\r\n) ELSE (\r\n  @SET \"_prog=node\"\r\n)\r\n\r\n",
		// the direct form (cmd-shim 4 to 8 for a program without #!), but
		// with a second command, a variable or a redirection
		"direct, then more": directHead + `"%dp0%\x\claude.exe"   %*` + "\r\necho done\r\n",
		"direct, variable":  directHead + `"%dp0%\x\%USERNAME%.exe"   %*` + "\r\n",
		"direct, redirect":  directHead + `"%dp0%\x\claude.exe" > log  %*` + "\r\n",
		"direct, no head":   `"%dp0%\x\claude.exe"   %*` + "\r\n",
	} {
		if got, ok := Resolve(text, `C:\npm`, false, none); ok {
			t.Errorf("%s: Resolve = %q, want not a known shim", name, got)
		}
	}
	for _, text := range []string{
		"#!/bin/sh\nexec node \"$HOME/cli.js\" \"$@\"\n",
		"#!/bin/sh\nexec \"$basedir/x/claude.exe\" \"$@\"\n", // no basedir line
		shHead + "exec \"$basedir/x/claude.exe\"   \"$@\"\necho done\n",
		shHead + "exec \"$basedir/x/$USER.exe\"   \"$@\"\n",
	} {
		if got, ok := Resolve(text, `C:\npm`, true, none); ok {
			t.Errorf("sh without the shim's layout: Resolve(%q) = %q, want not a known shim", text, got)
		}
	}
}

// The first lines of cmd-shim's shims (4 to 8).
const (
	directHead = "@ECHO off\r\nGOTO start\r\n:find_dp0\r\nSET dp0=%~dp0\r\nEXIT /b\r\n:start\r\nSETLOCAL\r\nCALL :find_dp0\r\n"
	shHead     = "#!/bin/sh\nbasedir=$(dirname \"$(echo \"$0\" | sed -e 's,\\\\,/,g')\")\n\n"
)

func TestSplit(t *testing.T) {
	for in, want := range map[string][]string{
		`a  "b c"  d`:   {"a", "b c", "d"},
		`"" x`:          {"", "x"},
		`pre"quoted"in`: {"prequotedin"},
	} {
		if got, ok := split(in); !ok || !slices.Equal(got, want) {
			t.Errorf("split(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}
