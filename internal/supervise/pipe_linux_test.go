package supervise

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// The agent's stdout pipe holds 1 MiB, so a fast agent is read in large
// pieces (when the system allows it, as Linux does by default).
func TestStdoutPipeIsGrown(t *testing.T) {
	p, err := newPipes(false, false)
	if err != nil {
		t.Fatal(err)
	}
	defer p.closeChild()
	defer p.closeParent()
	c, err := p.outR.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var size int
	c.Control(func(fd uintptr) { size, err = unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0) })
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile("/proc/sys/fs/pipe-max-size")
	if max, _ := strconv.Atoi(strings.TrimSpace(string(b))); max >= 1<<20 && size != 1<<20 {
		t.Fatalf("stdout pipe holds %d bytes, want %d", size, 1<<20)
	}
}
