//go:build unix

package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	extraCmds["jsonout"] = cmdJSONOut
	extraCmds["dirsum"] = cmdDirsum
	extraCmds["waitgrep"] = cmdWaitgrep
}

// waitgrep FILE TEXT: wait until FILE contains TEXT (at most 20 s).
func cmdWaitgrep(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitgrep FILE TEXT")
	}
	p := ts.MkAbs(args[0])
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(args[1])) {
			return
		}
	}
	ts.Fatalf("%s did not contain %q within 20s", args[0], args[1])
}

// jsonout PATH WANT: the last command's stdout is exactly one JSON object
// and its value at PATH (keys, or list indexes, joined by dots) prints as
// WANT.
func cmdJSONOut(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: jsonout PATH WANT")
	}
	got, err := jsonPath([]byte(ts.ReadFile("stdout")), args[0])
	if err != nil {
		ts.Fatalf("%v", err)
	}
	if (got == args[1]) == neg {
		ts.Fatalf("stdout %s = %q, want %s%q", args[0], got, map[bool]string{true: "not ", false: ""}[neg], args[1])
	}
}

// jsonPath decodes data as one JSON object, nothing after it, and returns
// the value at path: "null" for null, "<missing>" for an absent key.
func jsonPath(data []byte, path string) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", fmt.Errorf("stdout is not JSON: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", fmt.Errorf("stdout holds more than one JSON value")
	}
	for _, k := range strings.Split(path, ".") {
		if a, ok := v.([]any); ok {
			// a number indexes a list
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(a) {
				return "<missing>", nil
			}
			v = a[i]
			continue
		}
		m, ok := v.(map[string]any)
		if !ok {
			return "<missing>", nil
		}
		if v, ok = m[k]; !ok {
			return "<missing>", nil
		}
	}
	if v == nil {
		return "null", nil
	}
	return fmt.Sprint(v), nil
}

// dirsum DIR: one line per entry under DIR (path, mode, sha256 of the
// content), so that two runs can be compared with cmp.
func cmdDirsum(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: dirsum DIR")
	}
	root := ts.MkAbs(args[0])
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		sum := ""
		if info.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum = fmt.Sprintf("%x", sha256.Sum256(b))
		}
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(ts.Stdout(), "%s %v %s\n", rel, info.Mode(), sum)
		return nil
	})
	if err != nil {
		ts.Fatalf("dirsum: %v", err)
	}
}
