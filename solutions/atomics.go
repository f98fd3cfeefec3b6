package sched

import "sync/atomic"

// The atomics of the lock-free protocols the lessons build: the ring's
// head and tail, runnext, nmspinning, the G and P statuses, the claim and
// the deadline of the M that waits for timers (sched.lastpoll,
// sched.pollUntil), what sysmon reads of a running P (its ticks, its M,
// and that M's current G), and the flag of sysmon's deep sleep
// (sched.sysmonwait). Each is a sync/atomic value behind the same methods
// (Load, Store, CompareAndSwap, Add, Swap), so code reads as if it used
// sync/atomic directly; what the wrapper adds is a scheduling point before
// every operation.
//
// A scheduling point does nothing unless a test installs a hook
// (setInterleaveHook). The hidden tests do, to run a few threads one
// operation at a time in an order they choose (a controlled scheduler, as
// Microsoft's CHESS or Tokio's loom do), so a race whose window is a few
// instructions wide is found by design rather than by the luck of the
// host's timing. Without a hook a point costs one atomic load.

// interleaveHook, if set, is called before every operation of the atomics
// below, on the goroutine making it.
var interleaveHook atomic.Pointer[func()]

// setInterleaveHook installs hook (nil: none) and returns the one before.
func setInterleaveHook(hook func()) (old func()) {
	var p *func()
	if hook != nil {
		p = &hook
	}
	if prev := interleaveHook.Swap(p); prev != nil {
		return *prev
	}
	return nil
}

// schedPoint is a scheduling point: see interleaveHook.
func schedPoint() {
	if h := interleaveHook.Load(); h != nil {
		(*h)()
	}
}

// atomicBool is an atomic.Bool whose operations are scheduling points.
type atomicBool struct{ v atomic.Bool }

func (a *atomicBool) Load() bool     { schedPoint(); return a.v.Load() }
func (a *atomicBool) Store(val bool) { schedPoint(); a.v.Store(val) }
func (a *atomicBool) Swap(new bool) (old bool) {
	schedPoint()
	return a.v.Swap(new)
}
func (a *atomicBool) CompareAndSwap(old, new bool) bool {
	schedPoint()
	return a.v.CompareAndSwap(old, new)
}

// atomicUint32 is an atomic.Uint32 whose operations are scheduling points.
type atomicUint32 struct{ v atomic.Uint32 }

func (a *atomicUint32) Load() uint32            { schedPoint(); return a.v.Load() }
func (a *atomicUint32) Store(val uint32)        { schedPoint(); a.v.Store(val) }
func (a *atomicUint32) Add(delta uint32) uint32 { schedPoint(); return a.v.Add(delta) }
func (a *atomicUint32) CompareAndSwap(old, new uint32) bool {
	schedPoint()
	return a.v.CompareAndSwap(old, new)
}

// atomicInt32 is an atomic.Int32 whose operations are scheduling points.
type atomicInt32 struct{ v atomic.Int32 }

func (a *atomicInt32) Load() int32           { schedPoint(); return a.v.Load() }
func (a *atomicInt32) Store(val int32)       { schedPoint(); a.v.Store(val) }
func (a *atomicInt32) Add(delta int32) int32 { schedPoint(); return a.v.Add(delta) }
func (a *atomicInt32) CompareAndSwap(old, new int32) bool {
	schedPoint()
	return a.v.CompareAndSwap(old, new)
}

// atomicInt64 is an atomic.Int64 whose operations are scheduling points.
type atomicInt64 struct{ v atomic.Int64 }

func (a *atomicInt64) Load() int64           { schedPoint(); return a.v.Load() }
func (a *atomicInt64) Store(val int64)       { schedPoint(); a.v.Store(val) }
func (a *atomicInt64) Add(delta int64) int64 { schedPoint(); return a.v.Add(delta) }
func (a *atomicInt64) Swap(new int64) (old int64) {
	schedPoint()
	return a.v.Swap(new)
}
func (a *atomicInt64) CompareAndSwap(old, new int64) bool {
	schedPoint()
	return a.v.CompareAndSwap(old, new)
}

// atomicPointer is an atomic.Pointer whose operations are scheduling
// points.
type atomicPointer[T any] struct{ v atomic.Pointer[T] }

func (a *atomicPointer[T]) Load() *T             { schedPoint(); return a.v.Load() }
func (a *atomicPointer[T]) Store(val *T)         { schedPoint(); a.v.Store(val) }
func (a *atomicPointer[T]) Swap(new *T) (old *T) { schedPoint(); return a.v.Swap(new) }
func (a *atomicPointer[T]) CompareAndSwap(old, new *T) bool {
	schedPoint()
	return a.v.CompareAndSwap(old, new)
}
