package ralphdir

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Dir is a project's .ralph/ folder.
type Dir struct {
	root     string
	warn     func(msg string)
	now      func() time.Time
	refused  *refusals // appends refused, each reported once
	appends  *appends  // the logs AppendLine keeps open
	written  *written  // what WriteFile last left in each file
	rotateAt int64     // size past which the rotatedLogs rotate, 0 = never
}

// New returns the .ralph/ folder at root. warn receives one-line warnings
// (a quarantined file, for example); nil discards them.
func New(root string, warn func(msg string)) *Dir {
	if warn == nil {
		warn = func(string) {}
	}
	return &Dir{root: root, warn: warn, now: time.Now, refused: &refusals{}, appends: &appends{},
		written: &written{seed: maphash.MakeSeed(), sums: map[string]uint64{}}}
}

// Root is the folder's path.
func (d *Dir) Root() string { return d.root }

// Path returns the path of name inside the folder; an absolute name is
// returned unchanged.
func (d *Dir) Path(name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(d.root, filepath.FromSlash(name))
}

// Exists reports whether name exists (a link counts, unfollowed). Under a
// folder that is a link (see linkError) nothing exists.
func (d *Dir) Exists(name string) bool {
	p, err := d.checked("read", name)
	if err != nil {
		return false
	}
	_, err = os.Lstat(p)
	return err == nil
}

// EnsureLayout creates .ralph/, logs/ and docs/generated/ as the bash loop
// does at start-up. A .ralph/, logs/, docs/ or specs/ that is a symbolic
// link is refused first (a *linkError), before anything is created.
func (d *Dir) EnsureLayout() error {
	if err := d.CheckFolders(); err != nil {
		return err
	}
	for _, p := range []string{d.root, d.Path(LogsDir), d.Path(DocsGenerated)} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			return fmt.Errorf("create %s: %w", p, err)
		}
	}
	return nil
}

// WriteFile replaces name with data atomically: a temp file in the same
// folder, fsync, rename. Readers see either the old or the new content,
// never a mix. When the file already holds exactly data nothing is written
// (the loop rewrites several files every iteration with the same content);
// the file is read to see that only when data is what this Dir last wrote
// there (see written). The files of the live view and of the hand-over
// from one loop to the next (see volatile) are renamed into place without
// the fsync.
func (d *Dir) WriteFile(name string, data []byte) error {
	p, err := d.checked("write", name)
	if err != nil {
		return err
	}
	sum := maphash.Bytes(d.written.seed, data)
	if d.written.maybe(name, sum) && sameContent(p, data) {
		d.written.left(name, sum)
		return nil
	}
	if err := writeAtomic(p, data, 0o644, !volatile[name]); err != nil {
		return err
	}
	d.written.left(name, sum)
	return nil
}

// written remembers a digest of the bytes WriteFile last left in each
// file. Most writes replace a state file with bytes that differ from what
// this Dir last wrote there (status.json, the call count, the breaker):
// such a write need not read the file first to see whether it already
// holds them, as it cannot unless another program wrote exactly these
// bytes since, in which case the write puts the same bytes again. Only
// bytes equal to the last written (or a digest collision) are compared
// with the file, which anyone may have changed meanwhile.
type written struct {
	seed maphash.Seed
	mu   sync.Mutex
	sums map[string]uint64
}

// maybe reports whether the file name may hold the bytes whose digest is
// sum: false only when this Dir last left other bytes there.
func (w *written) maybe(name string, sum uint64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	last, ok := w.sums[name]
	return !ok || last == sum
}

// left records that the file name holds the bytes whose digest is sum.
func (w *written) left(name string, sum uint64) {
	w.mu.Lock()
	w.sums[name] = sum
	w.mu.Unlock()
}

// volatile are the files whose content is worth nothing after a power
// loss, so that their write skips the fsync (state writes are about half
// of the loop's own CPU time, see docs/PERFORMANCE.md): status.json and progress.json are
// rewritten on every event and again by the next run's first one; the
// start commit, output length, diff summary and write-timeout mark only
// carry one loop's context into the next; the agent call's record
// (AgentCall, written as each call starts) names a process that a power
// loss ends with it. Their replacement is still a rename, atomic for every
// reader; what a crash can leave is an empty or partial file, which
// start-up moves aside (with a warning) or reads as empty.
var volatile = map[string]bool{
	Status: true, "progress.json": true, ".loop_start_sha": true, ".last_output_length": true,
	".loop_diff_summary": true, ".write_heartbeat_triggered": true, AgentCall: true,
}

// sameContent reports whether path is a regular file (not a link) that
// holds exactly data. It never blocks and reads at most len(data)+1 bytes.
func sameContent(path string, data []byte) bool {
	f, err := openNoFollow(path, os.O_RDONLY, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() != int64(len(data)) {
		return false
	}
	old, err := io.ReadAll(io.LimitReader(f, int64(len(data))+1))
	return err == nil && bytes.Equal(old, data)
}

// WriteFileAtomic is WriteFile for any path. A link at path is replaced by
// the new file; its target is never written.
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) error {
	return writeAtomic(path, data, perm, true)
}

// writeAtomic is WriteFileAtomic; with durable unset the temp file is not
// fsynced before the rename.
func writeAtomic(path string, data []byte, perm fs.FileMode, durable bool) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		if NoSpace(err) && overwriteInPlace(path, data) == nil {
			return nil
		}
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Chmod(perm); err != nil {
		return fail(err)
	}
	if durable {
		if err := f.Sync(); err != nil {
			return fail(err)
		}
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		var le *os.LinkError
		if errors.As(err, &le) {
			err = le.Err // the paths are the temp file's and path: name path once
		}
		if st, serr := os.Lstat(path); serr == nil && st.IsDir() {
			return &FileError{Op: "write", Path: path, Problem: Kind(st.Mode()), Fix: "remove it"}
		}
		return fmt.Errorf("write %s: %w", path, err)
	}
	// The folder is not fsynced: after a power loss the rename may be
	// undone, which leaves the previous complete version — still valid.
	// The file's own fsync above is what keeps a renamed file from ever
	// being empty.
	return nil
}

// CleanTemp removes temp files that a killed writer left behind
// (".NAME.tmp-*"). Call it only while holding the lock: no other writer
// can be mid-write then.
func (d *Dir) CleanTemp() (removed int) {
	if d.folders("write", LogsDir+"/x") != nil {
		return 0
	}
	matches, _ := filepath.Glob(filepath.Join(d.root, ".*.tmp-*"))
	logs, _ := filepath.Glob(filepath.Join(d.root, LogsDir, ".*.tmp-*"))
	for _, m := range append(matches, logs...) {
		if os.Remove(m) == nil {
			removed++
		}
	}
	return removed
}

// MarshalJSON renders v as the bash loop's jq does: two-space indent and a
// final newline, HTML characters left alone.
func MarshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WriteJSON writes v to name as indented JSON, atomically.
func (d *Dir) WriteJSON(name string, v any) error {
	data, err := MarshalJSON(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", d.Path(name), err)
	}
	return d.WriteFile(name, data)
}

// ReadFile returns the content of name, read with ReadFileCapped: TextCap
// for the prompt, the plan and specs/, LogCap under logs/, StateCap for
// everything else. found is false when it does not exist; other errors
// (permission, a named pipe or a folder in its place, over the limit) are
// returned, naming the path once.
func (d *Dir) ReadFile(name string) (data []byte, found bool, err error) {
	p, err := d.checked("read", name)
	if err != nil {
		return nil, false, err
	}
	data, err = readCapped(p, capFor(name), false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return data, true, nil
}

// ReadJSON decodes name into v. A missing file leaves v alone and returns
// found=false. An empty or undecodable file is quarantined (see quarantine)
// with a warning and also returns found=false, so the caller starts from its
// default state; it is never an error.
func (d *Dir) ReadJSON(name string, v any) (found bool, err error) {
	return d.ReadValid(name, func(data []byte) error {
		if len(bytes.TrimSpace(data)) == 0 {
			return errors.New("file is empty")
		}
		return json.Unmarshal(data, v)
	})
}

// ReadValid reads name and hands its content to decode. When decode fails
// the file is quarantined with a warning and found is false. Use it for the
// non-JSON state files (.call_count, .last_reset, .claude_session_id). A
// state file that is not a regular file (a named pipe, a link to a device)
// or is over StateCap is quarantined the same way, unread.
func (d *Dir) ReadValid(name string, decode func([]byte) error) (found bool, err error) {
	data, found, err := d.ReadFile(name)
	var fe *FileError
	if errors.As(err, &fe) {
		moved, qerr := d.quarantine(name)
		if qerr != nil {
			return false, fmt.Errorf("%v (and could not be moved aside: %v)", err, qerr)
		}
		d.warn(fmt.Sprintf("%s %s; moved it to %s and starting from the default state", fe.Path, fe.Problem, filepath.Base(moved)))
		return false, nil
	}
	if err != nil || !found {
		return false, err
	}
	if derr := decode(data); derr != nil {
		moved, qerr := d.quarantine(name)
		if qerr != nil {
			return false, fmt.Errorf("%s is corrupt (%v) and could not be moved aside: %w", d.Path(name), derr, qerr)
		}
		d.warn(fmt.Sprintf("%s is corrupt (%s); moved it to %s and starting from the default state", d.Path(name), oneLine(derr), filepath.Base(moved)))
		return false, nil
	}
	return true, nil
}

// quarantine renames name to NAME.corrupt-YYYYMMDD-HHMMSS (with a numeric
// suffix when that exists) and returns the new path.
func (d *Dir) quarantine(name string) (string, error) {
	src, err := d.checked("write", name)
	if err != nil {
		return "", err
	}
	base := src + ".corrupt-" + d.now().UTC().Format("20060102-150405")
	dst := base
	for i := 1; ; i++ {
		if _, err := os.Lstat(dst); errors.Is(err, fs.ErrNotExist) {
			break
		}
		dst = fmt.Sprintf("%s.%d", base, i)
	}
	if err := os.Rename(src, dst); err != nil {
		var le *os.LinkError
		if errors.As(err, &le) {
			return "", le.Err // the caller names the file
		}
		return "", err
	}
	return dst, nil
}

// Remove deletes name; a missing file is not an error.
func (d *Dir) Remove(name string) error {
	p, err := d.checked("write", name)
	if err != nil {
		return err
	}
	err = os.Remove(p)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", d.Path(name), err)
	}
	return nil
}

// AppendLine appends line (a newline is added when missing) to name with a
// single write on an O_APPEND descriptor, so concurrent readers only ever
// see whole lines. When name is a link, a named pipe or another
// non-regular file nothing is written and the link's target stays
// untouched: the first such refusal for a path returns a *FileError saying
// so, later ones return nil, so the caller warns once and goes on. (No
// warning goes through the Dir's warn here: the log sinks call AppendLine
// and the warning would come back to them.) A rotation that fails
// (SetRotation) leaves the line in name and returns why, once, the same
// way. The file stays open for the next line (see appends).
func (d *Dir) AppendLine(name, line string) error {
	p, err := d.checked("write", name)
	if err != nil {
		if !d.refused.first(d.Path(name)) {
			return nil
		}
		return err
	}
	if !strings.HasSuffix(line, "\n") {
		line += "\n"
	}
	rotErr, err := d.appends.write(d, name, p, line)
	if err == nil && rotErr != nil && d.firstRotateFailure(p) {
		// The line is written; the log grows on past the limit. The caller
		// reports it as any append error (a sink holds the bus, so the Dir
		// cannot warn through it here).
		return rotErr
	}
	if (isFileError(err) || isLinkError(err)) && !d.refused.first(p) {
		return nil
	}
	return err
}

func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}
