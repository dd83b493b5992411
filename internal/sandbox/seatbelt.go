package sandbox

import (
	"fmt"
	"path/filepath"
	"strings"
)

// seatbeltSecrets are macOS's counterparts of maskedFiles and maskedDirs
// that root may read: sandbox-exec denies reading them.
var seatbeltSecrets = []string{"/private/etc/master.passwd", "/private/etc/sudoers", "/private/etc/sudoers.d", "/private/var/root", "/private/var/db/sudo", "/Library/Keychains"}

// seatbeltProfile is the sandbox-exec profile: writes only to the project,
// the temporary folders and the CLI's own files; .ralph/'s loop-owned
// files and the folder itself not writable, its logs unreadable; $HOME
// unreadable but for the files of the agent CLI that runs, its program and
// the generated git identity; root's secrets unreadable; no network when
// Network is off. The last matching rule wins.
func seatbeltProfile(p Policy, prog string, lookPath func(string) (string, error)) string {
	q := func(s string) string { return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"` }
	var b strings.Builder
	b.WriteString("(version 1)\n(allow default)\n")
	for _, s := range seatbeltSecrets {
		fmt.Fprintf(&b, "(deny file-read* file-write* (subpath %s))\n", q(s))
	}
	b.WriteString("(deny file-read* file-write* (regex #\"^/private/etc/ssh/ssh_host_.*_key$\"))\n")
	// The person's terminals: with no controlling terminal /dev/tty fails
	// anyway, but a terminal's device (/dev/ttys003) can be opened by path.
	b.WriteString("(deny file-read* file-write* file-ioctl (regex #\"^/dev/tty\"))\n")
	if p.Home != "" && p.Home != "/" {
		fmt.Fprintf(&b, "(deny file-read* file-write* (subpath %s))\n", q(p.Home))
		for _, pb := range p.programBinds(prog, lookPath) {
			fmt.Fprintf(&b, "(allow file-read* (subpath %s))\n", q(pb.path))
		}
		for _, h := range p.home(prog) {
			fmt.Fprintf(&b, "(allow file-read* (subpath %s))\n", q(filepath.Join(p.Home, h.Path)))
		}
	}
	for _, r := range p.Read {
		fmt.Fprintf(&b, "(allow file-read* (subpath %s))\n", q(r))
	}
	if p.GitConfig != "" {
		fmt.Fprintf(&b, "(allow file-read* (literal %s))\n", q(p.GitConfig))
	}
	b.WriteString("(deny file-write*)\n")
	b.WriteString(`(allow file-write* (literal "/dev/null") (regex #"^/dev/fd/") (subpath "/private/tmp") (subpath "/private/var/folders"))` + "\n")
	fmt.Fprintf(&b, "(allow file-read* file-write* (subpath %s))\n", q(p.Project))
	for _, h := range p.home(prog) {
		if h.Write {
			fmt.Fprintf(&b, "(allow file-write* (subpath %s))\n", q(filepath.Join(p.Home, h.Path)))
		}
	}
	if p.RalphDir != "" {
		fmt.Fprintf(&b, "(deny file-write* (literal %s))\n", q(p.RalphDir))
		for _, f := range p.loopOwned() {
			fmt.Fprintf(&b, "(deny file-write* (literal %s))\n", q(f))
		}
		fmt.Fprintf(&b, "(deny file-read* file-write* (subpath %s))\n", q(filepath.Join(p.RalphDir, "logs")))
	}
	for _, m := range p.Git.mounts(p.Project) {
		if m.write {
			fmt.Fprintf(&b, "(allow file-read* file-write* (subpath %s))\n", q(m.path))
		} else {
			fmt.Fprintf(&b, "(allow file-read* (subpath %s))\n(deny file-write* (subpath %s))\n", q(m.path), q(m.path))
		}
	}
	if p.GitConfig != "" {
		fmt.Fprintf(&b, "(deny file-write* (literal %s))\n", q(p.GitConfig))
	}
	if !p.Network {
		b.WriteString("(deny network*)\n")
	}
	return b.String()
}
