package breaker

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzState feeds arbitrary bytes as .circuit_breaker_state's JSON. A
// state that decodes must be one of the three, and must survive encoding
// and decoding unchanged.
func FuzzState(f *testing.F) {
	for _, name := range []string{"bash_fresh.json", "bash_open.json", "bash_after_cooldown.json", "bash_history.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{"", "{}", "null", "[]", `{"state":"OPEN"}`, `{"state":"CLOSED","consecutive_no_progress":"x"}`,
		`{"state":"HALF_OPEN","no_progress_loops":[1,2,"3"],"error_streak":[{"loop":1,"line":"é"}]}`, scenarioOpen} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var s State
		if json.Unmarshal(data, &s) != nil {
			return
		}
		if !validState(s.State) {
			t.Fatalf("decoded state %q", s.State)
		}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("encode: %v", err)
		}
		var again State
		if err := json.Unmarshal(b, &again); err != nil {
			t.Fatalf("decode what was encoded: %v\n%s", err, b)
		}
		if diff := cmp.Diff(s, again); diff != "" {
			t.Fatalf("round trip changed the state (-first +second):\n%s", diff)
		}
	})
}
