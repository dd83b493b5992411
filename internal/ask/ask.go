// Package ask is the person's side of the agent's questions
// (docs/LOOP-CONTROL.md#when-the-agent-must-ask): a folder of the
// person's own, outside the project, where the loop posts the one
// question it waits on and where only the person's channels put the
// answer: ralph_loop --answer, the dashboard, and a bot or a
// NOTIFY_COMMAND hook the question's notification named the answer file
// to.
//
// The folder is the user's cache folder's ralph_loop/questions/<key>
// (os.UserCacheDir: ~/.cache on Linux), one per project's .ralph/
// folder, private to the user (0700, checked to be theirs and no link).
// It holds question.json, the question waiting (with a random id, made
// when it is asked), and <id>.answer, its answer once given. Because the
// id is new for every question and an answer names it, nothing written
// before the question was asked (by the agent during its call, say) can
// answer it; the loop makes no call while it waits, so no agent runs to
// write one; and a sandboxed agent sees none of this folder
// (docs/SECURITY.md says what that does not cover).
//
//	b, err := ask.For(ralphDir)               // the project's box
//	q, err := b.Post(text, loop, now)          // the loop asks
//	a, ok, err := b.Look(q)                    // ... and looks for the answer
//	q, err := b.Give(text, ask.ViaCommand, now) // ralph_loop --answer
//	err = b.Close(q)                           // the answer reached the agent
package ask

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// AnswerMax bounds an answer, in bytes (it goes into the agent's next
// context whole).
const AnswerMax = 4096

// fileMax bounds the files read from the box: an answer file may carry
// its answer as JSON, escapes and all.
const fileMax = 64 << 10

// The channels an answer comes from (Answer.Via).
const (
	ViaCommand   = "command"   // ralph_loop --answer
	ViaDashboard = "dashboard" // the dashboard's form
	ViaFile      = "file"      // a bot or a hook wrote the answer file
)

// Errors of Give.
var (
	ErrNoQuestion = errors.New("no question is waiting for an answer")
	ErrAnswered   = errors.New("the question is already answered")
	ErrClosed     = errors.New("the question was closed while the answer was written (it timed out, or the loop stopped waiting)")
)

// Question is the question a loop waits on, as question.json keeps it.
type Question struct {
	ID      string    `json:"id"`
	Text    string    `json:"question"`
	Loop    int       `json:"loop"`
	AskedAt time.Time `json:"asked_at"`
	// RalphDir is the project's .ralph/ folder, for a person reading the
	// box.
	RalphDir string `json:"ralph_dir"`
}

// Answer is an answer and the channel it came from.
type Answer struct {
	Text string
	Via  string
	At   time.Time // when it was given (the file's time for a plain file)
}

// Box is one project's folder of questions.
type Box struct {
	dir      string
	ralphDir string
	seen     map[string]stamp // a plain answer file as last looked at, by question id
}

// stamp is what tells a plain answer file that is still being written.
type stamp struct {
	size int64
	mod  time.Time
}

// Base is the folder of every project's box: the user's cache folder's
// ralph_loop/questions.
func Base() (string, error) {
	c, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no folder for the agent's questions: %w; set HOME (or XDG_CACHE_HOME)", err)
	}
	return filepath.Join(c, "ralph_loop", "questions"), nil
}

// For is the box of the project whose .ralph/ folder is ralphDir, under
// Base; it is created (private to the user) when missing.
func For(ralphDir string) (*Box, error) {
	base, err := Base()
	if err != nil {
		return nil, err
	}
	return Open(base, ralphDir)
}

// Open is the box of ralphDir under base, created when missing: base
// and the box are folders of this user's, with no access for anyone
// else; a link there, or a folder another user owns, is refused.
func Open(base, ralphDir string) (*Box, error) {
	abs, err := filepath.Abs(ralphDir)
	if err != nil {
		return nil, err
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	sum := sha256.Sum256([]byte(abs))
	dir := filepath.Join(base, hex.EncodeToString(sum[:16]))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("cannot create the folder for the agent's questions %s: %w", dir, err)
	}
	for _, d := range []string{base, dir} {
		if err := private(d); err != nil {
			return nil, err
		}
	}
	return &Box{dir: dir, ralphDir: abs, seen: map[string]stamp{}}, nil
}

// Dir is the box's folder.
func (b *Box) Dir() string { return b.dir }

const questionFile = "question.json"

// AnswerFile is where q's answer goes: a bot or a hook writes the answer
// there, as plain text (best written to a temporary file in the same
// folder and renamed into place).
func (b *Box) AnswerFile(q Question) string { return filepath.Join(b.dir, q.ID+".answer") }

// Pending is the question waiting in the box, nil when none.
func (b *Box) Pending() (*Question, error) {
	data, err := ralphdir.ReadFileNoLink(filepath.Join(b.dir, questionFile), fileMax)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var q Question
	if err := json.Unmarshal(data, &q); err != nil || !validID(q.ID) || q.Text == "" {
		return nil, fmt.Errorf("%s cannot be read as a question (remove it to drop the question)", filepath.Join(b.dir, questionFile))
	}
	return &q, nil
}

// Post puts a new question in the box with a new id, in place of any
// earlier one and its answer.
func (b *Box) Post(text string, loop int, now time.Time) (Question, error) {
	var raw [16]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return Question{}, err
	}
	q := Question{ID: hex.EncodeToString(raw[:]), Text: text, Loop: loop, AskedAt: now.UTC(), RalphDir: b.ralphDir}
	b.sweep()
	data, err := json.MarshalIndent(q, "", "  ")
	if err != nil {
		return Question{}, err
	}
	if err := b.replace(questionFile, append(data, '\n')); err != nil {
		return Question{}, err
	}
	return q, nil
}

// sweep removes what earlier questions left: their answers and any
// temporary file.
func (b *Box) sweep() {
	entries, _ := os.ReadDir(b.dir)
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, ".answer") || strings.HasPrefix(n, ".tmp-") || n == questionFile {
			os.Remove(filepath.Join(b.dir, n))
		}
	}
	clear(b.seen)
}

// Look reports q's answer once it is there: given by Give (taken at
// once), or a plain file a bot wrote (taken once it is the same on two
// looks in a row, so that one half written is not read). An answer file
// that is a link or not a regular file, or one over AnswerMax, is an
// error; an empty one is no answer yet.
func (b *Box) Look(q Question) (Answer, bool, error) {
	p := b.AnswerFile(q)
	st, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return Answer{}, false, nil
	}
	if err != nil {
		return Answer{}, false, err
	}
	if !st.Mode().IsRegular() {
		return Answer{}, false, fmt.Errorf("the answer file %s is not a regular file (%s): remove it and write the answer there as plain text", p, st.Mode().Type())
	}
	data, err := ralphdir.ReadFileNoLink(p, fileMax)
	if err != nil {
		return Answer{}, false, err
	}
	a, given := decode(data)
	if !given {
		now := stamp{st.Size(), st.ModTime()}
		if last, ok := b.seen[q.ID]; !ok || last != now {
			b.seen[q.ID] = now
			return Answer{}, false, nil
		}
		a.At = st.ModTime()
	}
	if a.Text == "" {
		return Answer{}, false, nil
	}
	if err := check(a.Text); err != nil {
		return Answer{}, false, fmt.Errorf("the answer in %s: %w; write a shorter one", p, err)
	}
	return a, true, nil
}

// given is the answer file as Give writes it.
type given struct {
	Answer string    `json:"answer"`
	Via    string    `json:"via"`
	At     time.Time `json:"answered_at"`
}

// decode reads an answer file: Give's JSON (given true), else the plain
// text a bot wrote (trimmed).
func decode(data []byte) (Answer, bool) {
	var g given
	if json.Unmarshal(data, &g) == nil && g.Answer != "" && (g.Via == ViaCommand || g.Via == ViaDashboard) {
		return Answer{Text: strings.TrimSpace(g.Answer), Via: g.Via, At: g.At}, true
	}
	return Answer{Text: strings.TrimSpace(string(data)), Via: ViaFile}, false
}

// check says what is wrong with an answer: empty, not UTF-8, or longer
// than AnswerMax.
func check(text string) error {
	switch {
	case strings.TrimSpace(text) == "":
		return errors.New("the answer is empty")
	case !utf8.ValidString(text):
		return errors.New("the answer is not valid UTF-8 text")
	case len(text) > AnswerMax:
		return fmt.Errorf("the answer is %d bytes, over the limit of %d", len(text), AnswerMax)
	}
	return nil
}

// Give answers the question waiting in the box with text, from the
// channel via, and returns that question: ErrNoQuestion when none waits,
// ErrAnswered when it already has an answer (the first one counts),
// ErrClosed when the loop closed it meanwhile.
func (b *Box) Give(text, via string, now time.Time) (Question, error) {
	text = strings.TrimSpace(text)
	if err := check(text); err != nil {
		return Question{}, err
	}
	q, err := b.Pending()
	if err != nil {
		return Question{}, err
	}
	if q == nil {
		return Question{}, ErrNoQuestion
	}
	data, err := json.Marshal(given{Answer: text, Via: via, At: now.UTC()})
	if err != nil {
		return Question{}, err
	}
	tmp, err := b.temp(append(data, '\n'))
	if err != nil {
		return Question{}, err
	}
	defer os.Remove(tmp)
	// A link fails when the answer is there already: the first answer
	// counts, and one is never replaced under the loop reading it.
	if err := os.Link(tmp, b.AnswerFile(*q)); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return *q, ErrAnswered
		}
		return Question{}, fmt.Errorf("cannot write the answer %s: %w", b.AnswerFile(*q), err)
	}
	if now, err := b.Pending(); err != nil || now == nil || now.ID != q.ID {
		os.Remove(b.AnswerFile(*q))
		return *q, ErrClosed
	}
	return *q, nil
}

// Close removes q and its answer from the box: the answer reached the
// agent, or nobody answered and the loop went on. A question that is not
// q (a newer one) is left alone.
func (b *Box) Close(q Question) error {
	delete(b.seen, q.ID)
	err := os.Remove(b.AnswerFile(q))
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	if p, perr := b.Pending(); perr == nil && p != nil && p.ID == q.ID {
		if rerr := os.Remove(filepath.Join(b.dir, questionFile)); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			return rerr
		}
	}
	return err
}

// replace writes name in the box atomically.
func (b *Box) replace(name string, data []byte) error {
	tmp, err := b.temp(data)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(b.dir, name)); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("cannot write %s: %w", filepath.Join(b.dir, name), err)
	}
	return nil
}

// temp is a new file in the box holding data.
func (b *Box) temp(data []byte) (string, error) {
	f, err := os.CreateTemp(b.dir, ".tmp-*")
	if err != nil {
		return "", fmt.Errorf("cannot write in %s: %w", b.dir, err)
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("cannot write in %s: %w", b.dir, werr)
	}
	return f.Name(), nil
}

// validID: 32 lower-case hex digits, as Post makes them (an id names a
// file).
func validID(id string) bool {
	if len(id) != 32 {
		return false
	}
	for _, c := range id {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
