package drivers

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

const (
	goldenPrompt  = "# Ralph prompt\nRead .ralph/@fix_plan.md and do the next task.\n\n"
	goldenContext = "Loop #2. Session continued — do NOT re-read spec files. Resume implementation. Remaining tasks: 1."
	goldenExtra   = "Review findings: fix the failing test first."
)

var defaultTools = []string{"Write", "Read", "Edit", "MultiEdit", "Glob", "Grep", "Task", "TodoWrite",
	"WebFetch", "WebSearch", "EnterPlanMode", "ExitPlanMode", "NotebookEdit", "Bash"}

// fakeLookPath finds only the names in found, under /opt/bin.
func fakeLookPath(found ...string) func(string) (string, error) {
	return func(name string) (string, error) {
		for _, f := range found {
			if f == name {
				return "/opt/bin/" + name, nil
			}
		}
		return "", errors.New("not found")
	}
}

type buildCase struct {
	name string
	req  func(*Request)
}

// commonCases apply to every driver.
var commonCases = []buildCase{
	{"background", func(r *Request) {}},
	{"background-context", func(r *Request) { r.Context = goldenContext }},
	{"background-context-extra", func(r *Request) { r.Context, r.SystemExtra = goldenContext, goldenExtra }},
	{"resume", func(r *Request) { r.Context, r.SessionID = goldenContext, "sess-123" }},
	{"live", func(r *Request) { r.Live = true }},
	{"live-resume", func(r *Request) { r.Live, r.Context, r.SessionID = true, goldenContext, "sess-123" }},
	{"no-allowed-tools", func(r *Request) { r.AllowedTools = nil; r.Context = goldenContext }},
	{"dash-prompt", func(r *Request) { r.Prompt = "---\ntitle: plan\n---\nDo it.\n" }},
}

// driverCases are extra cases for one driver.
var driverCases = map[string][]buildCase{
	"claude-code": {
		{"text-output", func(r *Request) { r.OutputFormat = "text"; r.Context = goldenContext }},
		{"permission-mode-and-tools", func(r *Request) {
			r.PermissionMode, r.AllowedTools = "acceptEdits", []string{" Read ", "", "Bash(git add *)"}
		}},
		{"resume-cli-2.1.252", func(r *Request) { r.SessionID, r.CLIVersion = "sess-123", "2.1.252" }},
		{"resume-cli-2.1.330", func(r *Request) { r.SessionID, r.CLIVersion = "sess-123", "2.1.330 (Claude Code)" }},
		{"live-resume-cli-2.1.330-dash-prompt", func(r *Request) {
			r.Live, r.SessionID, r.CLIVersion, r.Prompt = true, "sess-123", "2.1.330", "- [ ] do it"
		}},
		{"extra-without-context", func(r *Request) { r.SystemExtra = goldenExtra }},
	},
	"cursor": {
		{"agent-binary", func(r *Request) { r.LookPath = fakeLookPath("agent") }},
		{"not-installed", func(r *Request) { r.LookPath = fakeLookPath() }},
	},
	"command": {
		{"prompt-arg", func(r *Request) { r.PromptMode = promptArg; r.Context = goldenContext }},
		{"prompt-stdin-explicit", func(r *Request) { r.PromptMode = promptStdin; r.Context = goldenContext }},
	},
}

func baseRequest() Request {
	return Request{
		Prompt:       goldenPrompt,
		OutputFormat: "json",
		AllowedTools: defaultTools,
		Dir:          "/work/project",
		Env:          []string{"HOME=/home/u", "PATH=/usr/bin"},
		LookPath:     fakeLookPath("cursor-agent", "agent"),
		Command:      []string{"my-agent", "--yes", "--model", "big one"},
	}
}

func renderSpec(s Spec) string {
	var b strings.Builder
	fmt.Fprintf(&b, "format: %s\n", s.Format)
	for i, a := range s.Argv {
		fmt.Fprintf(&b, "argv[%d]: %s\n", i, strconv.Quote(a))
	}
	fmt.Fprintf(&b, "stdin: %s\n", strconv.Quote(s.Stdin))
	return b.String()
}

// TestBuildGolden renders every driver × case into testdata/<driver>.golden.
// Run `go test ./drivers -update` to rewrite them, then review the diff.
func TestBuildGolden(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			d, err := Get(name)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for _, c := range append(append([]buildCase(nil), commonCases...), driverCases[name]...) {
				req := baseRequest()
				c.req(&req)
				spec, err := d.Build(req)
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				if spec.Dir != req.Dir || !cmp.Equal(spec.Env, req.Env) {
					t.Errorf("%s: dir/env not passed through: %q %q", c.name, spec.Dir, spec.Env)
				}
				fmt.Fprintf(&b, "== %s ==\n%s\n", c.name, renderSpec(spec))
			}
			path := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./drivers -update)", err)
			}
			if diff := cmp.Diff(string(want), b.String()); diff != "" {
				t.Errorf("%s differs (-golden +got; rerun with -update if intended):\n%s", path, diff)
			}
		})
	}
}
