//go:build kata_interleave

package sched

import (
	"sync"
	"sync/atomic"
)

// This file is compiled only with the build tag kata_interleave, which
// kata sets when it builds the hidden tests (and no other build): the
// scheduling points of the atomics (atomics.go) and the hook the hidden
// tests' controlled scheduler installs. A hidden test built without the
// tag does not compile (undefined: setInterleaveHook); it cannot pass
// without the interleavings it asks for. Build them with
// go test -tags kata_interleave, as kata does.

// interleaveHook, if set, holds the hooks of the atomics of atomics.go:
// point is called before every operation, on the goroutine making it, and
// ring after every operation of a ring's head or tail that read or wrote
// it (see ringIndexHook's setter). They share one pointer so that an
// operation of a ring's index loads one, not two: under the race detector
// each atomic load is a call into it, and the real-thread steal test made
// a few million of them (0.78 s against 0.60 s with two).
var interleaveHook atomic.Pointer[pointHooks]

// pointHooks are the hooks of interleaveHook; a nil *pointHooks has none.
type pointHooks struct {
	point func()
	ring  func(a *atomicRingIndex, op ringOp, old, new uint32)
}

// hooksMu serializes the setters (changeHooks), which each replace
// interleaveHook's hooks with a copy that changes one of them.
var hooksMu sync.Mutex

// setInterleaveHook installs hook (nil: none) and returns the one before.
func setInterleaveHook(hook func()) (old func()) {
	changeHooks(func(h *pointHooks) { old, h.point = h.point, hook })
	return old
}

// setRingIndexHook installs hook (nil: none), called after every
// operation of a ring's head or tail (atomicRingIndex) that read or wrote
// it, on the goroutine that made it, with what it read or wrote, and
// returns the one before. The hidden tests record with it what a thief
// read, and judge the size of its steal by the head and tail it saw: on
// real threads too, where a file could otherwise take the wrong half only
// when it saw other threads at work (a twenty-fifth red team's did, and
// earned 100 for a ring that earns 44).
func setRingIndexHook(hook func(a *atomicRingIndex, op ringOp, old, new uint32)) (old func(a *atomicRingIndex, op ringOp, old, new uint32)) {
	changeHooks(func(h *pointHooks) { old, h.ring = h.ring, hook })
	return old
}

// changeHooks installs a copy of the hooks installed now, changed by
// change (nil if it leaves none).
func changeHooks(change func(h *pointHooks)) {
	hooksMu.Lock()
	defer hooksMu.Unlock()
	var h pointHooks
	if cur := interleaveHook.Load(); cur != nil {
		h = *cur
	}
	change(&h)
	if h.point == nil && h.ring == nil {
		interleaveHook.Store(nil)
		return
	}
	interleaveHook.Store(&h)
}

// pointHooksNow returns the hooks installed now, or nil.
func pointHooksNow() *pointHooks { return interleaveHook.Load() }

// at is the scheduling point of h: its point hook, if any.
func (h *pointHooks) at() {
	if h != nil && h.point != nil {
		h.point()
	}
}

// did tells h's ring hook, if any, what an operation of a ring's index did.
func (h *pointHooks) did(a *atomicRingIndex, op ringOp, old, new uint32) {
	if h != nil && h.ring != nil {
		h.ring(a, op, old, new)
	}
}

// schedPoint is a scheduling point: see interleaveHook. Without a hook it
// costs one atomic load.
func schedPoint() { pointHooksNow().at() }

// slotHook, if set, is called instead of interleaveHook before every
// operation of a ring's slot (atomicRingSlot). The exhaustive explorer
// sets it: a run of slot operations one thread makes is one place where it
// may switch threads, not one per slot (a steal copies up to 128), though
// each counts toward the points a spinning thread makes before it is
// switched out.
var slotHook atomic.Pointer[func()]

// setSlotHook installs hook (nil: none) and returns the one before.
func setSlotHook(hook func()) (old func()) {
	var p *func()
	if hook != nil {
		p = &hook
	}
	if prev := slotHook.Swap(p); prev != nil {
		return *prev
	}
	return nil
}

// slotPoint is the scheduling point of a ring's slot: see slotHook.
func slotPoint() {
	if h := slotHook.Load(); h != nil {
		(*h)()
		return
	}
	schedPoint()
}

// lockHooks, if set, are called by a mutex's Lock that finds it held
// (wait, on the goroutine that asks for it) and by every Unlock (released,
// after the release). wait returns false if the goroutine is none of the
// controlled scheduler's threads: it then blocks in sync.Mutex.Lock as
// usual. Otherwise wait returns once the controller gives the thread its
// turn again, after the lock was released, and Lock tries again.
type lockHooks struct {
	wait     func(l *mutex) bool
	released func(l *mutex)
}

var lockHook atomic.Pointer[lockHooks]

// setLockHooks installs h (nil: none) and returns the ones before.
func setLockHooks(h *lockHooks) (old *lockHooks) {
	return lockHook.Swap(h)
}

// Lock is a scheduling point, then sync.Mutex's Lock; a controlled thread
// that finds the lock held waits in the controller (lockHooks.wait), not in
// sync.Mutex, so that the others can run, the holder among them.
func (l *mutex) Lock() {
	schedPoint()
	mu := (*sync.Mutex)(l)
	if mu.TryLock() {
		return
	}
	if h := lockHook.Load(); h != nil {
		for h.wait(l) {
			if mu.TryLock() {
				return
			}
		}
	}
	mu.Lock()
}

// Unlock is sync.Mutex's, then tells the controller the threads waiting
// for l may go on. Not a scheduling point: what the holder did under the
// lock, no other thread could see, so no order of the others before or
// after the release is missed without one.
func (l *mutex) Unlock() {
	(*sync.Mutex)(l).Unlock()
	if h := lockHook.Load(); h != nil {
		h.released(l)
	}
}

// TryLock is a scheduling point, then sync.Mutex's TryLock.
func (l *mutex) TryLock() bool {
	schedPoint()
	return (*sync.Mutex)(l).TryLock()
}
