package analysis_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPackageBudget keeps the package what issue 26 made it: under 3,000
// production lines (every line, comments too), no reflect or unsafe, and
// pure (no files, processes or clocks of its own); each CLI's records live
// next to its driver.
func TestPackageBudget(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines += bytes.Count(b, []byte("\n"))
		for _, imp := range []string{`"reflect"`, `"unsafe"`, `"os"`, `"os/exec"`, `"io/fs"`} {
			if bytes.Contains(b, []byte("\t"+imp+"\n")) || bytes.Contains(b, []byte("import "+imp+"\n")) {
				t.Errorf("%s imports %s", f, imp)
			}
		}
		for _, rec := range []string{"ClaudeRecord", "CodexRecord", "OpenCodeRecord"} {
			if bytes.Contains(b, []byte(rec)) {
				t.Errorf("%s names %s: a CLI's records belong next to its driver", f, rec)
			}
		}
	}
	if lines >= 3000 {
		t.Errorf("analysis/ has %d production lines, want under 3,000", lines)
	}
}
