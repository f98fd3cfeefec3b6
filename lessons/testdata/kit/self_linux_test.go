//go:build kata_interleave && linux && !amd64 && !arm64

package sched

import (
	"runtime"
	"syscall"
)

// On Linux, on processors other than amd64 and arm64 (which read the
// goroutine's g: self_getg_test.go), a controlled thread is known by its
// OS thread: kitBind locks
// the goroutine to the thread it is on, and kitSelf is the calling
// thread's ID (gettid, a fast system call; the goroutine ID, read from
// runtime.Stack, costs a traceback and the runtime's print lock, most of
// an interleaving test's time).
//
// The ID of a goroutine not locked to its thread is stale as soon as it is
// read: it may move, and its old thread may be locked by a controlled
// thread a moment later. So kitSelf is read, and looked up, under
// kitThreads' lock; a controlled thread registers after kitBind and
// leaves before its unbind, both under that lock; so a thread found in
// the map is locked to the ID read, and the goroutine that read it, on
// that thread at that instant, is the controlled one.

// kitBind locks the calling goroutine to its thread; the result undoes it.
func kitBind() (unbind func()) {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}

// kitSelf identifies the calling goroutine among the controlled threads;
// call it with kitThreads held.
func kitSelf() uint64 { return uint64(syscall.Gettid()) }
