package ralphdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// NoSpace reports a full disk or quota.
func NoSpace(err error) bool {
	return noSpace(err)
}

// overwriteInPlace is WriteFileAtomic's last resort on a full disk: when
// the new content fits in the blocks the file already has, it is written
// over them (no new block is needed), and the file is cut to its length.
// So status.json still gets its final "stopped"/"error" record when the
// disk is full. It is not atomic: a reader in between may see the new
// content followed by a remnant of the old one.
func overwriteInPlace(path string, data []byte) error {
	st, err := os.Lstat(path)
	if err != nil {
		return err
	}
	room, ok := allocated(st)
	if !st.Mode().IsRegular() || !ok || int64(len(data)) > room {
		return syscall.ENOSPC
	}
	f, err := openNoFollow(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteAt(data, 0); err != nil {
		f.Close()
		return err
	}
	if err := f.Truncate(int64(len(data))); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// CheckWritable checks once, at start-up, that files can be written in the
// folder and in logs/, so that a read-only or full .ralph/ stops the run
// with one line instead of a warning on every write.
func (d *Dir) CheckWritable() error {
	if err := d.CheckFolders(); err != nil {
		return err
	}
	for _, dir := range []string{d.root, d.Path(LogsDir)} {
		f, err := os.CreateTemp(dir, ".write-probe-*")
		if err == nil {
			_, err = f.WriteString("ok\n")
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			_ = os.Remove(f.Name())
		}
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err // the message names the folder
			}
			fix := "make it writable"
			if NoSpace(err) {
				fix = "free disk space"
			}
			return fmt.Errorf("cannot write in %s (%v); %s, then run ralph_loop again", dir, err, fix)
		}
	}
	return nil
}
