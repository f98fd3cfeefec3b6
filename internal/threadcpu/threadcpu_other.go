//go:build !linux

package threadcpu

import "time"

// Of runs f and returns the time it took: elsewhere than on Linux, a
// thread's own CPU time is not read, and the wall clock stands for it.
func Of(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}
