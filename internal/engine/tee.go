package engine

import (
	"io"
	"sync"

	"github.com/ralphloop/ralph_loop/analysis"
)

// analysedLog writes the output log and feeds the analysis exactly the
// bytes the file took, in the order written: the head, the omission line
// and the tail when the output is capped, as a reading of the log would
// see them. The log is never read back.
type analysedLog struct {
	log io.Writer
	s   *analysis.Stream
}

func (a analysedLog) Write(p []byte) (int, error) {
	n, err := a.log.Write(p)
	a.s.Write(p[:n])
	return n, err
}

// keptLog is an analysedLog that also keeps what the log took, up to
// limit bytes (nothing once over it), for a caller that needs the whole
// output after the call without reading the log back. Its writes are
// serialised: stdout and stderr may share it.
type keptLog struct {
	analysedLog
	mu    sync.Mutex
	limit int64
	kept  []byte
	over  bool
}

func (k *keptLog) Write(p []byte) (int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	n, err := k.analysedLog.Write(p)
	switch {
	case k.over:
	case int64(len(k.kept)+n) > k.limit:
		k.over, k.kept = true, nil
	default:
		k.kept = append(k.kept, p[:n]...)
	}
	return n, err
}
