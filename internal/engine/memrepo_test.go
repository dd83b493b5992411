package engine

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// MemRepo is the engine's Repo in its tests: a repository over the
// project's real files, its commits kept in memory, so that no engine test
// starts git. It answers as gitrun's does where the engine decides from
// the answer: the loop's own files under .ralph/ (ralphdir.LoopOwned) are
// never tracked nor changed, untracked files are in Mark and Uncommitted
// but not counted by ChangedSince. The index is always the last commit
// (CommitFiles stages and commits at once). A file is read only when it is another file (an
// atomic write's), or its size or time differs from the commit's, as git
// compares, so a test that counts the opens of a file counts the loop's
// own.
type MemRepo struct {
	mu      sync.Mutex
	dir     string
	commits []memCommit
	// Err, when set, is Usable's answer.
	Err error
}

type memCommit struct {
	id, subject string
	files       map[string]memFile // path (slashes, from the project) → content
}

type memFile struct {
	data string
	st   fs.FileInfo // when it was read
}

// same: st is still the file that was read (the same file, size and
// time: an atomic write's rename makes a new file).
func (f memFile) same(st fs.FileInfo) bool {
	return f.st != nil && os.SameFile(f.st, st) && f.st.Size() == st.Size() && f.st.ModTime().Equal(st.ModTime())
}

var _ Repo = (*MemRepo)(nil)

// NewMemRepo is the repository of the project dir with one commit ("init")
// of every file in it now.
func NewMemRepo(dir string) *MemRepo {
	r := &MemRepo{dir: dir}
	r.CommitFiles("init", nil)
	return r
}

// CommitFiles commits the working tree's files that pick chooses (nil: every
// one; pick is asked about a path, its slashes from the project, that is
// new, changed or gone) and returns the new commit's id; it may commit
// nothing new (git's --allow-empty).
func (r *MemRepo) CommitFiles(subject string, pick func(path string) bool) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	files := map[string]memFile{}
	if n := len(r.commits); n > 0 {
		for p, f := range r.commits[n-1].files {
			files[p] = f
		}
	}
	work := r.scan()
	for p, st := range work {
		if pick != nil && !pick(p) {
			continue
		}
		if old, ok := files[p]; ok && old.same(st) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(p)))
		if err != nil {
			continue
		}
		files[p] = memFile{data: string(b), st: st}
	}
	for p := range files {
		if _, ok := work[p]; !ok && (pick == nil || pick(p)) {
			delete(files, p)
		}
	}
	sum := sha1.Sum(fmt.Appendf(nil, "%d %s", len(r.commits), subject))
	id := hex.EncodeToString(sum[:])
	r.commits = append(r.commits, memCommit{id: id, subject: subject, files: files})
	return id
}

// scan lists the working tree's files: every regular file of the project
// but git's own folder and the loop's own files.
func (r *MemRepo) scan() map[string]fs.FileInfo {
	out := map[string]fs.FileInfo{}
	filepath.WalkDir(r.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(r.dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == ".git" || rel == ".ralph/"+ralphdir.LogsDir {
				return filepath.SkipDir
			}
			return nil
		}
		if memOwned(rel) || !d.Type().IsRegular() {
			return nil
		}
		if st, err := d.Info(); err == nil {
			out[rel] = st
		}
		return nil
	})
	return out
}

// memOwned: p is one of the loop's own files under .ralph/.
func memOwned(p string) bool {
	rest, ok := strings.CutPrefix(p, ".ralph/")
	return ok && ralphdir.LoopOwned(rest)
}

// head is the last commit (the caller holds mu).
func (r *MemRepo) head() memCommit { return r.commits[len(r.commits)-1] }

func (r *MemRepo) find(id string) (memCommit, bool) {
	for _, c := range r.commits {
		if c.id == id {
			return c, true
		}
	}
	return memCommit{}, false
}

// memChange is one path that differs between two sides.
type memChange struct {
	path       string
	old, new   string
	had, has   bool
	added, del int
}

// diff lists the paths whose content differs from a to b, sorted.
func diff(a, b map[string]memFile) []memChange {
	var out []memChange
	for p, f := range b {
		if g, ok := a[p]; !ok || g.data != f.data {
			out = append(out, memChange{path: p, old: g.data, new: f.data, had: ok, has: true})
		}
	}
	for p, g := range a {
		if _, ok := b[p]; !ok {
			out = append(out, memChange{path: p, old: g.data, had: true})
		}
	}
	slices.SortFunc(out, func(x, y memChange) int { return strings.Compare(x.path, y.path) })
	for i := range out {
		out[i].added, out[i].del = lineCounts(out[i].old, out[i].new)
	}
	return out
}

// lineCounts is numstat's added and deleted lines for one edited region:
// the lines between the common head and tail.
func lineCounts(old, new string) (added, deleted int) {
	a, b := strings.SplitAfter(old, "\n"), strings.SplitAfter(new, "\n")
	if old == "" {
		a = nil
	}
	if new == "" {
		b = nil
	}
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	j := 0
	for j < len(a)-i && j < len(b)-i && a[len(a)-1-j] == b[len(b)-1-j] {
		j++
	}
	return len(b) - i - j, len(a) - i - j
}

// work is the working tree's files as a commit's, content read only where
// the file is not the one base read.
func (r *MemRepo) work(base map[string]memFile) map[string]memFile {
	out := map[string]memFile{}
	for p, st := range r.scan() {
		if f, ok := base[p]; ok && f.same(st) {
			out[p] = f
			continue
		}
		b, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(p)))
		if err != nil {
			continue
		}
		out[p] = memFile{data: string(b), st: st}
	}
	return out
}

func (r *MemRepo) Usable(context.Context) error { return r.Err }

func (r *MemRepo) InRepository(context.Context) bool { return r.Err == nil }

func (r *MemRepo) Commit(context.Context) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.head().id
}

func (r *MemRepo) Uncommitted(context.Context) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := r.head().files
	var lines []string
	for _, c := range diff(h, r.work(h)) {
		switch {
		case !c.had:
			lines = append(lines, "?? "+c.path)
		case !c.has:
			lines = append(lines, " D "+c.path)
		default:
			lines = append(lines, " M "+c.path)
		}
	}
	return strings.Join(lines, "\n")
}

func (r *MemRepo) Mark(context.Context) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := r.head().files
	s := sha1.New()
	for _, c := range diff(h, r.work(h)) {
		fmt.Fprintf(s, "%s\x00%v\x00%s\x00", c.path, c.has, c.new)
	}
	return hex.EncodeToString(s.Sum(nil)), true
}

func (r *MemRepo) ChangedSince(ctx context.Context, start string) (int, string, string, bool) {
	files, numstat := r.changedSince(start)
	mark, ok := r.Mark(ctx)
	return files, numstat, mark, ok
}

// changedSince is ChangedSince's count and numstat.
func (r *MemRepo) changedSince(start string) (int, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	head := r.head()
	var changes []memChange
	if from, ok := r.find(start); ok && start != head.id {
		changes = diff(from.files, head.files)
	}
	for _, c := range diff(head.files, r.work(head.files)) {
		if c.had { // untracked files are not counted
			changes = append(changes, c)
		}
	}
	set := map[string]bool{}
	var lines []string
	for _, c := range changes {
		set[c.path] = true
		lines = append(lines, fmt.Sprintf("%d\t%d\t%s", c.added, c.del, c.path))
	}
	return len(set), strings.Join(lines, "\n")
}

func (r *MemRepo) WorkCommitted(_ context.Context, from, to string) bool {
	if from == "" || to == "" || from == to {
		return from != to
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	a, okA := r.find(from)
	b, okB := r.find(to)
	if !okA || !okB {
		return true
	}
	return len(diff(a.files, b.files)) > 0
}

// DiffSummary lists the changed paths, one " path | +A -D" line each.
func (r *MemRepo) DiffSummary(_ context.Context, rng string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	head := r.head()
	var changes []memChange
	if from, _, isRange := strings.Cut(rng, ".."); isRange {
		a, _ := r.find(from)
		changes = diff(a.files, head.files)
	} else if rng != "" {
		a, _ := r.find(rng)
		changes = diff(a.files, r.work(head.files))
	} else {
		changes = diff(head.files, r.work(head.files))
	}
	var lines []string
	for _, c := range changes {
		if c.had {
			lines = append(lines, fmt.Sprintf(" %s | +%d -%d", c.path, c.added, c.del))
		}
	}
	return strings.Join(lines, "\n")
}

func (r *MemRepo) LastCommit(context.Context) (id, subject string, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := r.head()
	return h.id[:7], h.subject, true
}

func (r *MemRepo) CommitsSince(_ context.Context, since string) []string {
	if since == "" {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, c := range r.commits {
		if c.id == since {
			var out []string
			for _, d := range r.commits[i+1:] {
				out = append(out, d.id)
			}
			return out
		}
	}
	return nil
}

// MemRepo answers as gitrun's Repo does where the engine decides from the
// answer (gitrun's tests pin the same against git): the loop's own files
// are no change, an untracked file changes the mark but is not counted,
// an edit is counted with its lines, a commit moves the commit and is
// work, and the same tree gives the same mark.
func TestMemRepoAnswersAsGit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, data string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("src/app.txt", "hello\n")
	write(".ralph/@fix_plan.md", "- [ ] A\n")
	ctx := context.Background()
	r := NewMemRepo(dir)
	start := r.Commit(ctx)
	mark0, ok := r.Mark(ctx)
	if !ok || r.Uncommitted(ctx) != "" {
		t.Fatalf("a clean tree: mark ok %v, uncommitted %q", ok, r.Uncommitted(ctx))
	}

	write(".ralph/status.json", "{}\n") // the loop's own
	write(".ralph/logs/ralph.log", "x\n")
	if m, _ := r.Mark(ctx); m != mark0 {
		t.Error("the loop's own files changed the mark")
	}
	write("new.txt", "new\n") // untracked
	mark1, _ := r.Mark(ctx)
	if files, _, _, _ := r.ChangedSince(ctx, start); mark1 == mark0 || files != 0 || r.Uncommitted(ctx) != "?? new.txt" {
		t.Errorf("an untracked file: mark changed %v, counted %d, uncommitted %q", mark1 != mark0, files, r.Uncommitted(ctx))
	}
	write("src/app.txt", "hello\nworld\n")
	files, numstat, _, _ := r.ChangedSince(ctx, start)
	if files != 1 || numstat != "1\t0\tsrc/app.txt" {
		t.Errorf("an edit: %d files, %q", files, numstat)
	}
	if m, _ := r.Mark(ctx); m == mark1 {
		t.Error("an edit did not change the mark")
	}
	id := r.CommitFiles("work", nil)
	if r.Commit(ctx) != id || !r.WorkCommitted(ctx, start, id) || r.Uncommitted(ctx) != "" {
		t.Errorf("a commit: at %s (want %s), work %v, uncommitted %q", r.Commit(ctx), id, r.WorkCommitted(ctx, start, id), r.Uncommitted(ctx))
	}
	if files, _, _, _ := r.ChangedSince(ctx, start); files != 2 {
		t.Errorf("since the start: %d files, want 2 (the edit and the file the commit took)", files)
	}
	if got := r.CommitsSince(ctx, start); len(got) != 1 || got[0] != id {
		t.Errorf("commits since the start %q", got)
	}
	if m, _ := r.Mark(ctx); m != mark0 {
		t.Error("a clean tree after the commit: not the clean mark")
	}
	empty := r.CommitFiles("nothing", nil)
	if r.WorkCommitted(ctx, id, empty) {
		t.Error("an empty commit is work")
	}
}
