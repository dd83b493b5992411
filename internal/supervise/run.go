package supervise

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// defaultGrace is the time between SIGTERM and SIGKILL when Options.Grace is 0.
const defaultGrace = 10 * time.Second

// Errors that Outcome.Err wraps when Run stopped the command itself.
var (
	errTimeout    = errors.New("timed out")
	errInactive   = errors.New("no output")
	errWriteStall = errors.New("no file written")
	// errOutputTooLarge: the command wrote more than Options.MaxOutput.
	errOutputTooLarge = errors.New("output too large")
	// ErrOutputWrite: Stdout or Stderr refused a write (disk full,
	// read-only folder); the wrapped error says why.
	ErrOutputWrite = errors.New("output could not be written")
)

// Command is the program to run. Drivers build it; Run never interprets it.
type Command struct {
	Argv  []string // program and arguments; Argv[0] is looked up in the current $PATH
	Env   []string // full environment; nil inherits ralph's own
	Dir   string   // working directory; "" is the current one
	Stdin string   // fed through a pipe; "" means stdin is /dev/null
	// NewSession starts the command as the leader of a session of its
	// own (Unix; setsid) instead of only a process group of its own: it
	// and everything it starts then have no controlling terminal, so no
	// /dev/tty to open and no terminal to inject keystrokes into
	// (TIOCSTI). The session's id is its process group's, so stopping
	// the group and the stray sweep work as without it. The sandbox sets
	// it for every command it wraps.
	NewSession bool
}

// Options bound one call and say where its output goes.
type Options struct {
	// Timeout is the whole-call deadline; 0 means none.
	Timeout time.Duration
	// Inactivity stops the call when neither stdout nor stderr produced a
	// byte for this long; 0 turns it off.
	Inactivity time.Duration
	// WriteTimeout is the write heartbeat: when no regular file under
	// WatchDir was modified since the call started and WriteTimeout has
	// passed, the call is stopped. Once a write is seen the heartbeat is
	// satisfied for the rest of the call. 0 turns it off.
	WriteTimeout time.Duration
	// WatchDir is the project directory the heartbeat watches; "" means
	// Command.Dir, or the current directory.
	WatchDir string
	// WatchSkip lists slash-separated paths relative to WatchDir whose
	// trees the heartbeat ignores. nil means defaultWatchSkip; an empty
	// non-nil slice skips nothing.
	WatchSkip []string
	// Grace is how long the group has between SIGTERM and SIGKILL, and
	// how long Run waits for escaped processes to release the output
	// pipes; 0 means defaultGrace.
	Grace time.Duration
	// MaxOutput stops the call once stdout and stderr together carried
	// more than this many bytes; 0 means no limit. The writers still
	// receive everything read until the group is gone: bounding what is
	// stored is their job (see NewHeadTail).
	MaxOutput int64
	// Stdout and Stderr receive the raw output as it arrives; nil
	// discards it. They may be the same writer: writes are serialised.
	// The first failed write stops the call (WriteFailed); the output is
	// still read, and dropped, until the group is gone.
	Stdout, Stderr io.Writer
	// Record, when set, is called once the command runs, with the record
	// of the leader of its group (its pid, start time and the tokenVar=value
	// entry of its environment, as JSON) that Guard reads back to stop what
	// a process that died left running. Only Linux makes the record;
	// elsewhere Record is not called.
	Record func(record []byte)
	// Combined gives the command one pipe for both stdout and stderr, as
	// a shell's 2>&1 does, so that their bytes arrive in the order the
	// command wrote them; all of it goes to Stdout and Stderr is unused.
	Combined bool

	clock clock // times the limits; nil is the real clock (tests set theirs)
}

// Reason says how a call ended.
type Reason int

const (
	Exited         Reason = iota // the command exited on its own (any exit code, or a signal not sent by Run)
	TimedOut                     // Options.Timeout passed
	Inactive                     // no output for Options.Inactivity
	WriteStalled                 // the write heartbeat found no modified file within Options.WriteTimeout
	Canceled                     // the caller's context ended (user stop)
	StartFailed                  // the command could not be started
	OutputTooLarge               // stdout and stderr passed Options.MaxOutput
	WriteFailed                  // Stdout or Stderr refused a write
)

// Outcome describes a finished call.
//
// ExitCode is what a shell would report for the leader: its exit status, or
// 128+signal when a signal ended it. Two exceptions keep the codes the
// bash loop sees from GNU timeout: TimedOut reports 124, and
// StartFailed reports 127 (executable not found) or 126 (any other start
// error). It is -1 when the context ended before the command started.
//
// Err is nil only for Exited. For the endings Run causes it wraps
// errTimeout, errInactive, errWriteStall, errOutputTooLarge, ErrOutputWrite
// (and the writer's error) or the context's cause. A command that passed
// MaxOutput, or whose output could not be written, ends as OutputTooLarge
// or WriteFailed even when it exited on its own before Run stopped it.
type Outcome struct {
	ExitCode int
	Duration time.Duration
	Reason   Reason
	Err      error
}

// Run starts c, streams its output to o.Stdout and o.Stderr, and returns when
// the command has ended and no process of its group is left.
func Run(ctx context.Context, c Command, o Options) Outcome {
	sentinelFirst() // the first call after Guard starts the sentinel
	clk := o.clockOf()
	start := clk.Now()
	since := func() time.Duration { return clk.Now().Sub(start) }
	if len(c.Argv) == 0 || c.Argv[0] == "" {
		return Outcome{ExitCode: 127, Reason: StartFailed, Err: errors.New("start agent: empty command")}
	}
	name := c.Argv[0]
	grace := o.Grace
	if grace <= 0 {
		grace = defaultGrace
	}

	runCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	if o.Timeout > 0 {
		defer clk.AfterFunc(o.Timeout, func() { stop(errTimeout) })()
	}

	if err := checkDir(c.Dir); err != nil {
		return Outcome{ExitCode: 126, Reason: StartFailed, Duration: since(),
			Err: fmt.Errorf("start %s: working directory %s: %w", name, c.Dir, err)}
	}
	p, err := newPipes(c.Stdin != "", o.Combined)
	if err != nil {
		return Outcome{ExitCode: 126, Reason: StartFailed, Duration: since(),
			Err: fmt.Errorf("start %s: create pipes: %w", name, err)}
	}
	defer p.closeParent()

	// The agent dies with the thread that started it (Linux's
	// parent-death signal follows the thread), and the runtime ends a
	// thread when a goroutine locked to it exits. Holding this goroutine
	// on its thread until the command is reaped keeps any other goroutine
	// off it, so the thread lives as long as the call.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	token := newToken()
	t := newTree()
	defer t.close()
	cmd, signalled := command(runCtx, c, p, token, grace, t)
	if err := cmd.Start(); err != nil {
		p.closeChild()
		if runCtx.Err() != nil {
			reason, rerr := stopReason(runCtx, name, o)
			return Outcome{ExitCode: -1, Reason: reason, Err: rerr, Duration: since()}
		}
		code, serr := startError(name, err)
		return Outcome{ExitCode: code, Reason: StartFailed, Err: serr, Duration: since()}
	}
	t.attach(cmd.Process)
	defer track(t, cmd.Process, token)()
	p.closeChild()
	defer unwatched(watched(cmd.Process.Pid, token))

	out := newOutput(clk, start, o.Stdout, o.Stderr, o.MaxOutput, stop)
	readers := p.read(out)
	p.feed(c.Stdin)
	if o.Record != nil {
		if rec, err := recordOf(cmd.Process.Pid, token); err == nil {
			o.Record(rec)
		}
	}
	done := make(chan struct{})
	watchers := watch(done, c, o, out, clk, start, stop)

	_ = cmd.Wait() // the ending is read from ProcessState and the context below
	t.kill(cmd.Process)
	close(done)
	watchers.Wait()
	// Descendants that left the group (setsid, a daemon's double fork)
	// are found by the token in their environment.
	strayWait := grace
	if signalled.Load() {
		strayWait = 100 * time.Millisecond // they had SIGTERM with the group
	}
	stopStrays(token, strayWait)
	p.drain(readers, grace)

	return ending(runCtx, name, o, cmd.ProcessState, signalled.Load(), out, since())
}

// checkDir reports why dir cannot be the working directory ("" is the
// current one). exec skips this check when SysProcAttr is set, and then
// reports a missing directory as a missing executable.
func checkDir(dir string) error {
	if dir == "" {
		return nil
	}
	fi, err := os.Stat(dir)
	switch {
	case err != nil:
		return errors.Unwrap(err)
	case !fi.IsDir():
		return syscall.ENOTDIR
	}
	return nil
}

// command prepares c to run in its own process tree t on the child's ends
// of p, with token added to its environment. Cancelling ctx asks the tree
// to stop (see tree.stop) and marks the call as signalled; Go kills the
// leader and stops waiting on the pipes grace later.
func command(ctx context.Context, c Command, p *pipes, token string, grace time.Duration, t *tree) (*exec.Cmd, *atomic.Bool) {
	env := c.Env
	if env == nil {
		env = os.Environ()
	}
	argv := resolveArgv(c.Argv)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(env[:len(env):len(env)], token)
	cmd.Dir = c.Dir
	cmd.Stdout = p.outW
	cmd.Stderr = p.errW
	if p.errW == nil {
		cmd.Stderr = p.outW // Options.Combined
	}
	if p.inR != nil {
		cmd.Stdin = p.inR
	}
	t.prepare(cmd, c.NewSession)
	signalled := new(atomic.Bool)
	cmd.Cancel = func() error {
		signalled.Store(true)
		return t.stop(cmd.Process, token)
	}
	cmd.WaitDelay = grace
	return cmd, signalled
}

// watch starts the watchers o asks for: the inactivity timer and the
// write heartbeat. They return when done is closed.
func watch(done <-chan struct{}, c Command, o Options, out *output, clk clock, start time.Time, stop context.CancelCauseFunc) *sync.WaitGroup {
	var watchers sync.WaitGroup
	if o.Inactivity > 0 {
		watchers.Go(func() { watchInactivity(done, o.Inactivity, out, clk, stop) })
	}
	if o.WriteTimeout > 0 {
		dir := cmp.Or(o.WatchDir, c.Dir, ".")
		skip := o.WatchSkip
		if skip == nil {
			skip = defaultWatchSkip
		}
		watchers.Go(func() { watchWrites(done, dir, skip, o.WriteTimeout, clk, start, stop) })
	}
	return &watchers
}

// ending is the call's Outcome once the group is gone: the leader's exit
// status, unless Run stopped the call or its output could not be kept.
func ending(ctx context.Context, name string, o Options, ps *os.ProcessState, signalled bool, out *output, took time.Duration) Outcome {
	res := Outcome{ExitCode: ExitCode(ps), Reason: Exited, Duration: took}
	if signalled {
		res.Reason, res.Err = stopReason(ctx, name, o)
		if res.Reason == TimedOut {
			res.ExitCode = 124
		}
	}
	switch werr := out.err(); {
	case werr != nil && res.Reason == Exited:
		res.Reason, res.Err = WriteFailed, fmt.Errorf("%s: %w: %w", name, ErrOutputWrite, werr)
	case out.over() && res.Reason == Exited:
		res.Reason, res.Err = OutputTooLarge, fmt.Errorf("%s stopped: %w (more than %d bytes)", name, errOutputTooLarge, o.MaxOutput)
	}
	return res
}

// stopReason tells apart the endings Run causes, by the context's cause.
func stopReason(ctx context.Context, name string, o Options) (Reason, error) {
	cause := context.Cause(ctx)
	switch {
	case errors.Is(cause, errTimeout):
		return TimedOut, fmt.Errorf("%s %w after %s", name, errTimeout, o.Timeout)
	case errors.Is(cause, errInactive):
		return Inactive, fmt.Errorf("%s stopped: %w for %s", name, errInactive, o.Inactivity)
	case errors.Is(cause, errWriteStall):
		return WriteStalled, fmt.Errorf("%s stopped: %w in %s", name, errWriteStall, o.WriteTimeout)
	case errors.Is(cause, errOutputTooLarge):
		return OutputTooLarge, fmt.Errorf("%s stopped: %w (more than %d bytes)", name, errOutputTooLarge, o.MaxOutput)
	case errors.Is(cause, ErrOutputWrite):
		return WriteFailed, fmt.Errorf("%s stopped: %w", name, cause)
	}
	return Canceled, fmt.Errorf("%s stopped: %w", name, cause)
}

// startError turns an exec start error into an exit code and a one-line error.
func startError(name string, err error) (int, error) {
	if errors.Is(err, exec.ErrNotFound) {
		return 127, fmt.Errorf("start %s: executable file not found in $PATH (install it or fix PATH)", name)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		if errors.Is(pe.Err, fs.ErrNotExist) {
			return 127, fmt.Errorf("start %s: %w", name, pe.Err)
		}
		return 126, fmt.Errorf("start %s: %w", name, pe.Err)
	}
	return 126, fmt.Errorf("start %s: %w", filepath.Base(name), err)
}

// ExitCode is the shell-style status of a reaped process: its exit
// status, or 128 + the signal's number when a signal ended it; -1 for
// none.
func ExitCode(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// pipes are the child's stdio. Run owns both ends so that it decides when to
// stop reading, not exec.Cmd.
type pipes struct {
	outR, outW, errR, errW, inR, inW *os.File
}

func newPipes(withStdin, combined bool) (*pipes, error) {
	p := &pipes{}
	var err error
	if p.outR, p.outW, err = os.Pipe(); err != nil {
		return nil, err
	}
	growPipe(p.outR)
	if !combined {
		if p.errR, p.errW, err = os.Pipe(); err != nil {
			p.closeChild()
			p.closeParent()
			return nil, err
		}
	}
	if withStdin {
		if p.inR, p.inW, err = os.Pipe(); err != nil {
			p.closeChild()
			p.closeParent()
			return nil, err
		}
	}
	return p, nil
}

// read copies the output pipes to out until they reach EOF or are closed.
func (p *pipes) read(out *output) *sync.WaitGroup {
	var readers sync.WaitGroup
	readers.Go(func() { out.copy(p.outR, 0) })
	if p.errR != nil {
		readers.Go(func() { out.copy(p.errR, 1) })
	}
	return &readers
}

// feed writes stdin to the child, then closes the pipe so that it reads
// EOF; it does nothing when the child's stdin is /dev/null.
func (p *pipes) feed(stdin string) {
	if p.inW == nil {
		return
	}
	go func() {
		_, _ = io.WriteString(p.inW, stdin)
		_ = p.inW.Close() // a second close in closeParent is harmless
	}()
}

// drain waits for the readers. Everything in the group is dead, so the
// pipes reach EOF as soon as the kernel has reaped it; only a process that
// left the group could still hold them. Such a process gets the grace
// period, then the reading stops.
func (p *pipes) drain(readers *sync.WaitGroup, grace time.Duration) {
	drained := make(chan struct{})
	go func() { readers.Wait(); close(drained) }()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-drained:
	case <-t.C:
		p.closeRead()
		<-drained
	}
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		if f != nil {
			_ = f.Close()
		}
	}
}

// closeChild closes the ends the child inherited.
func (p *pipes) closeChild() { closeAll(p.outW, p.errW, p.inR) }

// closeRead unblocks the output readers.
func (p *pipes) closeRead() { closeAll(p.outR, p.errR) }

// closeParent closes Run's own ends.
func (p *pipes) closeParent() { closeAll(p.outR, p.errR, p.inW) }
