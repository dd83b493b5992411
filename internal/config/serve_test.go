package config

import (
	"io/fs"
	"strings"
	"testing"
)

func TestServeTokenChecked(t *testing.T) {
	env := func(k string) (string, bool) {
		if k == "SERVE_TOKEN" {
			return "short", true
		}
		return "", false
	}
	_, _, err := loadLine([]string{"--dashboard"}, env, proj, noFile)
	if err == nil || !strings.Contains(err.Error(), "SERVE_TOKEN") {
		t.Errorf("a short SERVE_TOKEN: %v", err)
	}
}

func noFile(string) ([]byte, error) { return nil, fs.ErrNotExist }
