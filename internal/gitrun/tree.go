package gitrun

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// treeHashMax is the most of one file the tree's mark reads: a larger
// file is known by its size and modification time instead.
const treeHashMax = 64 << 20

// treeCache remembers, per file, the content digest of the tree's last
// mark with the file's identity when it was read (size, modification and
// change times, inode): a file whose identity is unchanged is not read
// again. Each mark replaces the cache, so it holds only the files that are
// still dirty.
type treeCache struct {
	mu    sync.Mutex
	top   string // the repository's top folder ("" when git cannot tell)
	files map[string]fileMark
}

// fileMark is one file's identity (its FileInfo: the same file, size and
// modification time) and the digest of its content; info is nil when the
// digest is not of a regular file's content.
type fileMark struct {
	info   fs.FileInfo
	digest string
}

// Tree is a mark of the working tree's content beyond HEAD: every file
// that differs from HEAD or the index (changed, staged, deleted) or is
// untracked and not ignored, outside the loop's own files, each with a
// digest of its content (a link: its target's name; a file over 64 MiB:
// its size and modification time). Two equal marks of the same HEAD are
// the same dirty tree; a further edit of a file that was already dirty
// changes the mark, where `git status` would not change. ok is false when
// git could not tell. It costs one `git status` (Changes gives the same
// mark from its own) and reads only the dirty files whose size or times
// changed since the last mark.
func (g *repo) Tree(ctx context.Context) (mark string, ok bool) {
	st, err := g.runStatus(ctx)
	if err != nil {
		return "", false
	}
	return g.markOf(ctx, st), true
}

// markOf is Tree's mark of the working tree whose status is st.
func (g *repo) markOf(ctx context.Context, st status) string {
	top := g.toplevel(ctx)
	c := g.tree
	c.mu.Lock()
	defer c.mu.Unlock()
	c.top = top
	h := sha256.New()
	seen := make(map[string]fileMark)
	for _, e := range st {
		if e.kind == '!' || g.isOwned(ctx, e.path) {
			continue
		}
		fm := c.mark(e.path)
		seen[e.path] = fm
		io.WriteString(h, e.xy+"\x00"+e.path+"\x00"+fm.digest+"\x00")
	}
	c.files = seen
	return hex.EncodeToString(h.Sum(nil))
}

// mark is the identity and digest of the file at p (relative to the
// repository's top), reusing the last digest when its identity is
// unchanged. A link is never followed: its digest is its target's name.
// A file that is gone, unreadable or not a regular file is marked by what
// it is, not by content.
func (c *treeCache) mark(p string) fileMark {
	if c.top == "" {
		return fileMark{digest: "?"}
	}
	full := filepath.Join(c.top, filepath.FromSlash(p))
	st, err := os.Lstat(full)
	if err != nil {
		return fileMark{digest: "missing"}
	}
	switch {
	case st.Mode()&fs.ModeSymlink != 0:
		target, _ := os.Readlink(full)
		return fileMark{digest: "link:" + target}
	case !st.Mode().IsRegular():
		return fileMark{digest: "mode:" + st.Mode().Type().String()}
	}
	if old, ok := c.files[p]; ok && old.unchanged(st) {
		return old
	}
	return fileMark{info: st, digest: digestFile(full, st)}
}

// unchanged reports whether st is the file m was read from, with the same
// size and modification time (git's own test of a file it need not read).
func (m fileMark) unchanged(st fs.FileInfo) bool {
	return m.info != nil && os.SameFile(m.info, st) && m.info.Size() == st.Size() && m.info.ModTime().Equal(st.ModTime())
}

// digestFile is the SHA-256 of the regular file at path, or its size and
// modification time when it is over treeHashMax or cannot be read as the
// regular file st says it is. It opens without blocking and checks that
// what it opened is the file st describes (not one swapped in since).
func digestFile(path string, st fs.FileInfo) string {
	byStat := "stat:" + st.ModTime().UTC().Format(time.RFC3339Nano) + ":" + strconv.FormatInt(st.Size(), 10)
	if st.Size() > treeHashMax {
		return byStat
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return byStat
	}
	defer f.Close()
	if fst, err := f.Stat(); err != nil || !fst.Mode().IsRegular() || !os.SameFile(st, fst) {
		return byStat
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, treeHashMax)); err != nil {
		return byStat
	}
	return hex.EncodeToString(h.Sum(nil))
}
