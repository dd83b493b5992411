package tasks

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"unicode"

	"github.com/ralphloop/ralph_loop/internal/clip"
	"github.com/ralphloop/ralph_loop/internal/lazyre"
)

// Item is one item of a tracker as the loop reads it. Every text in it
// is the tracker's: untrusted, never an instruction.
type Item struct {
	Key        string // the plan's key: "bd-a1b2", "#123"
	ID         string // the tracker's own: "bd-a1b2", "123"
	Title      string // one line, clipped (cleanTitle)
	Body       string
	Acceptance string // beads' acceptance criteria
	// Status is beads' (open, in_progress, closed, …) or GitHub's (OPEN,
	// CLOSED, and DONE for an issue a loop labelled ralph-loop:done).
	Status   string
	URL      string
	Comments []Comment // GitHub: the trusted authors' only
}

// Comment is a comment on an item, by one of the repository's owner,
// members or collaborators (GitHub's authorAssociation).
type Comment struct {
	Author, Association, Body string
}

// Where an item that left the tracker's list stands (source.states).
type standing int

const (
	gone    standing = iota // deleted, or no longer matches the import (label, filter)
	open                    // open, but not ready (blocked, deferred)
	taken                   // someone else works on it
	claimed                 // in progress under this loop's claim
	closed                  // closed in the tracker
)

// errTaken: a claim lost to another loop or person.
var errTaken = errors.New("taken")

// takenError is a lost claim and what the tracker said of it.
type takenError struct{ why string }

func (e *takenError) Error() string   { return e.why }
func (e *takenError) Is(t error) bool { return t == errTaken }

// source is one tracker, driven through its own CLI.
type source interface {
	// name is TASK_SOURCES' word for it; heading the plan section's.
	name() string
	heading() string
	// list returns the open items to import, in the order to work them.
	// held says which keys this loop holds claims on (GitHub's claimed
	// items are left out unless they are this loop's).
	list(ctx context.Context, held func(key string) bool) ([]Item, error)
	// states says where the given items stand, each by its key, with
	// what the tracker still has of them. An item it does not mention is
	// gone.
	states(ctx context.Context, items []record) (map[string]stood, error)
	// claim takes the item for this loop; an error that Is errTaken
	// means someone else has it.
	claim(ctx context.Context, r *record) error
	// release gives a claim back.
	release(ctx context.Context, r record) error
	// finish writes the item back as done (note says what it did).
	finish(ctx context.Context, r record, s summary) (note string, err error)
	// detail fills in what the context shows of the item the next call
	// works on, beyond what list gave (GitHub's trusted comments).
	detail(ctx context.Context, it *Item) error
	// commands are the command lines it runs (with writeback, those that
	// write too), for --dry-run.
	commands(writeback bool) []string
	// probes are --doctor's checks: the CLI's version, its login or
	// database.
	probes() []probe
}

// stood is an item's standing and what the tracker has of it.
type stood struct {
	standing
	item Item
}

// summary is what a write-back says of the work.
type summary struct {
	Loop   int
	Commit string // short
	Gates  bool   // quality gates are configured, and passed
}

// text is the write-back's words: what ran where, never the agent's own
// text (which may quote what it read, secrets included).
func (s summary) text() string {
	var b strings.Builder
	b.WriteString("Done by ralph_loop")
	if s.Loop > 0 {
		b.WriteString(" in loop " + strconv.Itoa(s.Loop))
	}
	if s.Commit != "" {
		b.WriteString(", commit " + s.Commit)
	}
	b.WriteString(".")
	if s.Gates {
		b.WriteString(" The quality gates passed.")
	}
	return b.String()
}

// Keys: a beads id is a prefix, a hyphen and a hash, with ".N" for a
// child; a GitHub issue is "#" and its number. Anything else from a
// tracker is not imported: it would not stay one key on a plan line.
var (
	beadsID = lazyre.Compile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)
	issueNo = lazyre.Compile(`^[1-9][0-9]{0,9}$`)
)

// titleMax is the longest title a plan line gets, in runes.
const titleMax = 200

// cleanTitle is a tracker's title as one plan line shows it: control
// characters and line breaks as spaces, runs of blanks as one, clipped.
func cleanTitle(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		s = "(no title)"
	}
	return clip.Ellipsis(s, titleMax)
}
