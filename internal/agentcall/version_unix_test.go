//go:build unix

package agentcall

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestVersion(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "agent")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho \"agent 1.2.3\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if v, err := Version(context.Background(), bin); err != nil || v != "agent 1.2.3" {
		t.Errorf("Version = %q, %v", v, err)
	}
}
