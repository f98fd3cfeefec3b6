package liveprocs

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
)

// WithEnv returns the live processes (zombies left out: they have ended
// and only wait to be reaped) whose environment contains needle, such as
// "MARKER=x\x00" for the variable MARKER set to x exactly.
func WithEnv(needle string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(env, []byte(needle)) {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && !bytes.Contains(stat, []byte(") Z ")) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// Kill kills each of pids; one that has ended meanwhile is no error.
func Kill(pids []int) {
	for _, pid := range pids {
		if p, err := os.FindProcess(pid); err == nil {
			_ = p.Kill()
		}
	}
}
