// Package gitrun runs the loop's own git commands so that none of them
// starts a program the repository chose, and none runs forever.
//
// A repository's .git/config (and the files it includes, a worktree's
// config.worktree, and the configuration of the common folder a commondir
// file names) is written by whoever controls the repository, the agent
// included: it can name a file-system monitor (core.fsmonitor), hooks
// (core.hooksPath), clean/smudge filters and their long-running process
// (filter.<driver>.*, picked per path by .gitattributes), diff drivers and
// text conversions, a pager, credential helpers, transports and the
// programs that sign and check signatures (gpg.program, gpg.ssh.program,
// gpg.x509.program). git runs those as the user who runs it, so an agent
// limited to file tools could run any command through the loop's `git
// diff`, and --swarm's commits through their signature. Every git command
// the loop runs goes through Run, which turns each of them off for this
// one command:
//
//   - `-c core.fsmonitor=false`, `-c core.hooksPath=/dev/null`;
//   - `--no-pager`, GIT_PAGER=cat, GIT_EDITOR=:, GIT_TERMINAL_PROMPT=0,
//     `-c credential.helper=`, `-c protocol.allow=never` and
//     GIT_ALLOW_PROTOCOL set empty (the loop never fetches or pushes; no
//     transport, no ssh command, no askpass; the empty list beats a
//     repository's protocol.<name>.allow=always, which -c does not, so a
//     partial clone's lazy fetch cannot start an ext:: command either);
//   - no signing and no signature checks: commit.gpgSign, tag.gpgSign,
//     merge.verifySignatures and log.showSignature off;
//   - no background work: gc.auto=0 and maintenance.auto=false (an
//     automatic gc detaches from the loop), submodule.recurse=false;
//   - `diff` gets --no-ext-diff and --no-textconv; `diff` and `status`
//     get --ignore-submodules=dirty (git would otherwise run status
//     inside each submodule, under the submodule's own config);
//   - every filter the repository's own config defines is emptied
//     (clean, smudge and process set to "", required to false), and every
//     merge driver it defines is replaced by `false` (the file is left in
//     conflict), through GIT_CONFIG_KEY_n/GIT_CONFIG_VALUE_n so that any
//     name works: the
//     names are listed with `git config --show-scope --includes` before
//     each command, so a filter the agent adds between two commands is
//     caught too (the listing is remembered with the bytes of every file
//     of the repository's own configuration, and not for one with an
//     include: configKey).
//
// Each command runs in a process group of its own under a time limit
// (Timeout), after which the whole group is killed, and is not run at all
// when a file git reads on every command is a named pipe or a device
// (layout.go): a *StuckError says which.
//
// The person's own configuration (system, global, `-c` and GIT_CONFIG_*
// in their environment) is trusted and left alone: a global git-lfs
// filter keeps working.
package gitrun

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// safeConfig are the overrides every command gets.
var safeConfig = []string{
	"core.fsmonitor=false",
	"core.hooksPath=/dev/null",
	"core.pager=cat",
	"credential.helper=",
	"protocol.allow=never",
	"commit.gpgSign=false",
	"tag.gpgSign=false",
	"merge.verifySignatures=false",
	"log.showSignature=false",
	"submodule.recurse=false",
	"gc.auto=0",
	"maintenance.auto=false",
}

// safeEnv are the environment entries every command gets, after the
// loop's own.
var safeEnv = []string{
	"GIT_PAGER=cat",
	"GIT_EDITOR=:",
	"GIT_TERMINAL_PROMPT=0",
	"GIT_ALLOW_PROTOCOL=",
	"GIT_PROTOCOL_FROM_USER=0",
	"GIT_NO_LAZY_FETCH=1",
}

// timeoutEnv names the environment variable that sets Timeout (a Go
// duration such as 15m): the person's, for a repository so large that
// git needs longer; the tests shorten it.
const timeoutEnv = "RALPH_GIT_TIMEOUT"

// defaultTimeout bounds one git command: far more than any command the
// loop runs needs on a sound repository, and a hang ends.
const defaultTimeout = 5 * time.Minute

// Timeout is how long one git command may run before its process group is
// killed: RALPH_GIT_TIMEOUT from the environment, else 5 minutes. (A
// variable for the tests.)
var Timeout = sync.OnceValue(func() time.Duration {
	if d, err := time.ParseDuration(os.Getenv(timeoutEnv)); err == nil && d > 0 {
		return d
	}
	return defaultTimeout
})

// command is `git args...` in dir, in the environment env (which carries
// the filters to empty, see filterEnv), with every program the
// repository's own configuration could start turned off, in a process
// group of its own that is killed when ctx ends.
func command(ctx context.Context, dir string, env []string, args ...string) *exec.Cmd {
	argv := []string{"--no-pager"}
	for _, kv := range safeConfig {
		argv = append(argv, "-c", kv)
	}
	argv = append(argv, withSafeFlags(args)...)
	cmd := exec.CommandContext(ctx, "git", argv...)
	cmd.Dir = dir
	cmd.Env = env
	ownGroup(cmd)
	return cmd
}

// filterEnv is env with safeEnv and, for each filter name, its clean,
// smudge and process commands emptied and required=false (a merge
// driver's command replaced by `false`), as GIT_CONFIG_KEY_n/
// GIT_CONFIG_VALUE_n entries after the person's own (GIT_CONFIG_COUNT).
// Unlike `-c name=value` these keep the key apart from the value, whatever
// characters the name holds ("=" too).
func filterEnv(env []string, names []string) []string {
	out := append(env[:len(env):len(env)], safeEnv...)
	if len(names) == 0 {
		return out
	}
	n := 0
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GIT_CONFIG_COUNT="); ok {
			n, _ = strconv.Atoi(v)
		}
	}
	for _, name := range names {
		overrides := [][2]string{{"clean", ""}, {"smudge", ""}, {"process", ""}, {"required", "false"}}
		if strings.HasPrefix(name, "merge.") {
			// A merge driver that fails leaves its file in conflict, so a
			// merge the repository's driver would have made is never
			// taken silently; an empty command would "succeed" keeping ours.
			overrides = [][2]string{{"driver", "false"}}
		}
		for _, kv := range overrides {
			out = append(out, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s.%s", n, name, kv[0]), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", n, kv[1]))
			n++
		}
	}
	return append(out, "GIT_CONFIG_COUNT="+strconv.Itoa(n))
}

// withSafeFlags adds the subcommand's own switches that keep programs
// out: no external diff or text conversion, no status run inside
// submodules. They go after the caller's options (before a "--", if any).
func withSafeFlags(args []string) []string {
	if len(args) == 0 {
		return args
	}
	var extra []string
	switch args[0] {
	case "diff":
		extra = []string{"--no-ext-diff", "--no-textconv", "--ignore-submodules=dirty"}
	case "status":
		extra = []string{"--ignore-submodules=dirty"}
	default:
		return args
	}
	at := slices.Index(args, "--")
	if at < 0 {
		at = len(args)
	}
	out := make([]string, 0, len(args)+len(extra))
	out = append(out, args[:at]...)
	out = append(out, extra...)
	return append(out, args[at:]...)
}

// repoConf is what the repository's own configuration (local and worktree
// scopes, with what they include) names that the loop's git must not
// use: its filter and merge drivers ("filter.NAME", "merge.NAME"), and
// the files git is to read for every command (core.excludesFile,
// core.attributesFile), which layout.go looks at before each command.
type repoConf struct {
	names []string
	files []string
}

// repoConfig lists the repository's repoConf for a command run in dir,
// whose repository git finds at l. Nothing is listed when git cannot
// tell, for example outside a repository; then there is no repository
// configuration to distrust either. The loop runs git several times per
// iteration, and --swarm's merges dozens of times in a worktree, so when
// the command runs at the top of a repository or worktree whose
// configuration includes no other file, the answer is remembered with the
// bytes of every file that says where that configuration is and what it
// holds (configKey), and listed again only when one of them changes. The
// error is a *StuckError when the listing ran out of time (ctx's deadline,
// the caller's time limit), nil otherwise.
func repoConfig(ctx context.Context, dir string, l layout, env []string) (repoConf, error) {
	key, cacheable := configKey(l, dir, env)
	if cacheable {
		filterCache.Lock()
		c, ok := filterCache.m[dir]
		filterCache.Unlock()
		if ok && c.key == key {
			return c.conf, nil
		}
	}
	cmd := exec.CommandContext(ctx, "git", "--no-pager", "config", "--show-scope", "--includes", "-z", "--get-regexp",
		`^(filter|merge|include|includeif)\.|^core\.(excludesfile|attributesfile)$`)
	cmd.Dir = dir
	cmd.Env = append(env[:len(env):len(env)], safeEnv...)
	ownGroup(cmd)
	out, err := cmd.Output()
	if timedOut(ctx) {
		return repoConf{}, errTimedOut
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 && len(out) == 0 {
		err = nil // --get-regexp's "no such entry": nothing to turn off
	}
	if err != nil {
		return repoConf{}, nil
	}
	base := l.top
	if base == "" {
		base = dir
	}
	conf, includes := parseConfig(out, base, envValue(env, "HOME"))
	if cacheable && !includes {
		filterCache.Lock()
		filterCache.m[dir] = cachedConf{key: key, conf: conf}
		filterCache.Unlock()
	}
	return conf, nil
}

// filterCache holds repoConfig's answers by the folder the command ran in.
var filterCache = struct {
	sync.Mutex
	m map[string]cachedConf
}{m: map[string]cachedConf{}}

type cachedConf struct {
	key  [sha256.Size]byte // of where the configuration is and its files' bytes
	conf repoConf
}

// configKey identifies the repository configuration a command run in dir
// reads, when dir is the top of the work tree git finds there (l: a .git
// folder, or a worktree's or submodule's .git file naming its git folder)
// and neither GIT_DIR nor GIT_COMMON_DIR moves it. The key holds the git
// folder and the common folder (where a .git file and a commondir file
// point: a changed pointer is another key) and the bytes of every file of
// the local and worktree scopes: the common folder's config, the git
// folder's config and config.worktree, and the commondir and gitdir files
// themselves. Any change to any of them asks git again; a file that cannot
// be read as a regular file, or a layout git may read otherwise (a special
// file on the way), is never remembered. Files included from these are
// not covered: repoConfig remembers nothing for a configuration with an
// include.
func configKey(l layout, dir string, env []string) (key [sha256.Size]byte, ok bool) {
	for _, kv := range env {
		if k, v, _ := strings.Cut(kv, "="); v != "" && (k == "GIT_DIR" || k == "GIT_COMMON_DIR" || k == "GIT_WORK_TREE") {
			return key, false
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil || l.special != "" || l.gitDir == "" || l.commonDir == "" || l.top != abs {
		return key, false
	}
	h := sha256.New()
	fmt.Fprintf(h, "%q %q\x00", l.gitDir, l.commonDir)
	files := []string{filepath.Join(l.commonDir, "config"), filepath.Join(l.gitDir, "config"),
		filepath.Join(l.gitDir, "config.worktree"), filepath.Join(l.gitDir, "commondir"), filepath.Join(l.gitDir, "gitdir")}
	for _, name := range files {
		if special(name) != "" {
			return key, false
		}
		b, err := ralphdir.ReadFileCapped(name, ralphdir.StateCap)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			h.Write([]byte{0})
		case err != nil:
			return key, false
		default:
			h.Write([]byte{1})
			h.Write(b)
		}
	}
	h.Sum(key[:0])
	return key, true
}

// parseConfig reads `git config --show-scope -z --get-regexp` output
// ("scope\0key\nvalue\0" per entry) and returns the repoConf of the
// entries whose scope is not the person's own (system, global, command),
// each name once; a relative file is taken from base, "~/" from home.
// includes is true when such a scope includes other files.
func parseConfig(out []byte, base, home string) (conf repoConf, includes bool) {
	seen := map[string]bool{}
	fields := bytes.Split(out, []byte{0})
	for i := 0; i+1 < len(fields); i += 2 {
		scope := string(fields[i])
		key, value, _ := strings.Cut(string(fields[i+1]), "\n")
		switch scope {
		case "system", "global", "command":
			continue
		}
		if strings.HasPrefix(key, "include.") || strings.HasPrefix(key, "includeif.") {
			includes = true
			continue
		}
		if key == "core.excludesfile" || key == "core.attributesfile" {
			if rest, ok := strings.CutPrefix(value, "~/"); ok && home != "" {
				value = filepath.Join(home, rest)
			} else if value != "" && !filepath.IsAbs(value) {
				value = filepath.Join(base, value)
			}
			if value != "" {
				conf.files = append(conf.files, value)
			}
			continue
		}
		section, rest, _ := strings.Cut(key, ".")
		if section != "filter" && section != "merge" {
			continue
		}
		dot := strings.LastIndexByte(rest, '.')
		if dot <= 0 {
			continue // merge.conflictstyle and the like: no program
		}
		if name := section + "." + rest[:dot]; !seen[name] {
			seen[name] = true
			conf.names = append(conf.names, name)
		}
	}
	return conf, includes
}

// Run runs `git args...` in dir as the package comment says (no program
// the repository chose, a time limit, no file git would wait on forever)
// and returns its stdout without the final newlines. A failure is git's
// own message (its stderr, trimmed) when it printed one, wrapping the
// *exec.ExitError; a *StuckError when git was not run or was stopped.
func Run(ctx context.Context, dir string, args ...string) (string, error) {
	return runIn(ctx, dir, os.Environ(), args...)
}

// errTimedOut says the listing of repoConfig ran out of time.
var errTimedOut = errors.New("git ran out of time")

// timedOut reports whether ctx ended by a time limit (the command's own,
// Timeout, or a shorter one of the caller's), not by a cancel.
func timedOut(ctx context.Context) bool { return errors.Is(ctx.Err(), context.DeadlineExceeded) }

// runIn is Run in the environment env.
func runIn(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	start := time.Now() // the time limit's start: a stopped command ran at least the limit
	ctx, cancel := context.WithTimeout(ctx, Timeout())
	defer cancel()
	l := locate(dir, env)
	if err := l.check(args, dir, nil); err != nil {
		return "", err
	}
	stuck := func() error {
		path, problem := l.search()
		return &StuckError{Args: args, Dir: dir, Path: path, Problem: problem, After: time.Since(start).Round(time.Millisecond)}
	}
	conf, err := repoConfig(ctx, dir, l, env)
	if err != nil {
		return "", stuck()
	}
	for _, p := range conf.files {
		if what := special(p); what != "" {
			return "", &StuckError{Args: args, Dir: dir, Path: p, Problem: what}
		}
	}
	cmd := command(ctx, dir, filterEnv(env, conf.names), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if timedOut(ctx) {
			return "", stuck()
		}
		if msg := strings.TrimSpace(errb.String()); msg != "" {
			return "", &gitError{msg: msg, err: err}
		}
		return "", err
	}
	return strings.TrimRight(out.String(), "\n"), nil
}

// gitError is git's message for a command that failed, wrapping how it
// ended (an *exec.ExitError).
type gitError struct {
	msg string
	err error
}

func (e *gitError) Error() string { return e.msg }
func (e *gitError) Unwrap() error { return e.err }

// Refusal is git refusing to work in a repository another user owns
// ("detected dubious ownership"), as one line in git's own words,
// including the `git config --global --add safe.directory` command it
// suggests; ok is false for any other message.
func Refusal(msg string) (line string, ok bool) {
	if !strings.Contains(msg, "dubious ownership") {
		return "", false
	}
	var parts []string
	for _, l := range strings.Split(msg, "\n") {
		l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "fatal:"))
		if l != "" {
			parts = append(parts, l)
		}
	}
	if len(parts) == 0 {
		return "", false
	}
	line = "git refuses to work in this repository: " + parts[0]
	if len(parts) > 1 {
		line += "; " + strings.Join(parts[1:], " ")
	}
	return line, true
}
