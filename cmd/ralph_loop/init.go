package main

import (
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/safetext"
	"github.com/ralphloop/ralph_loop/templates"
)

// installTemplates writes the default project files, and the .gitignore
// that keeps the loop's own files out of git, into a .ralph/ folder where
// they are missing (install.sh --project); it never overwrites. A .ralph/
// (or a folder in it) that is a symbolic link is refused first.
func installTemplates(dir string, stdout io.Writer) error {
	d := ralphdir.New(dir, nil)
	if err := d.CheckFolders(); err != nil {
		return err
	}
	if err := os.MkdirAll(d.Path(ralphdir.Specs), 0o755); err != nil {
		return err
	}
	files := templates.Files()
	for _, name := range slices.Sorted(maps.Keys(files)) {
		p := d.Path(name)
		if _, err := d.Lstat(name); err == nil {
			fmt.Fprintf(stdout, "Kept %s (already there)\n", p)
			continue
		}
		if err := d.ReplaceFile(name, files[name]); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Added %s\n", p)
	}
	// The loop's own files stay out of the project's history.
	created, err := ralphdir.New(dir, nil).EnsureGitIgnore()
	if err != nil {
		return err
	}
	if created {
		ignore := filepath.Join(dir, ralphdir.GitIgnore)
		cwd, _ := os.Getwd()
		fmt.Fprintln(stdout, safetext.Line(fmt.Sprintf("Added %s (the loop's own files stay out of git; it shows as untracked until you commit it: %s)", ignore, commitIgnoreHint(ignore, cwd))))
	} else {
		fmt.Fprintf(stdout, "Kept %s (already there)\n", filepath.Join(dir, ralphdir.GitIgnore))
	}
	return nil
}

// commitIgnoreMessage is the commit message commitIgnoreHint suggests.
const commitIgnoreMessage = "Keep the Ralph loop state files out of git"

// commitIgnoreHint is the one command line, run in cwd, that commits the
// .gitignore the loop wrote at ignore (and nothing else that is staged).
func commitIgnoreHint(ignore, cwd string) string {
	if abs, err := filepath.Abs(ignore); err == nil {
		ignore = abs
	}
	cd, rel := "", ignore
	if r, err := filepath.Rel(cwd, ignore); err == nil && r != "" && !strings.HasPrefix(r, "..") {
		rel = r
	} else { // from the project: the folder that holds the Ralph folder
		project := filepath.Dir(filepath.Dir(ignore))
		cd, rel = "cd "+shellQuote(project)+" && ", filepath.Join(filepath.Base(filepath.Dir(ignore)), ralphdir.GitIgnore)
	}
	q := shellQuote(filepath.ToSlash(rel))
	return fmt.Sprintf("%sgit add %s && git commit -m %s -- %s", cd, q, shellQuote(commitIgnoreMessage), q)
}
