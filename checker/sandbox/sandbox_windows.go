package sandbox

import (
	"errors"
	"os/exec"
	"strconv"
	"sync"
)

// A Proc is a program started by Start.
type Proc struct {
	cmd    *exec.Cmd
	mu     sync.Mutex
	waited bool
}

// Start starts s.Path. There is no sandbox on Windows, and no file
// descriptors to pass: s.Isolate and s.ExtraFiles are refused. A process
// the program starts can outlive it.
func Start(s *Spec) (*Proc, error) {
	if s.Isolate {
		return nil, errors.New("sandbox: not available on windows")
	}
	if len(s.ExtraFiles) > 0 {
		return nil, errors.New("sandbox: no extra files on windows")
	}
	cmd := &exec.Cmd{Path: s.Path, Args: s.Args, Env: s.Env, Dir: s.Dir, Stdout: s.Stdout, Stderr: s.Stderr}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &Proc{cmd: cmd}, nil
}

func probe() (bool, string) {
	return false, "no sandbox on windows"
}

// Pid is the program's process ID.
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Isolated reports whether the program runs in the sandbox: never here.
func (p *Proc) Isolated() bool { return false }

// Kill kills the program and the processes it started that still run.
func (p *Proc) Kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.waited {
		_ = exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(p.cmd.Process.Pid)).Run()
		_ = p.cmd.Process.Kill()
	}
}

// Wait waits for the program to exit.
func (p *Proc) Wait() error {
	err := p.cmd.Wait()
	p.mu.Lock()
	p.waited = true
	p.mu.Unlock()
	return err
}

// Memory is not measured on Windows: 0.
func (p *Proc) Memory() int64 { return 0 }

// MemoryOf is not measured on Windows: 0.
func MemoryOf(pid int) int64 { return 0 }
