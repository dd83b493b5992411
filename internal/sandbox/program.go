package sandbox

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// progBind is one path the sandbox shows so that a program in a hidden
// folder still runs: a file or folder bound read-only over itself, or,
// with link set, a symbolic link made again with the same target.
type progBind struct {
	path string
	link string
}

// maxHops bounds the links followed from a program to its file, and
// maxInterpreters the #! lines followed from a script to its interpreter.
const (
	maxHops         = 16
	maxInterpreters = 3
)

// programBinds are what the sandbox shows of prog when it lives in a
// hidden folder ($HOME, /tmp): the program itself and nothing else of its
// folder (~/.local/bin/claude, not ~/.local or ~/.local/bin); each link on
// the way to its file, made again; the folder of the file a link leads to,
// as the program's own (an npm package, a Claude Code release, a Python
// virtualenv: the folder above bin/), unless that is $HOME, a folder just
// below it, or a $PATH folder, when the file alone is shown; and the same
// for a script's interpreter (#!/usr/bin/env node finds node on $PATH).
func (p Policy) programBinds(prog string, lookPath func(string) (string, error)) []progBind {
	var out []progBind
	add := func(b progBind) {
		if !slices.Contains(out, b) {
			out = append(out, b)
		}
	}
	next := prog
	for depth := 0; depth < maxInterpreters && next != ""; depth++ {
		real := p.followProgram(next, add)
		next = ""
		if real == "" {
			break
		}
		if interp := interpreter(real, lookPath); interp != "" && interp != real {
			next = interp
		}
	}
	return out
}

// followProgram follows prog's links to its file, calling add for what
// must be shown of each step in a hidden folder, and returns the file ("":
// none found).
func (p Policy) followProgram(prog string, add func(progBind)) string {
	cur := filepath.Clean(prog)
	for hop := 0; hop < maxHops; hop++ {
		fi, err := os.Lstat(cur)
		if err != nil || !filepath.IsAbs(cur) {
			return ""
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			target, err := os.Readlink(cur)
			if err != nil {
				return ""
			}
			if p.hidden(cur) {
				add(progBind{path: cur, link: target})
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(cur), target)
			}
			cur = filepath.Clean(target)
			continue
		}
		if !fi.Mode().IsRegular() {
			return ""
		}
		if p.hidden(cur) {
			if pkg := p.programFolder(cur); hop > 0 && pkg != "" {
				add(progBind{path: pkg})
			} else {
				add(progBind{path: cur})
			}
		}
		return cur
	}
	return ""
}

// programFolder is the folder to show for a program's file reached
// through a link: its own folder, or the one above it when that is bin/
// (a virtualenv, a node or Go install). "" when that would be $HOME, a
// folder just below it (~/.local, ~/.cargo), a $PATH folder or the
// project: then the file alone is shown.
func (p Policy) programFolder(file string) string {
	dir := filepath.Dir(file)
	if filepath.Base(dir) == "bin" {
		dir = filepath.Dir(dir)
	}
	for _, d := range filepath.SplitList(p.Path) {
		if filepath.Clean(d) == dir {
			return ""
		}
	}
	switch {
	case dir == "/" || dir == p.Home || filepath.Dir(dir) == p.Home || dir == "/tmp" || dir == "/var/tmp":
		return ""
	case under(p.Project, dir) || under(dir, p.Project):
		return ""
	}
	return dir
}

// interpreter is the program a script's #! line runs, found with lookPath
// when it is /usr/bin/env NAME; "" for a program that is not a script.
func interpreter(file string, lookPath func(string) (string, error)) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 256)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if !bytes.HasPrefix(head, []byte("#!")) {
		return ""
	}
	line, _, _ := bytes.Cut(head[2:], []byte("\n"))
	words := strings.Fields(string(line))
	if len(words) == 0 {
		return ""
	}
	if filepath.Base(words[0]) != "env" {
		return words[0]
	}
	for _, w := range words[1:] {
		if strings.HasPrefix(w, "-") || strings.Contains(w, "=") {
			continue // env's options (-S) and assignments
		}
		if lookPath == nil {
			return ""
		}
		path, err := lookPath(w)
		if err != nil {
			return ""
		}
		return path
	}
	return ""
}
