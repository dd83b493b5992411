package fixplan

import "testing"

// Untick opens the task Ticked named, and nothing else.
func TestUntick(t *testing.T) {
	plan := []byte("# Plan\r\n- [x] Task A\r\n  - [X] Task B\n- [x] Task B\n- [ ] Task C")
	tests := []struct {
		task string
		want string
		ok   bool
	}{
		{"Task A", "# Plan\r\n- [ ] Task A\r\n  - [X] Task B\n- [x] Task B\n- [ ] Task C", true},
		{"Task B", "# Plan\r\n- [x] Task A\r\n  - [ ] Task B\n- [x] Task B\n- [ ] Task C", true},
		{"Task C", string(plan), false},
		{"Task D", string(plan), false},
	}
	for _, tc := range tests {
		out, ok := Untick(plan, tc.task)
		if string(out) != tc.want || ok != tc.ok {
			t.Errorf("Untick(%q) = %q, %v; want %q, %v", tc.task, out, ok, tc.want, tc.ok)
		}
	}
	// What Ticked names, Untick finds.
	before := []byte("- [ ] Write the login form\n- [ ] Test it\n")
	after := []byte("- [x] Write the login form\n- [x] Test it\n")
	for _, task := range Ticked(before, after) {
		var ok bool
		if after, ok = Untick(after, task); !ok {
			t.Errorf("Untick(%q) found nothing", task)
		}
	}
	if string(after) != string(before) {
		t.Errorf("after unticking every ticked task: %q, want %q", after, before)
	}
}
