package checker

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
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
// needs to start a process (scrubbed, as an isolated build's, less what
// runs must not differ by: only passedEnv of the variables that tune Go,
// pinnedEnv for the locale and the time zone), and tmp for the temporary
// directory.
func (r *run) runEnv(tmp string) []string {
	var env []string
	for _, kv := range scrubbed(os.Environ()) {
		name, _, _ := strings.Cut(kv, "=")
		if !unpassedEnv[strings.ToUpper(name)] {
			env = append(env, kv)
		}
	}
	env = append(env, pinnedEnv...)
	return append(env, "TMP="+tmp, "TEMP="+tmp, "TMPDIR="+tmp)
}
