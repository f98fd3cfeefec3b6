//go:build kata_interleave && (amd64 || arm64)

package sched

// On amd64 and arm64 a controlled thread is known by its goroutine's g,
// the runtime's own record of the goroutine, read in two instructions
// (self_amd64.s, self_arm64.s): the runtime keeps the running goroutine's
// g in thread-local storage or a register. Two goroutines alive at once
// never share a g, and a goroutine keeps its g from start to exit; a
// controlled thread registers once it runs and leaves before it exits, so
// a g in kitThreads is always the thread's. No system call, no traceback,
// no lock of the runtime's, and the threads need not be bound to OS
// threads: a hand-over between two of them is a goroutine switch.

// kitGetg is in self_$GOARCH.s.
func kitGetg() uintptr

// kitBind has nothing to do: a goroutine's g does not change.
func kitBind() (unbind func()) { return func() {} }

// kitSelf identifies the calling goroutine among the controlled threads.
func kitSelf() uint64 { return uint64(kitGetg()) }
