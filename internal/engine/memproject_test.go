package engine

import (
	"io/fs"
	"sync"
)

// MemProject is the engine's Project in its tests that need no files:
// the prompt, the plan, the review prompt and the call logs held in
// memory. A nil field is a file that is not there.
type MemProject struct {
	mu                         sync.Mutex
	prompt, plan, reviewPrompt []byte
	logs                       map[string][]byte
	reads                      int // reads of the plan
}

var _ Project = (*MemProject)(nil)

// SetPlan replaces the plan (nil: none).
func (p *MemProject) SetPlan(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.plan = []byte(s)
}

func (p *MemProject) HasPrompt() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.prompt != nil
}

func (p *MemProject) Prompt() ([]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.prompt == nil {
		return nil, fs.ErrNotExist
	}
	return p.prompt, nil
}

func (p *MemProject) Plan() ([]byte, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reads++
	return p.plan, p.plan != nil, nil
}

func (p *MemProject) ReviewPrompt() ([]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.reviewPrompt == nil {
		return nil, fs.ErrNotExist
	}
	return p.reviewPrompt, nil
}

func (p *MemProject) CallLog(name string) ([]byte, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	b, ok := p.logs[name]
	return b, ok, nil
}
