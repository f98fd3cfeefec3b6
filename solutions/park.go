package sched

import (
	"fmt"
	"unsafe"
)

// This file is how a G blocks and is woken: lesson 06-gopark. It mirrors
// gopark, park_m, goready and ready (proc.go, Go 1.26: 445, 4253, 481,
// 1120). Channels, Mutex, WaitGroup and Sleep are all built on it.
//
// The contract that makes blocking safe: a G that wants to wait (on a
// channel, say) takes the channel's lock, queues itself as a waiter, and
// calls gopark with an unlockf that releases the lock. gopark does not
// release it: park_m does, on the M, only after the G's status is
// _Gwaiting and its coroutine has stopped. So a sender that takes the lock
// and finds the waiter can goready it at once, with no window where the G is
// queued as waiting but still running.

// gopark puts the current G into a waiting state and calls unlockf(gp, lock)
// on the M once the G has stopped. If unlockf returns false, the G is resumed
// at once; if unlockf is nil, the G just parks. unlockf must not access this G's stack, since it may be moved
// between the call to gopark and the call to unlockf.
//
// Mirrors gopark (proc.go:445). Called by gp itself.
func gopark(gp *g, unlockf func(*g, unsafe.Pointer) bool, lock unsafe.Pointer, reason waitReason) {
	mp := gp.m
	if status := readgstatus(gp); status != _Grunning {
		panic("gopark: bad g status " + gStatusString(status))
	}
	mp.waitlock = lock
	mp.waitunlockf = unlockf
	gp.waitreason = reason
	mcall(gp, park_m)
}

// park_m is gopark's second half, run by the M after gp's coroutine has
// yielded: gp becomes _Gwaiting, leaves the M, and only then is unlockf run.
// Then the M forgets gopark's arguments (mp.waitunlockf and mp.waitlock
// back to nil), so that it keeps neither alive. If unlockf returned false,
// gp becomes _Grunnable and park_m returns gp, true: execute runs it again
// at once, and true lets it keep its time slice. With sched.trace set, it
// emits EvGoPark first (G gp, P and M mp's, Arg: the wait reason), and
// EvGoUnpark (Arg 0) when unlockf returned false.
//
// Mirrors park_m (proc.go:4253). mcall handler.
func park_m(mp *m, gp *g) (*g, bool) {
	sched := mp.sched
	if sched.trace != nil {
		sched.traceEvent(EvGoPark, gp.goid, mp.p.id, mp.id, int64(gp.waitreason))
	}
	casgstatus(gp, _Grunning, _Gwaiting)
	dropg(mp)

	if fn := mp.waitunlockf; fn != nil {
		ok := fn(gp, mp.waitlock)
		mp.waitunlockf = nil
		mp.waitlock = nil
		if !ok {
			if sched.trace != nil {
				sched.traceEvent(EvGoUnpark, gp.goid, mp.p.id, mp.id, 0)
			}
			casgstatus(gp, _Gwaiting, _Grunnable)
			return gp, true // Schedule it back at once.
		}
	}
	return nil, false
}

// goready makes gp runnable and puts it in the current P's runnext, so it
// runs next on this P: the G that readied it usually blocks soon after, and
// the two then share a time slice.
//
// Mirrors goready (proc.go:481). Called on an M that holds a P (by a running
// G, or by the scheduler running timers).
func goready(mp *m, gp *g) {
	ready(mp, gp, true)
}

// ready marks gp runnable and puts it on mp's P's run queue (in runnext if
// next), then wakes an M if there are idle Ps to run it: queue first, since
// the M woken may look for the G at once. With sched.trace set, it emits
// EvGoUnpark: G gp, P and M mp's, Arg 0.
//
// Mirrors ready (proc.go:1120).
func ready(mp *m, gp *g, next bool) {
	status := readgstatus(gp)
	if status != _Gwaiting {
		panic(fmt.Sprintf("ready: G %d is %s, not waiting: readied twice, or before it parked?", gp.goid, gStatusString(status)))
	}
	casgstatus(gp, _Gwaiting, _Grunnable)
	if mp.sched.trace != nil {
		mp.sched.traceEvent(EvGoUnpark, gp.goid, mp.p.id, mp.id, 0)
	}
	runqput(mp.p, gp, next)
	wakep(mp.sched)
}
