package sched

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// This file is a Mutex and a WaitGroup for Gs, built on gopark: a G that
// must wait parks and frees its M and P for others, instead of blocking the
// whole M as a sync.Mutex would. (The runtime builds sync on semaphores,
// sema.go; a FIFO of sudogs under a lock is the same idea without the
// address-keyed table.)

// A Mutex is a mutual exclusion lock for Gs. Unlock hands the lock directly
// to the longest waiter, so it is fair (like sync.Mutex in starvation mode).
// The zero value is unlocked.
type Mutex struct {
	lock    sync.Mutex
	locked  bool
	waiters waitq
}

// Lock locks mu, parking gp until it is available.
func (mu *Mutex) Lock(gp *G) {
	gp.checkRunning("Mutex.Lock")
	gp.Safepoint()
	mu.lock.Lock()
	if !mu.locked {
		mu.locked = true
		mu.lock.Unlock()
		return
	}
	sg := acquireSudog(gp)
	gp.waiting = sg
	mu.waiters.enqueue(sg)
	gopark(gp, parkunlock, unsafe.Pointer(&mu.lock), waitReasonSyncMutexLock)
	// Unlock handed the lock to us: mu.locked stayed true.
	gp.waiting = nil
	releaseSudog(sg)
}

// TryLock locks mu if it is free and reports whether it did.
func (mu *Mutex) TryLock() bool {
	mu.lock.Lock()
	defer mu.lock.Unlock()
	if mu.locked {
		return false
	}
	mu.locked = true
	return true
}

// Unlock unlocks mu, handing it to the first waiting G if there is one.
// Unlocking an unlocked Mutex panics.
func (mu *Mutex) Unlock(gp *G) {
	gp.checkRunning("Mutex.Unlock")
	mu.lock.Lock()
	if !mu.locked {
		mu.lock.Unlock()
		panic("sched: unlock of unlocked Mutex")
	}
	sg := mu.waiters.dequeue()
	if sg == nil {
		mu.locked = false
		mu.lock.Unlock()
		return
	}
	mu.lock.Unlock()
	goready(gp.m, sg.g)
}

// A WaitGroup waits for a count of events (usually Gs finishing). The zero
// value is a count of zero.
//
// Like sync.WaitGroup, it keeps the count and the number of waiters in one
// atomic word, so that Add and a Done that does not release anyone are one
// atomic add: a lock there would be taken and handed between Ms on every
// Done of many Gs finishing at once on several Ms. Only Wait, and the Done
// that releases the waiters, take the lock, which guards the waiter queue.
type WaitGroup struct {
	state   atomic.Uint64 // high 32 bits: the count; low 32 bits: the waiters
	lock    sync.Mutex
	waiters waitq // the waiting Gs' sudogs, as many as state counts (under lock)
}

// Add adds delta to the count. It may be called from anywhere, but it may
// not release waiters: bring the count to zero with Done, from a G.
func (wg *WaitGroup) Add(delta int) {
	state := wg.state.Add(uint64(delta) << 32)
	v := int32(state >> 32) // the count
	w := uint32(state)      // the waiters
	if v < 0 {
		panic("sched: negative WaitGroup counter")
	}
	if v == 0 && w != 0 {
		panic("sched: WaitGroup.Add brought the counter to zero with Gs waiting; call Done from a G")
	}
}

// Done decrements the count, readying every waiting G when it reaches zero.
func (wg *WaitGroup) Done(gp *G) {
	gp.checkRunning("WaitGroup.Done")
	state := wg.state.Add(^uint64(1<<32 - 1)) // count - 1
	v := int32(state >> 32)
	w := uint32(state)
	if v < 0 {
		panic("sched: negative WaitGroup counter")
	}
	if v > 0 || w == 0 {
		return
	}
	// The count reached zero with waiters: they were counted under the
	// lock, and each parked before its Wait let the lock go, so every one
	// of them is on the queue once we hold it.
	var glist gList
	wg.lock.Lock()
	for sg := wg.waiters.dequeue(); sg != nil; sg = wg.waiters.dequeue() {
		glist.push(sg.g)
		wg.state.Add(^uint64(0)) // waiters - 1
	}
	wg.lock.Unlock()
	for !glist.empty() {
		goready(gp.m, glist.pop())
	}
}

// Wait parks gp until the count is zero.
func (wg *WaitGroup) Wait(gp *G) {
	gp.checkRunning("WaitGroup.Wait")
	gp.Safepoint()
	for {
		state := wg.state.Load()
		if state>>32 == 0 {
			return
		}
		// Count ourselves as a waiter, unless the count changed meanwhile
		// (then look again): the Done that brings it to zero then sees us
		// and takes the lock, which we release only once parked.
		wg.lock.Lock()
		if wg.state.CompareAndSwap(state, state+1) {
			sg := acquireSudog(gp)
			gp.waiting = sg
			wg.waiters.enqueue(sg)
			gopark(gp, parkunlock, unsafe.Pointer(&wg.lock), waitReasonSyncWaitGroupWait)
			gp.waiting = nil
			releaseSudog(sg)
			return
		}
		wg.lock.Unlock()
	}
}
