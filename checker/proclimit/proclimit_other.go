//go:build !linux

package proclimit

import (
	"context"
	"os"
	"os/exec"
)

// CommandContext is exec.CommandContext here: there are no limits to set
// before the program runs.
func CommandContext(ctx context.Context, name string, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, name, args...)
}

// Start starts cmd; lim is not set (see the package's doc).
func Start(cmd *exec.Cmd, lim Limits) error { return cmd.Start() }

// Supported reports whether Set bounds a process on this system: not here
// (see the package's doc).
const Supported = false

// Set does nothing here: this system has no way to set another process's
// limits.
func Set(pid int, lim Limits) error { return nil }

// Peak returns 0: unknown here.
func Peak(ps *os.ProcessState) int64 { return 0 }

// OverCPU returns false: no CPU limit is set here.
func OverCPU(ps *os.ProcessState, lim Limits) bool { return false }
