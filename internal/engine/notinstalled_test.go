package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"testing"
)

// A program that is not on PATH, or a path with no file, is "not
// installed" (the driver's install hint); any other start error is not.
func TestNotInstalled(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&exec.Error{Name: "claude", Err: exec.ErrNotFound}, true},
		{fmt.Errorf("start /opt/claude: %w", fs.ErrNotExist), true},
		{errors.New("fork/exec claude: resource temporarily unavailable"), false},
		{fmt.Errorf("start claude: %w", fs.ErrPermission), false},
	} {
		if got := notInstalled(tc.err); got != tc.want {
			t.Errorf("notInstalled(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
