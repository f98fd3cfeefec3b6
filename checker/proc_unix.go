//go:build !windows

package checker

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts go test and the test binary it starts in a process
// group of their own, so that a timeout kills both.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killProcessGroup kills cmd's whole process group.
func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
