package config

import (
	"io/fs"
	"slices"
	"strings"
	"testing"
)

func TestServeFlags(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		command   string
		addr      string
		dashboard bool
		projects  []string
	}{
		{[]string{"--serve"}, "serve", "127.0.0.1:8765", false, nil},
		{[]string{"--serve", "127.0.0.1:9000"}, "serve", "127.0.0.1:9000", false, nil},
		{[]string{"--serve=:9001"}, "serve", ":9001", false, nil},
		{[]string{"--serve", "--projects", "a", "b/.swarm"}, "serve", "127.0.0.1:8765", false, []string{"a", "b/.swarm"}},
		{[]string{"--dashboard", "--max-loops", "2"}, "", "127.0.0.1:8765", true, nil},
		{[]string{"--dashboard", "localhost:8000", "--live"}, "", "localhost:8000", true, nil},
	} {
		c, _, err := Load(tc.args, nil, proj, noFile)
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		if c.Command != tc.command || c.ServeAddr != tc.addr || c.Dashboard != tc.dashboard || !slices.Equal(c.Projects, tc.projects) {
			t.Errorf("%q: command %q addr %q dashboard %v projects %q", tc.args, c.Command, c.ServeAddr, c.Dashboard, c.Projects)
		}
	}
}

func TestServeFlagsRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--serve", "--dashboard"}, "--dashboard runs the loop and cannot be used with --serve"},
		{[]string{"--dashboard", "--monitor"}, "--dashboard runs the loop and cannot be used with --monitor"},
		{[]string{"--projects", "a"}, "--projects only applies to --serve"},
		{[]string{"--serve", "--report"}, "--serve and --report cannot be used together"},
		{[]string{"--serve", "--live"}, "--live does not apply with --serve"},
		{[]string{"--serve", "nohost"}, "Invalid --serve: 'nohost'"},
		{[]string{"--status", "--dashboard"}, "--dashboard does not apply with --status"},
		{[]string{"--serve", "--projects"}, "--projects requires a value: one or more project folders"},
	} {
		_, _, err := Load(tc.args, nil, proj, noFile)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: got %v, want one line with %q", tc.args, err, tc.want)
		}
	}
}

func TestServeTokenChecked(t *testing.T) {
	env := func(k string) (string, bool) {
		if k == "SERVE_TOKEN" {
			return "short", true
		}
		return "", false
	}
	_, _, err := Load([]string{"--dashboard"}, env, proj, noFile)
	if err == nil || !strings.Contains(err.Error(), "SERVE_TOKEN") {
		t.Errorf("a short SERVE_TOKEN: %v", err)
	}
}

func noFile(string) ([]byte, error) { return nil, fs.ErrNotExist }
