package analysis_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPackageIsPure keeps the package what issue 26 made it: no reflect
// or unsafe, and pure (no files, processes or clocks of its own); each
// CLI's records live next to its driver.
func TestPackageIsPure(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
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
}
