//go:build !linux && !windows

package sandbox

import "os/exec"

// processes asks ps(1) for the process table: the way to read it on a
// Unix without /proc (macOS, the BSDs). It costs a process every call.
func processes() []proc {
	out, err := exec.Command("ps", "-A", "-o", "pid=,ppid=,rss=").Output()
	if err != nil {
		return nil
	}
	return parsePS(out)
}

// MemoryOf returns the resident memory, in bytes, of process pid and of
// every process it started that is still its descendant (a process whose
// parent exited is adopted by launchd, and no longer counted).
func MemoryOf(pid int) int64 {
	return treeMemory(processes(), pid)
}
