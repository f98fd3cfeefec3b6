//go:build !windows

package checker

import (
	"os"
	"os/exec"
	"syscall"
)

// setProcessGroup puts a command and the processes it starts in a process
// group of their own, so that killProcessGroup kills them all.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killProcessGroup kills cmd's whole process group.
func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// runEnv is the whole environment of a run of the test binary: nothing of
// kata's but passedEnv, the same pinnedEnv for every run, and tmp for a
// home and temporary directory. (The test binary needs nothing else; the
// harness's secret is not in it.)
func (r *run) runEnv(tmp string) []string {
	env := append([]string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + tmp, "TMPDIR=" + tmp}, pinnedEnv...)
	for _, name := range passedEnv {
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	return env
}
