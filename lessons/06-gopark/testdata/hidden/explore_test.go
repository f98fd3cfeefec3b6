package sched

// Lesson 06 under the exhaustive explorer (kitExplore): a G parking on a
// lock-protected wait queue (as a channel receiver does) while another G
// takes the same lock, finds it waiting and readies it, in EVERY order
// with at most two preemptions. The queue's lock is a mutex like
// sched.lock: a thread that finds it held waits while the others run, so
// the order of gopark, park_m's unlockf and the waker's goready is
// explored, not left to the host's timing.

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"
)

// l06ExploreBound is the preemption bound of the learner's code and of the
// reference's, the oracle: the waker can come at any point of the parking
// G's gopark and park_m (one preemption), and the parking G can be paused
// again inside the waker's goready (two). Measured, bound 3 adds no final
// state of the reference's.
const l06ExploreBound = 2

// l06Impl is one implementation of park.go: the learner's or the
// reference's (the ref_ copies), run on the same starts.
type l06Impl struct {
	gopark  func(gp *g, unlockf func(*g, unsafe.Pointer) bool, lock unsafe.Pointer, reason waitReason)
	goready func(mp *m, gp *g)
}

var (
	l06Mine = l06Impl{gopark, goready}
	l06Ref  = l06Impl{ref_gopark, ref_goready}
)

// l06ParkWorld is G 1, running on M 100 (P0), receiving from a channel of
// its own making: under the queue's lock, it takes the value if one was
// sent, or queues itself and parks with an unlockf that releases the lock.
// G 2, on M 101 (P1), sends: under the lock, it takes the waiting G off
// the queue and readies it after unlocking (goready, as chansend does), or
// leaves the value. P2 is idle and M 300 waits on the idle M list, for
// goready's wakep.
type l06ParkWorld struct {
	sched  *schedt
	lock   mutex // the queue's lock
	waiter *g    // the queue (under lock)
	sent   bool  // the value (under lock)
	g1     *g
	m0, m1 *m
	idle   *m

	got     string // what G 1 did
	handler string // what its mcall's handler returned
}

func l06NewParkWorld(im l06Impl) kitStart {
	sched := kitSched(3, Config{})
	w := &l06ParkWorld{sched: sched}
	w.m0, w.m1 = l06RunningM(sched, 0, 100), l06RunningM(sched, 1, 101)
	w.g1 = w.m0.curg.Load()
	w.idle = l06idleM(sched, 300)
	// The G's coroutine, played by the test: its yield is the G's mcall
	// reaching the M, which runs the handler at once.
	gp, mp := w.g1, w.m0
	gp.coro = &coro{gp: gp}
	gp.coro.resume = func() (struct{}, bool) { panic("the M resumed the G inside its mcall handler") }
	gp.coro.yield = func(struct{}) bool {
		fn := mp.mcallfn
		mp.mcallfn = nil
		if fn == nil {
			w.handler = "no handler (mcall sets mp.mcallfn)"
			return true
		}
		next, inherit := fn(mp, gp)
		w.handler = fmt.Sprintf("the handler returned %s, inheritTime %v", kitGName(next), inherit)
		return true
	}
	return kitStart{
		threads: []kitThread{
			{"G 1 (receiving, on M 100)", func() { w.receive(im) }},
			{"G 2 (sending, on M 101)", func() { w.send(im) }},
		},
		check: w.check,
		final: w.final,
	}
}

// l06RunningM makes P id running: M mid holds it and runs G mid/100.
func l06RunningM(sched *schedt, id int32, mid int64) *m {
	mp := &m{sched: sched, id: mid}
	mp.park.init()
	acquirep(mp, kitTakeP(sched, id))
	gp := kitG(sched, mid/100)
	gp.atomicstatus.Store(_Grunning)
	gp.m = mp
	mp.curg.Store(gp)
	return mp
}

// l06idleM puts a hand-made M with id on the idle M list.
func l06idleM(sched *schedt, id int64) *m {
	mp := &m{sched: sched, id: id}
	mp.park.init()
	sched.lock.Lock()
	sched.allm = append(sched.allm, mp)
	sched.mnext++
	sched.mput(mp)
	sched.lock.Unlock()
	return mp
}

// receive is G 1: take the value, or queue and park.
func (w *l06ParkWorld) receive(im l06Impl) {
	w.lock.Lock()
	if w.sent {
		w.lock.Unlock()
		w.got = "took the value without parking"
		return
	}
	w.waiter = w.g1
	unlockf := func(gp *g, l unsafe.Pointer) bool {
		(*mutex)(l).Unlock()
		return true
	}
	im.gopark(w.g1, unlockf, unsafe.Pointer(&w.lock), waitReasonChanReceive)
	w.got = "parked; " + w.handler
}

// send is G 2: ready the waiting G, or leave the value.
func (w *l06ParkWorld) send(im l06Impl) {
	w.lock.Lock()
	gp := w.waiter
	w.waiter = nil
	w.sent = true
	w.lock.Unlock()
	if gp != nil {
		im.goready(w.m1, gp)
	}
}

// queuedOn says where G 1 is queued ("" if nowhere).
func (w *l06ParkWorld) queuedOn() string { return l06QueuedOn(w.sched, w.g1) }

// l06QueuedOn says where gp is queued ("P0's runnext and P1's ring", ""
// if nowhere), reading past the scheduling points.
func l06QueuedOn(sched *schedt, gp *g) string {
	var at []string
	for _, pp := range sched.allp {
		if (*atomic.Pointer[g])(&pp.runnext).Load() == gp {
			at = append(at, fmt.Sprintf("P%d's runnext", pp.id))
		}
		h, t := (*atomic.Uint32)(&pp.runqhead).Load(), (*atomic.Uint32)(&pp.runqtail).Load()
		for i := h; i != t; i++ {
			if kitRawSlot(&pp.runq[i%uint32(len(pp.runq))]).Load() == gp {
				at = append(at, fmt.Sprintf("P%d's ring", pp.id))
			}
		}
	}
	return strings.Join(at, " and ")
}

// check is the invariant of every step: G 1 is in a run queue only once
// it has left M 100 and is _Grunnable (the M that takes it would run a G
// still running, or still waiting), and in one place at most.
func (w *l06ParkWorld) check() string {
	at := w.queuedOn()
	if at == "" {
		return ""
	}
	if strings.Contains(at, " and ") {
		return "G 1 is queued twice: " + at
	}
	if curg := (*atomic.Pointer[g])(&w.m0.curg).Load(); curg == w.g1 || w.g1.m != nil {
		return fmt.Sprintf("G 1 is in %s while it is still M 100's G (mp.curg %s, gp.m %s): another M may run it while its code still runs here. G 2 readied it as soon as the queue's lock was released, so G 1 must have left its M (dropg) for good before the unlockf runs: park_m calls it after casgstatus to _Gwaiting and dropg", at, kitGName(curg), l06MName(w.g1.m))
	}
	switch s := (*atomic.Uint32)(&w.g1.atomicstatus).Load(); s {
	case _Grunnable:
	case _Gwaiting:
		return fmt.Sprintf("G 1 is in %s while it is still _Gwaiting: an M that takes it from there finds a G that is not runnable. ready makes the G _Grunnable (casgstatus) before it queues it (runqput)", at)
	default:
		return fmt.Sprintf("G 1 is in %s while it is %s: a G is queued only once _Grunnable. G 2 readied it as soon as it found it on the wait queue, so G 1 must be _Gwaiting, off its M, before the queue's lock is released: gopark hands the unlockf to park_m, which calls it only after casgstatus to _Gwaiting and dropg", at, gStatusString(s))
	}
	return ""
}

func (w *l06ParkWorld) final() (key, problem string) {
	if problem = w.check(); problem != "" {
		return "", problem
	}
	if !w.lock.TryLock() {
		return "", "the queue's lock is still held once both Gs are done: park_m calls the unlockf, which releases it, exactly once on every path"
	}
	w.lock.Unlock()
	if !w.sched.lock.TryLock() {
		return "", "sched.lock is still held once both Gs are done"
	}
	w.sched.lock.Unlock()
	g1 := w.g1
	where := w.queuedOn()
	if where == "" {
		where = "no run queue"
	}
	key = fmt.Sprintf("G 1 %s, %s, in %s, gp.m %s; M 100's curg %s; M 300 woken: %v, nmspinning %d, npidle %d",
		w.got, gStatusString((*atomic.Uint32)(&g1.atomicstatus).Load()), where, l06MName(g1.m), kitGName(w.m0.curg.Load()),
		len(w.idle.park.c) == 1, (*atomic.Int32)(&w.sched.nmspinning).Load(), w.sched.npidle.Load())
	return key, ""
}

// l06ExploreName is the scenario, for messages.
const l06ExploreName = "G 1 receives (queues itself under the lock, then gopark with an unlockf that releases it) while G 2 sends (under the lock, takes the waiting G off the queue, then goready after unlocking)"

// l06DoubleReadyWorld is a caller's bug that ready must catch: two Ms,
// M 100 on P0 and M 101 on P1, ready the same waiting G 5 at once (a
// wake-up delivered twice). Exactly one may make it runnable and queue
// it; the other must panic, having changed nothing. The status check and
// the change are one atomic step (casgstatus): a check, then a plain
// store, lets both through, and G 5 is queued twice, to run twice.
type l06DoubleReadyWorld struct {
	sched    *schedt
	gp       *g
	ms       [2]*m
	panicked [2]bool
}

func l06NewDoubleReadyWorld(im l06Impl) kitStart {
	sched := kitSched(3, Config{})
	w := &l06DoubleReadyWorld{sched: sched}
	w.ms[0], w.ms[1] = l06RunningM(sched, 0, 100), l06RunningM(sched, 1, 101)
	l06idleM(sched, 300)
	w.gp = kitG(sched, 5)
	w.gp.atomicstatus.Store(_Gwaiting)
	w.gp.waitreason = waitReasonChanReceive
	ready := func(i int) func() {
		return func() {
			defer func() {
				if r := recover(); r != nil {
					if _, ok := r.(kitDeadlock); ok {
						panic(r)
					}
					w.panicked[i] = true
				}
			}()
			im.goready(w.ms[i], w.gp)
		}
	}
	return kitStart{
		threads: []kitThread{
			{"M 100 (readies G 5)", ready(0)},
			{"M 101 (readies G 5 too)", ready(1)},
		},
		final: w.final,
	}
}

func (w *l06DoubleReadyWorld) final() (key, problem string) {
	where := l06QueuedOn(w.sched, w.gp)
	if strings.Contains(where, " and ") {
		return "", fmt.Sprintf("G 5 is queued twice (%s), and would run twice: both readies passed the check that it was _Gwaiting before either changed it. "+
			"Change the status from _Gwaiting to _Grunnable in one atomic step (casgstatus, which panics when the status is not the one expected): then the second ready panics, having changed nothing", where)
	}
	if where == "" {
		where = "no run queue"
	}
	key = fmt.Sprintf("M 100's ready panicked: %v, M 101's: %v; G 5 %s, in %s", w.panicked[0], w.panicked[1],
		gStatusString((*atomic.Uint32)(&w.gp.atomicstatus).Load()), where)
	return key, ""
}

// l06DoubleReadyName is the scenario, for messages.
const l06DoubleReadyName = "M 100 and M 101 ready the same waiting G 5 at once (a wake-up delivered twice: the caller's bug, which ready must catch)"

// TestL06Explore runs each scenario's threads in every order with at most
// l06ExploreBound preemptions: G 1 queued only once _Grunnable at every
// step, both locks free at the end, a G readied twice at once queued once,
// and an end state the reference (ref_) reaches from the same start.
func TestL06Explore(t *testing.T) {
	mine := func() kitStart { return l06NewParkWorld(l06Mine) }
	ref := func() kitStart { return l06NewParkWorld(l06Ref) }
	if fail := kitExploreOracle(l06ExploreBound, l06ExploreBound, mine, ref); fail != "" {
		t.Fatalf("%s: %s%s", l06ExploreName, fail, kitHint(l06))
	}
	mine = func() kitStart { return l06NewDoubleReadyWorld(l06Mine) }
	ref = func() kitStart { return l06NewDoubleReadyWorld(l06Ref) }
	if fail := kitExploreOracle(1, 1, mine, ref); fail != "" {
		t.Fatalf("%s: %s%s", l06DoubleReadyName, fail, kitHint(l06))
	}
}
