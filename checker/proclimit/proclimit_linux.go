package proclimit

import (
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Supported reports whether Set bounds a process on this system.
const Supported = true

// gateScript is the shell that a Command starts: it waits for a line on
// its standard input (Start writes it once the limits are set), then
// becomes the program, which inherits the limits and the rest of the
// input. The shell's read takes one byte at a time from a pipe, so none
// of the program's input is lost.
const gateScript = `IFS= read -r _ || exit 125; exec "$0" "$@"`

// CommandContext is exec.CommandContext for a program to be started by
// Start: it starts name only once its limits are set, so that nothing it
// does runs unbounded (a program started directly would run for the
// moment between its start and prlimit: time enough, on a busy machine,
// to allocate a quarter of a GiB).
func CommandContext(ctx context.Context, name string, args ...string) *exec.Cmd {
	path, err := exec.LookPath(name)
	if err != nil {
		return exec.CommandContext(ctx, name, args...) // Start says what is missing
	}
	return exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", gateScript, path}, args...)...)
}

// Start starts cmd (made by CommandContext), sets lim on it, and only
// then lets it become its program. A process whose limits could not be
// set is killed and waited for.
func Start(cmd *exec.Cmd, lim Limits) error {
	g := &gate{open: make(chan struct{})}
	in := cmd.Stdin
	if in == nil {
		in = strings.NewReader("")
	}
	g.r = io.MultiReader(strings.NewReader("\n"), in)
	cmd.Stdin = g
	if err := cmd.Start(); err != nil {
		return err
	}
	if err := Set(cmd.Process.Pid, lim); err != nil {
		cmd.Process.Kill()
		close(g.open)
		cmd.Wait()
		return &Error{err}
	}
	close(g.open)
	return nil
}

// gate is a reader that reads nothing until open is closed.
type gate struct {
	open chan struct{}
	r    io.Reader
}

func (g *gate) Read(p []byte) (int, error) {
	<-g.open
	return g.r.Read(p)
}

// Set sets lim on the process pid, which the caller has just started.
func Set(pid int, lim Limits) error {
	if lim.Memory > 0 {
		data := unix.Rlimit{Cur: uint64(lim.Memory), Max: uint64(lim.Memory)}
		if err := unix.Prlimit(pid, unix.RLIMIT_DATA, &data, nil); err != nil {
			return err
		}
	}
	if lim.Address > 0 {
		as := uint64(lim.Address)
		if err := unix.Prlimit(pid, unix.RLIMIT_AS, &unix.Rlimit{Cur: as, Max: as}, nil); err != nil {
			return err
		}
	}
	if s := lim.cpuSeconds(); s > 0 {
		if err := unix.Prlimit(pid, unix.RLIMIT_CPU, &unix.Rlimit{Cur: s, Max: s + 1}, nil); err != nil {
			return err
		}
	}
	return nil
}

// Peak returns the largest resident size, in bytes, that the process ps
// describes reached; 0 if unknown.
func Peak(ps *os.ProcessState) int64 {
	if ps == nil {
		return 0
	}
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss << 10 // KiB on Linux
	}
	return 0
}

// OverCPU reports whether the process ps describes was ended for using up
// its CPU time (SIGXCPU at the limit, SIGKILL at the hard limit a second
// later, after a CPU time at least the limit's).
func OverCPU(ps *os.ProcessState, lim Limits) bool {
	if ps == nil || lim.cpuSeconds() == 0 {
		return false
	}
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return false
	}
	switch ws.Signal() {
	case syscall.SIGXCPU:
		return true
	case syscall.SIGKILL:
		return ps.UserTime()+ps.SystemTime() >= lim.CPU
	}
	return false
}
