//go:build kata_interleave && !linux && !amd64 && !arm64

package sched

// Elsewhere than Linux, on processors other than amd64 and arm64 (which
// read the goroutine's g: self_getg_test.go), a controlled thread is known
// by its goroutine ID (kitGoid): slower than Linux's thread ID (a traceback and the runtime's
// print lock at every scheduling point), the same answer.

// kitBind has nothing to do: a goroutine's ID does not change.
func kitBind() (unbind func()) { return func() {} }

// kitSelf identifies the calling goroutine among the controlled threads;
// call it with kitThreads held.
func kitSelf() uint64 { return kitGoid() }
