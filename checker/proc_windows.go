package checker

import (
	"os"
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

// runEnv is the environment of a run of the test binary: what Windows
// needs to start a process (scrubbed, as an isolated build's), and tmp for
// the temporary directory.
func (r *run) runEnv(tmp string) []string {
	return append(scrubbed(os.Environ()), "TMP="+tmp, "TEMP="+tmp, "TMPDIR="+tmp)
}
