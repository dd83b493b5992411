//go:build unix

package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
)

// repoTemplates are folders the tests would otherwise make again and again
// with git (an empty repository for every scenario's gitinit, the same
// committed project for every newLoopProject of n tasks): each is made once
// per test binary, on first use, and copied, which starts no process.
// removeTemplates, after the tests, removes them.
var repoTemplates struct {
	mu   sync.Mutex
	root string
	made map[string]string // key → folder
	err  map[string]error
}

// repoTemplate is the folder of template key, made by build(dir) the
// first time it is asked for.
func repoTemplate(key string, build func(dir string) error) (string, error) {
	repoTemplates.mu.Lock()
	defer repoTemplates.mu.Unlock()
	if dir, ok := repoTemplates.made[key]; ok {
		return dir, repoTemplates.err[key]
	}
	if repoTemplates.root == "" {
		root, err := os.MkdirTemp("", "ralph-test-templates-")
		if err != nil {
			return "", err
		}
		repoTemplates.root = root
		repoTemplates.made, repoTemplates.err = map[string]string{}, map[string]error{}
	}
	dir := filepath.Join(repoTemplates.root, fmt.Sprint(len(repoTemplates.made)))
	err := os.Mkdir(dir, 0o755)
	if err == nil {
		err = build(dir)
	}
	if err != nil {
		err = fmt.Errorf("make the test template %s: %w", key, err)
	}
	repoTemplates.made[key], repoTemplates.err[key] = dir, err
	return dir, err
}

// removeTemplates removes every template made.
func removeTemplates() {
	if repoTemplates.root != "" {
		os.RemoveAll(repoTemplates.root)
	}
}

// emptyRepository is the template of `git init` with the tests' git
// config (main as the first branch): the .git folder gitinit copies.
func emptyRepository() (string, error) {
	return repoTemplate("git init", func(dir string) error {
		cmd := exec.Command("git", "-c", "init.defaultBranch=main", "init", "-q", dir)
		cmd.Env = append(os.Environ(), "HOME="+dir) // no .gitconfig there: git init as a scenario's
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git init: %v\n%s", err, out)
		}
		return nil
	})
}

// copyTree copies the folder src to dst (which must not exist): folders,
// regular files and links, with their permission bits.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.Mkdir(to, info.Mode().Perm())
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		case d.Type().IsRegular():
			return copyFile(path, to, info.Mode().Perm())
		default:
			return fmt.Errorf("%s: not a folder, a file or a link", path)
		}
	})
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
