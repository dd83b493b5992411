package gitrun

import (
	"context"
	"strings"
)

// CommitsSince lists the commits from since (not included) to HEAD, oldest
// first, as full ids: what a task's check is told were its commits. None
// when since is "" or HEAD, or git cannot tell.
func (g *repo) CommitsSince(ctx context.Context, since string) []string {
	if since == "" {
		return nil
	}
	out, err := g.run(ctx, "rev-list", "--reverse", since+"..HEAD")
	if err != nil || out == "" {
		return nil
	}
	return strings.Fields(out)
}
