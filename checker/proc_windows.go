//go:build windows

package checker

import (
	"os/exec"
	"strconv"
)

// setProcessGroup does nothing on Windows: killProcessGroup kills the tree.
func setProcessGroup(cmd *exec.Cmd) {}

// killProcessGroup kills cmd and every process it started.
func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(cmd.Process.Pid)).Run()
		_ = cmd.Process.Kill()
	}
}
