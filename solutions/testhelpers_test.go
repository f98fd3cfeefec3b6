package sched

import (
	"fmt"
	"testing"
)

// Helpers for tests that work on constructed scheduler states: a schedt with
// its Ps but no M and no sysmon running, and Gs without coroutines. Nothing
// runs unless the test runs it, so queues can be filled, inspected and
// emptied by hand.

// newTestSched returns a scheduler with cfg normalized and procs Ps, all
// _Pidle on the idle list, as New leaves them, but without sysmon or any M.
// cfg.Procs is ignored: procs wins. cfg.NoSysmon still decides whether
// runqput uses runnext (haveSysmon), though sysmon never starts here. It
// fails the test if the new scheduler breaks an invariant.
func newTestSched(t testing.TB, procs int, cfg Config) *schedt {
	t.Helper()
	if procs < 1 || procs > maxProcs {
		t.Fatalf("newTestSched: procs = %d, want 1..%d", procs, maxProcs)
	}
	cfg.Procs = procs
	sched := &schedt{done: make(chan struct{})}
	sched.cfg = cfg.normalize()
	sched.trace = cfg.Trace
	sched.stopnote.init()
	sched.sysmonnote.init()
	sched.pollnote.init()
	sched.lastpoll.Store(max(sched.cfg.nanotime(), 1))

	sched.lock.Lock()
	defer sched.lock.Unlock()
	procresize(sched, int32(procs))
	if err := sched.checkInvariants(); err != nil {
		t.Fatalf("newTestSched: %v", err)
	}
	return sched
}

// stopTestWorld does by hand what stopTheWorld does to the Ps of a test
// scheduler, where no M runs: it takes every P off the idle list and makes it
// _Pgcstop. procresize and (*p).destroy expect that state.
func stopTestWorld(sched *schedt) {
	sched.lock.Lock()
	defer sched.lock.Unlock()
	for pp := sched.pidleget(); pp != nil; pp = sched.pidleget() {
		pp.status.Store(_Pgcstop)
	}
}

// startTestWorld is the procresize half of startTheWorld for a test
// scheduler stopped by stopTestWorld: it resizes to nprocs Ps, checks the
// scheduler's invariants, and returns the Ps with work (none gets an M).
func startTestWorld(t testing.TB, sched *schedt, nprocs int32) *p {
	t.Helper()
	sched.lock.Lock()
	defer sched.lock.Unlock()
	runnable := procresize(sched, nprocs)
	if err := sched.checkInvariants(); err != nil {
		t.Fatalf("procresize(%d): %v", nprocs, err)
	}
	return runnable
}

// newTestG returns a _Grunnable G of sched with goid id and no coroutine:
// it can sit on run queues but must never be executed.
func newTestG(sched *schedt, id int64) *g {
	gp := &g{sched: sched, goid: id}
	gp.atomicstatus.Store(_Grunnable)
	return gp
}

// newTestGs returns n test Gs with goids first, first+1, ...
func newTestGs(sched *schedt, first int64, n int) []*g {
	gs := make([]*g, n)
	for i := range gs {
		gs[i] = newTestG(sched, first+int64(i))
	}
	return gs
}

// goids returns the goids of gs, in order (nil entries as -1).
func goids(gs []*g) []int64 {
	ids := make([]int64, 0, len(gs))
	for _, gp := range gs {
		if gp == nil {
			ids = append(ids, -1)
			continue
		}
		ids = append(ids, gp.goid)
	}
	return ids
}

// ringIDs returns the goids in pp's ring from head to tail without taking
// them. Only for a P that nobody else is using.
func ringIDs(pp *p) []int64 {
	var ids []int64
	for i, t := pp.runqhead.Load(), pp.runqtail.Load(); i != t; i++ {
		ids = append(ids, pp.runq[i%uint32(len(pp.runq))].Load().goid)
	}
	return ids
}

// queueIDs returns the goids of q from head to tail, checking that the links
// agree with q.tail and q.size.
func queueIDs(t testing.TB, q *gQueue) []int64 {
	t.Helper()
	var ids []int64
	var last *g
	for gp := q.head; gp != nil; gp = gp.schedlink {
		ids = append(ids, gp.goid)
		last = gp
		if len(ids) > 1<<20 {
			t.Fatalf("gQueue has a cycle")
		}
	}
	if last != q.tail {
		t.Fatalf("gQueue tail is G %s, but the last linked G is G %s", gName(q.tail), gName(last))
	}
	if int(q.size) != len(ids) {
		t.Fatalf("gQueue size = %d, but %d Gs are linked: %v", q.size, len(ids), ids)
	}
	return ids
}

// globalIDs returns the goids on sched's global run queue, head first,
// checking that its unlocked size hint matches.
func globalIDs(t testing.TB, sched *schedt) []int64 {
	t.Helper()
	sched.lock.Lock()
	defer sched.lock.Unlock()
	ids := queueIDs(t, &sched.runq.gQueue)
	if hint := sched.runq.sizeHint.Load(); hint != sched.runq.size {
		t.Fatalf("global run queue: sizeHint = %d, size = %d; the hint must follow every change", hint, sched.runq.size)
	}
	return ids
}

// idRange returns first, first+1, ..., first+n-1.
func idRange(first int64, n int) []int64 {
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = first + int64(i)
	}
	return ids
}

// gidOf returns gp's goid, or -1 for nil.
func gidOf(gp *g) int64 {
	if gp == nil {
		return -1
	}
	return gp.goid
}

// gName returns gp's goid as text, or "<nil>", for messages.
func gName(gp *g) string {
	if gp == nil {
		return "<nil>"
	}
	return fmt.Sprint(gp.goid)
}
