package ralphdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// GitIgnore is the .gitignore the loop keeps in .ralph/: it hides the
// loop's own files (LoopOwned) from git, so that an agent's
// `git add -A && git commit` never commits the loop's state.
const GitIgnore = ".gitignore"

// gitIgnoreContent is the text of .ralph/.gitignore. Its patterns are made
// from the same names and rules as LoopOwned, so git ignores exactly the
// loop's own files: the state files and their temp, rotated and
// quarantined copies, and logs/. The files a person or an agent edits
// (PROMPT.md, @fix_plan.md, @AGENT.md, specs/, .ralphrc, …) stay tracked.
func gitIgnoreContent() []byte {
	var b strings.Builder
	b.WriteString("# Written by ralph_loop: the loop's own state, logs and their copies, which never\n")
	b.WriteString("# belong in the project's history. PROMPT.md, @fix_plan.md, @AGENT.md, specs/ and\n")
	b.WriteString("# .ralphrc stay tracked. ralph_loop never rewrites this file once it exists.\n")
	fmt.Fprintf(&b, "/%s\n", LogsDir)
	names := make([]string, 0, len(loopOwnedNames))
	for n := range loopOwnedNames {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		p := "/" + globEscape(n)
		// the file, its rotated copies, quarantined copies and temp files
		fmt.Fprintf(&b, "%s\n%s.[1-%d]\n%s.corrupt-*\n%s.qg_tmp*\n%s.tmp*\n", p, p, rotateKeep, p, p, p)
	}
	fmt.Fprintf(&b, "/%s*\n", globEscape(FallbackSessionPrefix))
	b.WriteString("/.tmp-*\n/.*.tmp-*\n/*.collapse_tmp\n")
	return []byte(b.String())
}

// globEscape quotes the characters a .gitignore pattern treats specially.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\*?[!# `, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// EnsureGitIgnore writes .ralph/.gitignore (gitIgnoreContent) when there
// is none, and reports whether it did. An existing one, whatever it holds
// (a person's own, or a link), is left as it is.
func (d *Dir) EnsureGitIgnore() (created bool, err error) {
	p := d.Path(GitIgnore)
	if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err := WriteFileAtomic(p, gitIgnoreContent(), 0o644); err != nil {
		return false, fmt.Errorf("create %s: %w", p, err)
	}
	return true, nil
}
