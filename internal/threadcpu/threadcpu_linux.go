package threadcpu

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// Of runs f on one locked thread and returns the CPU time that thread
// spent: work, not the wait for a core. It reads the thread's CPU clock
// (CLOCK_THREAD_CPUTIME_ID), which counts in nanoseconds; getrusage's
// RUSAGE_THREAD, read here before, is adjusted so as never to go back,
// and a few milliseconds of work could read as none.
func Of(f func()) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var before, after unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &before); err != nil {
		panic("threadcpu: " + err.Error())
	}
	f()
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &after); err != nil {
		panic("threadcpu: " + err.Error())
	}
	return time.Duration(after.Nano() - before.Nano())
}
