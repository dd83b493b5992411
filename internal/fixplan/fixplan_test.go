package fixplan

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCount(t *testing.T) {
	tests := []struct {
		name string
		plan string
		want Counts
	}{
		{"empty", "", Counts{}},
		{"dash boxes", "- [ ] a\n- [x] b\n- [X] c\n- [ ] d\n", Counts{Checked: 2, Unchecked: 2}},
		{"indented with spaces and tabs", "  - [ ] a\n\t- [x] b\n", Counts{Checked: 1, Unchecked: 1}},
		{"star bullets are not tasks", "* [ ] a\n* [x] b\n", Counts{}},
		{"no space after dash", "-[ ] a\n-[x] b\n", Counts{}},
		{"dates are not tasks", "- [2026-01-29] shipped\n- [ ] real\n", Counts{Unchecked: 1}},
		{"text before the dash", "note - [ ] a\n", Counts{}},
		{"crlf", "- [ ] a\r\n- [x] b\r\n", Counts{Checked: 1, Unchecked: 1}},
		{"no final newline", "- [x] a", Counts{Checked: 1}},
		{"numbered items are not tasks", "1. [ ] a\n", Counts{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Count([]byte(tc.plan))
			if got != tc.want {
				t.Fatalf("Count = %+v, want %+v", got, tc.want)
			}
			if got.Total() != tc.want.Checked+tc.want.Unchecked {
				t.Fatalf("Total = %d", got.Total())
			}
		})
	}
}

func TestNextTask(t *testing.T) {
	long := "- [ ] Story 9.1: " + strings.Repeat("x", 120)
	tests := []struct {
		name, plan, want string
	}{
		{"first unchecked", "- [x] Story 1.1: Setup project scaffolding\n- [ ] Story 1.2: Implement user authentication\n- [ ] Story 2.1: Build dashboard layout\n", "- [ ] Story 1.2: Implement user authentication"},
		{"all done", "- [x] Story 1.1: a\n- [X] Story 1.2: b\n", ""},
		{"empty file", "", ""},
		{"indented item is trimmed", "- [x] Story 1.1: a\n  - [ ] Sub-task: Configure database  \n", "- [ ] Sub-task: Configure database"},
		{"crlf is trimmed", "- [ ] Task A\r\n", "- [ ] Task A"},
		{"cut to 100 chars", long, long[:100]},
		{"cut counts characters not bytes", "- [ ] " + strings.Repeat("é", 120), "- [ ] " + strings.Repeat("é", 94)},
		{"star bullet skipped", "* [ ] no\n- [ ] yes\n", "- [ ] yes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := NextTask([]byte(tc.plan)); got != tc.want {
				t.Fatalf("NextTask = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCollapse(t *testing.T) {
	tests := []struct {
		name, plan, want string
		changed          bool
	}{
		{
			name:    "done story loses its details, headings and epic goals stay",
			plan:    "### Auth\n> Goal: Authentication features\n\n- [x] Story 1.1: Login form\n  > As a user, I want to log in.\n  > AC: Given valid creds, When submit, Then logged in\n  > Spec: specs/planning-artifacts/stories.md#story-1-1\n\n## Notes\n",
			want:    "### Auth\n> Goal: Authentication features\n\n- [x] Story 1.1: Login form\n\n## Notes\n",
			changed: true,
		},
		{
			name: "open story keeps its details",
			plan: "- [ ] Story 2.1: Dashboard\n  > As a user, I want a dashboard.\n  > AC: Given logged in\n",
			want: "- [ ] Story 2.1: Dashboard\n  > As a user, I want a dashboard.\n  > AC: Given logged in\n",
		},
		{
			name:    "mixed: only the done one collapses",
			plan:    "- [X] Story 1.1: Login\n  > a\n  > b\n- [ ] Story 1.2: Logout\n  > c\n",
			want:    "- [X] Story 1.1: Login\n- [ ] Story 1.2: Logout\n  > c\n",
			changed: true,
		},
		{
			name:    "detail run ends at the first other line",
			plan:    "- [x] Story 1: a\n  > gone\nplain\n  > kept\n",
			want:    "- [x] Story 1: a\nplain\n  > kept\n",
			changed: true,
		},
		{
			name: "unindented quote is not a detail line",
			plan: "- [x] Story 1: a\n> kept\n",
			want: "- [x] Story 1: a\n> kept\n",
		},
		{
			name: "plain done task is not a story",
			plan: "- [x] Task A\n  > kept\n",
			want: "- [x] Task A\n  > kept\n",
		},
		{
			name:    "crlf and no final newline",
			plan:    "- [x] Story 3.2: x\r\n  > gone\r\n- [ ] Story 3.3: y\r\n  > kept",
			want:    "- [x] Story 3.2: x\r\n- [ ] Story 3.3: y\r\n  > kept",
			changed: true,
		},
		{
			name:    "loose spacing around the box still counts as a story",
			plan:    "  -[x]Story  7 done\n\t> gone\n",
			want:    "  -[x]Story  7 done\n",
			changed: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, changed := Collapse([]byte(tc.plan))
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Fatalf("Collapse (-want +got):\n%s", diff)
			}
			if changed != tc.changed {
				t.Fatalf("changed = %v, want %v", changed, tc.changed)
			}
			again, changed2 := Collapse(got)
			if string(again) != string(got) || changed2 {
				t.Fatalf("Collapse is not idempotent: %q", again)
			}
		})
	}
}

// The conformance scenario files-fix-plan-collapse: story 1.1 ticked, 1.2 open.
func TestCollapseConformancePlan(t *testing.T) {
	plan := "- [x] Story 1.1: Login\n  > As a user I can log in\n  > AC: wrong password is rejected\n- [ ] Story 1.2: Logout\n  > As a user I can log out\n"
	got, _ := Collapse([]byte(plan))
	s := string(got)
	if strings.Contains(s, "As a user I can log in") || !strings.Contains(s, "As a user I can log out") || !strings.Contains(s, "- [x] Story 1.1: Login") {
		t.Fatalf("unexpected collapse:\n%s", s)
	}
	all, _ := Collapse([]byte(strings.Replace(s, "- [ ]", "- [x]", 1)))
	if strings.Contains(string(all), "  >") {
		t.Fatalf("details remain after all stories are done:\n%s", all)
	}
}

func TestMismatchWarning(t *testing.T) {
	want := "Progress tracking mismatch: claimed 3 completed task(s) but checkbox delta was -1. Completion signals suppressed for this loop."
	if got := MismatchWarning(3, -1); got != want {
		t.Errorf("MismatchWarning(3, -1) = %q, want %q", got, want)
	}
}

// TestProgress: status.json's counts are the Story lines when the plan
// has any, else every checkbox task.
func TestProgress(t *testing.T) {
	for plan, want := range map[string][2]int{
		"- [x] Story 1.1: a\n- [ ] Story 1.2: b\n- [x] plain\n": {1, 2},
		"- [x] a\n  - [ ] b\n- [ ] c\n":                         {1, 3},
		"":                                                      {0, 0},
	} {
		if done, total := Progress([]byte(plan)); done != want[0] || total != want[1] {
			t.Errorf("Progress(%q) = %d, %d; want %d, %d", plan, done, total, want[0], want[1])
		}
	}
}

func TestCountStories(t *testing.T) {
	plan := "# Ralph Fix Plan\n\n### Epic 1\n> Goal: x\n\n- [x] Story 1.1: Login\n  > detail\n- [ ] Task without story id\n  - [ ] Story 1.2: Logout\n- [X] Story 2: Other\n-[ ]Story 3.1:Tight\n- [ ] Story x: not an id\n- [ ] Story 4:\n"
	got := countStories([]byte(plan))
	want := stories{Completed: 2, Total: 4, Next: "Story 1.2: Logout"}
	if got != want {
		t.Fatalf("countStories = %+v, want %+v", got, want)
	}
	if got := countStories(nil); got != (stories{}) {
		t.Fatalf("countStories(nil) = %+v", got)
	}
	if got := countStories([]byte("- [x] Story 1.1: a\r\n")); got != (stories{Completed: 1, Total: 1}) {
		t.Fatalf("crlf: %+v", got)
	}
}

func TestTicked(t *testing.T) {
	tests := []struct {
		name          string
		before, after string
		want          []string
	}{
		{"none", "- [ ] a\n", "- [ ] a\n", nil},
		{"one ticked", "- [x] a\n- [ ] b\n- [ ] c\n", "- [x] a\n- [x] b\n- [ ] c\n", []string{"b"}},
		{"two ticked, indented, in plan order", "  - [ ] b\n\t- [ ] c\n", "\t- [X] c\n  - [x] b\n", []string{"c", "b"}},
		{"already done is not ticked", "- [x] a\n", "- [x] a\n", nil},
		{"reworded is not found", "- [ ] a\n", "- [x] a, done\n", nil},
		{"same text twice, one ticked", "- [ ] a\n- [ ] a\n", "- [x] a\n- [ ] a\n", []string{"a"}},
		{"no plan before", "", "- [x] a\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, Ticked([]byte(tt.before), []byte(tt.after))); d != "" {
				t.Errorf("Ticked (-want +got):\n%s", d)
			}
		})
	}
}

func TestTasks(t *testing.T) {
	plan := []byte("# Plan\n- [x] One\n  - [ ] Two, indented\r\n- [X] Three\n* [ ] not a task\n- [ ] Four\n")
	got, n := Tasks(plan, 3)
	want := []Task{{"One", true}, {"Two, indented", false}, {"Three", true}}
	if n != 4 || !reflect.DeepEqual(got, want) {
		t.Errorf("Tasks = %v, %d; want %v, 4", got, n, want)
	}
	if all, _ := Tasks(plan, 0); len(all) != 4 {
		t.Errorf("Tasks(plan, 0) = %v, want 4 tasks", all)
	}
}

// TestSetAside: the first open task's box becomes [?] with the note on a
// detail line under it; the counts leave it out; a plan with no open task
// is unchanged.
func TestSetAside(t *testing.T) {
	plan := "# Plan\n- [x] Done one\n  - [ ] Story 1.2: Login form\r\n- [ ] Later\n"
	out, task, changed := SetAside([]byte(plan), "Set aside (loop 2): nobody answered\n\"Postgres or SQLite?\"")
	want := "# Plan\n- [x] Done one\n  - [?] Story 1.2: Login form\r\n    > Set aside (loop 2): nobody answered \"Postgres or SQLite?\"\r\n- [ ] Later\n"
	if !changed || task != "Story 1.2: Login form" || string(out) != want {
		t.Fatalf("SetAside = %q, %q, %v\nwant %q", out, task, changed, want)
	}
	if c := Count(out); c.Checked != 1 || c.Unchecked != 1 {
		t.Errorf("Count after = %+v", c)
	}
	if n := NextTask(out); n != "- [ ] Later" {
		t.Errorf("NextTask after = %q", n)
	}
	if SetAsideCount(out) != 1 {
		t.Errorf("SetAsideCount = %d", SetAsideCount(out))
	}
	if _, _, changed := SetAside([]byte("- [x] all done\n"), "x"); changed {
		t.Error("a plan with no open task changed")
	}
	if out, _, _ := SetAside([]byte("- [ ] last"), "n"); string(out) != "- [?] last\n  > n\n" {
		t.Errorf("no final newline: %q", out)
	}
}
