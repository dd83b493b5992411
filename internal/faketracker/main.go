// Package faketracker is a scriptable stand-in for the trackers' CLIs,
// bd (beads) and gh (GitHub), for tests: one program that answers as the
// name it is run under, over a JSON state file ($FAKE_TRACKER_STATE)
// that it reads and writes under a file lock (so a claim is atomic, as
// beads' is), appending each command line it gets to $FAKE_TRACKER_LOG
// (one JSON array per line). It answers the commands and shapes
// internal/tasks uses, as bd 1.x and gh 2.x print them, and can hang,
// fail, be logged out, race a claim and hold claimants at a barrier.
package faketracker

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"
)

// Environment variables the fake reads.
const (
	EnvState = "FAKE_TRACKER_STATE" // the state file (JSON: State)
	EnvLog   = "FAKE_TRACKER_LOG"   // where each command line is appended
)

// State is the trackers' state.
type State struct {
	Beads  Beads  `json:"beads"`
	GitHub GitHub `json:"github"`
}

// Beads is bd's state.
type Beads struct {
	Issues []Bead `json:"issues"`
	// Envelope: print {"schema_version":1,"data":…} (as BD_JSON_ENVELOPE=1
	// does, and beads 2.0 by default) instead of a bare array.
	Envelope bool `json:"envelope,omitempty"`
	// Old answers as bd before 0.42 does: update has no --claim (cobra's
	// error, then the usage), ready lists items in progress too, and show
	// fails as a whole when one of its items is not there.
	Old  bool   `json:"old,omitempty"`
	Hang bool   `json:"hang,omitempty"` // every command blocks
	Fail string `json:"fail,omitempty"` // every command fails with this on stderr
	// Barrier holds each claimant until this many have arrived, so that
	// their claims race; Arrived counts them.
	Barrier int `json:"barrier,omitempty"`
	Arrived int `json:"arrived,omitempty"`
}

// Bead is one beads issue, in bd's JSON names.
type Bead struct {
	ID          string   `json:"id"`
	Title       string   `json:"title"`
	Description string   `json:"description,omitempty"`
	Acceptance  string   `json:"acceptance_criteria,omitempty"`
	Status      string   `json:"status"`
	Priority    int      `json:"priority"`
	IssueType   string   `json:"issue_type,omitempty"`
	Labels      []string `json:"labels,omitempty"`
	Assignee    string   `json:"assignee,omitempty"`
	CloseReason string   `json:"close_reason,omitempty"`
}

// GitHub is gh's state.
type GitHub struct {
	LoggedOut bool     `json:"logged_out,omitempty"`
	Repo      string   `json:"repo"`
	Me        string   `json:"me"`
	Labels    []string `json:"labels"` // the repository's labels
	Issues    []Issue  `json:"issues"`
	Hang      bool     `json:"hang,omitempty"`
	// Race is a login added as assignee with the next claim's edit, as
	// when someone claims the issue at the same moment.
	Race string `json:"race,omitempty"`
}

// Issue is one GitHub issue or pull request.
type Issue struct {
	Number    int       `json:"number"`
	Title     string    `json:"title"`
	Body      string    `json:"body,omitempty"`
	State     string    `json:"state"` // OPEN, CLOSED
	Labels    []string  `json:"labels,omitempty"`
	Assignees []string  `json:"assignees,omitempty"`
	Pull      bool      `json:"pull,omitempty"`
	Comments  []Comment `json:"comments,omitempty"`
}

// Comment is a comment on an issue.
type Comment struct {
	Author      string `json:"author"`
	Association string `json:"association"`
	Body        string `json:"body"`
}

// Main runs the fake as os.Args[0]'s name (bd or gh) and exits.
func Main() {
	os.Exit(run(filepath.Base(os.Args[0]), os.Args[1:], os.Stdout, os.Stderr))
}

// errExit is a command's failure: its stderr and exit code.
type errExit struct {
	msg  string
	code int
}

func (e *errExit) Error() string { return e.msg }

func fail(code int, format string, a ...any) error {
	return &errExit{msg: fmt.Sprintf(format, a...), code: code}
}

func run(name string, args []string, stdout, stderr io.Writer) int {
	if p := os.Getenv(EnvLog); p != "" {
		b, _ := json.Marshal(append([]string{name}, args...))
		if f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err == nil {
			_, _ = f.Write(append(b, '\n'))
			_ = f.Close()
		}
	}
	var err error
	switch name {
	case "bd":
		err = runBeads(args, stdout, stderr)
	case "gh":
		err = runGitHub(args, stdout)
	default:
		err = fail(2, "faketracker: run as bd or gh, not %s", name)
	}
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, err)
	var e *errExit
	if errors.As(err, &e) {
		return e.code
	}
	return 1
}

// update reads the state under the lock, lets f change it and writes it
// back when f returns no error.
func update(f func(s *State) error) error {
	p := os.Getenv(EnvState)
	if p == "" {
		return fail(2, "faketracker: $%s is not set", EnvState)
	}
	lock := flock.New(p + ".lock")
	if err := lock.Lock(); err != nil {
		return err
	}
	defer func() { _ = lock.Unlock() }()
	var s State
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("faketracker: %s: %v", p, err)
	}
	before := string(b)
	if err := f(&s); err != nil {
		return err
	}
	out, err := json.MarshalIndent(&s, "", "  ")
	if err != nil || string(out) == before {
		return err
	}
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, out, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}

// hang blocks until the process is killed.
func hang() {
	for {
		time.Sleep(time.Hour)
	}
}

// flags reads "--name=value", "--name value" and bare "--name" flags
// after the positional arguments; bools lists the flags without a value.
func flags(args []string, bools ...string) (pos []string, f map[string][]string) {
	f = map[string][]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			pos = append(pos, a)
			continue
		}
		name, val, eq := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case eq:
		case slices.Contains(bools, name):
			val = "true"
		case i+1 < len(args):
			i++
			val = args[i]
		}
		f[name] = append(f[name], val)
	}
	return pos, f
}

func one(f map[string][]string, name string) string {
	if v := f[name]; len(v) > 0 {
		return v[len(v)-1]
	}
	return ""
}

func printJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// --- bd ---

func runBeads(args []string, stdout, stderr io.Writer) error {
	var s State
	if err := update(func(st *State) error { s = *st; return nil }); err != nil {
		return err
	}
	switch {
	case s.Beads.Hang:
		hang()
	case s.Beads.Fail != "":
		return fail(1, "%s", s.Beads.Fail)
	}
	pos, f := flags(args, "json", "claim", "unassigned")
	if len(pos) == 0 {
		return fail(1, "Error: no command")
	}
	actor := one(f, "actor")
	if actor == "" {
		actor = os.Getenv("BEADS_ACTOR")
	}
	if actor == "" {
		actor = "person"
	}
	out := func(v any) error {
		if s.Beads.Envelope || os.Getenv("BD_JSON_ENVELOPE") == "1" {
			v = map[string]any{"schema_version": 1, "data": v}
		}
		return printJSON(stdout, v)
	}
	switch pos[0] {
	case "version":
		_, err := fmt.Fprintln(stdout, "bd version 1.0.5 (fake)")
		return err
	case "ready":
		return out(ready(s.Beads.Issues, f, s.Beads.Old))
	case "show":
		var got []Bead
		for _, id := range pos[1:] {
			i := slices.IndexFunc(s.Beads.Issues, func(b Bead) bool { return b.ID == id })
			switch {
			case i >= 0:
				got = append(got, s.Beads.Issues[i])
			case s.Beads.Old:
				return fail(1, "Error: no issue found matching %q", id)
			default:
				fmt.Fprintf(stderr, "Error fetching %s: no issue found matching %q\n", id, id)
			}
		}
		if len(got) == 0 {
			// bd --json prints its error as JSON on stdout.
			if err := out(map[string]any{"error": "no issues found matching the provided IDs"}); err != nil {
				return err
			}
			return &errExit{code: 1}
		}
		return out(got)
	case "update":
		if s.Beads.Old && len(f["claim"]) > 0 {
			return fail(1, "Error: unknown flag: --claim\nUsage:\n  bd update [id...] [flags]\n\nFlags:\n  -s, --status string         New status\n      --sandbox          Sandbox mode: disables daemon and auto-sync")
		}
		return beadsUpdate(pos[1:], f, actor, s.Beads.Barrier, out)
	case "close":
		var got []Bead
		err := update(func(st *State) error {
			for _, id := range pos[1:] {
				i := slices.IndexFunc(st.Beads.Issues, func(b Bead) bool { return b.ID == id })
				if i < 0 {
					return fail(1, "Error: issue %s not found", id)
				}
				st.Beads.Issues[i].Status, st.Beads.Issues[i].CloseReason = "closed", one(f, "reason")
				got = append(got, st.Beads.Issues[i])
			}
			return nil
		})
		if err != nil {
			return err
		}
		return out(got)
	}
	return fail(1, "Error: unknown command %q for \"bd\"", pos[0])
}

// ready is bd ready: open issues (and, from an old bd, those in
// progress), filtered, by priority, up to --limit.
func ready(all []Bead, f map[string][]string, old bool) []Bead {
	got := []Bead{}
	for _, b := range all {
		if b.Status != "open" && !(old && b.Status == "in_progress") {
			continue
		}
		ok := true
		for _, l := range f["label"] {
			ok = ok && slices.Contains(b.Labels, l)
		}
		if p := one(f, "priority"); p != "" {
			ok = ok && p == strconv.Itoa(b.Priority)
		}
		if t := one(f, "type"); t != "" {
			ok = ok && t == b.IssueType
		}
		if ok {
			got = append(got, b)
		}
	}
	slices.SortStableFunc(got, func(a, b Bead) int { return a.Priority - b.Priority })
	if n, err := strconv.Atoi(one(f, "limit")); err == nil && n > 0 && len(got) > n {
		got = got[:n]
	}
	return got
}

// beadsUpdate is bd update: --claim (atomic, after the barrier), or
// --status and --assignee.
func beadsUpdate(ids []string, f map[string][]string, actor string, barrier int, out func(any) error) error {
	if len(f["claim"]) > 0 && barrier > 0 {
		if err := update(func(st *State) error { st.Beads.Arrived++; return nil }); err != nil {
			return err
		}
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			var arrived int
			_ = update(func(st *State) error { arrived = st.Beads.Arrived; return nil })
			if arrived >= barrier {
				break
			}
		}
	}
	var got []Bead
	var failed []string
	err := update(func(st *State) error {
		for _, id := range ids {
			i := slices.IndexFunc(st.Beads.Issues, func(b Bead) bool { return b.ID == id })
			if i < 0 {
				failed = append(failed, fmt.Sprintf("Issue %s not found", id))
				continue
			}
			b := &st.Beads.Issues[i]
			if len(f["claim"]) > 0 {
				switch {
				case b.Status == "in_progress" && b.Assignee == actor:
				case b.Status == "open" && (b.Assignee == "" || b.Assignee == actor):
					b.Status, b.Assignee = "in_progress", actor
				case b.Assignee != "" && b.Assignee != actor:
					failed = append(failed, fmt.Sprintf("Error claiming %s: issue already claimed by %s", id, b.Assignee))
					continue
				default:
					failed = append(failed, fmt.Sprintf("Error claiming %s: issue not claimable: status %s", id, b.Status))
					continue
				}
			}
			if v, ok := f["status"]; ok {
				b.Status = v[len(v)-1]
			}
			if v, ok := f["assignee"]; ok {
				b.Assignee = v[len(v)-1]
			}
			got = append(got, *b)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(got) > 0 {
		if err := out(got); err != nil {
			return err
		}
	}
	if len(failed) > 0 {
		fmt.Fprintln(os.Stderr, strings.Join(failed, "\n"))
	}
	if len(got) == 0 {
		return &errExit{code: 1}
	}
	return nil
}

// --- gh ---

func runGitHub(args []string, stdout io.Writer) error {
	var s State
	if err := update(func(st *State) error { s = *st; return nil }); err != nil {
		return err
	}
	pos, f := flags(args, "force", "paginate")
	if len(pos) > 0 && pos[0] == "--version" || len(args) > 0 && args[0] == "--version" {
		_, err := fmt.Fprintln(stdout, "gh version 2.23.0 (fake)")
		return err
	}
	if len(pos) >= 2 && pos[0] == "auth" && pos[1] == "status" {
		if s.GitHub.LoggedOut {
			return fail(1, "You are not logged into any GitHub hosts. Run gh auth login to authenticate.")
		}
		_, err := fmt.Fprintf(stdout, "github.com\n  ✓ Logged in to github.com as %s (fake)\n", s.GitHub.Me)
		return err
	}
	if s.GitHub.LoggedOut {
		return fail(4, "To get started with GitHub CLI, please run:  gh auth login\nAlternatively, populate the GH_TOKEN environment variable with a GitHub API authentication token.")
	}
	if s.GitHub.Hang {
		hang()
	}
	if repo := one(f, "repo"); repo != "" && repo != s.GitHub.Repo {
		return fail(1, "GraphQL: Could not resolve to a Repository with the name '%s'. (repository)", repo)
	}
	if len(pos) < 2 {
		return fail(1, "unknown command")
	}
	switch pos[0] + " " + pos[1] {
	case "repo view":
		return printJSON(stdout, map[string]string{"nameWithOwner": s.GitHub.Repo})
	case "issue list":
		return issueList(stdout, s.GitHub, f)
	case "issue view":
		return issueView(stdout, s.GitHub, pos, f)
	case "api user":
		_, err := fmt.Fprintln(stdout, s.GitHub.Me)
		return err
	case "label create":
		return update(func(st *State) error {
			if !slices.Contains(st.GitHub.Labels, pos[2]) {
				st.GitHub.Labels = append(st.GitHub.Labels, pos[2])
			} else if len(f["force"]) == 0 {
				return fail(1, "label with name %q already exists; use `--force` to update its color and description", pos[2])
			}
			return nil
		})
	case "issue edit", "issue comment", "issue close":
		return issueChange(pos, f)
	}
	if pos[0] == "api" && len(f["paginate"]) > 0 {
		return restPages(stdout, s.GitHub, pos[1])
	}
	return fail(1, "unknown command %q", strings.Join(pos, " "))
}

func (is Issue) url(repo string) string {
	kind := "issues"
	if is.Pull {
		kind = "pull"
	}
	return fmt.Sprintf("https://github.com/%s/%s/%d", repo, kind, is.Number)
}

// fields renders an issue with the --json fields asked.
func fields(is Issue, repo string, want string) map[string]any {
	labels := []map[string]string{}
	for _, l := range is.Labels {
		labels = append(labels, map[string]string{"name": l})
	}
	assignees := []map[string]string{}
	for _, a := range is.Assignees {
		assignees = append(assignees, map[string]string{"login": a})
	}
	comments := []map[string]any{}
	for _, c := range is.Comments {
		comments = append(comments, map[string]any{"author": map[string]string{"login": c.Author}, "authorAssociation": c.Association, "body": c.Body})
	}
	all := map[string]any{"number": is.Number, "title": is.Title, "body": is.Body, "state": is.State,
		"labels": labels, "assignees": assignees, "url": is.url(repo), "comments": comments}
	out := map[string]any{}
	for _, k := range strings.Split(want, ",") {
		out[k] = all[k]
	}
	return out
}

// issueList is gh issue list: the search gives issues and pull requests
// alike here (the REST API does; a fake that did not would not test the
// filter), newest first, up to --limit.
func issueList(stdout io.Writer, g GitHub, f map[string][]string) error {
	limit := 30
	if n, err := strconv.Atoi(one(f, "limit")); err == nil {
		limit = n
	}
	got := []map[string]any{}
	for i := len(g.Issues) - 1; i >= 0 && len(got) < limit; i-- {
		is := g.Issues[i]
		if is.State == strings.ToUpper(one(f, "state")) && slices.Contains(is.Labels, one(f, "label")) {
			got = append(got, fields(is, g.Repo, one(f, "json")))
		}
	}
	return printJSON(stdout, got)
}

func issueView(stdout io.Writer, g GitHub, pos []string, f map[string][]string) error {
	n, _ := strconv.Atoi(pos[2])
	i := slices.IndexFunc(g.Issues, func(is Issue) bool { return is.Number == n })
	if i < 0 {
		return fail(1, "GraphQL: Could not resolve to an issue or pull request with the number of %d. (repository.issue)", n)
	}
	return printJSON(stdout, fields(g.Issues[i], g.Repo, one(f, "json")))
}

// restPages is gh api --paginate of repos/OWNER/NAME/issues: every page
// (per_page) printed one after the other, pull requests included.
func restPages(stdout io.Writer, g GitHub, path string) error {
	p, query, _ := strings.Cut(path, "?")
	if p != "repos/"+g.Repo+"/issues" {
		return fail(1, "gh: Not Found (HTTP 404)")
	}
	label, per := "", 30
	for _, kv := range strings.Split(query, "&") {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "labels":
			label = strings.ReplaceAll(v, "%3A", ":")
		case "per_page":
			per, _ = strconv.Atoi(v)
		}
	}
	var page []map[string]any
	flush := func() error {
		b, err := json.Marshal(page)
		if err == nil {
			_, err = stdout.Write(b)
		}
		page = nil
		return err
	}
	for i := len(g.Issues) - 1; i >= 0; i-- {
		is := g.Issues[i]
		if is.State != "OPEN" || !slices.Contains(is.Labels, label) {
			continue
		}
		m := fields(is, g.Repo, "number,title,body,state,labels,assignees")
		m["html_url"] = is.url(g.Repo)
		if is.Pull {
			m["pull_request"] = map[string]string{"url": "…"}
		}
		page = append(page, m)
		if len(page) == per {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if len(page) > 0 {
		return flush()
	}
	return nil
}

// issueChange is gh issue edit, comment and close.
func issueChange(pos []string, f map[string][]string) error {
	n, _ := strconv.Atoi(pos[2])
	return update(func(st *State) error {
		g := &st.GitHub
		i := slices.IndexFunc(g.Issues, func(is Issue) bool { return is.Number == n })
		if i < 0 {
			return fail(1, "GraphQL: Could not resolve to an issue or pull request with the number of %d. (repository.issue)", n)
		}
		is := &g.Issues[i]
		me := func(v string) string {
			if v == "@me" {
				return g.Me
			}
			return v
		}
		switch pos[1] {
		case "comment":
			is.Comments = append(is.Comments, Comment{Author: g.Me, Association: "OWNER", Body: one(f, "body")})
		case "close":
			is.State = "CLOSED"
		case "edit":
			for _, l := range f["add-label"] {
				if !slices.Contains(g.Labels, l) {
					return fail(1, "'%s' not found", l)
				}
				if !slices.Contains(is.Labels, l) {
					is.Labels = append(is.Labels, l)
				}
			}
			for _, l := range f["remove-label"] {
				is.Labels = slices.DeleteFunc(is.Labels, func(x string) bool { return x == l })
			}
			for _, a := range f["add-assignee"] {
				if !slices.Contains(is.Assignees, me(a)) {
					is.Assignees = append(is.Assignees, me(a))
				}
				if g.Race != "" {
					is.Assignees = append(is.Assignees, g.Race)
					g.Race = ""
				}
			}
			for _, a := range f["remove-assignee"] {
				is.Assignees = slices.DeleteFunc(is.Assignees, func(x string) bool { return x == me(a) })
			}
		}
		return nil
	})
}
