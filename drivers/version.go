package drivers

import (
	"bytes"
	"sync"
)

// The loop never starts an agent CLI except to make a call, so the CLI's
// version comes from its own output where it says it: Claude's stream-json
// output begins with a "system" record of subtype "init" that carries
// "claude_code_version". (ralph_loop --doctor asks `<cli> --version`.)

// versionScan bounds how much of an output a VersionWatch looks at: the
// init record comes first (after any hook records), well inside it.
const versionScan = 1 << 20

// VersionWatch finds the version an agent CLI reports in its output, as
// the output is written. Write it every byte of stdout; Version gives
// what was found.
type VersionWatch struct {
	mu      sync.Mutex
	cur     []byte
	seen    int
	done    bool
	version string
}

// NewVersionWatch returns a watch for an output of format, nil for a
// format that carries no version (every one but Claude's stream-json).
func NewVersionWatch(format string) *VersionWatch {
	if format != FormatClaudeStreamJSON {
		return nil
	}
	return &VersionWatch{}
}

// Write looks at the output's lines until the init record has come or
// versionScan bytes have gone by; it never fails.
func (w *VersionWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(p)
	for !w.done && len(p) > 0 {
		room := versionScan - w.seen
		if room <= 0 {
			w.done, w.cur = true, nil
			break
		}
		chunk := p[:min(len(p), room)]
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			w.cur = append(w.cur, chunk...)
			w.seen += len(chunk)
			p = p[len(chunk):]
			continue
		}
		w.cur = append(w.cur, chunk[:i]...)
		w.seen += i + 1
		p = p[i+1:]
		w.line()
		w.cur = w.cur[:0]
	}
	return n, nil
}

// line reads one whole line: the init record ends the watch.
func (w *VersionWatch) line() {
	if !bytes.Contains(w.cur, []byte(`"init"`)) {
		return
	}
	var r struct {
		Type    value `json:"type"`
		Subtype value `json:"subtype"`
		Version value `json:"claude_code_version"`
	}
	if decodeRecord(w.cur, &r) != nil || !r.Type.Is("system") || !r.Subtype.Is("init") {
		return
	}
	w.done = true
	if v, ok := parseVersion(r.Version.str()); ok {
		w.version = v.String()
	}
}

// Version is the version the output reported, "" when none (yet). A nil
// watch reports none.
func (w *VersionWatch) Version() string {
	if w == nil {
		return ""
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.version
}
