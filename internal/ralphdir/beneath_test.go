package ralphdir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every Dir method refuses a .ralph/ or a folder in it that is a link: a
// *linkError naming the link and its target, and the target untouched.
func TestDirRefusesFolderLinks(t *testing.T) {
	for _, folder := range []string{".", LogsDir, "docs"} {
		t.Run(folder, func(t *testing.T) {
			d, _ := newDir(t)
			outside := filepath.Join(t.TempDir(), "outside")
			os.MkdirAll(filepath.Join(outside, "generated"), 0o755)
			keep := "claude_output_2026-01-01_00-00-00_loop1.log"
			for _, name := range []string{keep, "ralph.log.1", Status, "live.log", ".ralph_loop.lock"} {
				os.WriteFile(filepath.Join(outside, name), []byte("secret\n"), 0o644)
			}
			link := d.Path(folder)
			os.RemoveAll(link)
			if err := os.Symlink(outside, link); err != nil {
				t.Fatal(err)
			}
			in := func(name string) string {
				if folder == "." {
					return name
				}
				return folder + "/" + name
			}
			before := listing(t, outside)
			check := func(what string, err error) {
				t.Helper()
				if !isLinkError(err) || !strings.Contains(err.Error(), link+" is a symbolic link to "+outside+": refusing to") {
					t.Errorf("%s: %v, want a LinkError", what, err)
				}
			}
			check("WriteFile", d.WriteFile(in("x.json"), []byte("{}\n")))
			check("ReplaceFile", d.ReplaceFile(in("x.json"), []byte("{}\n")))
			_, _, err := d.ReadFile(in(Status))
			check("ReadFile", err)
			_, err = d.ReadText(in(Status))
			check("ReadText", err)
			_, err = d.Open(in("live.log"))
			check("Open", err)
			_, err = d.Lstat(in(Status))
			check("Lstat", err)
			_, err = d.ReadDir(folder)
			check("ReadDir", err)
			_, err = d.Create(in("new.log"))
			check("Create", err)
			_, err = d.openAppend(in("new.log"))
			check("OpenAppend", err)
			check("AppendLine", d.AppendLine(in("new.log"), "x"))
			check("Remove", d.Remove(in(Status)))
			_, err = d.quarantine(in(Status))
			check("Quarantine", err)
			if folder != "docs" {
				check("EnsureLayout", d.EnsureLayout())
				check("CheckWritable", d.CheckWritable())
				d.SetRotation(1)
				_, err = d.PruneCallLogs(0, "")
				check("PruneCallLogs", err)
				d.RemoveRotated()
				d.CleanTemp()
			} else {
				check("EnsureLayout", d.EnsureLayout())
			}
			if folder != "docs" {
				_, err = d.Lock()
				check("Lock", err)
				_, err = d.LockHolder()
				check("LockHolder", err)
			}
			if d.Exists(in(Status)) {
				t.Errorf("Exists is true through the link")
			}
			if after := listing(t, outside); after != before {
				t.Fatalf("the link's target changed:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// listing is the names and contents of the files in dir.
func listing(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		data, _ := os.ReadFile(p)
		b.WriteString(p + "=" + string(data) + ";")
		return nil
	})
	return b.String()
}

// A state file, prompt or log that is a link is read as what it is, never
// followed; ReadFileBeneath and OpenAppendBeneath refuse links and ".." on
// the way from their base.
func TestReadsFollowNoLink(t *testing.T) {
	d, _ := newDir(t)
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("secret\n"), 0o644)
	os.Symlink(secret, d.Path(Prompt))
	if _, _, err := d.ReadFile(Prompt); !isFileError(err) || !strings.Contains(err.Error(), "is a symbolic link to "+secret) {
		t.Errorf("ReadFile: %v", err)
	}
	if _, err := d.Open(Prompt); !isFileError(err) {
		t.Errorf("Open: %v", err)
	}
	if _, err := ReadConfig(d.Path(Prompt)); !isFileError(err) {
		t.Errorf("ReadConfig: %v", err)
	}
	base := filepath.Dir(d.Root())
	os.Symlink(filepath.Dir(secret), filepath.Join(base, "sub"))
	for _, rel := range []string{".ralph/" + Prompt, "sub/secret", "../x"} {
		if _, err := ReadFileBeneath(base, rel, TextCap); !isFileError(err) && !isLinkError(err) {
			t.Errorf("ReadFileBeneath %s: %v", rel, err)
		}
		if _, err := OpenAppendBeneath(base, rel); !isFileError(err) && !isLinkError(err) {
			t.Errorf("OpenAppendBeneath %s: %v", rel, err)
		}
	}
	if b, _ := os.ReadFile(secret); string(b) != "secret\n" {
		t.Errorf("secret changed: %q", b)
	}
}
