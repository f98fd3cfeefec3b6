//go:build !linux && !windows

package sandbox

import (
	"errors"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// A Proc is a program started by Start, in a session and process group
// of its own.
type Proc struct {
	cmd    *exec.Cmd
	mu     sync.Mutex
	waited bool
}

// Start starts s.Path in a session and process group of its own, with no
// controlling terminal, so that it cannot open kata's (/dev/tty) nor push
// input into it. There is no sandbox on this system: s.Isolate is
// refused, and a process that leaves the group (setsid) outlives the run.
func Start(s *Spec) (*Proc, error) {
	if s.Isolate {
		return nil, errors.New("sandbox: not available on " + runtime.GOOS)
	}
	cmd := &exec.Cmd{Path: s.Path, Args: s.Args, Env: s.Env, Dir: s.Dir, Stdout: s.Stdout, Stderr: s.Stderr,
		ExtraFiles: s.ExtraFiles, SysProcAttr: &syscall.SysProcAttr{Setsid: true}}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &Proc{cmd: cmd}, nil
}

func probe() (bool, string) {
	return false, "no user namespaces on " + runtime.GOOS
}

// Pid is the program's process ID.
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Isolated reports whether the program runs in the sandbox: never here.
func (p *Proc) Isolated() bool { return false }

// Kill kills the program's process group.
func (p *Proc) Kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.waited {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		_ = p.cmd.Process.Kill()
	}
}

// Wait waits for the program to exit, then kills what is left of its
// process group.
func (p *Proc) Wait() error {
	err := p.cmd.Wait()
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	p.mu.Lock()
	p.waited = true
	p.mu.Unlock()
	return err
}

// Memory returns the resident memory of the program and its descendants.
func (p *Proc) Memory() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.waited {
		return 0
	}
	return MemoryOf(p.cmd.Process.Pid)
}
