package agentcall

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

// dirLogs opens the logs as files in a folder; fail names a log that
// cannot be created.
type dirLogs struct {
	dir  string
	fail string
}

func (d dirLogs) CreateLog(name string) (*os.File, error) {
	if name == d.fail {
		return nil, errors.New("disk full")
	}
	return os.Create(filepath.Join(d.dir, name))
}

func (d dirLogs) OpenLiveLog(header string) (io.WriteCloser, error) {
	f, err := os.Create(filepath.Join(d.dir, "live.log"))
	if err == nil {
		_, err = io.WriteString(f, header)
	}
	return f, err
}

func (d dirLogs) read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(d.dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// request is a call whose agent prints out and errText.
func request(logs dirLogs, out, errText string) (Agent, Request, *[]string) {
	var seen []string
	a := Agent{Logs: logs, Start: func(_ context.Context, _ supervise.Command, o supervise.Options) supervise.Outcome {
		io.WriteString(o.Stdout, out)
		io.WriteString(o.Stderr, errText)
		return supervise.Outcome{Reason: supervise.Exited}
	}}
	return a, Request{
		OutLog: "out.log", ErrLog: "err.log", LiveHeader: "== loop 1 ==\n",
		Options: supervise.Options{MaxOutput: 1 << 20},
		Analysis: func() *analysis.Stream {
			return analysis.NewStream(analysis.Options{Formats: drivers.Formats("claude-code")})
		},
		Started: func(last func() string) (io.Writer, func()) {
			seen = append(seen, "started:"+last())
			return nil, func() { seen = append(seen, "ended:"+last()) }
		},
	}, &seen
}

// One call: stdout reaches the output log, live.log (made safe) and the
// analysis; stderr its own log; the caller sees the last line at the end.
func TestRunTeesTheOutput(t *testing.T) {
	logs := dirLogs{dir: t.TempDir()}
	a, req, seen := request(logs, "working\x1b]0;title\x07\n---RALPH_STATUS---\nSTATUS: COMPLETE\nEXIT_SIGNAL: true\n---END_RALPH_STATUS---\n", "a warning\n")
	r := a.Run(context.Background(), req)
	if r.Outcome.Reason != supervise.Exited || r.NotStored != nil || r.Analysis == nil {
		t.Fatalf("reply %+v", r)
	}
	if got := logs.read(t, "out.log"); !strings.HasPrefix(got, "working\x1b]0;title\x07\n") {
		t.Errorf("output log %q", got)
	}
	if got := logs.read(t, "live.log"); !strings.HasPrefix(got, "== loop 1 ==\nworking") || strings.Contains(got, "\x1b]") {
		t.Errorf("live.log %q: want the header, then the stream made safe", got)
	}
	if got := logs.read(t, "err.log"); got != "a warning\n" {
		t.Errorf("stderr log %q", got)
	}
	if want := []string{"started:", "ended:---END_RALPH_STATUS---"}; strings.Join(*seen, "|") != strings.Join(want, "|") {
		t.Errorf("Started saw %q, want %q", *seen, want)
	}
	res, err := r.Analysis.Finish(analysis.Ending{})
	if err != nil || !res.ExitSignal {
		t.Errorf("analysis: exit signal %v, err %v", res.ExitSignal, err)
	}
}

// An output log that cannot be opened fails the call before the agent
// starts: nothing ran, nothing was analysed.
func TestRunWithoutItsLogFails(t *testing.T) {
	logs := dirLogs{dir: t.TempDir(), fail: "out.log"}
	a, req, seen := request(logs, "x\n", "")
	ran := false
	run := a.Start
	a.Start = func(ctx context.Context, c supervise.Command, o supervise.Options) supervise.Outcome {
		ran = true
		return run(ctx, c, o)
	}
	r := a.Run(context.Background(), req)
	if r.Outcome.Reason != supervise.WriteFailed || !errors.Is(r.Outcome.Err, supervise.ErrOutputWrite) {
		t.Errorf("outcome %+v, want WriteFailed", r.Outcome)
	}
	if ran || len(*seen) != 0 || r.Analysis != nil {
		t.Errorf("ran %v, started %q, analysis %v: want none", ran, *seen, r.Analysis)
	}
}

// The stream copy keeps the whole stream and finds its result record.
func TestRunKeepsTheStream(t *testing.T) {
	logs := dirLogs{dir: t.TempDir()}
	stream := `{"type":"assistant"}` + "\n" + `{"type":"result","result":"done"}` + "\n"
	a, req, _ := request(logs, stream, "")
	req.StreamLog = "stream.log"
	r := a.Run(context.Background(), req)
	if r.Stream == nil {
		t.Fatal("no stream copy")
	}
	if err := r.Stream.Finish(); err != nil {
		t.Fatal(err)
	}
	last, found, over := r.Stream.Result()
	if !found || over || string(last) != `{"type":"result","result":"done"}` {
		t.Errorf("result %q found %v over %v", last, found, over)
	}
	if got := logs.read(t, "stream.log"); got != stream {
		t.Errorf("stream log %q", got)
	}
}
