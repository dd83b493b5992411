package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const epoch = 1795568601

// inputs writes a binary and a README into a fresh directory, dated mtime.
func inputs(t *testing.T, mtime time.Time) []string {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "ralph_loop")
	readme := filepath.Join(dir, "README.md")
	for _, f := range []struct {
		path string
		data string
		mode os.FileMode
	}{{bin, "\x7fELF binary", 0o775}, {readme, "# ralph_loop\n", 0o664}} {
		if err := os.WriteFile(f.path, []byte(f.data), f.mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(f.path, f.mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(f.path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	return []string{readme, bin} // not sorted: the archive sorts
}

func build(t *testing.T, name string, files []string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), name)
	if err := run(append([]string{"-o", out, "-mtime", strconv.Itoa(epoch)}, files...)); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// The same files give the same bytes, whenever they were written.
func TestReproducible(t *testing.T) {
	for _, name := range []string{"x.tar.gz", "x.zip"} {
		a := build(t, name, inputs(t, time.Now()))
		b := build(t, name, inputs(t, time.Unix(1, 0)))
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two archives of the same files differ (%d and %d bytes)", name, len(a), len(b))
		}
	}
}

type file struct {
	Name  string
	Mode  int64
	MTime int64
	Data  string
}

var want = []file{
	{"README.md", 0o644, epoch, "# ralph_loop\n"},
	{"ralph_loop", 0o755, epoch, "\x7fELF binary"},
}

func TestTarGz(t *testing.T) {
	data := build(t, "x.tar.gz", inputs(t, time.Now()))
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if gz.Name != "" || !gz.ModTime.IsZero() {
		t.Errorf("gzip header has name %q, time %v; want neither", gz.Name, gz.ModTime)
	}
	tr := tar.NewReader(gz)
	var got []file
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" || h.Typeflag != tar.TypeReg {
			t.Errorf("%s: owner %d/%d %q/%q type %c; want a regular file of root, no names", h.Name, h.Uid, h.Gid, h.Uname, h.Gname, h.Typeflag)
		}
		body, _ := io.ReadAll(tr)
		got = append(got, file{h.Name, h.Mode, h.ModTime.Unix(), string(body)})
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("entries (-want +got):\n%s", d)
	}
}

func TestZip(t *testing.T) {
	data := build(t, "x.zip", inputs(t, time.Now()))
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var got []file
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(rc)
		rc.Close()
		got = append(got, file{f.Name, int64(f.Mode().Perm()), f.Modified.Unix(), string(body)})
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("entries (-want +got):\n%s", d)
	}
}

func TestRefused(t *testing.T) {
	dir := t.TempDir()
	files := inputs(t, time.Now())
	other := filepath.Join(dir, "README.md")
	if err := os.WriteFile(other, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-mtime", "1", files[0]}, "pass -o"},
		{[]string{"-o", filepath.Join(dir, "x.tar.gz"), files[0]}, "pass -mtime"},
		{[]string{"-o", filepath.Join(dir, "x.tar.xz"), "-mtime", "1", files[0]}, "unknown archive format"},
		{[]string{"-o", filepath.Join(dir, "x.zip"), "-mtime", "1"}, "no files to archive"},
		{[]string{"-o", filepath.Join(dir, "x.zip"), "-mtime", "1", dir}, "not a regular file"},
		{[]string{"-o", filepath.Join(dir, "x.zip"), "-mtime", "1", files[0], other}, "both would be README.md"},
		{[]string{"-o", filepath.Join(dir, "missing", "x.zip"), "-mtime", "1", files[0]}, "output directory"},
	} {
		err := run(c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("run(%q) = %v; want an error containing %q", c.args, err, c.want)
		}
	}
}
