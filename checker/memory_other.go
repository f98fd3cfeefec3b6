//go:build !linux

package checker

// memoryLimitEnforced says whether MaxMemory works on this system: the
// watchdog reads /proc, which only Linux has.
const memoryLimitEnforced = false

// groupRSS is not available here: the memory limit is not enforced.
func groupRSS(pgid int) int64 { return 0 }
