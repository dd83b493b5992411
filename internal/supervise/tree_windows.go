package supervise

import (
	"os"
	"os/exec"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// tree is one call's processes: on Windows a Job Object that the command
// joins before it runs its first instruction, so that every process it
// starts belongs to the job too (none may break away). The command also
// leads a new console process group, the target of the graceful stop.
type tree struct {
	mu       sync.Mutex
	job      windows.Handle // 0 when no job could be made: only the leader is stopped
	attached bool
	stopped  bool // stop came before attach
}

// stopExitCode is the exit status TerminateJobObject gives the processes it
// ends, 128+SIGKILL as on Unix.
const stopExitCode = 137

func newTree() *tree {
	t := &tree{}
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return t
	}
	// Closing the last handle to the job (this process ending, even
	// killed) ends every process still in it.
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		_ = windows.CloseHandle(job)
		return t
	}
	t.job = job
	return t
}

// prepare starts the command suspended (attach resumes it once it is in
// the job) and in a new console process group. Windows has no sessions
// of the Unix kind: session is not used.
func (t *tree) prepare(cmd *exec.Cmd, _ bool) {
	flags := uint32(windows.CREATE_NEW_PROCESS_GROUP)
	if t.job != 0 {
		flags |= windows.CREATE_SUSPENDED
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: flags}
}

var ntResumeProcess = windows.NewLazySystemDLL("ntdll.dll").NewProc("NtResumeProcess")

// attach puts the started, suspended command into the job and lets it
// run; when a stop came first the job is ended instead. A command that
// cannot join the job still runs (stopped as a single process).
func (t *tree) attach(p *os.Process) {
	if t.job == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE|windows.PROCESS_SUSPEND_RESUME, false, uint32(p.Pid))
	if err != nil {
		_ = p.Kill() // suspended and out of reach: it would never run
		return
	}
	defer windows.CloseHandle(h)
	if windows.AssignProcessToJobObject(t.job, h) == nil {
		t.attached = true
	}
	if t.stopped {
		t.terminate(p)
		return
	}
	_, _, _ = ntResumeProcess.Call(uintptr(h))
}

// stop is the graceful stop: CTRL_BREAK_EVENT to the command's console
// process group (a console program's Ctrl+Break handler, or its default
// exit). Without a console to share it ends the job at once.
func (t *tree) stop(p *os.Process, _ string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.job != 0 && !t.attached {
		t.stopped = true
		return nil
	}
	if err := windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(p.Pid)); err != nil {
		t.terminate(p)
	}
	return nil
}

// kill ends every process left in the job.
func (t *tree) kill(p *os.Process) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.terminate(p)
}

func (t *tree) terminate(p *os.Process) {
	if t.attached {
		_ = windows.TerminateJobObject(t.job, stopExitCode)
		return
	}
	_ = p.Kill()
}

// close releases the job; anything still in it ends.
func (t *tree) close() {
	if t.job != 0 {
		_ = windows.CloseHandle(t.job)
	}
}
