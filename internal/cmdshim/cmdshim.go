// Package cmdshim reads the launcher scripts npm writes on Windows for a
// package's command (claude.cmd, codex.cmd and their extensionless sh
// siblings) and returns the command line they run: the node program, its
// options, the package's script. Starting that command line directly keeps
// every argument intact, where running the .cmd goes through cmd.exe, which
// cuts a multi-line argument at its first line break and expands % and ^.
//
// Only the layouts npm's cmd-shim has written (cmd-shim 2 to 8, and the
// plain IF EXIST form of older npm) are recognised; anything else is not a
// shim this package knows, and the caller runs the script as it is. A
// package's program without a #! line (Claude Code's bin/claude.exe since
// its npm package holds a native binary) gets a shim that runs it
// directly: the command line is that program alone.
package cmdshim

import (
	"strings"

	"github.com/ralphloop/ralph_loop/internal/lazyre"
)

// Resolve returns the argv that the npm shim text, found in the folder
// dir, runs for its own arguments (which the caller appends). sh selects
// the sh-script grammar instead of the batch one. exists reports whether a
// file exists (the shims prefer a node.exe beside them to the one on
// PATH). ok is false when text is not an npm shim.
func Resolve(text, dir string, sh bool, exists func(string) bool) (argv []string, ok bool) {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if sh {
		return resolveSh(text, dir, exists)
	}
	return resolveCmd(text, dir, exists)
}

var (
	// cmd-shim 2 to 8: the program is chosen into %_prog%, then run.
	progChoice = lazyre.Compile(`(?i)@?IF EXIST "([^"]+)" \(\n\s*@?SET "_prog=([^"]+)"\n\s*\) ELSE \(\n\s*@?SET "_prog=([^"]+)"\n`)
	progRun    = lazyre.Compile(`(?im)"%_prog%"(.*) %\*$`)
	// older npm: the two command lines sit in the IF and ELSE branches.
	plainChoice = lazyre.Compile(`(?i)@IF EXIST "([^"]+)" \(\n\s*(.+) %\*\n\s*\) ELSE \(\n(?:\s*@.*\n)*\s*(.+) %\*\n`)
	// cmd-shim 4 to 8, for a program without a #! line: its head, then the
	// program itself, and nothing else.
	directRun = lazyre.Compile(`(?i)^@ECHO off\nGOTO start\n:find_dp0\nSET dp0=%~dp0\nEXIT /b\n:start\nSETLOCAL\nCALL :find_dp0\n("%dp0%\\[^"\n]+")[ \t]*%\*\n+$`)
)

// resolveCmd reads a .cmd shim.
func resolveCmd(text, dir string, exists func(string) bool) ([]string, bool) {
	text += "\n"
	if m := progChoice().FindStringSubmatch(text); m != nil {
		run := progRun().FindStringSubmatch(text)
		if run == nil {
			return nil, false
		}
		prog := m[3]
		if exists(expandCmd(m[1], dir)) {
			prog = m[2]
		}
		return cmdLine(`"`+prog+`" `+run[1], dir)
	}
	if m := plainChoice().FindStringSubmatch(text); m != nil {
		line := m[3]
		if exists(expandCmd(m[1], dir)) {
			line = m[2]
		}
		return cmdLine(line, dir)
	}
	if m := directRun().FindStringSubmatch(text); m != nil {
		return cmdWords(m[1], dir, 1)
	}
	return nil, false
}

// cmdLine splits a batch command line (quoted or bare words, the shim's
// folder variables expanded); anything else a batch file could mean
// (another variable, a redirection, an escape) makes it unknown.
func cmdLine(line, dir string) ([]string, bool) { return cmdWords(line, dir, 2) }

// cmdWords is cmdLine for a command line of at least n words.
func cmdWords(line, dir string, n int) ([]string, bool) {
	words, ok := split(line)
	if !ok || len(words) < n {
		return nil, false
	}
	for i, w := range words {
		w = expandCmd(w, dir)
		if strings.ContainsAny(w, "%&|<>^!") {
			return nil, false
		}
		words[i] = w
	}
	return words, true
}

// expandCmd replaces the shim's own folder (%~dp0, %dp0%, which end in a
// backslash) with dir.
func expandCmd(s, dir string) string {
	folder := strings.TrimRight(dir, `\/`) + `\`
	for _, v := range []string{`%~dp0\`, `%dp0%\`, `%~dp0`, `%dp0%`} {
		s = strings.ReplaceAll(s, v, folder)
	}
	return s
}

var (
	shChoice = lazyre.Compile(`if \[ -x "([^"]+)" \]; then\n\s*(?:exec )?(.+) "\$@"\n(?:\s*ret=\$\?\n)?\s*else\s*\n\s*(?:exec )?(.+) "\$@"\n`)
	// cmd-shim 4 to 8, for a program without a #! line: the shim's
	// basedir lines, then the program run directly, as its last line.
	shDirect = lazyre.Compile(`^#!/bin/sh\nbasedir=\$\(dirname "\$\(echo "\$0" \| sed -e 's,\\\\,/,g'\)"\)\n(?:.*\n)*?exec ("\$basedir/[^"\n]+")[ \t]*"\$@"\n*$`)
)

// resolveSh reads the sh shim beside a .cmd (the one Git Bash runs). It
// tests "$basedir/node", which on Windows is node.exe.
func resolveSh(text, dir string, exists func(string) bool) ([]string, bool) {
	line, n := "", 2
	if m := shChoice().FindStringSubmatch(text); m != nil {
		line = m[3]
		if node := expandSh(m[1], dir); exists(node) || exists(node+".exe") {
			line = m[2]
		}
	} else if m := shDirect().FindStringSubmatch(text); m != nil {
		line, n = m[1], 1
	} else {
		return nil, false
	}
	words, ok := split(line)
	if !ok || len(words) < n {
		return nil, false
	}
	for i, w := range words {
		if strings.ContainsAny(strings.TrimPrefix(w, "$basedir/"), "$`\\") {
			return nil, false
		}
		words[i] = expandSh(w, dir)
	}
	return words, true
}

// expandSh replaces $basedir with dir, in Windows form.
func expandSh(s, dir string) string {
	rest, ok := strings.CutPrefix(s, "$basedir/")
	if !ok {
		return s
	}
	return strings.TrimRight(dir, `\/`) + `\` + strings.ReplaceAll(rest, "/", `\`)
}

// split cuts a command line into words: runs of characters separated by
// blanks, where a double-quoted part may hold blanks (the quotes go). An
// unterminated quote fails.
func split(line string) ([]string, bool) {
	var (
		words []string
		cur   strings.Builder
		in    bool // inside quotes
		any   bool // cur holds a word, maybe empty ("")
	)
	for _, r := range strings.TrimSpace(line) {
		switch {
		case r == '"':
			in, any = !in, true
		case (r == ' ' || r == '\t') && !in:
			if any {
				words = append(words, cur.String())
				cur.Reset()
				any = false
			}
		default:
			cur.WriteRune(r)
			any = true
		}
	}
	if in {
		return nil, false
	}
	if any {
		words = append(words, cur.String())
	}
	return words, true
}
