package proclimit

import "time"

// Limits bound one process.
type Limits struct {
	// Memory bounds what the process allocates (its heap and private
	// writable mappings: RLIMIT_DATA), in bytes; 0: no bound.
	Memory int64
	// Address bounds its whole address space (RLIMIT_AS), in bytes; 0: no
	// bound. A Go program reserves far more address space than it uses:
	// leave it 0 for one.
	Address int64
	// CPU bounds the CPU time it uses, rounded up to a second; 0: no bound.
	CPU time.Duration
}

// AddressSlack is what a C program's address space may hold beyond
// Limits.Memory: the program and its libraries, thread stacks, and
// read-only mappings of files (git maps pack files in windows; kata's git
// keeps them small).
const AddressSlack = 256 << 20

// cpuSeconds is lim.CPU in whole seconds, rounded up; 0 if unbounded.
func (lim Limits) cpuSeconds() uint64 {
	if lim.CPU <= 0 {
		return 0
	}
	return uint64((lim.CPU + time.Second - 1) / time.Second)
}

// An Error says that a process's limits could not be set (it was then
// killed).
type Error struct{ Err error }

func (e *Error) Error() string { return "setting its limits: " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }
