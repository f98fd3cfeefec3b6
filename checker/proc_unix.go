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

// passedEnv are the variables of kata's environment a test binary gets,
// if set: how the Go runtime and the race detector are tuned, and the
// locale.
var passedEnv = []string{"GOMAXPROCS", "GODEBUG", "GORACE", "GOTRACEBACK", "TZ", "LANG", "LC_ALL"}

// runEnv is the whole environment of a run of the test binary: nothing of
// kata's but passedEnv, and tmp for a home and temporary directory. (The
// test binary needs nothing else; the harness's secret is not in it.)
func (r *run) runEnv(tmp string) []string {
	env := []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + tmp, "TMPDIR=" + tmp}
	for _, name := range passedEnv {
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	return env
}
