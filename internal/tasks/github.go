package tasks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/ralphloop/ralph_loop/internal/lazyre"
)

// github drives gh (cli/cli) on the repository gh resolves in the
// project at the first sync (GH_REPO chooses another), pinned with --repo
// for the rest of the run: a remote the agent changes does not move the
// loop's reads and writes to another repository.
//
// GitHub has no atomic claim. A claim adds the person as assignee and the
// loop's label, then reads the issue again: another assignee there means
// someone claimed it at the same time, and the loop withdraws (both may;
// the next sync tries again). Two workers of one --swarm are the same
// GitHub user, so among them a claim is also a file created exclusively
// under .swarm/claims/ before GitHub is touched.
type github struct {
	r           *runner
	label       string // GITHUB_TASK_LABEL
	closeIssues bool   // GITHUB_CLOSE_ISSUES
	claims      *claimDir

	repo     string // OWNER/NAME, once resolved
	me       string // the person's login, once asked
	labelsOK bool   // the loop's labels exist (created once per run)
}

const (
	githubHeading = "## Tasks from GitHub"
	// The labels the loop puts on the issues it claims and finishes.
	claimLabel = "ralph-loop:claimed"
	doneLabel  = "ralph-loop:done"
	// listCap is what one 'gh issue list' asks for: its search stops at
	// 1000 results, so a full page is read again through the REST API.
	listCap = 1000
)

var repoName = lazyre.Compile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$`)

func (g *github) name() string    { return "github" }
func (g *github) heading() string { return githubHeading }

// resolve pins the repository and returns --repo's arguments: GH_REPO
// from the person's environment when it is OWNER/NAME, else the one gh
// resolves from the project's git remotes.
func (g *github) resolve(ctx context.Context) ([]string, error) {
	if v := envValue(g.r.env, "GH_REPO"); g.repo == "" && repoName().MatchString(v) {
		g.repo = v
	}
	if g.repo == "" {
		out, err := g.r.exec(ctx, "gh", "repo", "view", "--json", "nameWithOwner")
		if err != nil {
			return nil, err
		}
		var v struct{ NameWithOwner string }
		if json.Unmarshal(out, &v) != nil || !repoName().MatchString(v.NameWithOwner) {
			return nil, fmt.Errorf("'gh repo view' did not name the repository (%s); set GH_REPO=OWNER/NAME in your environment", shown(string(bytes.TrimSpace(out))))
		}
		g.repo = v.NameWithOwner
	}
	return []string{"--repo", g.repo}, nil
}

// ghIssue is the part of an issue the loop reads, from 'gh issue list
// --json' and 'gh issue view --json'; the REST API's names (html_url,
// login, name) are read into the same fields.
type ghIssue struct {
	Number    int                      `json:"number"`
	Title     string                   `json:"title"`
	Body      string                   `json:"body"`
	State     string                   `json:"state"`
	URL       string                   `json:"url"`
	HTMLURL   string                   `json:"html_url"`
	Labels    []struct{ Name string }  `json:"labels"`
	Assignees []struct{ Login string } `json:"assignees"`
	// PullRequest is set on the REST API's pull requests, which its
	// issues list includes.
	PullRequest json.RawMessage `json:"pull_request"`
}

func (is ghIssue) labelled(name string) bool {
	return slices.ContainsFunc(is.Labels, func(l struct{ Name string }) bool { return strings.EqualFold(l.Name, name) })
}

func (is ghIssue) assignees() []string {
	var out []string
	for _, a := range is.Assignees {
		out = append(out, a.Login)
	}
	return out
}

// pull reports whether the entry is a pull request, which is no task.
func (is ghIssue) pull() bool {
	u := is.URL + is.HTMLURL
	return len(is.PullRequest) > 0 && string(is.PullRequest) != "null" || strings.Contains(u, "/pull/")
}

func (is ghIssue) item() (Item, bool) {
	no := fmt.Sprint(is.Number)
	if !issueNo().MatchString(no) || is.pull() {
		return Item{}, false
	}
	u := is.URL
	if u == "" {
		u = is.HTMLURL
	}
	return Item{Key: "#" + no, ID: no, Title: cleanTitle(is.Title), Body: is.Body, Status: strings.ToUpper(is.State), URL: u}, true
}

func (g *github) listArgs(repo []string) []string {
	return append(append([]string{"gh", "issue", "list"}, repo...),
		"--state", "open", "--label", g.label, "--json", "number,title,body,labels,assignees,url", "--limit", fmt.Sprint(listCap))
}

func (g *github) restArgs() []string {
	return []string{"gh", "api", "--paginate",
		"repos/" + g.repo + "/issues?state=open&labels=" + url.QueryEscape(g.label) + "&per_page=100"}
}

func (g *github) list(ctx context.Context, held func(string) bool) ([]Item, error) {
	repo, err := g.resolve(ctx)
	if err != nil {
		return nil, err
	}
	out, err := g.r.exec(ctx, g.listArgs(repo)...)
	if err != nil {
		return nil, err
	}
	issues, err := decodeIssues(out)
	if err != nil {
		return nil, fmt.Errorf("'gh issue list --json' %w", err)
	}
	if len(issues) >= listCap {
		if out, err = g.r.exec(ctx, g.restArgs()...); err != nil {
			return nil, err
		}
		if issues, err = decodeIssues(out); err != nil {
			return nil, fmt.Errorf("'gh api --paginate' %w", err)
		}
	}
	var items []Item
	for _, is := range issues {
		it, ok := is.item()
		if !ok || is.labelled(claimLabel) && !held(it.Key) {
			continue // a pull request, or an issue another loop claimed
		}
		if is.labelled(doneLabel) {
			it.Status = "DONE"
		}
		items = append(items, it)
	}
	// Oldest first: gh lists the newest first.
	slices.SortStableFunc(items, func(a, b Item) int {
		x, _ := strconv.Atoi(a.ID)
		y, _ := strconv.Atoi(b.ID)
		return x - y
	})
	return items, nil
}

// decodeIssues reads a JSON array of issues, or several one after another
// ('gh api --paginate' prints a page at a time).
func decodeIssues(out []byte) ([]ghIssue, error) {
	dec := json.NewDecoder(bytes.NewReader(out))
	var all []ghIssue
	pages := 0
	for {
		var page []ghIssue
		err := dec.Decode(&page)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("printed JSON the loop cannot read: %v", err)
		}
		all = append(all, page...)
		pages++
	}
	if pages == 0 {
		return nil, errors.New("printed nothing")
	}
	return all, nil
}

func (g *github) viewArgs(repo []string, no string, fields string) []string {
	return append(append([]string{"gh", "issue", "view", no}, repo...), "--json", fields)
}

// view reads one issue; found is false when GitHub has no such issue.
func (g *github) view(ctx context.Context, no, fields string) (is ghIssue, found bool, err error) {
	repo, err := g.resolve(ctx)
	if err != nil {
		return is, false, err
	}
	out, stderr, err := g.r.execErr(ctx, g.viewArgs(repo, no, fields)...)
	var ce *CLIError
	if errors.As(err, &ce) && ce.exited() && bytes.Contains(stderr, []byte("Could not resolve to an issue")) {
		return is, false, nil
	}
	if err != nil {
		return is, false, err
	}
	if err := json.Unmarshal(out, &is); err != nil {
		return is, false, fmt.Errorf("'gh issue view --json' printed JSON the loop cannot read: %v", err)
	}
	return is, true, nil
}

func (g *github) states(ctx context.Context, recs []record) (map[string]stood, error) {
	got := map[string]stood{}
	for _, r := range recs {
		is, found, err := g.view(ctx, r.ID, "number,state,title,body,labels,assignees,url")
		if err != nil {
			return nil, err
		}
		it, ok := is.item()
		if !found || !ok {
			continue // gone
		}
		s := stood{item: it}
		switch {
		case strings.EqualFold(is.State, "closed") || is.labelled(doneLabel):
			s.standing = closed
		case is.labelled(claimLabel) && r.Claimed:
			s.standing = claimed
		case is.labelled(claimLabel):
			s.standing = taken
		case !is.labelled(g.label):
			continue // no longer a task: gone
		default:
			s.standing = open
		}
		got[r.Key] = s
	}
	return got, nil
}

// login is the person's GitHub login, asked once.
func (g *github) login(ctx context.Context) (string, error) {
	if g.me == "" {
		out, err := g.r.exec(ctx, "gh", "api", "user", "--jq", ".login")
		if err != nil {
			return "", err
		}
		me := strings.TrimSpace(string(out))
		if me == "" || strings.ContainsAny(me, " \t\n") {
			return "", fmt.Errorf("'gh api user' did not give a login (%s)", shown(me))
		}
		g.me = me
	}
	return g.me, nil
}

// ensureLabels makes the loop's two labels, once per run ('gh label
// create --force' leaves one that exists as it is but for its colour and
// description).
func (g *github) ensureLabels(ctx context.Context, repo []string) error {
	if g.labelsOK {
		return nil
	}
	for _, l := range []struct{ name, colour, desc string }{
		{claimLabel, "FBCA04", "ralph_loop works on this issue"},
		{doneLabel, "0E8A16", "ralph_loop finished this issue"},
	} {
		argv := append(append([]string{"gh", "label", "create", l.name}, repo...), "--color", l.colour, "--description", l.desc, "--force")
		if _, err := g.r.exec(ctx, argv...); err != nil {
			return err
		}
	}
	g.labelsOK = true
	return nil
}

func (g *github) edit(ctx context.Context, repo []string, no string, args ...string) error {
	_, err := g.r.exec(ctx, append(append([]string{"gh", "issue", "edit", no}, repo...), args...)...)
	return err
}

func (g *github) claim(ctx context.Context, r *record) error {
	if g.claims != nil {
		if err := g.claims.take(r.Key); err != nil {
			return err
		}
		r.Worker = g.claims.worker
	}
	err := g.claimOnGitHub(ctx, r)
	if err != nil && g.claims != nil {
		g.claims.give(r.Key)
		r.Worker = ""
	}
	return err
}

// claimOnGitHub is the claim: look, label and assign, look again.
func (g *github) claimOnGitHub(ctx context.Context, r *record) error {
	repo, err := g.resolve(ctx)
	if err != nil {
		return err
	}
	me, err := g.login(ctx)
	if err != nil {
		return err
	}
	const fields = "number,state,labels,assignees"
	is, found, err := g.view(ctx, r.ID, fields)
	if err != nil {
		return err
	}
	if why := g.notFree(is, found, me); why != "" {
		return &takenError{why: why}
	}
	if err := g.ensureLabels(ctx, repo); err != nil {
		return err
	}
	if err := g.edit(ctx, repo, r.ID, "--add-assignee", "@me", "--add-label", claimLabel); err != nil {
		return err
	}
	is, found, err = g.view(ctx, r.ID, fields)
	if err != nil {
		return err
	}
	if why := g.notFree(is, found, me); why != "" {
		// Someone claimed it between the two reads: withdraw, and leave
		// the label to the other claimant.
		if err := g.edit(ctx, repo, r.ID, "--remove-assignee", "@me"); err != nil {
			return err
		}
		return &takenError{why: why + " at the same time"}
	}
	return nil
}

// notFree says why an issue is not free for me to work on ("" when it is).
func (g *github) notFree(is ghIssue, found bool, me string) string {
	if !found {
		return "the issue is gone"
	}
	if strings.EqualFold(is.State, "closed") {
		return "the issue is closed"
	}
	var others []string
	for _, a := range is.assignees() {
		if !strings.EqualFold(a, me) {
			others = append(others, a)
		}
	}
	if len(others) > 0 {
		return "assigned to " + strings.Join(others, ", ")
	}
	return ""
}

func (g *github) release(ctx context.Context, r record) error {
	if g.claims != nil {
		defer g.claims.give(r.Key)
	}
	repo, err := g.resolve(ctx)
	if err != nil {
		return err
	}
	return g.edit(ctx, repo, r.ID, "--remove-assignee", "@me", "--remove-label", claimLabel)
}

func (g *github) finish(ctx context.Context, r record, s summary) (string, error) {
	repo, err := g.resolve(ctx)
	if err != nil {
		return "", err
	}
	if g.claims != nil {
		defer g.claims.give(r.Key)
	}
	if _, err := g.r.exec(ctx, append(append([]string{"gh", "issue", "comment", r.ID}, repo...), "--body", s.text())...); err != nil {
		return "", err
	}
	if err := g.ensureLabels(ctx, repo); err != nil {
		return "", err
	}
	if err := g.edit(ctx, repo, r.ID, "--add-label", doneLabel, "--remove-label", claimLabel); err != nil {
		return "", err
	}
	if !g.closeIssues {
		return "commented on and labelled " + doneLabel, nil
	}
	if _, err := g.r.exec(ctx, append(append([]string{"gh", "issue", "close", r.ID}, repo...), "--reason", "completed")...); err != nil {
		return "", err
	}
	return "commented on, labelled " + doneLabel + " and closed", nil
}

// trusted are the authors whose comments reach the agent's context.
var trusted = []string{"OWNER", "MEMBER", "COLLABORATOR"}

// commentsMax is how many of the last trusted comments the context gets.
const commentsMax = 5

func (g *github) detail(ctx context.Context, it *Item) error {
	repo, err := g.resolve(ctx)
	if err != nil {
		return err
	}
	out, err := g.r.exec(ctx, g.viewArgs(repo, it.ID, "comments")...)
	if err != nil {
		return err
	}
	var v struct {
		Comments []struct {
			Author            struct{ Login string } `json:"author"`
			AuthorAssociation string                 `json:"authorAssociation"`
			Body              string                 `json:"body"`
		} `json:"comments"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		return fmt.Errorf("'gh issue view --json comments' printed JSON the loop cannot read: %v", err)
	}
	it.Comments = nil
	for _, c := range v.Comments {
		if slices.Contains(trusted, strings.ToUpper(c.AuthorAssociation)) {
			it.Comments = append(it.Comments, Comment{Author: c.Author.Login, Association: c.AuthorAssociation, Body: c.Body})
		}
	}
	if len(it.Comments) > commentsMax {
		it.Comments = it.Comments[len(it.Comments)-commentsMax:]
	}
	return nil
}

func (g *github) commands(writeback bool) []string {
	repo := []string{"--repo", "OWNER/NAME"}
	if g.repo != "" {
		repo[1] = g.repo
	}
	cmds := []string{
		"gh repo view --json nameWithOwner   (once, unless GH_REPO names it: the repository every command below names)",
		quoteArgs(g.listArgs(repo)),
		"gh api --paginate repos/OWNER/NAME/issues?state=open&labels=…&per_page=100   (only when the list is full: " + fmt.Sprint(listCap) + " issues)",
		quoteArgs(g.viewArgs(repo, "N", "number,state,title,body,labels,assignees,url")) + "   (issues that left the list: closed? taken?)",
		quoteArgs(g.viewArgs(repo, "N", "comments")) + "   (the next call's issue: its owner's, members' and collaborators' comments)",
	}
	if !writeback {
		return cmds
	}
	cmds = append(cmds,
		"gh api user --jq .login   (once: who you are on GitHub)",
		quoteArgs(append(append([]string{"gh", "label", "create", claimLabel}, repo...), "--color", "FBCA04", "--description", "…", "--force"))+"   (once, and for "+doneLabel+")",
		quoteArgs(append(append([]string{"gh", "issue", "edit", "N"}, repo...), "--add-assignee", "@me", "--add-label", claimLabel))+"   (the claim, between two views of the issue)",
		quoteArgs(append(append([]string{"gh", "issue", "comment", "N"}, repo...), "--body", "…"))+"   (once its line is ticked and the gates pass)",
		quoteArgs(append(append([]string{"gh", "issue", "edit", "N"}, repo...), "--add-label", doneLabel, "--remove-label", claimLabel)),
	)
	if g.closeIssues {
		cmds = append(cmds, quoteArgs(append(append([]string{"gh", "issue", "close", "N"}, repo...), "--reason", "completed")))
	}
	return append(cmds, quoteArgs(append(append([]string{"gh", "issue", "edit", "N"}, repo...), "--remove-assignee", "@me", "--remove-label", claimLabel))+"   (a claim the run ends without finishing)")
}

func (g *github) probes() []probe {
	return []probe{
		{what: "version", argv: []string{"gh", "--version"}},
		{what: "login", argv: []string{"gh", "auth", "status"}},
	}
}
