package drivers

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ralphloop/ralph_loop/internal/lazyre"
)

// An installed CLI's version can be told from its install's own files,
// before the first call and without starting it: Claude Code's npm package
// has a package.json beside its program, and its native installer names
// each program after its version. This file only reads paths and file
// contents its caller hands it; the caller (the loop's start-up) reads the
// files.

// installLayout is where a CLI's install says its version.
type installLayout struct {
	// pkg is the npm package's name, as its package.json says it.
	pkg string
	// entries are the package's programs (package.json "bin"), relative
	// to the package's folder, with "/": the program the CLI on PATH
	// leads to is one of these.
	entries []string
	// native is the native installer's folder of versions, as its last
	// parts ("claude/versions"): the program is the file in it named
	// after its version.
	native string
}

// installed is the optional method of a driver whose install says its
// version.
type installed interface{ install() installLayout }

func (claudeCode) install() installLayout {
	return installLayout{
		pkg: "@anthropic-ai/claude-code",
		// cli.js up to 2.1.1xx; since then bin/claude.exe, which the
		// package's postinstall replaces with the native program.
		entries: []string{"cli.js", "bin/claude.exe"},
		native:  "claude/versions",
	}
}

// packageJSONCap bounds the read of a package.json (Claude Code's is under
// 2 KiB).
const packageJSONCap = 64 << 10

// InstallFiles is how InstalledVersion looks at an install: the caller's
// own file access.
type InstallFiles struct {
	// Resolve returns the program the CLI at path runs: path with every
	// link resolved (filepath.EvalSymlinks) and, on Windows, an npm .cmd
	// shim replaced by the program it runs (itself resolved).
	Resolve func(path string) (string, error)
	// Read returns the contents of the regular file at path, refusing a
	// link and a file of more than limit bytes.
	Read func(path string, limit int64) ([]byte, error)
}

// Installed is the version an install says, and where it says it.
type Installed struct {
	Version string // "x.y.z"; "" unknown
	// Via names the kind of file: "package.json" (npm) or "native
	// installer" (the program's own name in its versions folder).
	Via string
	// File is that file: the package.json, or the program.
	File string
}

// Install kinds (Installed.Via).
const (
	ViaPackageJSON = "package.json"
	ViaNative      = "native installer"
)

// InstalledVersion tells the version of d's CLI, found on PATH at path,
// from its install's files, without starting it: an npm install
// (…/node_modules/@anthropic-ai/claude-code/cli.js or bin/claude.exe,
// maybe reached through a link or a .cmd shim) by the package.json of its
// package, whose "name" must be the package's; a native install
// (~/.local/bin/claude linked to ~/.local/share/claude/versions/<version>)
// by the program's name. Anything else — another layout, another name, a
// version that is not x.y.z, a file that cannot be read — is unknown (the
// zero Installed), never an error. Only drivers whose version the loop
// uses have a layout (Claude Code); for the others nothing is looked at.
func InstalledVersion(d Driver, path string, files InstallFiles) Installed {
	in, ok := d.(installed)
	if !ok || path == "" || files.Resolve == nil || files.Read == nil {
		return Installed{}
	}
	lay := in.install()
	prog, err := files.Resolve(path)
	if err != nil || !filepath.IsAbs(prog) {
		return Installed{}
	}
	parts := strings.Split(filepath.ToSlash(filepath.Clean(prog)), "/")
	if v, ok := exactVersion(parts[len(parts)-1]); ok && hasSuffix(parts[:len(parts)-1], strings.Split(lay.native, "/")) {
		return Installed{Version: v, Via: ViaNative, File: prog}
	}
	for _, e := range lay.entries {
		entry := strings.Split(e, "/")
		// the package's folder: node_modules/<scope>/<name>
		want := append(append([]string{"node_modules"}, strings.Split(lay.pkg, "/")...), entry...)
		if !hasSuffix(parts, want) {
			continue
		}
		dir := prog
		for range entry {
			dir = filepath.Dir(dir)
		}
		file := filepath.Join(dir, "package.json")
		data, err := files.Read(file, packageJSONCap)
		if err != nil {
			return Installed{}
		}
		if v, ok := packageVersion(data, lay.pkg); ok {
			return Installed{Version: v, Via: ViaPackageJSON, File: file}
		}
		return Installed{}
	}
	return Installed{}
}

// packageVersion is the "version" of a package.json whose "name" is pkg.
func packageVersion(data []byte, pkg string) (string, bool) {
	var p struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	if json.Unmarshal(data, &p) != nil || p.Name != pkg {
		return "", false
	}
	return exactVersion(p.Version)
}

// exactRE is a release version and nothing else: no "v", no pre-release,
// no build, no leading zero, at most 9 digits a part.
var exactRE = lazyre.Compile(`^(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})$`)

// exactVersion reads s as a release version, all of s.
func exactVersion(s string) (string, bool) {
	if !exactRE().MatchString(s) {
		return "", false
	}
	v, ok := parseVersion(s)
	return v.String(), ok
}

// hasSuffix reports whether parts ends with suffix.
func hasSuffix(parts, suffix []string) bool {
	return len(parts) >= len(suffix) && slices.Equal(parts[len(parts)-len(suffix):], suffix)
}
