package engine

import (
	"io"
	"sync"

	"github.com/ralphloop/ralph_loop/analysis"
)

// keptLog writes a review call's log, feeds the analysis s exactly the
// bytes the file took, and keeps them, up to limit bytes (nothing once
// over it), for a caller that needs the whole output after the call
// without reading the log back. Its writes are serialised: stdout and
// stderr may share it.
type keptLog struct {
	log   io.Writer
	s     *analysis.Stream
	mu    sync.Mutex
	limit int64
	kept  []byte
	over  bool
}

func (k *keptLog) Write(p []byte) (int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	n, err := k.log.Write(p)
	k.s.Write(p[:n])
	switch {
	case k.over:
	case int64(len(k.kept)+n) > k.limit:
		k.over, k.kept = true, nil
	default:
		k.kept = append(k.kept, p[:n]...)
	}
	return n, err
}
