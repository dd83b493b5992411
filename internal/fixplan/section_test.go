package fixplan

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const beadsHeading = "## Tasks from beads"

func TestSectionReads(t *testing.T) {
	plan := "# Plan\n\n- [ ] local\n\n## Tasks from beads\n- [ ] [bd-a1] First\n  - [x] [bd-b2]   Second  \r\nnot a task\n- [ ] untracked\n\n## Later\n- [ ] [bd-c3] Elsewhere\n"
	got, found := Section([]byte(plan), beadsHeading)
	want := []Tracked{{Key: "bd-a1", Title: "First"}, {Key: "bd-b2", Title: "Second", Done: true}}
	if !found || !cmp.Equal(got, want) {
		t.Fatalf("Section = %+v %v, want %+v", got, found, want)
	}
	if _, found := Section([]byte("# Plan\n- [ ] a\n"), beadsHeading); found {
		t.Fatal("found a section that is not there")
	}
	if _, found := Section([]byte("### Tasks from beads\n"), beadsHeading); found {
		t.Fatal("a heading of another level is another heading")
	}
}

func TestWithSectionKeepsEveryOtherByte(t *testing.T) {
	before := "# Plan\r\n\n  weird   spacing\t\n- [ ] local task\n- [x] done one\n\n"
	after := "## Notes\nkept *as is*   \n\n\n- [ ] trailing\nno final newline"
	plan := before + "## Tasks from beads\n- [ ] [bd-old] Old title\nagent's stray line\n\n\n" + after
	items := []Tracked{{Key: "bd-old", Title: "New title", Done: true}, {Key: "bd-new", Title: "Added"}}
	out := string(WithSection([]byte(plan), beadsHeading, items))
	wantSection := "## Tasks from beads\n- [x] [bd-old] New title\n- [ ] [bd-new] Added\n\n"
	if out != before+wantSection+after {
		t.Fatalf("WithSection =\n%q\nwant\n%q", out, before+wantSection+after)
	}
	// Written again with what it reads: not a byte changes.
	got, _ := Section([]byte(out), beadsHeading)
	if again := WithSection([]byte(out), beadsHeading, got); string(again) != out {
		t.Fatalf("round trip changed the plan:\n%q\n%q", again, out)
	}
}

func TestWithSectionAtTheEnd(t *testing.T) {
	items := []Tracked{{Key: "#12", Title: "From GitHub"}}
	for _, tc := range []struct{ plan, want string }{
		{"", "## Tasks from GitHub\n- [ ] [#12] From GitHub\n"},
		{"# Plan\n- [ ] a", "# Plan\n- [ ] a\n\n## Tasks from GitHub\n- [ ] [#12] From GitHub\n"},
		{"# Plan\n- [ ] a\n", "# Plan\n- [ ] a\n\n## Tasks from GitHub\n- [ ] [#12] From GitHub\n"},
		{"# Plan\n- [ ] a\n\n", "# Plan\n- [ ] a\n\n## Tasks from GitHub\n- [ ] [#12] From GitHub\n"},
		{"# Plan\r\n- [ ] a\r\n", "# Plan\r\n- [ ] a\r\n\r\n## Tasks from GitHub\r\n- [ ] [#12] From GitHub\r\n"},
	} {
		out := string(WithSection([]byte(tc.plan), "## Tasks from GitHub", items))
		if out != tc.want {
			t.Errorf("WithSection(%q) = %q, want %q", tc.plan, out, tc.want)
		}
		if !strings.HasPrefix(out, tc.plan) {
			t.Errorf("WithSection(%q) changed what was there", tc.plan)
		}
	}
	if out := WithSection([]byte("# Plan\n"), beadsHeading, nil); string(out) != "# Plan\n" {
		t.Errorf("no items, no section: got %q", out)
	}
}

func TestWithSectionTitlesStayOnTheirLine(t *testing.T) {
	out := WithSection(nil, beadsHeading, []Tracked{{Key: "bd-1", Title: "one\n- [ ] injected\r\ntwo"}})
	if c := Count(out); c.Total() != 1 {
		t.Fatalf("a title with line breaks made %d tasks: %q", c.Total(), out)
	}
}

func TestWithSectionUnchangedIsTheSameSlice(t *testing.T) {
	plan := []byte("# P\n\n## Tasks from beads\n- [ ] [bd-1] A\n")
	items, _ := Section(plan, beadsHeading)
	if out := WithSection(plan, beadsHeading, items); !bytes.Equal(out, plan) {
		t.Fatalf("unchanged section rewritten: %q", out)
	}
}

func TestTrackedKey(t *testing.T) {
	for in, want := range map[string]string{
		"[bd-a1b2] Title":           "bd-a1b2",
		"- [ ] [#123] Title":        "#123",
		"- [x] [bd-a1.2] Sub":       "bd-a1.2",
		"Story 1.2: Login":          "",
		"[not closed Title":         "",
		"[with space] x":            "",
		"  - [X]   [proj-9] spaced": "proj-9",
	} {
		if got := TrackedKey(in); got != want {
			t.Errorf("TrackedKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzWithSection: whatever the plan, WithSection keeps every byte before
// the section's heading and from the next heading on, and reads back the
// items it wrote.
func FuzzWithSection(f *testing.F) {
	f.Add("# Plan\n- [ ] a\n## Tasks from beads\n- [ ] [bd-1] x\n## After\n", "title")
	f.Add("", "")
	f.Add("## Tasks from beads", "t\nu")
	f.Add("x\r\n## Tasks from beads\r\n\r\n# H\r\n", "[y]")
	f.Fuzz(func(t *testing.T, plan, title string) {
		items := []Tracked{{Key: "bd-9", Title: title}, {Key: "#4", Title: "b", Done: true}}
		out := WithSection([]byte(plan), beadsHeading, items)
		start, end, ok := sectionBounds([]byte(plan), beadsHeading)
		if ok {
			if !bytes.HasPrefix(out, []byte(plan[:start])) || !bytes.HasSuffix(out, []byte(plan[end:])) {
				t.Fatalf("bytes outside the section changed:\n%q\n%q", plan, out)
			}
		} else if !bytes.HasPrefix(out, []byte(plan)) {
			t.Fatalf("plan without the section changed:\n%q\n%q", plan, out)
		}
		got, found := Section(out, beadsHeading)
		if !found || len(got) != 2 || got[0].Key != "bd-9" || !got[1].Done {
			t.Fatalf("Section(WithSection) = %+v %v from %q", got, found, out)
		}
	})
}
