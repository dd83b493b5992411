package main

import (
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/templates"
)

// initCommand is --init: the project's .ralph/ files where they are
// missing.
var initCommand = &command{
	flag: &flagSpec{Flag: config.Flag{Long: "init", Group: config.GroupCommands, Common: true,
		Help: "set up .ralph/ here (PROMPT.md, @fix_plan.md, @AGENT.md, .ralphrc, specs/) where missing, and exit"},
		kind: atOnceFlag},
	run: func(e *runEnv, _ *line) error { return installTemplates(e.dir.Root(), e.safeOut) },
}

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
		fmt.Fprintf(stdout, "Added %s (the loop's own files stay out of git)\n", filepath.Join(dir, ralphdir.GitIgnore))
	} else {
		fmt.Fprintf(stdout, "Kept %s (already there)\n", filepath.Join(dir, ralphdir.GitIgnore))
	}
	return nil
}
