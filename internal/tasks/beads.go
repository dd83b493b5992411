package tasks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ralphloop/ralph_loop/internal/lazyre"
)

// beads drives bd (github.com/steveyegge/beads): `bd ready --json` lists
// the open, unblocked items; `bd update ID --claim` takes one atomically
// (a second claimant fails); `bd close ID --reason` finishes it.
type beads struct {
	r      *runner
	filter []string // bd ready's flags, from BEADS_FILTER
	// actor is the name the loop's writes are made as (--actor,
	// Options.actor): bd's claim is atomic between names only.
	actor string
}

const beadsHeading = "## Tasks from beads"

func (b *beads) name() string    { return "beads" }
func (b *beads) heading() string { return beadsHeading }

// readyArgs is the import's command: every ready item (bd's default
// --limit is 100), filtered as BEADS_FILTER says.
func (b *beads) readyArgs() []string {
	return append([]string{"bd", "ready", "--json", "--limit=0"}, b.filter...)
}

// writeArgs ends a command that writes with the worker's actor.
func (b *beads) writeArgs(argv ...string) []string {
	if b.actor != "" {
		argv = append(argv, "--actor="+b.actor)
	}
	return argv
}

func (b *beads) list(ctx context.Context, held func(string) bool) ([]Item, error) {
	out, err := b.r.exec(ctx, b.readyArgs()...)
	if err != nil {
		return nil, err
	}
	issues, err := decodeBeads(out)
	if err != nil {
		return nil, fmt.Errorf("'bd ready --json' %w", err)
	}
	items := make([]Item, 0, len(issues))
	for _, is := range issues {
		it, ok := is.item()
		// bd before 0.49.4 lists items in progress as ready too: someone
		// else's are not this loop's to take.
		if ok && (is.Status == "" || is.Status == "open" || held(it.Key)) {
			items = append(items, it)
		}
	}
	return items, nil
}

func (b *beads) states(ctx context.Context, recs []record) (map[string]stood, error) {
	if len(recs) == 0 {
		return nil, nil
	}
	issues, err := b.show(ctx, recs)
	if errors.Is(err, errNoSuchIssue) && len(recs) > 1 {
		// One of them is gone, and bd said nothing of the others (an
		// older bd fails the whole command): ask of each alone.
		issues = nil
		for _, r := range recs {
			one, err := b.show(ctx, []record{r})
			if err != nil && !errors.Is(err, errNoSuchIssue) {
				return nil, err
			}
			issues = append(issues, one...)
		}
	} else if err != nil && !errors.Is(err, errNoSuchIssue) {
		return nil, err
	}
	byID := map[string]record{}
	for _, r := range recs {
		byID[r.ID] = r
	}
	got := map[string]stood{}
	for _, is := range issues {
		r, ok := byID[is.ID]
		it, valid := is.item()
		if !ok || !valid {
			continue
		}
		s := stood{item: it}
		switch is.Status {
		case "closed", "tombstone":
			s.standing = closed
		case "in_progress", "hooked":
			s.standing = taken
			if r.Claimed && (r.Actor == "" || r.Actor == is.Assignee) {
				s.standing = claimed
			}
		default: // open but not ready: blocked, deferred, pinned, …
			s.standing = open
		}
		got[r.Key] = s
	}
	return got, nil
}

// errNoSuchIssue: bd show found none of the items, or not one of them.
var errNoSuchIssue = errors.New("no such issue")

// show is 'bd show ID… --json': the issues bd has of recs. When one of
// them is not there, a recent bd prints the others and fails if none is
// left, and an older one fails with nothing printed: errNoSuchIssue, with the issues
// printed.
func (b *beads) show(ctx context.Context, recs []record) ([]beadsIssue, error) {
	argv := []string{"bd", "show"}
	for _, r := range recs {
		argv = append(argv, r.ID)
	}
	out, stderr, err := b.r.execErr(ctx, append(argv, "--json")...)
	var ce *CLIError
	if errors.As(err, &ce) && ce.exited() && (noIssue(stderr) || noIssue([]byte(jsonError(out)))) {
		issues, _ := decodeBeads(out)
		return issues, errNoSuchIssue
	}
	if err != nil {
		return nil, err
	}
	issues, err := decodeBeads(out)
	if err != nil {
		return nil, fmt.Errorf("'bd show --json' %w", err)
	}
	return issues, nil
}

// noIssue reports whether bd's words say an issue is not there: "no
// issues found matching the provided IDs", "no issue found matching …",
// "Issue X not found".
func noIssue(msg []byte) bool {
	m := strings.ToLower(string(msg))
	return strings.Contains(m, "no issue found") || strings.Contains(m, "no issues found") || issueNotFound().MatchString(m)
}

var issueNotFound = lazyre.Compile(`(?m)^issue \S+ not found$`)

func (b *beads) claim(ctx context.Context, r *record) error {
	_, stderr, err := b.r.execErr(ctx, b.writeArgs("bd", "update", r.ID, "--claim", "--json")...)
	var ce *CLIError
	if errors.As(err, &ce) && ce.exited() {
		s := string(stderr)
		switch {
		case strings.Contains(s, "already claimed") || strings.Contains(s, "not claimable"):
			return &takenError{why: failLine(nil, stderr)}
		case strings.Contains(s, "unknown flag: --claim"):
			return fmt.Errorf("'bd update --claim': this bd has no --claim, the atomic claim (beads before 0.42); update bd (0.49.4 or later, whose claim is atomic) to claim items, or turn TASK_WRITEBACK off")
		}
	}
	if err == nil {
		r.Actor = b.actor
	}
	return err
}

func (b *beads) release(ctx context.Context, r record) error {
	_, err := b.r.exec(ctx, b.writeArgs("bd", "update", r.ID, "--status=open", "--assignee=", "--json")...)
	return err
}

func (b *beads) finish(ctx context.Context, r record, s summary) (string, error) {
	if _, err := b.r.exec(ctx, b.writeArgs("bd", "close", r.ID, "--reason="+s.text(), "--json")...); err != nil {
		return "", err
	}
	return "closed in beads", nil
}

func (b *beads) detail(context.Context, *Item) error { return nil }

func (b *beads) commands(writeback bool) []string {
	cmds := []string{
		quoteArgs(b.readyArgs()),
		"bd show ID… --json   (items that left the ready list: closed? taken? blocked?)",
	}
	if !writeback {
		return cmds
	}
	return append(cmds,
		quoteArgs(b.writeArgs("bd", "update", "ID", "--claim", "--json"))+"   (before the call that works on ID)",
		quoteArgs(b.writeArgs("bd", "close", "ID", "--reason=…", "--json"))+"   (once its line is ticked and the gates pass)",
		quoteArgs(b.writeArgs("bd", "update", "ID", "--status=open", "--assignee=", "--json"))+"   (a claim the run ends without finishing)",
	)
}

func (b *beads) probes() []probe {
	return []probe{
		{what: "version", argv: []string{"bd", "version"}},
		{what: "database", argv: []string{"bd", "ready", "--json", "--limit=1"}},
	}
}

// beadsIssue is the part of bd's issue JSON the loop reads (bd ready's
// IssueWithCounts, bd show's IssueDetails).
type beadsIssue struct {
	ID          string `json:"id"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Acceptance  string `json:"acceptance_criteria"`
	Status      string `json:"status"`
	Assignee    string `json:"assignee"`
}

// item is the issue as an Item; false for an id that cannot be a key.
func (is beadsIssue) item() (Item, bool) {
	if !beadsID().MatchString(is.ID) {
		return Item{}, false
	}
	return Item{Key: is.ID, ID: is.ID, Title: cleanTitle(is.Title), Body: is.Description, Acceptance: is.Acceptance, Status: is.Status}, true
}

// decodeBeads reads bd's --json output in either shape: a bare array of
// issues (bd 1.x's default), or the envelope {"schema_version": 1,
// "data": [...]} (BD_JSON_ENVELOPE=1, the default from beads 2.0). A lone
// object (bd 1.x injects schema_version into objects) is one issue.
func decodeBeads(out []byte) ([]beadsIssue, error) {
	out = bytes.TrimSpace(out)
	if len(out) == 0 {
		return nil, errors.New("printed nothing")
	}
	var issues []beadsIssue
	if out[0] == '[' {
		if err := json.Unmarshal(out, &issues); err != nil {
			return nil, fmt.Errorf("printed JSON the loop cannot read: %v", err)
		}
		return issues, nil
	}
	var env struct {
		Version *int            `json:"schema_version"`
		Data    json.RawMessage `json:"data"`
		ID      string          `json:"id"`
	}
	if err := json.Unmarshal(out, &env); err != nil {
		return nil, fmt.Errorf("printed something that is not JSON: %v", err)
	}
	switch {
	case env.Data != nil:
		if env.Version != nil && *env.Version > 1 {
			return nil, fmt.Errorf("printed schema_version %d, which this ralph_loop does not know (it reads 1)", *env.Version)
		}
		return decodeBeads(env.Data)
	case env.ID != "":
		var one beadsIssue
		if err := json.Unmarshal(out, &one); err != nil {
			return nil, fmt.Errorf("printed JSON the loop cannot read: %v", err)
		}
		return []beadsIssue{one}, nil
	}
	return nil, errors.New("printed an object with neither data nor an issue")
}

// beadsFilterTerms are BEADS_FILTER's terms and the bd ready flag each
// becomes ("" for a term that asks for what bd ready does anyway).
var beadsFilterTerms = map[string]string{
	"status": "", "label": "--label", "label-any": "--label-any", "exclude-label": "--exclude-label",
	"priority": "--priority", "type": "--type", "assignee": "--assignee", "parent": "--parent", "unassigned": "--unassigned",
}

var filterValue = lazyre.Compile(`^[A-Za-z0-9_.:/@+-]{1,100}$`)

// parseBeadsFilter turns BEADS_FILTER ("status:open label:backend
// priority:1", commas or blanks between terms) into bd ready's flags,
// each as one --flag=value argument, so that no value is read as a flag.
func parseBeadsFilter(v string) ([]string, error) {
	var flags []string
	for _, term := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		name, val, hasVal := strings.Cut(term, ":")
		name = strings.ToLower(name)
		flag, ok := beadsFilterTerms[name]
		switch {
		case !ok:
			return nil, fmt.Errorf("BEADS_FILTER: unknown term %q (known: status:open, label:L, label-any:L, exclude-label:L, priority:0-4, type:T, assignee:A, unassigned, parent:ID)", shown(term))
		case name == "unassigned":
			if hasVal && val != "true" {
				return nil, fmt.Errorf("BEADS_FILTER: %q: write unassigned alone", shown(term))
			}
			flags = append(flags, flag)
			continue
		case !hasVal || !filterValue().MatchString(val):
			return nil, fmt.Errorf("BEADS_FILTER: %q needs a value of letters, digits and _.:/@+- (no blanks)", shown(term))
		case name == "status":
			if val != "open" {
				return nil, fmt.Errorf("BEADS_FILTER: %q: bd ready lists open items only (status:open)", shown(term))
			}
			continue
		case name == "priority":
			n, err := strconv.Atoi(strings.TrimPrefix(strings.ToUpper(val), "P"))
			if err != nil || n < 0 || n > 4 {
				return nil, fmt.Errorf("BEADS_FILTER: %q: a priority is 0 to 4 (or P0 to P4)", shown(term))
			}
			val = strconv.Itoa(n)
		}
		flags = append(flags, flag+"="+val)
	}
	return flags, nil
}
