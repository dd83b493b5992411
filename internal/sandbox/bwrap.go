package sandbox

import (
	"os"
	"path/filepath"
	"slices"
)

// maskedFiles and maskedDirs are the system's secrets that its owner, root,
// may read by their permission bits alone: uid 0 in the sandbox is still
// root's uid on the host (a user namespace maps it to itself, and without
// one it is root), so with every capability dropped it still reads what
// root owns and may read (/etc/shadow is root:shadow 0640). bwrap shows
// each one that exists as an empty file or folder. A process of any other
// user cannot read them anyway.
var (
	maskedFiles = []string{
		"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", // password hashes
		"/etc/sudoers", "/etc/security/opasswd",
		"/etc/krb5.keytab", "/etc/ipsec.secrets", "/etc/ppp/chap-secrets", "/etc/ppp/pap-secrets",
	}
	// maskedGlobs are patterns of such files: the SSH server's private
	// host keys.
	maskedGlobs = []string{"/etc/ssh/ssh_host_*_key"}
	maskedDirs  = []string{
		"/root", // root's home, when it is not $HOME (hidden then anyway)
		"/etc/sudoers.d", "/etc/ssl/private", "/etc/pki/tls/private", "/etc/letsencrypt",
		"/etc/NetworkManager/system-connections", "/etc/wireguard", // network passwords and keys
		"/etc/kubernetes", "/etc/rancher", "/var/lib/kubelet", "/etc/docker", // cluster and engine credentials
		"/etc/credstore", "/etc/credstore.encrypted", // service credentials (/run's are hidden with /run)
		"/var/lib/docker", "/var/lib/containers", "/var/lib/private", "/var/lib/sudo",
		"/var/backups", "/var/spool/cron", "/var/log", // shadow's backups, crontabs, logs
	}
)

// masks are the bwrap arguments that hide maskedFiles, maskedGlobs and
// maskedDirs: an empty file (/dev/null) over a file, an empty folder of
// its own (a tmpfs: what is written there stays in the sandbox) over a
// folder. $HOME, or a folder that holds it, is hidden whole instead.
func (p Policy) masks() []string {
	var a []string
	files := append([]string{}, maskedFiles...)
	for _, g := range maskedGlobs {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	for _, f := range files {
		if fi, err := os.Lstat(f); err == nil && fi.Mode().IsRegular() {
			a = append(a, "--ro-bind", os.DevNull, f)
		}
	}
	for _, d := range maskedDirs {
		if d == p.Home || under(p.Home, d) {
			continue // $HOME is hidden whole below
		}
		if fi, err := os.Lstat(d); err == nil && fi.IsDir() {
			a = append(a, "--tmpfs", d)
		}
	}
	return a
}

// bwrapArgs is the bubblewrap command line, up to the program prog: no
// capability (also for root), a user namespace where the system allows one
// (and none more inside), a session of its own with no terminal, a pid
// namespace that dies with the loop; the system read-only with its secrets
// masked, a private /tmp, $HOME hidden but for what the command needs, the
// project read-write, .ralph/ writable but for the loop's own files
// (read-only) and its logs (hidden).
func bwrapArgs(p Policy, dir, prog string, lookPath func(string) (string, error)) []string {
	a := []string{p.Tool, "--die-with-parent", "--new-session", "--cap-drop", "ALL"}
	if p.UserNS {
		a = append(a, "--unshare-user")
		if p.NoMoreUserNS {
			a = append(a, "--disable-userns")
		}
	}
	a = append(a, "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try")
	if !p.Network {
		a = append(a, "--unshare-net")
	}
	a = append(a, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/var/tmp")
	for _, s := range hiddenSockets {
		if exists(s) {
			a = append(a, "--ro-bind", os.DevNull, s)
		}
	}
	a = append(a, p.masks()...)
	a = append(a, runArgs()...)
	if rt := os.Getenv("XDG_RUNTIME_DIR"); rt != "" && filepath.IsAbs(rt) && exists(rt) {
		a = append(a, "--tmpfs", rt)
	}
	if p.Home != "" && p.Home != "/" {
		a = append(a, "--tmpfs", p.Home)
	}
	for _, b := range p.programBinds(prog, lookPath) {
		if b.link != "" {
			a = append(a, "--symlink", b.link, b.path)
		} else {
			a = append(a, "--ro-bind", b.path, b.path)
		}
	}
	for _, d := range p.pathDirs() {
		a = append(a, "--ro-bind", d, d)
	}
	for _, r := range p.Read {
		if exists(r) {
			a = append(a, "--ro-bind", r, r)
		}
	}
	for _, h := range p.home(prog) {
		path := filepath.Join(p.Home, h.Path)
		if !exists(path) {
			continue
		}
		if h.Write {
			a = append(a, "--bind", path, path)
		} else {
			a = append(a, "--ro-bind", path, path)
		}
	}
	if p.GitConfig != "" {
		a = append(a, "--ro-bind", p.GitConfig, filepath.Join(p.Home, ".gitconfig"))
	}
	a = append(a, "--bind", p.Project, p.Project)
	if p.ralphDirExists() {
		// Over itself: a mount point cannot be renamed away and replaced
		// by a folder of the agent's making.
		a = append(a, "--bind", p.RalphDir, p.RalphDir)
		for _, f := range p.loopOwned() {
			a = append(a, "--ro-bind", f, f)
		}
		if logs := p.logsDir(); logs != "" {
			a = append(a, "--tmpfs", logs, "--remount-ro", logs)
		}
	}
	for _, m := range p.Git.mounts(p.Project) {
		switch {
		case m.write:
			a = append(a, "--bind", m.path, m.path)
		default:
			a = append(a, "--ro-bind", m.path, m.path)
		}
	}
	return append(a, "--chdir", dir, "--")
}

// runDirs are the folders the sandbox replaces with empty ones of its own
// besides $HOME and the masked ones: the temporary folders, and /run
// (with /var/run when that is a folder of its own), which holds the
// system's sockets — systemd's, D-Bus's, containerd's — that root reaches
// by their owner's bits alone, and through which it would start a
// program outside.
var (
	tmpDirs = []string{"/tmp", "/var/tmp"}
	runDirs = []string{"/run", "/var/run"}
	// resolvConf is the resolver's configuration, often a link into /run.
	resolvConf = "/etc/resolv.conf"
)

// runArgs hides runDirs, but for the file /etc/resolv.conf leads to when
// it is under one of them (systemd-resolved's stub, NetworkManager's),
// which name resolution needs.
func runArgs() []string {
	var a []string
	for _, d := range runDirs {
		if fi, err := os.Lstat(d); err == nil && fi.IsDir() {
			a = append(a, "--tmpfs", d)
		}
	}
	if real, err := filepath.EvalSymlinks(resolvConf); err == nil && real != resolvConf {
		for _, d := range runDirs {
			if under(real, d) {
				a = append(a, "--ro-bind", real, real)
				break
			}
		}
	}
	return a
}

// pathDirs are the folders of $PATH under tmpDirs or runDirs (which the
// sandbox replaces with empty ones): shown read-only, so that a tool
// installed there still runs (NixOS's /run/current-system/sw/bin). $PATH's
// folders under $HOME are not shown: they hold more than programs
// (~/.cargo holds credentials.toml), and a CLI installed there is shown on
// its own (programBinds).
func (p Policy) pathDirs() []string {
	var out []string
	for _, d := range filepath.SplitList(p.Path) {
		d = filepath.Clean(d)
		if !filepath.IsAbs(d) || !underAny(d, tmpDirs, runDirs) || slices.Contains(tmpDirs, d) || slices.Contains(runDirs, d) || (p.Home != "" && under(d, p.Home)) {
			continue
		}
		if fi, err := os.Lstat(d); err == nil && fi.IsDir() && !under(p.Project, d) && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// hidden reports whether the sandbox replaces path's folder with an empty
// one: $HOME, /tmp, /var/tmp, $XDG_RUNTIME_DIR and the masked folders.
func (p Policy) hidden(path string) bool {
	if p.Home != "" && p.Home != "/" && under(path, p.Home) {
		return true
	}
	if underAny(path, tmpDirs, runDirs) {
		return true
	}
	if rt := os.Getenv("XDG_RUNTIME_DIR"); rt != "" && filepath.IsAbs(rt) && under(path, rt) {
		return true
	}
	for _, d := range maskedDirs {
		if under(path, d) {
			return true
		}
	}
	return false
}

// underAny reports whether path is one of the folders of lists or inside
// one.
func underAny(path string, lists ...[]string) bool {
	for _, l := range lists {
		for _, d := range l {
			if under(path, d) {
				return true
			}
		}
	}
	return false
}
