package gitrun

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// Repo is the project's repository as the loop's engine asks about it.
// Open's answers come from git run through Command (or, for a plain
// repository, from its files where that is the same answer and cheaper),
// with the loop's own files under .ralph/ left out of every change.
type Repo interface {
	// Available reports whether git is installed.
	Available() bool
	// GitDir is nil in a repository git will look at, else git's message.
	GitDir(ctx context.Context) error
	IsRepo(ctx context.Context) bool
	// Head is HEAD's commit id, "" without one.
	Head(ctx context.Context) string
	// Porcelain is `git status --porcelain`, "" for a clean tree.
	Porcelain(ctx context.Context) string
	// CommittedBeyondOwned: the commits from..to change a file that is
	// not the loop's own.
	CommittedBeyondOwned(ctx context.Context, from, to string) bool
	// Changes counts the files changed since the commit start (committed,
	// unstaged and staged) with their `git diff --numstat` text.
	Changes(ctx context.Context, start string) (files int, numstat, mark string, markOK bool)
	// DiffStat is `git diff --stat [rng]`.
	DiffStat(ctx context.Context, rng string) string
	// LastCommit is HEAD's short id and subject.
	LastCommit(ctx context.Context) (id, subject string, ok bool)
	// Tree is a mark of the working tree's content beyond HEAD (tree.go).
	Tree(ctx context.Context) (mark string, ok bool)
	// CommitsSince lists the commits since..HEAD, oldest first (commits.go).
	CommitsSince(ctx context.Context, since string) []string
}

// repo is Open's Repo. With owned set, the change queries leave out the
// loop's own files under .ralph/.
type repo struct {
	dir    string
	env    []string // the environment git runs in
	plain  bool     // no GIT_DIR or GIT_COMMON_DIR: the git folders of dir/.git may be read as files
	index  bool     // GIT_INDEX_FILE is set: the staged diff is never remembered
	owned  *ownedPaths
	staged *stagedCache // nil: every change query asks git
	tree   *treeCache   // the digests of the dirty files (tree.go)
	top    topOnce      // the work tree's top folder, asked once
	commit rangeMemo    // the last commit range's numstat (Changes), for CommittedBeyondOwned
	edited atomic.Bool  // the last Changes' status showed an edit in the working tree
	warned *warnings    // nil: a git command that is stuck is not reported
}

// topOnce is `git rev-parse --show-toplevel`, asked once per Repo (by
// GitDir or toplevel, whichever comes first): the owned files' prefix and
// the tree's file paths both start from it.
type topOnce struct {
	mu    sync.Mutex
	asked bool
	dir   string // "" when git cannot tell
}

// toplevel is the repository's top folder, "" when git cannot tell.
func (g *repo) toplevel(ctx context.Context) string {
	g.top.mu.Lock()
	defer g.top.mu.Unlock()
	if !g.top.asked {
		g.top.asked = true
		if top, err := g.run(ctx, "rev-parse", "--show-toplevel"); err == nil {
			g.top.dir = top
		}
	}
	return g.top.dir
}

// knownTop remembers top, git's answer to --show-toplevel, unless it was
// asked already.
func (g *repo) knownTop(top string) {
	g.top.mu.Lock()
	defer g.top.mu.Unlock()
	if !g.top.asked {
		g.top.asked, g.top.dir = true, top
	}
}

// warnings reports each stuck git command's message once.
type warnings struct {
	mu   sync.Mutex
	seen map[string]bool
	warn func(error)
}

// note hands err to warn the first time its message is seen.
func (w *warnings) note(err error) {
	if w == nil {
		return
	}
	w.mu.Lock()
	first := !w.seen[err.Error()]
	w.seen[err.Error()] = true
	w.mu.Unlock()
	if first {
		w.warn(err)
	}
}

// stagedCache remembers the last `git diff --numstat --cached` of a plain
// repository with the HEAD it compared against and the identity of the
// index file it read. That diff compares the index with HEAD's tree, so it
// cannot change while neither does; anything that changes the index (git
// add, a commit, a checkout, a reset) replaces the index file, which gives
// it a new inode, size or modification time. The loop asks for the diff on
// every iteration, and an iteration where the agent staged nothing need not
// pay for a git process.
type stagedCache struct {
	mu    sync.Mutex
	head  string
	index os.FileInfo // nil: nothing remembered
	out   string
}

// ownedPaths recognises, among repository paths, the files the loop writes
// for itself under its .ralph/ folder (ralphdir.LoopOwned): they are never
// the agent's progress, whether they changed in the working tree or in a
// commit (an agent that runs `git add -A && git commit` commits them).
type ownedPaths struct {
	ralphDir string // the .ralph/ folder's absolute path
	once     sync.Once
	prefix   string // that folder relative to the repository's top, with a final "/"
	inside   bool   // the folder is inside the repository
}

// Open is the repository of projectDir as git sees it with env (the
// loop's environment; nil: this process's). With ralphDir set, the
// loop-owned files under that folder are left out of every change it
// reports, and the staged diff is remembered between questions. warn,
// when set, is told once of each git command that was not run or was
// stopped because it would never have ended (a *StuckError): the Repo's
// answers then say "no change", and the person must know why.
func Open(projectDir, ralphDir string, env []string, warn func(error)) Repo {
	r := open(projectDir, ralphDir, env)
	if warn != nil {
		r.warned = &warnings{seen: map[string]bool{}, warn: warn}
	}
	return r
}

func open(projectDir, ralphDir string, env []string) *repo {
	if env == nil {
		env = os.Environ()
	}
	r := &repo{dir: projectDir, env: env, plain: true, tree: &treeCache{}}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case v == "":
		case k == "GIT_DIR", k == "GIT_COMMON_DIR":
			r.plain = false
		case k == "GIT_INDEX_FILE":
			r.index = true
		}
	}
	if ralphDir != "" {
		r.owned, r.staged = &ownedPaths{ralphDir: ralphDir}, &stagedCache{}
	}
	return r
}

// isOwned reports whether p, a path relative to the repository's top as
// git diff and git status print it, is a loop-owned file.
func (g *repo) isOwned(ctx context.Context, p string) bool {
	o := g.owned
	if o == nil {
		return false
	}
	o.once.Do(func() {
		top := g.toplevel(ctx)
		if top == "" {
			return
		}
		rd := o.ralphDir
		if r, err := filepath.EvalSymlinks(rd); err == nil {
			rd = r
		}
		if r, err := filepath.EvalSymlinks(top); err == nil {
			top = r
		}
		rel, err := filepath.Rel(top, rd)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return
		}
		o.inside = true
		if rel != "." {
			o.prefix = filepath.ToSlash(rel) + "/"
		}
	})
	if !o.inside {
		return false
	}
	rest, ok := strings.CutPrefix(p, o.prefix)
	return ok && ralphdir.LoopOwned(rest)
}

// run is the repository's one way to run git: Run's command in the
// repository's environment, which starts no program the repository's
// configuration names. A command that is stuck is reported to warn.
func (g *repo) run(ctx context.Context, args ...string) (string, error) {
	out, err := runIn(ctx, g.dir, g.env, args...)
	if err != nil && Stuck(err) {
		g.warned.note(err)
	}
	return out, err
}

// Available reports whether git is installed.
func (g *repo) Available() bool {
	_, err := exec.LookPath("git")
	return err == nil
}

// GitDir is `git rev-parse --git-dir`'s failure: nil when dir is in a
// repository git is willing to look at, else git's own message. It asks
// `git rev-parse --show-toplevel` first, which succeeds only where
// --git-dir would and also gives the top folder the change queries need
// (one git process where a start-up took two); only when that fails (no
// repository, one git refuses, or no work tree, as in a bare repository)
// is --git-dir asked, for its own answer and words. A command that would
// never end is not asked twice.
func (g *repo) GitDir(ctx context.Context) error {
	top, err := g.run(ctx, "rev-parse", "--show-toplevel")
	if err == nil {
		g.knownTop(top)
		return nil
	}
	if Stuck(err) {
		return err
	}
	_, err = g.run(ctx, "rev-parse", "--git-dir")
	return err
}

// IsRepo reports whether dir is in a repository git will look at.
func (g *repo) IsRepo(ctx context.Context) bool { return g.GitDir(ctx) == nil }

// Head is `git rev-parse HEAD` ("" without a commit). A plain
// repository's or a linked worktree's HEAD is read from its files; the
// loop asks for it several times an iteration and a git process costs
// milliseconds. Anything else is asked of git.
func (g *repo) Head(ctx context.Context) string {
	if id, ok := g.readHead(); ok {
		return id
	}
	s, err := g.run(ctx, "rev-parse", "HEAD")
	if err != nil {
		return ""
	}
	return s
}

// readHead resolves HEAD from the files of a plain repository or a linked
// worktree (what --swarm's workers run in): dir is the top of the work
// tree, its .git a folder or a file naming the git folder, with no GIT_DIR
// or GIT_COMMON_DIR and no reftable; HEAD (in the git folder) is a commit
// id or names a loose or packed branch (in the common folder) that holds
// one. ok is false whenever that is not so (an unborn branch included),
// and the caller asks git.
func (g *repo) readHead() (id string, ok bool) {
	gitDir, commonDir, ok := g.gitDirs()
	if !ok {
		return "", false
	}
	for _, p := range []string{filepath.Join(gitDir, "reftable"), filepath.Join(commonDir, "reftable")} {
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			return "", false
		}
	}
	b, err := ralphdir.ReadFileCapped(filepath.Join(gitDir, "HEAD"), ralphdir.StateCap)
	if err != nil {
		return "", false
	}
	head := strings.TrimSpace(string(b))
	if isObjectID(head) {
		return head, true
	}
	ref, symbolic := strings.CutPrefix(head, "ref: ")
	if !symbolic || !strings.HasPrefix(ref, "refs/heads/") || strings.Contains(ref, "..") {
		return "", false
	}
	b, err = ralphdir.ReadFileCapped(filepath.Join(commonDir, filepath.FromSlash(ref)), ralphdir.StateCap)
	if err == nil {
		id = strings.TrimSpace(string(b))
		return id, isObjectID(id)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	packed, err := ralphdir.ReadFileCapped(filepath.Join(commonDir, "packed-refs"), ralphdir.LogCap)
	if err != nil {
		return "", false
	}
	for _, line := range strings.Split(string(packed), "\n") {
		if oid, name, found := strings.Cut(strings.TrimSpace(line), " "); found && name == ref && isObjectID(oid) {
			return oid, true
		}
	}
	return "", false
}

// gitDirs are the git folder and the common folder of the repository
// whose work tree's top is dir, found as git finds them (a .git folder,
// or a .git file's gitdir and that folder's commondir); ok is false with
// GIT_DIR or GIT_COMMON_DIR set, when dir is not the top of a work tree,
// or when a file on the way is not a regular file.
func (g *repo) gitDirs() (gitDir, commonDir string, ok bool) {
	if !g.plain {
		return "", "", false
	}
	l := locate(g.dir, g.env)
	abs, err := filepath.Abs(g.dir)
	if err != nil || l.special != "" || l.gitDir == "" || l.commonDir == "" || l.top != abs {
		return "", "", false
	}
	return l.gitDir, l.commonDir, true
}

// isObjectID: a full SHA-1 or SHA-256 object id in lower-case hex.
func isObjectID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// Porcelain is `git status --porcelain` without the loop-owned files: one
// "XY path" line per changed or untracked file (renames and copies name
// the new path), "" for a clean tree.
func (g *repo) Porcelain(ctx context.Context) string {
	s, _ := g.run(ctx, "status", "--porcelain", "-z")
	var lines []string
	entries := strings.Split(s, "\x00")
	for i := 0; i < len(entries); i++ {
		e := entries[i]
		if len(e) < 4 {
			continue
		}
		if e[0] == 'R' || e[0] == 'C' || e[1] == 'R' || e[1] == 'C' {
			i++ // the next entry is the rename's or copy's source
		}
		if !g.isOwned(ctx, e[3:]) {
			lines = append(lines, e)
		}
	}
	return strings.Join(lines, "\n")
}

// CommittedBeyondOwned reports whether the commits from..to change any
// file that is not loop-owned. A commit of nothing but the loop's own
// files is no change. The range Changes just read is not asked again.
func (g *repo) CommittedBeyondOwned(ctx context.Context, from, to string) bool {
	if from == "" || to == "" || from == to {
		return from != to
	}
	paths, ok := g.rangePaths(from, to)
	if !ok {
		out, err := g.run(ctx, "diff", "--name-only", "-z", from, to)
		if err != nil {
			return true
		}
		paths = strings.Split(out, "\x00")
	}
	for _, p := range paths {
		if p != "" && !g.isOwned(ctx, p) {
			return true
		}
	}
	return false
}

// Changes reports, for the files changed since start (the commits
// start..HEAD when HEAD moved, then unstaged and staged changes), how many
// distinct files changed and the `git diff --numstat` text of those three
// diffs in that order. Untracked files are not counted, as the bash loop
// counts them; loop-owned files are neither counted nor in the text (a
// commit of nothing else is no change). One numstat per diff serves both
// answers: the loop pays for every git process on every iteration. mark
// and markOK are the tree's mark as Tree gives it, made from the same
// `git status` that says which diffs can print anything.
func (g *repo) Changes(ctx context.Context, start string) (files int, numstat, mark string, markOK bool) {
	// A plain repository's HEAD is read from its files first: with it,
	// the staged diff may be the one remembered, and the commits' diff
	// starts at once. The working tree's status (which also makes the
	// tree's mark) says which other diffs can print anything: a
	// clean tree needs none. When the last loop's tree had an edit the
	// working tree's diff starts beside the status, as it most likely is
	// needed again; its answer is dropped if the status says otherwise.
	head, plain := g.readHead()
	var asked, wg sync.WaitGroup
	if !plain {
		asked.Go(func() { head = g.Head(ctx) })
	}
	var workOut, stagedOut, committed string
	moved := false
	rangeDiff := func() {
		if moved = start != "" && head != "" && head != start; moved {
			wg.Go(func() { committed = g.rangeNumstat(ctx, start, head) })
		}
	}
	if plain {
		rangeDiff()
	}
	early := g.edited.Load()
	var workDone sync.WaitGroup
	if early {
		workDone.Go(func() { workOut, _ = g.run(ctx, "diff", "--numstat") })
	}
	work, staged := true, true
	st, stErr := g.runStatus(ctx)
	if stErr == nil {
		work, staged = st.diffs(func(p string) bool { return g.isOwned(ctx, p) })
	}
	g.edited.Store(work)
	if work && !early {
		workDone.Go(func() { workOut, _ = g.run(ctx, "diff", "--numstat") })
	}
	if stErr == nil {
		mark, markOK = g.markOf(ctx, st), true // while the diffs run
	}
	asked.Wait()
	if !plain {
		rangeDiff()
	}
	if staged {
		stagedOut = g.stagedNumstat(ctx, head, plain)
	}
	wg.Wait()
	workDone.Wait()
	if !work {
		workOut = ""
	}
	var parts []string
	if moved {
		parts = append(parts, committed)
	}
	parts = append(parts, workOut, stagedOut)

	set := map[string]bool{}
	var kept []string
	for _, line := range strings.Split(strings.Join(parts, "\n"), "\n") {
		p := numstatPath(line)
		if p != "" && g.isOwned(ctx, p) {
			continue
		}
		kept = append(kept, line)
		if p != "" {
			set[p] = true
		}
	}
	return len(set), strings.Join(kept, "\n"), mark, markOK
}

// rangeMemo is the last commit range's `git diff --numstat from to`:
// commits do not change, so CommittedBeyondOwned asked about the same
// range after Changes reads the paths from it instead of asking git again.
type rangeMemo struct {
	mu       sync.Mutex
	from, to string
	out      string
	ok       bool // out is git's answer
}

// rangeNumstat is `git diff --numstat from to`, remembered.
func (g *repo) rangeNumstat(ctx context.Context, from, to string) string {
	out, err := g.run(ctx, "diff", "--numstat", from, to)
	g.commit.mu.Lock()
	g.commit.from, g.commit.to, g.commit.out, g.commit.ok = from, to, out, err == nil
	g.commit.mu.Unlock()
	return out
}

// rangePaths are the paths of the remembered numstat of from..to, as
// `git diff --name-only` prints them; ok is false when none is remembered
// or a line's path cannot be read back exactly: quoted (a name with a
// character git escapes) or a rename, whose " => " a file name may hold
// too.
func (g *repo) rangePaths(from, to string) (paths []string, ok bool) {
	g.commit.mu.Lock()
	remembered, out := g.commit.ok && g.commit.from == from && g.commit.to == to, g.commit.out
	g.commit.mu.Unlock()
	if !remembered {
		return nil, false
	}
	for _, line := range strings.Split(out, "\n") {
		if line == "" {
			continue
		}
		f := strings.SplitN(line, "\t", 3)
		if len(f) != 3 || f[2] == "" || f[2][0] == '"' || strings.Contains(f[2], " => ") {
			return nil, false
		}
		paths = append(paths, f[2])
	}
	return paths, true
}

// stagedNumstat is `git diff --numstat --cached`, the index against HEAD.
// In a plain repository or a linked worktree (plain: head was read from
// its files) without GIT_INDEX_FILE, the output is remembered with head and the index file's
// identity and given again while both are unchanged. The index is looked
// at before git runs: should it change in between, the remembered identity
// is the older one and the next call asks git again.
func (g *repo) stagedNumstat(ctx context.Context, head string, plain bool) string {
	c := g.staged
	if c == nil || !plain || g.index {
		out, _ := g.run(ctx, "diff", "--numstat", "--cached")
		return out
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	gitDir, _, ok := g.gitDirs()
	if !ok {
		out, _ := g.run(ctx, "diff", "--numstat", "--cached")
		return out
	}
	index, err := os.Stat(filepath.Join(gitDir, "index"))
	if err != nil {
		// No index yet (nothing ever staged) or unreadable: ask git and
		// remember nothing.
		c.index = nil
		out, _ := g.run(ctx, "diff", "--numstat", "--cached")
		return out
	}
	if c.index != nil && c.head == head && os.SameFile(c.index, index) &&
		c.index.Size() == index.Size() && c.index.ModTime().Equal(index.ModTime()) {
		return c.out
	}
	out, err := g.run(ctx, "diff", "--numstat", "--cached")
	if err != nil {
		c.index = nil
		return out
	}
	c.head, c.index, c.out = head, index, out
	return out
}

// numstatPath is the path `git diff --name-only` prints for one numstat
// line ("added<TAB>deleted<TAB>path"): for a rename, the new path, whether
// numstat wrote it as "old => new" or "dir/{old => new}/rest".
func numstatPath(line string) string {
	fields := strings.SplitN(line, "\t", 3)
	if len(fields) != 3 {
		return ""
	}
	p := strings.TrimSpace(fields[2])
	lb, arrow := strings.Index(p, "{"), strings.Index(p, " => ")
	switch {
	case arrow < 0:
		return p
	case lb >= 0 && lb < arrow:
		rb := strings.Index(p[arrow:], "}")
		if rb < 0 {
			return p
		}
		rb += arrow
		joined := p[:lb] + p[arrow+len(" => "):rb] + p[rb+1:]
		// An empty side ("dir/{ => sub}/f", "{sub => }/f") leaves a double
		// or a leading slash; git paths have neither.
		return strings.TrimPrefix(strings.Replace(joined, "//", "/", 1), "/")
	default:
		return p[arrow+len(" => "):]
	}
}

// DiffStat is `git diff --stat` of the working tree against the index
// (rng "") or of the range rng ("A..B", or a commit against the working
// tree); "" when git fails.
func (g *repo) DiffStat(ctx context.Context, rng string) string {
	args := []string{"diff", "--stat"}
	if rng != "" {
		args = append(args, rng)
	}
	out, _ := g.run(ctx, args...)
	return out
}

// LastCommit is HEAD's abbreviated id and subject; ok is false without a
// commit or when git fails.
func (g *repo) LastCommit(ctx context.Context) (id, subject string, ok bool) {
	out, err := g.run(ctx, "log", "-1", "--no-show-signature", "--format=%h%x00%s")
	if err != nil {
		return "", "", false
	}
	id, subject, _ = strings.Cut(out, "\x00")
	return id, subject, true
}
