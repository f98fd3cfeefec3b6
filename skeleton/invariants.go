package sched

import (
	"errors"
	"fmt"
)

// This file checks the scheduler's invariants: the ones that really hold
// (the book's appendix explains the popular ones that do not). Debug mode
// checks them at every stop-the-world; Runtime.CheckInvariants on demand.

// assertLockHeld panics in debug mode if sched.lock is not held by anyone.
// (A sync.Mutex cannot say who holds it; TryLock can at least say nobody.)
//
// Mirrors assertLockHeld (lockrank_on.go).
func (sched *schedt) assertLockHeld(fn string) {
	if sched.cfg.debug && sched.lock.TryLock() {
		sched.lock.Unlock()
		panic(fn + ": sched.lock not held")
	}
}

// checkInvariants returns every invariant that does not hold. sched.lock
// must be held and the world stopped (by stopTheWorld, before startTheWorld
// restarts the Ps).
func (sched *schedt) checkInvariants() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("invariant: "+format, args...))
	}

	// Where each runnable G was found, to catch one in two queues at once.
	// (In one queue *at most*: Gs in transit, in a batch being moved or
	// leaving a syscall, are in none.)
	seen := map[*g]string{}
	queued := func(gp *g, where string) {
		if gp == nil {
			bad("nil G in %s", where)
			return
		}
		if prev, dup := seen[gp]; dup {
			bad("G %d is in %s and in %s", gp.goid, prev, where)
		}
		seen[gp] = where
		if s := readgstatus(gp); s != _Grunnable {
			bad("G %d in %s is %s, not runnable", gp.goid, where, gStatusString(s))
		}
	}

	idle := map[*p]bool{}
	n := int32(0)
	for pp := sched.pidle; pp != nil; pp = pp.link {
		if idle[pp] {
			bad("P %d is on the idle list twice", pp.id)
			break
		}
		idle[pp] = true
		n++
	}
	if got := sched.npidle.Load(); got != n {
		bad("npidle = %d, but %d Ps are on the idle list", got, n)
	}

	gomaxprocs := sched.gomaxprocs.Load()
	if int32(len(sched.allp)) != gomaxprocs {
		bad("len(allp) = %d, gomaxprocs = %d", len(sched.allp), gomaxprocs)
	}
	for _, pp := range sched.allp {
		s := pp.status.Load()
		if s == _Prunning || s == _Psyscall || s == _Pdead {
			bad("P %d is %s with the world stopped", pp.id, pStatusString(s))
		}
		if idle[pp] != sched.idlepMask.read(pp.id) {
			bad("P %d: on the idle list = %v, in idlepMask = %v", pp.id, idle[pp], !idle[pp])
		}
		if idle[pp] && (s != _Pidle || !runqempty(pp)) {
			bad("P %d is on the idle list but is %s with %d Gs queued", pp.id, pStatusString(s), runqlen(pp))
		}
		h, t := pp.runqhead.Load(), pp.runqtail.Load()
		if t-h > uint32(len(pp.runq)) {
			bad("P %d: runqtail - runqhead = %d, more than %d slots", pp.id, t-h, len(pp.runq))
			continue
		}
		for i := h; i != t; i++ {
			queued(pp.runq[i%uint32(len(pp.runq))].Load(), fmt.Sprintf("P %d's runq", pp.id))
		}
		if next := pp.runnext.Load(); next != nil {
			queued(next, fmt.Sprintf("P %d's runnext", pp.id))
		}
		for gp := pp.gFree.head; gp != nil; gp = gp.schedlink {
			if s := readgstatus(gp); s != _Gdead {
				bad("G %d on P %d's free list is %s", gp.goid, pp.id, gStatusString(s))
			}
		}
	}

	size := int32(0)
	var last *g
	for gp := sched.runq.head; gp != nil; gp = gp.schedlink {
		queued(gp, "the global runq")
		last = gp
		size++
		if size > sched.runq.size+1 {
			break // a cycle; reported below
		}
	}
	if size != sched.runq.size || last != sched.runq.tail {
		bad("global runq: size = %d but %d Gs are linked (tail ok = %v)", sched.runq.size, size, last == sched.runq.tail)
	}

	if v := sched.nmspinning.Load(); v < 0 {
		bad("nmspinning = %d < 0", v)
	}
	nm := int32(0)
	for mp := sched.midle; mp != nil; mp = mp.schedlink {
		nm++
		if mp.p != nil || mp.spinning {
			bad("idle M %d holds P or is spinning", mp.id)
		}
	}
	if nm != sched.nmidle {
		bad("nmidle = %d, but %d Ms are on the idle list", sched.nmidle, nm)
	}
	if sched.nmidle+sched.nmsys > sched.mcount() {
		bad("nmidle %d + nmsys %d > mcount %d", sched.nmidle, sched.nmsys, sched.mcount())
	}

	sched.allglock.Lock()
	for _, gp := range sched.allgs {
		if s := readgstatus(gp); s == _Grunning {
			bad("G %d is running with the world stopped", gp.goid)
		}
	}
	sched.allglock.Unlock()

	return errors.Join(errs...)
}
