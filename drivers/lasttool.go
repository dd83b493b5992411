package drivers

import (
	"strings"
	"sync"
)

// LastTool reads an agent's raw stdout as the live renderer does and keeps
// the name of the last tool call it announced ("⚡ [name]"), for a
// progress line in the default mode. Formats that announce no tool calls
// while the agent works (Claude's one json result, plain text) never
// name one. Write never fails; Name may be called at any time.
type LastTool struct {
	r    *LiveRenderer
	mu   sync.Mutex
	name string
}

// NewLastTool follows output in Spec.Format format.
func NewLastTool(format string) *LastTool {
	t := &LastTool{}
	r := NewLiveRenderer(format, toolNames{t})
	if r.render == nil {
		r = nil // text: no tool calls to find
	}
	t.r = r
	return t
}

// Write consumes a chunk of raw output.
func (t *LastTool) Write(p []byte) (int, error) {
	if t.r != nil {
		_, _ = t.r.Write(p)
	}
	return len(p), nil
}

// Name is the last tool call seen, "" before the first.
func (t *LastTool) Name() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.name
}

// toolNames takes the renderer's output, in which each tool call is one
// write of toolLine(name), and keeps the name.
type toolNames struct{ t *LastTool }

func (w toolNames) Write(p []byte) (int, error) {
	if name, ok := toolName(string(p)); ok {
		w.t.mu.Lock()
		w.t.name = name
		w.t.mu.Unlock()
	}
	return len(p), nil
}

// toolName is the name in s when s is exactly toolLine(name).
func toolName(s string) (string, bool) {
	name, ok := strings.CutPrefix(s, "\n\n⚡ [")
	if !ok {
		return "", false
	}
	name, ok = strings.CutSuffix(name, "]\n")
	if !ok || toolLine(name) != s {
		return "", false
	}
	return name, true
}
