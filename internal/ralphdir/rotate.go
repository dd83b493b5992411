package ralphdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// rotateKeep is how many rotated copies of a log are kept: NAME.1 (the
// newest) to NAME.5.
const rotateKeep = 5

// HooksLog is where notifier hooks write their output.
const HooksLog = "logs/hooks.log"

// rotatedLogs are the appended logs that are rotated once they pass the
// size set by SetRotation.
var rotatedLogs = []string{RalphLog, EventsLog, MetricsLog, HooksLog}

// SetRotation makes AppendLine rotate the rotatedLogs: before a line would
// take a file past maxBytes, NAME.4 becomes NAME.5 (the old NAME.5 goes),
// …, NAME becomes NAME.1, and the line starts a new NAME. A reader that
// follows the name (tail -F, bmalph's dashboard) goes on with the new
// file, as after logrotate's default rename-and-create. maxBytes <= 0
// turns rotation off (the default).
func (d *Dir) SetRotation(maxBytes int64) {
	d.rotateAt = maxBytes
}

// rotates reports whether name is rotated, and when the next line would
// take a file of size to the limit.
func (d *Dir) rotates(name string, size int64, line int) bool {
	if d.rotateAt <= 0 || size == 0 || size+int64(line) <= d.rotateAt {
		return false
	}
	for _, n := range rotatedLogs {
		if n == name {
			return true
		}
	}
	return false
}

// firstRotateFailure reports whether the log at p failed to rotate for the
// first time, so that it is reported once.
func (d *Dir) firstRotateFailure(p string) bool { return d.refused.first(p + "\x00rotate") }

// rotateFile shifts p.1 … p.4 one up, dropping p.5, and renames p to p.1.
// A copy that cannot move up (something else, a folder say, holds the
// next name) is dropped as the oldest one is.
func rotateFile(p string) error {
	os.Remove(p + "." + strconv.Itoa(rotateKeep))
	for i := rotateKeep - 1; i >= 1; i-- {
		from := p + "." + strconv.Itoa(i)
		if err := os.Rename(from, p+"."+strconv.Itoa(i+1)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			os.Remove(from)
		}
	}
	if err := os.Rename(p, p+".1"); err != nil {
		return fmt.Errorf("cannot rotate %s: %w; it grows on past LOG_MAX_MB until you remove what is at %s.1", p, err, filepath.Base(p))
	}
	return nil
}

// Freed counts what a clean-up removed.
type Freed struct {
	Files int
	Bytes int64
}

func (f *Freed) add(o Freed) { f.Files += o.Files; f.Bytes += o.Bytes }

// callLog splits a per-call log name (claude_output_STAMP.log,
// claude_stderr_STAMP.log, claude_output_STAMP_stream.log, and the
// quality gates' quality_gates_STAMP.log) into its stamp.
func callLog(name string) (stamp string, ok bool) {
	if !strings.HasSuffix(name, ".log") {
		return "", false
	}
	base := strings.TrimSuffix(name, ".log")
	for _, pre := range []string{"claude_output_", "claude_stderr_", "quality_gates_"} {
		if s, found := strings.CutPrefix(base, pre); found {
			if pre == "claude_output_" {
				s = strings.TrimSuffix(s, "_stream")
			}
			return s, s != ""
		}
	}
	return "", false
}

// stampKey orders call stamps (TIME-MS_loopN[-K]) by time, then loop
// number, then the collision suffix.
type stampKey struct {
	time    string
	loop, k int
}

func keyOf(stamp string) stampKey {
	t, rest, _ := strings.Cut(stamp, "_loop")
	n, k, _ := strings.Cut(rest, "-")
	key := stampKey{time: t}
	key.loop, _ = strconv.Atoi(n)
	key.k, _ = strconv.Atoi(k)
	return key
}

func (a stampKey) less(b stampKey) bool {
	if a.time != b.time {
		return a.time < b.time
	}
	if a.loop != b.loop {
		return a.loop < b.loop
	}
	return a.k < b.k
}

// PruneCallLogs removes the output, stderr and stream logs of all but the
// newest keep calls under logs/, oldest first by their stamp; the logs of
// the call stamped current are never removed and count among the keep.
// keep < 0 removes nothing; keep 0 removes all but the current call's.
func (d *Dir) PruneCallLogs(keep int, current string) (Freed, error) {
	var freed Freed
	if keep < 0 {
		return freed, nil
	}
	if err := d.folders("write", LogsDir+"/x"); err != nil {
		return freed, err
	}
	entries, err := os.ReadDir(d.Path(LogsDir))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return freed, nil
		}
		return freed, fmt.Errorf("list %s: %w", d.Path(LogsDir), err)
	}
	files := map[string][]fs.DirEntry{}
	var stamps []string
	for _, e := range entries {
		s, ok := callLog(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		if files[s] == nil {
			stamps = append(stamps, s)
		}
		files[s] = append(files[s], e)
	}
	if current != "" && files[current] == nil {
		stamps = append(stamps, current) // about to be created
	}
	sort.Slice(stamps, func(i, j int) bool { return keyOf(stamps[i]).less(keyOf(stamps[j])) })
	extra := len(stamps) - keep
	for _, s := range stamps {
		if extra <= 0 {
			break
		}
		if s == current {
			continue
		}
		extra--
		for _, e := range files[s] {
			freed.add(d.removeCounted(LogsDir + "/" + e.Name()))
		}
	}
	return freed, nil
}

// WithRotated names a log and its rotated copies in the order their lines
// were written, oldest first: NAME.5 … NAME.1, then NAME (readers of a
// whole log, such as --report, read them in this order).
func WithRotated(name string) []string {
	out := make([]string, 0, rotateKeep+1)
	for i := rotateKeep; i >= 1; i-- {
		out = append(out, name+"."+strconv.Itoa(i))
	}
	return append(out, name)
}

// RemoveRotated removes every rotated copy (NAME.1 … NAME.5) of the
// rotatedLogs and of live.log.
func (d *Dir) RemoveRotated() Freed {
	var freed Freed
	for _, name := range append(rotatedLogs, LiveLog) {
		for i := 1; i <= rotateKeep; i++ {
			freed.add(d.removeCounted(name + "." + strconv.Itoa(i)))
		}
	}
	return freed
}

// removeCounted removes name (a link itself, never its target) and
// counts it when it was there.
func (d *Dir) removeCounted(name string) Freed {
	p, err := d.checked("write", name)
	if err != nil {
		return Freed{}
	}
	st, err := os.Lstat(p)
	if err != nil {
		return Freed{}
	}
	if os.Remove(p) != nil {
		return Freed{}
	}
	return Freed{Files: 1, Bytes: st.Size()}
}
