package ask_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ralphloop/ralph_loop/internal/ask"
)

var t0 = time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)

func newBox(t *testing.T) (*ask.Box, string) {
	t.Helper()
	base := filepath.Join(t.TempDir(), "questions")
	ralph := filepath.Join(t.TempDir(), "project", ".ralph")
	if err := os.MkdirAll(ralph, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := ask.Open(base, ralph)
	if err != nil {
		t.Fatal(err)
	}
	return b, ralph
}

// TestPostGiveLookClose: a question, an answer from a command, its look
// and its close; a second answer does not replace the first.
func TestPostGiveLookClose(t *testing.T) {
	b, ralph := newBox(t)
	if q, err := b.Pending(); err != nil || q != nil {
		t.Fatalf("Pending on an empty box = %v, %v", q, err)
	}
	if _, err := b.Give("yes", ask.ViaCommand, t0); !errors.Is(err, ask.ErrNoQuestion) {
		t.Fatalf("Give with no question: %v", err)
	}
	q, err := b.Post("Postgres or SQLite?", 2, t0)
	if err != nil {
		t.Fatal(err)
	}
	if len(q.ID) != 32 || q.Loop != 2 || q.Text != "Postgres or SQLite?" {
		t.Fatalf("posted %+v", q)
	}
	if p, err := b.Pending(); err != nil || p == nil || *p != q {
		t.Fatalf("Pending = %+v, %v; want %+v", p, err, q)
	}
	if abs, _ := filepath.EvalSymlinks(ralph); q.RalphDir != abs {
		t.Errorf("RalphDir %q, want %q", q.RalphDir, abs)
	}
	if _, ok, err := b.Look(q); ok || err != nil {
		t.Fatalf("Look before an answer: %v %v", ok, err)
	}
	got, err := b.Give("  SQLite, one file.\n", ask.ViaCommand, t0.Add(time.Minute))
	if err != nil || got.ID != q.ID {
		t.Fatalf("Give = %+v, %v", got, err)
	}
	if _, err := b.Give("Postgres", ask.ViaDashboard, t0); !errors.Is(err, ask.ErrAnswered) {
		t.Fatalf("a second answer: %v, want ErrAnswered", err)
	}
	a, ok, err := b.Look(q)
	if err != nil || !ok || a.Text != "SQLite, one file." || a.Via != ask.ViaCommand || !a.At.Equal(t0.Add(time.Minute)) {
		t.Fatalf("Look = %+v %v %v", a, ok, err)
	}
	if err := b.Close(q); err != nil {
		t.Fatal(err)
	}
	if p, _ := b.Pending(); p != nil {
		t.Fatalf("Pending after Close = %+v", p)
	}
	if _, err := os.Stat(b.AnswerFile(q)); !os.IsNotExist(err) {
		t.Errorf("answer file left: %v", err)
	}
}

// TestOneBoxPerProject: the same .ralph/ (by another path, a link)
// finds the same box; another project has its own.
func TestOneBoxPerProject(t *testing.T) {
	base := filepath.Join(t.TempDir(), "questions")
	root := t.TempDir()
	for _, d := range []string{"a/.ralph", "b/.ralph"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	os.Symlink(filepath.Join(root, "a"), filepath.Join(root, "link"))
	a, _ := ask.Open(base, filepath.Join(root, "a", ".ralph"))
	viaLink, _ := ask.Open(base, filepath.Join(root, "link", ".ralph"))
	other, _ := ask.Open(base, filepath.Join(root, "b", ".ralph"))
	if a.Dir() != viaLink.Dir() || a.Dir() == other.Dir() {
		t.Fatalf("boxes %s %s %s", a.Dir(), viaLink.Dir(), other.Dir())
	}
	q, _ := a.Post("which?", 1, t0)
	if _, err := viaLink.Give("this one", ask.ViaCommand, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Give("no", ask.ViaCommand, t0); !errors.Is(err, ask.ErrNoQuestion) {
		t.Errorf("another project's box answered: %v", err)
	}
	if a, ok, _ := a.Look(q); !ok || a.Text != "this one" {
		t.Errorf("Look = %+v %v", a, ok)
	}
}

// TestAnswerOfAnEarlierQuestion: an answer file written before the
// question was asked (the agent writing one during its call, guessing
// the folder) or for another question answers nothing: each question has
// a new id and Post sweeps what earlier ones left.
func TestAnswerOfAnEarlierQuestion(t *testing.T) {
	b, _ := newBox(t)
	old, _ := b.Post("first?", 1, t0)
	if err := os.WriteFile(b.AnswerFile(old), []byte("planted"), 0o600); err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(b.Dir(), "0123456789abcdef0123456789abcdef.answer")
	os.WriteFile(planted, []byte("guessed"), 0o600)
	q, _ := b.Post("second?", 2, t0)
	if q.ID == old.ID {
		t.Fatal("the same id twice")
	}
	for i := 0; i < 3; i++ {
		if a, ok, err := b.Look(q); ok || err != nil {
			t.Fatalf("Look answered %+v %v", a, err)
		}
	}
	for _, p := range []string{b.AnswerFile(old), planted} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s not swept", p)
		}
	}
}

// TestPlainAnswerFile: a bot's plain answer is taken once it is the same
// on two looks; empty is no answer; a link, a folder or one too long is
// an error.
func TestPlainAnswerFile(t *testing.T) {
	b, _ := newBox(t)
	q, _ := b.Post("which?", 3, t0)
	p := b.AnswerFile(q)
	os.WriteFile(p, nil, 0o600)
	for i := 0; i < 2; i++ {
		if _, ok, err := b.Look(q); ok || err != nil {
			t.Fatalf("empty file: %v %v", ok, err)
		}
	}
	os.WriteFile(p, []byte("the second\n"), 0o600)
	if _, ok, _ := b.Look(q); ok {
		t.Fatal("taken on the first look after a change")
	}
	a, ok, err := b.Look(q)
	if !ok || err != nil || a.Text != "the second" || a.Via != ask.ViaFile {
		t.Fatalf("Look = %+v %v %v", a, ok, err)
	}

	os.Remove(p)
	os.Symlink("/etc/hostname", p)
	if _, ok, err := b.Look(q); ok || err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a link: %v %v", ok, err)
	}
	os.Remove(p)
	os.WriteFile(p, []byte(strings.Repeat("x", ask.AnswerMax+1)), 0o600)
	b.Look(q)
	if _, ok, err := b.Look(q); ok || err == nil || !strings.Contains(err.Error(), "over the limit") {
		t.Errorf("too long: %v %v", ok, err)
	}
	if _, err := b.Give(strings.Repeat("x", ask.AnswerMax+1), ask.ViaCommand, t0); err == nil {
		t.Error("Give took an answer over AnswerMax")
	}
	if _, err := b.Give("  \n", ask.ViaCommand, t0); err == nil {
		t.Error("Give took an empty answer")
	}
}

// TestClosedMeanwhile: an answer to a question the loop closed finds no
// question; Close leaves a newer question alone.
func TestClosedMeanwhile(t *testing.T) {
	b, _ := newBox(t)
	q1, _ := b.Post("first?", 1, t0)
	b.Close(q1)
	if _, err := b.Give("late", ask.ViaCommand, t0); !errors.Is(err, ask.ErrNoQuestion) {
		t.Errorf("late answer: %v", err)
	}
	q2, _ := b.Post("second?", 2, t0)
	b.Close(q1)
	if p, _ := b.Pending(); p == nil || p.ID != q2.ID {
		t.Errorf("Close of the old question removed the new one: %+v", p)
	}
}

// TestPrivateFolder: the box is the user's alone (0700, fixed when it
// was not); a link in its place is refused.
func TestPrivateFolder(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no modes")
	}
	base := filepath.Join(t.TempDir(), "questions")
	os.MkdirAll(base, 0o755)
	b, err := ask.Open(base, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{base, b.Dir()} {
		st, _ := os.Stat(d)
		if st.Mode().Perm() != 0o700 {
			t.Errorf("%s mode %v, want 0700", d, st.Mode().Perm())
		}
	}
	other := filepath.Join(t.TempDir(), "elsewhere")
	os.MkdirAll(other, 0o700)
	linked := filepath.Join(t.TempDir(), "linked")
	os.Symlink(other, linked)
	if _, err := ask.Open(linked, t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Errorf("a link as the base: %v", err)
	}
}

// TestAnotherUsersFolder: a folder another user made (a squatter on a
// shared machine) is refused, not used. Root only (it makes one).
func TestAnotherUsersFolder(t *testing.T) {
	if runtime.GOOS == "windows" || os.Geteuid() != 0 {
		t.Skip("needs root to give a folder away")
	}
	base := filepath.Join(t.TempDir(), "questions")
	os.MkdirAll(base, 0o700)
	if err := os.Chown(base, 65534, 65534); err != nil {
		t.Skip(err)
	}
	if _, err := ask.Open(base, t.TempDir()); err == nil || !strings.Contains(err.Error(), "another user") {
		t.Errorf("another user's folder: %v", err)
	}
}

// TestCorruptQuestion: a question.json that cannot be read is an error
// that says how to drop it.
func TestCorruptQuestion(t *testing.T) {
	b, _ := newBox(t)
	os.WriteFile(filepath.Join(b.Dir(), "question.json"), []byte("{"), 0o600)
	if _, err := b.Pending(); err == nil || !strings.Contains(err.Error(), "remove it") {
		t.Errorf("Pending = %v", err)
	}
}
