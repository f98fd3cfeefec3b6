package threadcpu

import (
	"runtime"
	"syscall"
	"time"
)

// Of runs f on one locked thread and returns the CPU time that thread
// spent: work, not the wait for a core.
func Of(f func()) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var before, after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_THREAD, &before)
	f()
	syscall.Getrusage(syscall.RUSAGE_THREAD, &after)
	return time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
}
