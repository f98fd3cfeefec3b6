//go:build !linux && !windows

package checker

// memoryLimitEnforced says whether MaxMemory works on this system: with
// no /proc to read, the watchdog asks ps (sandbox.MemoryOf), which costs
// a process every 200 ms of a run.
const memoryLimitEnforced = true
