package ralphdir

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
)

// GitIgnore is the .gitignore the loop keeps in .ralph/: it hides the
// loop's own files (LoopOwned) from git, so that an agent's
// `git add -A && git commit` never commits the loop's state.
const GitIgnore = ".gitignore"

// gitIgnoreContent is the text of .ralph/.gitignore: everything directly
// in .ralph/ is ignored but what a person keeps in git: the Markdown files
// (PROMPT.md, @fix_plan.md, @AGENT.md, REVIEW_PROMPT.md, a PROMPT_FILE,
// bmalph's RALPH-REFERENCE.md and SPECS_INDEX.md…), .ralphrc, the scripts
// bmalph installs (ralph_loop.sh, ralph_import.sh…), every folder (specs/,
// docs/, bmalph's lib/ and drivers/) but logs/, and this file itself. So
// git ignores every loop-owned file (LoopOwned), whatever name a later
// version gives its state, and none a person keeps.
var gitIgnoreContent = []byte(`# Written by ralph_loop. Git ignores everything in .ralph/ except the "!" lines:
# the files you keep in git (prompt, plan, specs, .ralphrc, bmalph's scripts).
# The loop's state, logs and temp files stay out of the project's history.
# To keep another file here, add a line "!/NAME". ralph_loop never rewrites a
# file you changed.
/*
!/.gitignore
!/.ralphrc
!/*.md
!/*.sh
!/*/
/logs/
`)

// earlierGitIgnores are the SHA-256 digests of the .ralph/.gitignore
// earlier versions wrote (one pattern per loop-owned file, 138 and 143
// lines; their texts are in testdata/). Such a file, unchanged, is the
// loop's own and is replaced by gitIgnoreContent; any other is the
// person's and is kept.
var earlierGitIgnores = map[string]bool{
	"b25b4bae8ec82c047f11c16b2505d091a7078b13bc8a88229e772ac0ad7c32c4": true, // 2026-11-27 to 2026-12-04
	"e998ed3893fde754ff81ff869e560623c4672f62757bf9270f5bd6599ec05baa": true, // 2026-12-05, with .tasks.json
}

// IgnoreChange is what EnsureGitIgnore did to .ralph/.gitignore.
type IgnoreChange uint8

const (
	// IgnoreKept: it was there and is left as it is.
	IgnoreKept IgnoreChange = iota
	// IgnoreAdded: there was none; the loop wrote it.
	IgnoreAdded
	// IgnoreUpdated: it was an earlier version's, unchanged; the loop
	// replaced it with the current text.
	IgnoreUpdated
)

// EnsureGitIgnore writes .ralph/.gitignore (gitIgnoreContent) when there
// is none, replaces one an earlier version wrote and nobody changed since
// (earlierGitIgnores), and reports which it did. Any other (a person's own,
// one they edited, a link, not a regular file) is left as it is.
func (d *Dir) EnsureGitIgnore() (IgnoreChange, error) {
	st, err := d.Lstat(GitIgnore)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := d.ReplaceFile(GitIgnore, gitIgnoreContent); err != nil {
			return IgnoreKept, fmt.Errorf("create %s: %w", d.Path(GitIgnore), err)
		}
		return IgnoreAdded, nil
	case err != nil || !st.Mode().IsRegular() || st.Size() > 16<<10:
		return IgnoreKept, nil
	}
	old, found, err := d.ReadFile(GitIgnore)
	if err != nil || !found || !earlierGitIgnore(old) {
		return IgnoreKept, nil
	}
	if err := d.ReplaceFile(GitIgnore, gitIgnoreContent); err != nil {
		return IgnoreKept, fmt.Errorf("update %s: %w", d.Path(GitIgnore), err)
	}
	return IgnoreUpdated, nil
}

// earlierGitIgnore reports whether text is a .ralph/.gitignore an earlier
// version wrote, unchanged (as git may check it out on Windows, with CRLF
// line ends, too).
func earlierGitIgnore(text []byte) bool {
	sum := sha256.Sum256(bytes.ReplaceAll(text, []byte("\r\n"), []byte("\n")))
	return earlierGitIgnores[hex.EncodeToString(sum[:])]
}
