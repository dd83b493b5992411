package drivers

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
)

// fakeInstall is a file system of links and files for InstalledVersion.
type fakeInstall struct {
	links map[string]string // a path on PATH -> the program it resolves to
	files map[string]string // file -> contents
	read  []string          // the files asked for
}

func (f *fakeInstall) access() InstallFiles {
	return InstallFiles{
		Resolve: func(p string) (string, error) {
			if r, ok := f.links[p]; ok {
				return r, nil
			}
			return "", fmt.Errorf("lstat %s: %w", p, fs.ErrNotExist)
		},
		Read: func(p string, limit int64) ([]byte, error) {
			f.read = append(f.read, p)
			s, ok := f.files[p]
			switch {
			case !ok:
				return nil, fmt.Errorf("open %s: %w", p, fs.ErrNotExist)
			case int64(len(s)) > limit:
				return nil, errors.New("too big")
			}
			return []byte(s), nil
		},
	}
}

// A package.json as Claude Code's npm package has it (trimmed).
func packageJSON(name, version string) string {
	return `{
  "name": "` + name + `",
  "version": ` + version + `,
  "bin": {"claude": "bin/claude.exe"},
  "scripts": {"postinstall": "node install.cjs"},
  "optionalDependencies": {"@anthropic-ai/claude-code-linux-x64": "2.1.197"}
}`
}

func TestInstalledVersion(t *testing.T) {
	const (
		bin     = "/usr/local/bin/claude"
		pkg     = "/usr/local/lib/node_modules/@anthropic-ai/claude-code"
		pkgJSON = pkg + "/package.json"
		name    = "@anthropic-ai/claude-code"
	)
	good := packageJSON(name, `"2.1.197"`)
	tests := []struct {
		name  string
		prog  string // what the CLI on PATH resolves to ("" = it does not resolve)
		files map[string]string
		want  Installed
		reads int // files read
	}{
		// npm, with the package's program of today (bin/claude.exe) and of
		// old (cli.js)
		{"npm bin/claude.exe", pkg + "/bin/claude.exe", map[string]string{pkgJSON: good},
			Installed{"2.1.197", ViaPackageJSON, pkgJSON}, 1},
		{"npm cli.js", pkg + "/cli.js", map[string]string{pkgJSON: packageJSON(name, `"2.0.76"`)},
			Installed{"2.0.76", ViaPackageJSON, pkgJSON}, 1},
		{"npm in another prefix", "/home/u/.npm-global/lib/node_modules/@anthropic-ai/claude-code/cli.js",
			map[string]string{"/home/u/.npm-global/lib/node_modules/@anthropic-ai/claude-code/package.json": good},
			Installed{"2.1.197", ViaPackageJSON, "/home/u/.npm-global/lib/node_modules/@anthropic-ai/claude-code/package.json"}, 1},
		// the native installer
		{"native", "/home/u/.local/share/claude/versions/2.1.330", nil,
			Installed{"2.1.330", ViaNative, "/home/u/.local/share/claude/versions/2.1.330"}, 0},
		{"native under XDG_DATA_HOME", "/data/claude/versions/2.1.330", nil,
			Installed{"2.1.330", ViaNative, "/data/claude/versions/2.1.330"}, 0},

		// anything else is unknown
		{"does not resolve", "", nil, Installed{}, 0},
		{"a program elsewhere", "/usr/bin/claude", nil, Installed{}, 0},
		{"cli.js outside the package's folder", "/opt/claude/cli.js", map[string]string{"/opt/claude/package.json": good}, Installed{}, 0},
		{"another package's cli.js", "/usr/lib/node_modules/@anthropic-ai/claude-code-linux-x64/cli.js", nil, Installed{}, 0},
		{"claude.exe not in bin/", pkg + "/claude.exe", map[string]string{pkgJSON: good}, Installed{}, 0},
		{"another program in bin/", pkg + "/bin/claude", map[string]string{pkgJSON: good}, Installed{}, 0},
		{"no package.json", pkg + "/cli.js", nil, Installed{}, 1},
		{"another name", pkg + "/cli.js", map[string]string{pkgJSON: packageJSON("@anthropic-ai/claude-code-linux-x64", `"2.1.197"`)}, Installed{}, 1},
		{"a name in other case", pkg + "/cli.js", map[string]string{pkgJSON: packageJSON("@Anthropic-AI/claude-code", `"2.1.197"`)}, Installed{}, 1},
		{"no name", pkg + "/cli.js", map[string]string{pkgJSON: `{"version": "2.1.197"}`}, Installed{}, 1},
		{"a number", pkg + "/cli.js", map[string]string{pkgJSON: packageJSON(name, `2.1`)}, Installed{}, 1},
		{"no version", pkg + "/cli.js", map[string]string{pkgJSON: `{"name": "` + name + `"}`}, Installed{}, 1},
		{"a pre-release", pkg + "/cli.js", map[string]string{pkgJSON: packageJSON(name, `"2.1.330-beta.1"`)}, Installed{}, 1},
		{"a build", pkg + "/cli.js", map[string]string{pkgJSON: packageJSON(name, `"2.1.330+abc"`)}, Installed{}, 1},
		{"a v", pkg + "/cli.js", map[string]string{pkgJSON: packageJSON(name, `"v2.1.330"`)}, Installed{}, 1},
		{"spaces", pkg + "/cli.js", map[string]string{pkgJSON: packageJSON(name, `" 2.1.330"`)}, Installed{}, 1},
		{"two parts", pkg + "/cli.js", map[string]string{pkgJSON: packageJSON(name, `"2.1"`)}, Installed{}, 1},
		{"a leading zero", pkg + "/cli.js", map[string]string{pkgJSON: packageJSON(name, `"2.01.330"`)}, Installed{}, 1},
		{"too many digits", pkg + "/cli.js", map[string]string{pkgJSON: packageJSON(name, `"2.1.99999999999999999999"`)}, Installed{}, 1},
		{"not JSON", pkg + "/cli.js", map[string]string{pkgJSON: `name=@anthropic-ai/claude-code version=2.1.197`}, Installed{}, 1},
		{"an array", pkg + "/cli.js", map[string]string{pkgJSON: `["` + name + `", "2.1.197"]`}, Installed{}, 1},
		{"more after the object", pkg + "/cli.js", map[string]string{pkgJSON: good + `{}`}, Installed{}, 1},
		{"too big", pkg + "/cli.js", map[string]string{pkgJSON: good + strings.Repeat(" ", packageJSONCap)}, Installed{}, 1},
		{"a versions folder of another program", "/home/u/.local/share/other/versions/2.1.330", nil, Installed{}, 0},
		{"not in a versions folder", "/home/u/.local/share/claude/2.1.330", nil, Installed{}, 0},
		{"a native name with more", "/home/u/.local/share/claude/versions/2.1.330.old", nil, Installed{}, 0},
		{"a native name with a v", "/home/u/.local/share/claude/versions/v2.1.330", nil, Installed{}, 0},
		{"a native pre-release", "/home/u/.local/share/claude/versions/2.1.330-rc1", nil, Installed{}, 0},
		{"relative", "claude/versions/2.1.330", nil, Installed{}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeInstall{links: map[string]string{}, files: tc.files}
			if tc.prog != "" {
				f.links[bin] = tc.prog
			}
			got := InstalledVersion(claudeCode{}, bin, f.access())
			if got != tc.want {
				t.Errorf("InstalledVersion = %+v, want %+v", got, tc.want)
			}
			if len(f.read) != tc.reads {
				t.Errorf("read %q, want %d file(s) read", f.read, tc.reads)
			}
		})
	}
}

// Only a driver whose version the loop uses has a layout: for the others
// nothing is resolved or read, even in Claude's layout.
func TestInstalledVersionOtherDrivers(t *testing.T) {
	for _, name := range Names() {
		if name == "claude-code" {
			continue
		}
		d, err := Get(name)
		if err != nil {
			t.Fatal(err)
		}
		looked := false
		files := InstallFiles{
			Resolve: func(string) (string, error) {
				looked = true
				return "/home/u/.local/share/claude/versions/2.1.330", nil
			},
			Read: func(string, int64) ([]byte, error) { looked = true; return nil, errors.New("no") },
		}
		if got := InstalledVersion(d, "/usr/bin/x", files); got != (Installed{}) || looked {
			t.Errorf("%s: InstalledVersion = %+v, looked = %v; want nothing looked at", name, got, looked)
		}
	}
	if got := InstalledVersion(claudeCode{}, "/usr/bin/claude", InstallFiles{}); got != (Installed{}) {
		t.Errorf("without file access: %+v", got)
	}
}
