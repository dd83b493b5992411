package ralphdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// linkError says that .ralph/ itself, or a folder on the way to a file
// under it, is a symbolic link. The repository chose it, so nothing is read
// or written through it: a link there could send the loop's writes (and its
// reads, shown by --status and --serve or sent to the agent) anywhere the
// person running the loop can reach.
type linkError struct {
	Op     string // read or write
	Path   string // the link
	Target string // what it points at, as stored
}

func (e *linkError) Error() string {
	return fmt.Sprintf("%s is a symbolic link to %s: refusing to %s through it; replace it with a folder",
		e.Path, quoteTarget(e.Target), e.Op)
}

// isLinkError reports whether err is (or wraps) a *linkError.
func isLinkError(err error) bool {
	var le *linkError
	return errors.As(err, &le)
}

// quoteTarget shows a link's target in a one-line message: as it is when
// it is printable and short, quoted (with its length when clipped)
// otherwise. The target is the repository's text.
func quoteTarget(t string) string {
	const max = 200
	clipped := ""
	if len(t) > max {
		clipped = fmt.Sprintf(" (%d bytes)", len(t))
		t = t[:max] + "…"
	}
	for _, r := range t {
		if r < 0x20 || r == 0x7f || r == '"' || r == '`' {
			return fmt.Sprintf("%q", t) + clipped
		}
	}
	return t + clipped
}

// linkTarget is the target of the link at p, or "?" when it cannot be read.
func linkTarget(p string) string {
	t, err := os.Readlink(p)
	if err != nil {
		return "?"
	}
	return t
}

// folders checks .ralph/ and every folder on the way to name (not name
// itself) with Lstat, one component after the other, and returns a
// *linkError for the first that is a symbolic link. A folder that does not
// exist ends the walk: whatever comes next creates it as a real folder or
// finds nothing. An absolute name (a file the person named, outside the
// folder) is not checked; a name that climbs out of the folder ("..") is
// refused.
//
// No link is followed here, not even one that stays inside .ralph/: a
// folder the loop works in is a real folder, one rule with no exceptions.
// The last component is the opener's to check (O_NOFOLLOW).
func (d *Dir) folders(op, name string) error {
	if filepath.IsAbs(name) {
		return nil
	}
	if err := checkFolder(op, d.root); err != nil {
		return err
	}
	return walkFolders(op, d.root, name)
}

// walkFolders checks, with Lstat, every folder on the way from base (not
// base itself) to the file rel, as folders does.
func walkFolders(op, base, rel string) error {
	clean := filepath.Clean(filepath.FromSlash(rel))
	if clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) || filepath.IsAbs(clean) {
		return &FileError{Op: op, Path: filepath.Join(base, rel), Problem: "is outside " + base, Fix: "name a file inside it"}
	}
	parts := strings.Split(clean, string(filepath.Separator))
	p := base
	for _, part := range parts[:len(parts)-1] {
		p = filepath.Join(p, part)
		if err := checkFolder(op, p); err != nil {
			return err
		}
	}
	return nil
}

// ReadFileBeneath reads the file rel inside base as Dir.ReadFile reads a
// file of .ralph/: no folder on the way and not the file itself may be a
// symbolic link, and rel may not climb out of base. base itself is the
// caller's (the project folder the person runs the loop in). For a file
// the repository names (PROMPT_FILE in .ralphrc).
func ReadFileBeneath(base, rel string, limit int64) ([]byte, error) {
	if err := walkFolders("read", base, rel); err != nil {
		return nil, err
	}
	return readCapped(filepath.Join(base, rel), limit, false)
}

// ReadText reads name as Dir.ReadFile does, with TextCap whatever its name
// (a prompt file PROMPT_FILE names under .ralph/).
func (d *Dir) ReadText(name string) ([]byte, error) {
	p, err := d.checked("read", name)
	if err != nil {
		return nil, err
	}
	return readCapped(p, TextCap, false)
}

// checkFolder returns a *linkError when p is a symbolic link, nil when it
// is anything else or does not exist.
func checkFolder(op, p string) error {
	st, err := os.Lstat(p)
	if err != nil || st.Mode()&fs.ModeSymlink == 0 {
		return nil
	}
	return &linkError{Op: op, Path: p, Target: linkTarget(p)}
}

// CheckFolders refuses, with a *linkError, a .ralph/ that is a symbolic
// link, or one of the folders the loop writes in (logs/, docs/,
// docs/generated/, specs/). The loop calls it before it writes anything,
// so that such a repository is refused in one line.
func (d *Dir) CheckFolders() error {
	for _, name := range []string{LogsDir + "/x", DocsGenerated + "/x", Specs + "/x"} {
		if err := d.folders("write", name); err != nil {
			return err
		}
	}
	return nil
}

// checked is Path after folders: the path of name, or why it cannot be
// used.
func (d *Dir) checked(op, name string) (string, error) {
	if err := d.folders(op, name); err != nil {
		return "", err
	}
	return d.Path(name), nil
}

// Open opens name for reading, for a caller that streams it (a log): a
// regular file, opened without blocking and without following a link (a
// *FileError otherwise), under folders that are no links (a *linkError).
func (d *Dir) Open(name string) (*os.File, error) {
	p, err := d.checked("read", name)
	if err != nil {
		return nil, err
	}
	f, _, err := openRegular(p, false)
	return f, err
}

// Lstat describes name without following a link, under folders that are no
// links (a *linkError otherwise).
func (d *Dir) Lstat(name string) (fs.FileInfo, error) {
	p, err := d.checked("read", name)
	if err != nil {
		return nil, err
	}
	return os.Lstat(p)
}

// ReadDir lists the folder name ("." for .ralph/ itself), which may not be
// a link nor lie under one (a *linkError).
func (d *Dir) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := d.folders("read", name+"/x"); err != nil {
		return nil, err
	}
	return os.ReadDir(d.Path(name))
}

// ReplaceFile replaces name with data atomically, as WriteFile does but
// without comparing first (for a log cut down: a comparison would read it
// back) and always with the fsync.
func (d *Dir) ReplaceFile(name string, data []byte) error {
	p, err := d.checked("write", name)
	if err != nil {
		return err
	}
	return writeAtomic(p, data, 0o644, true)
}

// OpenAppendBeneath opens the file rel inside base for appending (creating
// it), as ReadFileBeneath reads: no link on the way or in its place, rel
// not climbing out of base, and only a regular file. For a file the
// repository names (EVENTS_FILE in .ralphrc).
func OpenAppendBeneath(base, rel string) (*os.File, error) {
	if err := walkFolders("write", base, rel); err != nil {
		return nil, err
	}
	return openWrite("append", filepath.Join(base, rel), os.O_WRONLY|os.O_APPEND|os.O_CREATE,
		"ralph_loop appends only to a regular file the repository names; remove it")
}
