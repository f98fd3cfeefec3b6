package sched

import (
	"sync"
	"sync/atomic"
)

// The atomics of the lock-free protocols the lessons build: the ring's
// head and tail (atomicRingIndex: a point after each write too), its
// slots (atomicRingSlot), runnext,
// nmspinning, the G and P statuses, the claim and
// the deadline of the M that waits for timers (sched.lastpoll,
// sched.pollUntil), what sysmon reads of a running P (its ticks, its M,
// and that M's current G), and the flag of sysmon's deep sleep
// (sched.sysmonwait); and every other atomic that threads share and a
// lesson can reach: npidle, needspinning, gomaxprocs, idlepMask's words,
// gcwaiting, closing, timer0When, the global queue's size hint, the free
// G count and the preempt flags. Memory shared without a scheduling point
// is where a controlled run and a real one differ: a lesson file that
// watched npidle in a loop saw other threads change it only on real CPUs,
// and ran a mistake only there (a twenty-second red team). Each is a sync/atomic value behind the same methods
// (Load, Store, CompareAndSwap, Add, Swap), so code reads as if it used
// sync/atomic directly; what the type adds is a scheduling point
// (schedPoint) before every operation.
//
// A scheduling point exists only in the hidden tests' builds (the build
// tag kata_interleave, which kata sets for them; see interleave.go). They
// install a hook there to run a few threads one operation at a time in an
// order they choose (a controlled scheduler, as Microsoft's CHESS or
// Tokio's loom do), so a race whose window is a few instructions wide is
// found by design rather than by the luck of the host's timing. In every
// other build (a learner's go test, kata bench, kata trace) schedPoint is
// an empty function (nointerleave.go): the methods inline to the bare
// sync/atomic operation and cost nothing.
//
// Each type is defined on its sync/atomic type (not a struct around it),
// so it has no field a caller could reach past the scheduling point, and
// the same methods in every build.

// atomicBool is an atomic.Bool whose operations are scheduling points.
type atomicBool atomic.Bool

func (a *atomicBool) Load() bool     { schedPoint(); return (*atomic.Bool)(a).Load() }
func (a *atomicBool) Store(val bool) { schedPoint(); (*atomic.Bool)(a).Store(val) }
func (a *atomicBool) Swap(new bool) (old bool) {
	schedPoint()
	return (*atomic.Bool)(a).Swap(new)
}
func (a *atomicBool) CompareAndSwap(old, new bool) bool {
	schedPoint()
	return (*atomic.Bool)(a).CompareAndSwap(old, new)
}

// atomicUint32 is an atomic.Uint32 whose operations are scheduling points.
type atomicUint32 atomic.Uint32

func (a *atomicUint32) Load() uint32            { schedPoint(); return (*atomic.Uint32)(a).Load() }
func (a *atomicUint32) Store(val uint32)        { schedPoint(); (*atomic.Uint32)(a).Store(val) }
func (a *atomicUint32) Add(delta uint32) uint32 { schedPoint(); return (*atomic.Uint32)(a).Add(delta) }
func (a *atomicUint32) CompareAndSwap(old, new uint32) bool {
	schedPoint()
	return (*atomic.Uint32)(a).CompareAndSwap(old, new)
}
func (a *atomicUint32) Or(mask uint32) (old uint32) {
	schedPoint()
	return (*atomic.Uint32)(a).Or(mask)
}
func (a *atomicUint32) And(mask uint32) (old uint32) {
	schedPoint()
	return (*atomic.Uint32)(a).And(mask)
}

// atomicRingIndex is the head or the tail of a P's ring (runqhead, runqtail): an
// atomic.Uint32 whose operations are scheduling points, and whose writes
// are followed by one too: a thread can be stopped right after it moved
// an index, before the slot accesses next to it. A tail stored before the
// slot it publishes is written, or a batch copied after the CAS that gave
// its slots back to the owner, is then a schedule the hidden tests'
// explorer runs, not a race of real threads that happens some runs in ten.
type atomicRingIndex atomic.Uint32

func (a *atomicRingIndex) Load() uint32 {
	h := pointHooksNow()
	h.at()
	v := (*atomic.Uint32)(a).Load()
	h.did(a, ringLoad, v, v)
	return v
}
func (a *atomicRingIndex) Store(val uint32) {
	h := pointHooksNow()
	h.at()
	(*atomic.Uint32)(a).Store(val)
	h.did(a, ringStore, val, val)
	schedPoint()
}
func (a *atomicRingIndex) Add(delta uint32) uint32 {
	h := pointHooksNow()
	h.at()
	n := (*atomic.Uint32)(a).Add(delta)
	h.did(a, ringStore, n, n)
	schedPoint()
	return n
}
func (a *atomicRingIndex) CompareAndSwap(old, new uint32) bool {
	h := pointHooksNow()
	h.at()
	if !(*atomic.Uint32)(a).CompareAndSwap(old, new) {
		return false // nothing written: nothing to see between here and the caller's next step
	}
	h.did(a, ringCAS, old, new)
	schedPoint()
	return true
}

// ringOp is what an operation of a ring's head or tail did, for the hidden
// tests' hook (pointHooks.did): read v (ringLoad: old and new are both v), wrote v
// (ringStore), or moved it from old to new (ringCAS, one that succeeded).
type ringOp uint8

const (
	ringLoad ringOp = iota
	ringStore
	ringCAS
)

// atomicRingSlot is a slot of a P's ring (p.runq), or of the batch a thief
// copies into: an atomic.Pointer[g] whose operations are scheduling points
// (slotPoint), like every other location the lessons share between
// threads without a lock. A slot no controlled schedule could interrupt
// would be a value a file can watch: under the hidden tests one thread
// runs at a time, so a thief that read the owner's next slot thousands of
// times saw it never move there, and move on real threads, and ran the
// right protocol only when watched (a nineteenth red team did, and earned
// 100 for a ring that earns 74). Now a thread that loops on a slot is a
// thread that spins, and the controlled scheduler runs the others.
type atomicRingSlot atomic.Pointer[g]

func (a *atomicRingSlot) Load() *g    { slotPoint(); return (*atomic.Pointer[g])(a).Load() }
func (a *atomicRingSlot) Store(gp *g) { slotPoint(); (*atomic.Pointer[g])(a).Store(gp) }
func (a *atomicRingSlot) Swap(new *g) (old *g) {
	slotPoint()
	return (*atomic.Pointer[g])(a).Swap(new)
}
func (a *atomicRingSlot) CompareAndSwap(old, new *g) bool {
	slotPoint()
	return (*atomic.Pointer[g])(a).CompareAndSwap(old, new)
}

// atomicInt32 is an atomic.Int32 whose operations are scheduling points.
type atomicInt32 atomic.Int32

func (a *atomicInt32) Load() int32           { schedPoint(); return (*atomic.Int32)(a).Load() }
func (a *atomicInt32) Store(val int32)       { schedPoint(); (*atomic.Int32)(a).Store(val) }
func (a *atomicInt32) Add(delta int32) int32 { schedPoint(); return (*atomic.Int32)(a).Add(delta) }
func (a *atomicInt32) CompareAndSwap(old, new int32) bool {
	schedPoint()
	return (*atomic.Int32)(a).CompareAndSwap(old, new)
}

// atomicInt64 is an atomic.Int64 whose operations are scheduling points.
type atomicInt64 atomic.Int64

func (a *atomicInt64) Load() int64           { schedPoint(); return (*atomic.Int64)(a).Load() }
func (a *atomicInt64) Store(val int64)       { schedPoint(); (*atomic.Int64)(a).Store(val) }
func (a *atomicInt64) Add(delta int64) int64 { schedPoint(); return (*atomic.Int64)(a).Add(delta) }
func (a *atomicInt64) Swap(new int64) (old int64) {
	schedPoint()
	return (*atomic.Int64)(a).Swap(new)
}
func (a *atomicInt64) CompareAndSwap(old, new int64) bool {
	schedPoint()
	return (*atomic.Int64)(a).CompareAndSwap(old, new)
}

// atomicPointer is an atomic.Pointer whose operations are scheduling
// points.
type atomicPointer[T any] atomic.Pointer[T]

func (a *atomicPointer[T]) Load() *T     { schedPoint(); return (*atomic.Pointer[T])(a).Load() }
func (a *atomicPointer[T]) Store(val *T) { schedPoint(); (*atomic.Pointer[T])(a).Store(val) }
func (a *atomicPointer[T]) Swap(new *T) (old *T) {
	schedPoint()
	return (*atomic.Pointer[T])(a).Swap(new)
}
func (a *atomicPointer[T]) CompareAndSwap(old, new *T) bool {
	schedPoint()
	return (*atomic.Pointer[T])(a).CompareAndSwap(old, new)
}

// mutex is the lock of the scheduler's lists (sched.lock): a sync.Mutex
// with the same methods (Lock, Unlock, TryLock), whose Lock is a
// scheduling point too. A thread the hidden tests' controlled scheduler
// pauses while it holds the lock would otherwise stop every other thread
// that asks for it inside sync.Mutex, where no scheduling point is: the
// protocols built around sched.lock (wakep, park_m and ready, sysmon's
// deep sleep) could not be run one operation at a time. In their build
// (interleave.go), a Lock that finds the lock held tells the controller
// its thread waits, and the controller runs the others until the lock is
// released; in every other build (nointerleave.go) the methods are
// sync.Mutex's own, inlined.
type mutex sync.Mutex
