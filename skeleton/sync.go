package sched

import (
	"sync"
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
type WaitGroup struct {
	lock    sync.Mutex
	n       int64
	waiters waitq
}

// Add adds delta to the count. It may be called from anywhere, but it may
// not release waiters: bring the count to zero with Done, from a G.
func (wg *WaitGroup) Add(delta int) {
	wg.lock.Lock()
	defer wg.lock.Unlock()
	n := wg.n + int64(delta)
	if n < 0 {
		panic("sched: negative WaitGroup counter")
	}
	if n == 0 && wg.waiters.first != nil {
		panic("sched: WaitGroup.Add brought the counter to zero with Gs waiting; call Done from a G")
	}
	wg.n = n
}

// Done decrements the count, readying every waiting G when it reaches zero.
func (wg *WaitGroup) Done(gp *G) {
	gp.checkRunning("WaitGroup.Done")
	wg.lock.Lock()
	wg.n--
	if wg.n < 0 {
		wg.lock.Unlock()
		panic("sched: negative WaitGroup counter")
	}
	var glist gList
	if wg.n == 0 {
		for sg := wg.waiters.dequeue(); sg != nil; sg = wg.waiters.dequeue() {
			glist.push(sg.g)
		}
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
	wg.lock.Lock()
	if wg.n == 0 {
		wg.lock.Unlock()
		return
	}
	sg := acquireSudog(gp)
	gp.waiting = sg
	wg.waiters.enqueue(sg)
	gopark(gp, parkunlock, unsafe.Pointer(&wg.lock), waitReasonSyncWaitGroupWait)
	gp.waiting = nil
	releaseSudog(sg)
}
