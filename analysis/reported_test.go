package analysis_test

import (
	"testing"

	. "github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/drivers"
)

// TestReportedFilesModified: the agent's own count is the status block's
// FILES_MODIFIED, else the JSON metadata's; it never replaces the git count
// or the JSON figure that the exit and progress decisions use.
func TestReportedFilesModified(t *testing.T) {
	t.Parallel()
	block := `---RALPH_STATUS---\nSTATUS: IN_PROGRESS\nFILES_MODIFIED: 4\nEXIT_SIGNAL: false\n---END_RALPH_STATUS---`
	for _, tc := range []struct {
		name           string
		out            string
		reported, used int
	}{
		{"text block", "Did it.\n" + unescape(block) + "\n", 4, 0},
		{"claude JSON with a block", `{"type":"result","result":"Did it.\n` + block + `"}`, 4, 0},
		{"JSON metadata, no block", `{"result":"x","metadata":{"files_changed":5}}`, 5, 5},
		{"block wins over metadata", `{"result":"x\n` + block + `","metadata":{"files_changed":5}}`, 4, 5},
		{"nothing reported", "plain words\n", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := analyzeString(t, tc.out, Options{Formats: drivers.Formats("")})
			if res.ReportedFilesModified != tc.reported || res.FilesModified != tc.used {
				t.Errorf("reported %d files_modified %d, want %d %d", res.ReportedFilesModified, res.FilesModified, tc.reported, tc.used)
			}
		})
	}
}

func unescape(s string) string {
	out := []byte{}
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && s[i+1] == 'n' {
			out = append(out, '\n')
			i++
			continue
		}
		out = append(out, s[i])
	}
	return string(out)
}
