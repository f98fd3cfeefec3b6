//go:build !linux && !windows

package checker

// memoryLimitEnforced says whether MaxMemory works on this system.
const memoryLimitEnforced = true

// groupRSS returns the resident memory of process group pgid: with no
// /proc to read, it asks ps, which costs a process every 200 ms of a run.
func groupRSS(pgid int) int64 { return psGroupRSS(pgid) }
