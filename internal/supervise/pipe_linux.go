package supervise

import (
	"os"

	"golang.org/x/sys/unix"
)

// growPipe asks for a 1 MiB pipe (the most an unprivileged process gets
// by default) instead of 64 KiB, so that a fast agent's output is read in
// a few large reads rather than one per 64 KiB. A refusal changes nothing
// but the speed.
func growPipe(f *os.File) {
	if c, err := f.SyscallConn(); err == nil {
		c.Control(func(fd uintptr) { unix.FcntlInt(fd, unix.F_SETPIPE_SZ, 1<<20) })
	}
}
