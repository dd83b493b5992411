// Command archive packs files into a reproducible release archive: the
// same files give the same bytes on any machine and any day.
//
//	go run ./scripts/archive -o dist/ralph_loop_1.2.3_linux_amd64.tar.gz -mtime 1700000000 bin/ralph_loop README.md
//
// Entries are flat (each file under its base name), sorted by name, owned by
// root (uid and gid 0, no user or group names), dated -mtime (seconds since
// the epoch, usually SOURCE_DATE_EPOCH), mode 0755 for a file executable by
// its owner and 0644 for any other. The format follows the name: .tar.gz
// (ustar in gzip, no name or time in the gzip header) or .zip (deflate).
// The archive is written beside its final name and renamed into place.
package main

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "archive: %v\n", err)
		os.Exit(1)
	}
}

// entry is one file of the archive.
type entry struct {
	name string // base name inside the archive
	path string // where it is read from
	mode int64  // 0755 or 0644
	size int64
}

func run(args []string) error {
	fs := flag.NewFlagSet("archive", flag.ContinueOnError)
	out := fs.String("o", "", "archive to write: NAME.tar.gz or NAME.zip")
	mtime := fs.Int64("mtime", -1, "modification time of every entry, in seconds since the epoch (SOURCE_DATE_EPOCH)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return errors.New("no archive named: pass -o NAME.tar.gz or -o NAME.zip")
	}
	if *mtime < 0 {
		return errors.New("no entry time: pass -mtime SECONDS (e.g. -mtime \"$SOURCE_DATE_EPOCH\")")
	}
	write, err := writerFor(*out)
	if err != nil {
		return err
	}
	entries, err := collect(fs.Args())
	if err != nil {
		return err
	}
	return writeAtomically(*out, func(w io.Writer) error {
		return write(w, entries, time.Unix(*mtime, 0).UTC())
	})
}

// writerFor picks the format from the archive's name.
func writerFor(name string) (func(io.Writer, []entry, time.Time) error, error) {
	switch {
	case strings.HasSuffix(name, ".tar.gz"):
		return writeTarGz, nil
	case strings.HasSuffix(name, ".zip"):
		return writeZip, nil
	}
	return nil, fmt.Errorf("%s: unknown archive format; name it NAME.tar.gz or NAME.zip", name)
}

// collect stats the files and sorts them by their name in the archive.
func collect(paths []string) ([]entry, error) {
	if len(paths) == 0 {
		return nil, errors.New("no files to archive: name them after the flags")
	}
	var entries []entry
	seen := map[string]string{}
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("%w; name existing files", err)
		}
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("%s: not a regular file; name files only", p)
		}
		name := filepath.Base(p)
		if prev, ok := seen[name]; ok {
			return nil, fmt.Errorf("%s and %s: both would be %s in the archive; rename one", prev, p, name)
		}
		seen[name] = p
		mode := int64(0o644)
		if fi.Mode().Perm()&0o100 != 0 {
			mode = 0o755
		}
		entries = append(entries, entry{name: name, path: p, mode: mode, size: fi.Size()})
	}
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	return entries, nil
}

func writeTarGz(w io.Writer, entries []entry, mtime time.Time) error {
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: e.name, Mode: e.mode, Size: e.size, ModTime: mtime, Format: tar.FormatUSTAR}
		if err := tw.WriteHeader(hdr); err != nil {
			return fmt.Errorf("%s: %w", e.path, err)
		}
		if err := copyFile(tw, e); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

func writeZip(w io.Writer, entries []entry, mtime time.Time) error {
	zw := zip.NewWriter(w)
	for _, e := range entries {
		hdr := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: mtime}
		hdr.SetMode(os.FileMode(e.mode))
		fw, err := zw.CreateHeader(hdr)
		if err != nil {
			return fmt.Errorf("%s: %w", e.path, err)
		}
		if err := copyFile(fw, e); err != nil {
			return err
		}
	}
	return zw.Close()
}

// copyFile copies exactly the size that was stat'ed: a file that changes
// while it is archived is an error, not a different archive.
func copyFile(w io.Writer, e entry) error {
	f, err := os.Open(e.path)
	if err != nil {
		return err
	}
	defer f.Close()
	n, err := io.Copy(w, io.LimitReader(f, e.size+1))
	if err != nil {
		return fmt.Errorf("%s: %w", e.path, err)
	}
	if n != e.size {
		return fmt.Errorf("%s: changed while being archived (%d bytes, expected %d); archive it again", e.path, n, e.size)
	}
	return nil
}

// writeAtomically writes name through a temporary file in its directory.
func writeAtomically(name string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".*")
	if err != nil {
		return fmt.Errorf("%w; check that the output directory exists and is writable", err)
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}
