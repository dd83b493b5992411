// Package gitrun runs the loop's own git commands so that none of them
// starts a program the repository chose.
//
// A repository's .git/config (and the files it includes, and a worktree's
// config.worktree) is written by whoever controls the repository, the
// agent included: it can name a file-system monitor (core.fsmonitor),
// hooks (core.hooksPath), clean/smudge filters and their long-running
// process (filter.<driver>.*, picked per path by .gitattributes), diff
// drivers and text conversions, a pager, credential helpers and
// transports. git runs those as the user who runs it, so an agent limited
// to file tools could run any command through the loop's `git diff`.
// Every git command the loop runs goes through Command, which turns each
// of them off for this one command:
//
//   - `-c core.fsmonitor=false`, `-c core.hooksPath=/dev/null`;
//   - `--no-pager`, GIT_PAGER=cat, GIT_TERMINAL_PROMPT=0,
//     `-c credential.helper=`, `-c protocol.allow=never` (the loop never
//     fetches or pushes; no transport, no ssh command, no askpass);
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
//     caught too.
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

	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// safeConfig are the overrides every command gets.
var safeConfig = []string{
	"core.fsmonitor=false",
	"core.hooksPath=/dev/null",
	"core.pager=cat",
	"credential.helper=",
	"protocol.allow=never",
}

// Command is `git args...` in dir, with every program the repository's
// own configuration could start turned off (see the package comment). The
// caller sets Stdout and Stderr.
func Command(ctx context.Context, dir string, args ...string) *exec.Cmd {
	return command(ctx, dir, os.Environ(), args...)
}

// command is Command in the environment env.
func command(ctx context.Context, dir string, env []string, args ...string) *exec.Cmd {
	argv := []string{"--no-pager"}
	for _, kv := range safeConfig {
		argv = append(argv, "-c", kv)
	}
	argv = append(argv, withSafeFlags(args)...)
	cmd := exec.CommandContext(ctx, "git", argv...)
	cmd.Dir = dir
	cmd.Env = filterEnv(env, repoFilters(ctx, dir, env))
	return cmd
}

// filterEnv is env with GIT_PAGER=cat, GIT_TERMINAL_PROMPT=0 and, for each
// filter name, its clean, smudge and process commands emptied and
// required=false, as GIT_CONFIG_KEY_n/GIT_CONFIG_VALUE_n entries after the
// person's own (GIT_CONFIG_COUNT). Unlike `-c name=value` these keep the
// key apart from the value, whatever characters the name holds ("=" too).
func filterEnv(env []string, names []string) []string {
	out := append(env[:len(env):len(env)], "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0")
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

// repoFilters names the filter and merge drivers ("filter.NAME", "merge.NAME") the repository's own configuration
// (local and worktree scopes, with what they include) defines. Nothing is
// listed when git cannot tell, for example outside a repository; then
// there is no repository configuration to distrust either. The loop runs
// git several times per iteration, so for a plain repository (dir/.git is
// a folder, no GIT_DIR) whose configuration includes no other file, the
// names are remembered with the bytes of .git/config and
// .git/config.worktree and listed again only when those change.
func repoFilters(ctx context.Context, dir string, env []string) []string {
	key, cacheable := configKey(dir, env)
	if cacheable {
		filterCache.Lock()
		c, ok := filterCache.m[dir]
		filterCache.Unlock()
		if ok && c.key == key {
			return c.names
		}
	}
	cmd := exec.CommandContext(ctx, "git", "--no-pager", "config", "--show-scope", "--includes", "-z", "--get-regexp", `^(filter|merge|include|includeif)\.`)
	cmd.Dir = dir
	cmd.Env = append(env[:len(env):len(env)], "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0")
	out, err := cmd.Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 && len(out) == 0 {
		err = nil // --get-regexp's "no such entry": nothing to turn off
	}
	if err != nil {
		return nil
	}
	names, includes := parseFilters(out)
	if cacheable && !includes {
		filterCache.Lock()
		filterCache.m[dir] = cachedFilters{key: key, names: names}
		filterCache.Unlock()
	}
	return names
}

// filterCache holds repoFilters' answers by project folder.
var filterCache = struct {
	sync.Mutex
	m map[string]cachedFilters
}{m: map[string]cachedFilters{}}

type cachedFilters struct {
	key   [sha256.Size]byte // of the configuration files' bytes
	names []string
}

// configKey hashes the repository's own configuration files, when dir is
// the top of a plain repository whose files can be read as they are.
func configKey(dir string, env []string) (key [sha256.Size]byte, ok bool) {
	for _, kv := range env {
		if k, v, _ := strings.Cut(kv, "="); v != "" && (k == "GIT_DIR" || k == "GIT_COMMON_DIR") {
			return key, false
		}
	}
	gitDir := filepath.Join(dir, ".git")
	if st, err := os.Stat(gitDir); err != nil || !st.IsDir() {
		return key, false
	}
	h := sha256.New()
	for _, name := range []string{"config", "config.worktree"} {
		b, err := ralphdir.ReadFileCapped(filepath.Join(gitDir, name), ralphdir.StateCap)
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

// parseFilters reads `git config --show-scope -z --get-regexp` output
// ("scope\0key\nvalue\0" per entry) and returns the filter names of the
// entries whose scope is not the person's own (system, global, command),
// each once; includes is true when such a scope includes other files.
func parseFilters(out []byte) (names []string, includes bool) {
	seen := map[string]bool{}
	fields := bytes.Split(out, []byte{0})
	for i := 0; i+1 < len(fields); i += 2 {
		scope := string(fields[i])
		key, _, _ := strings.Cut(string(fields[i+1]), "\n")
		switch scope {
		case "system", "global", "command":
			continue
		}
		if strings.HasPrefix(key, "include.") || strings.HasPrefix(key, "includeif.") {
			includes = true
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
			names = append(names, name)
		}
	}
	return names, includes
}

// Run runs Command and returns its stdout without the final newlines. A
// failure is git's own message (its stderr, trimmed) when it printed one.
func Run(ctx context.Context, dir string, args ...string) (string, error) {
	return runIn(ctx, dir, os.Environ(), args...)
}

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
