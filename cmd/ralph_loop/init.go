package main

import (
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/safetext"
	"github.com/ralphloop/ralph_loop/templates"
)

// initCommand is --init: the project's .ralph/ files where they are
// missing.
var initCommand = &command{
	flag: &flagSpec{Flag: config.Flag{Long: "init", Group: config.GroupCommands, Common: true,
		Help: "set up .ralph/ here (PROMPT.md, @fix_plan.md, @AGENT.md, .ralphrc, specs/) where missing, and exit; a new .ralphrc keeps the agent session across stops (KEEP_SESSION_ON_STOP=true)"},
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
	if abs, err := filepath.Abs(dir); err == nil {
		files[".ralphrc"] = templates.ProjectName(files[".ralphrc"], filepath.Base(filepath.Dir(abs)))
	}
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
	change, err := ralphdir.New(dir, nil).EnsureGitIgnore()
	if err != nil {
		return err
	}
	ignore := filepath.Join(dir, ralphdir.GitIgnore)
	cwd, _ := os.Getwd()
	switch change {
	case ralphdir.IgnoreAdded:
		fmt.Fprintln(stdout, safetext.Line(fmt.Sprintf("Added %s (the loop's own files stay out of git; it shows as untracked until you commit it: %s)", ignore, commitIgnoreHint(ignore, cwd))))
	case ralphdir.IgnoreUpdated:
		fmt.Fprintln(stdout, safetext.Line(fmt.Sprintf("Updated %s to its short form (%s); commit it: %s", ignore, ignoreShortWords, commitIgnoreHint(ignore, cwd))))
	default:
		fmt.Fprintf(stdout, "Kept %s (already there)\n", ignore)
	}
	fmt.Fprintln(stdout, safetext.Line(nextStep(dir)))
	return nil
}

// nextStep is --init's last line: what to write, how to check, how to
// start, from the current folder.
func nextStep(dir string) string {
	cwd, _ := os.Getwd()
	show := func(name string) string {
		p := filepath.Join(dir, name)
		if abs, err := filepath.Abs(p); err == nil {
			if r, err := filepath.Rel(cwd, abs); err == nil && !strings.HasPrefix(r, "..") {
				return r
			}
			return abs
		}
		return p
	}
	cd := ""
	if abs, err := filepath.Abs(dir); err == nil && filepath.Dir(abs) != cwd {
		cd = "cd " + shellQuote(filepath.Dir(abs)) + " && "
	}
	return fmt.Sprintf("Next: say what to build in %s and list the tasks in %s (one '- [ ] …' line each), then check the setup and start the loop: %sralph_loop --doctor && ralph_loop",
		show(ralphdir.Prompt), show(ralphdir.FixPlan), cd)
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
