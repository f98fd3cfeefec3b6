package sched

import (
	"fmt"
	"math/bits"
)

// This file mirrors the core of runtime/proc.go that no lesson owns: G
// creation and exit, the scheduling loop (schedule, execute), Gosched and
// preemption, M start and stop, the idle M and P lists, P hand-off.

// casgstatus moves gp from status oldval to newval, or panics: a G found in
// an unexpected status means two parts of the scheduler disagree about who
// owns it (most often: the same G was handed out twice).
//
// Mirrors casgstatus (proc.go:1277).
func casgstatus(gp *g, oldval, newval uint32) {
	if !gp.atomicstatus.CompareAndSwap(oldval, newval) {
		panic(fmt.Sprintf("casgstatus: G %d is %s, want %s (on its way to %s)",
			gp.goid, gStatusString(gp.atomicstatus.Load()), gStatusString(oldval), gStatusString(newval)))
	}
}

// readgstatus returns gp's status.
func readgstatus(gp *g) uint32 {
	return gp.atomicstatus.Load()
}

// newproc creates a G running fn and puts it in the caller's runnext, so it
// runs soon on this P; whatever G was in runnext before moves to the tail of the ring.
// It then wakes a spinning M if there are idle Ps, to steal the new work.
//
// Mirrors newproc (proc.go:5295). Called by a running G on its own P.
func newproc(callergp *g, fn func(*G)) {
	mp := callergp.m
	pp := mp.p
	newg := newproc1(pp.sched, fn, callergp, pp)
	runqput(pp, newg, true)
	wakep(pp.sched)
}

// Number of goroutine ids to grab from sched.goidgen to a P's local cache at
// once (proc.go _GoidCacheBatch).
const _GoidCacheBatch = 16

// newproc1 makes a runnable G for fn: a dead one from pp's (or the global)
// free list if there is one, or a new one. pp is nil when called from
// outside the scheduler (Runtime.Go).
//
// Mirrors newproc1 (proc.go:5313).
func newproc1(sched *schedt, fn func(*G), callergp *g, pp *p) *g {
	if fn == nil {
		panic("sched: go of nil func value")
	}
	newg := gfget(sched, pp)
	if newg == nil {
		newg = malg(sched)
		casgstatus(newg, _Gidle, _Gdead)
		sched.allgadd(newg)
	}
	newg.fn = fn
	if pp == nil {
		newg.goid = sched.goidgen.Add(1)
	} else {
		if pp.goidcache == pp.goidcacheend {
			// sched.goidgen is the last allocated id, so this batch is
			// [sched.goidgen+1, sched.goidgen+_GoidCacheBatch]: one atomic
			// on the shared counter per 16 Gs instead of one per G.
			pp.goidcache = sched.goidgen.Add(_GoidCacheBatch)
			pp.goidcache -= _GoidCacheBatch - 1
			pp.goidcacheend = pp.goidcache + _GoidCacheBatch
		}
		newg.goid = pp.goidcache
		pp.goidcache++
	}
	sched.ngLive.Add(1)
	casgstatus(newg, _Gdead, _Grunnable)
	if sched.trace != nil {
		var parent int64
		if callergp != nil {
			parent = callergp.goid
		}
		sched.traceEvent(EvGoCreate, newg.goid, pidOf(pp), -1, parent)
	}
	return newg
}

// malg allocates a new G. It gets its coroutine when it first runs (execute).
func malg(sched *schedt) *g {
	return &g{sched: sched}
}

// allgadd records gp in allgs, for checkdead, the invariant checker and
// Close.
func (sched *schedt) allgadd(gp *g) {
	sched.allglock.Lock()
	sched.allgs = append(sched.allgs, gp)
	sched.allglock.Unlock()
}

// gfput puts a dead G on pp's free list. If the local list grows to 64 it
// moves half to the global list, so that one P spawning many Gs and another
// finishing them does not hoard.
//
// Mirrors gfput (proc.go:5465). Executed by pp's owner.
func gfput(pp *p, gp *g) {
	if readgstatus(gp) != _Gdead {
		panic("gfput: bad status (not Gdead)")
	}
	pp.gFree.push(gp)
	pp.gFree.n++
	if pp.gFree.n >= 64 {
		var inc int32
		var list gList
		for pp.gFree.n >= 32 {
			gp := pp.gFree.pop()
			pp.gFree.n--
			list.push(gp)
			inc++
		}
		sched := pp.sched
		sched.gFree.lock.Lock()
		for !list.empty() {
			sched.gFree.list.push(list.pop())
		}
		sched.gFree.n.Add(inc)
		sched.gFree.lock.Unlock()
	}
}

// gfget takes a dead G from pp's free list, refilling it with up to 32 from
// the global list when it is empty. pp may be nil (a G created from outside
// the scheduler): then it takes straight from the global list.
//
// Mirrors gfget (proc.go:5507).
func gfget(sched *schedt, pp *p) *g {
	if pp == nil {
		sched.gFree.lock.Lock()
		gp := sched.gFree.list.pop()
		if gp != nil {
			sched.gFree.n.Add(-1)
		}
		sched.gFree.lock.Unlock()
		return gp
	}
	if pp.gFree.empty() && sched.gFree.n.Load() > 0 {
		sched.gFree.lock.Lock()
		for pp.gFree.n < 32 {
			gp := sched.gFree.list.pop()
			if gp == nil {
				break
			}
			sched.gFree.n.Add(-1)
			pp.gFree.push(gp)
			pp.gFree.n++
		}
		sched.gFree.lock.Unlock()
	}
	gp := pp.gFree.pop()
	if gp != nil {
		pp.gFree.n--
	}
	return gp
}

// schedule is an M's scheduling loop: find a runnable G, execute it until it
// hands control back, and again. It returns only when the Runtime is closed.
//
// Mirrors schedule (proc.go:4135); the runtime's never returns and starts
// over by being called again from the mcall handlers, which here instead
// return to this loop.
func schedule(mp *m) {
	sched := mp.sched
	for {
		pp := mp.p
		if pp.preempt.Load() {
			pp.preempt.Store(false)
		}

		// Safety check: if we are spinning, the run queue should be empty.
		// Check this before calling checkTimers, as that might call ready
		// to put a ready G on the local run queue.
		if mp.spinning && (pp.runnext.Load() != nil || pp.runqhead.Load() != pp.runqtail.Load()) {
			panic("schedule: spinning with local work")
		}

		gp, inheritTime := findRunnable(mp) // blocks until work is available
		if gp == nil {
			return // the Runtime is closing
		}

		// This M is about to run a G: if it was spinning, it stops, and
		// another M may have to start spinning in its place.
		if mp.spinning {
			resetspinning(mp)
		}

		for gp != nil {
			gp, inheritTime = execute(mp, gp, inheritTime)
		}
		if sched.closing.Load() {
			return
		}
	}
}

// execute runs gp on mp until gp hands control back with mcall, then runs
// the handler gp asked for on the M's own stack, as g0 would. The handler
// may name a G to run next at once (park_m when unlockf declines, exitsyscall0
// when it finds an idle P); otherwise execute returns nil and the caller
// goes back to schedule.
//
// If inheritTime is true, gp inherits the remaining time in the current time
// slice; otherwise it starts a new one (schedtick counts slices: sysmon
// preempts a G that has held the same tick for forcePreemptNS).
//
// Mirrors execute (proc.go:3331) and gogo. Executed by the M that holds mp.p.
func execute(mp *m, gp *g, inheritTime bool) (next *g, nextInheritTime bool) {
	mp.curg.Store(gp)
	gp.m = mp
	// A G that is not runnable here was handed to two Ms (or was never put
	// on a queue properly): stop before its coroutine is resumed twice.
	if !gp.atomicstatus.CompareAndSwap(_Grunnable, _Grunning) {
		panic(fmt.Sprintf("execute: G %d is %s, not runnable: was it taken from a run queue twice?",
			gp.goid, gStatusString(readgstatus(gp))))
	}
	gp.waitreason = waitReasonZero
	if gp.preempt.Load() { // a plain store in the runtime; an atomic one costs more
		gp.preempt.Store(false)
	}
	if !inheritTime {
		mp.p.schedtick.Add(1)
	}
	if mp.sched.trace != nil {
		mp.sched.traceEvent(EvGoStart, gp.goid, mp.p.id, mp.id, boolArg(inheritTime))
	}

	if gp.coro == nil {
		corobind(mp, gp) // gp's first run: it takes a coroutine (coro.go)
	}
	gogo(gp)

	fn := mp.mcallfn
	mp.mcallfn = nil
	return fn(mp, gp)
}

// dropg disassociates mp's current G from mp.
//
// Mirrors dropg (proc.go:4240).
func dropg(mp *m) {
	if gp := mp.curg.Load(); gp != nil {
		gp.m = nil
	}
	mp.curg.Store(nil)
}

// goexit0 is the mcall handler for a G whose function has returned: the G
// becomes dead and goes on the free list, and its coroutine back to the M.
//
// Mirrors goexit0 and gdestroy (proc.go:4491).
func goexit0(mp *m, gp *g) (*g, bool) {
	sched := mp.sched
	casgstatus(gp, _Grunning, _Gdead)
	if sched.trace != nil {
		sched.traceEvent(EvGoEnd, gp.goid, mp.p.id, mp.id, 0)
	}
	gp.fn = nil
	gp.waitreason = waitReasonZero
	if gp.preempt.Load() {
		gp.preempt.Store(false)
	}
	dropg(mp)
	// Sysmon may have read gp from mp.curg just before dropg, and still
	// be in preemptone, about to read gp.goid for the trace. Once gp is on
	// the free list, newproc1 can reuse it and write a new goid: a data
	// race (the runtime has it too, harmless there, where no race detector
	// watches). preemptone runs only under allpLock (retake and preemptall
	// hold it), so taking allpLock once here orders every such look at gp
	// before gp's reuse; a look after this one finds curg nil or another
	// G. Only with tracing on, the one time preemptone reads a plain
	// field of gp (an uncontended lock per G exit was 5-10% of
	// ChainedSpawn). Not in the runtime.
	if sched.trace != nil {
		sched.allpLock.Lock()
		sched.allpLock.Unlock()
	}
	corofput(mp, gp)
	gfput(mp.p, gp)
	if sched.ngLive.Add(-1) == 0 && sched.waitCalled.Load() {
		sched.finish(nil)
	}
	return nil, false
}

// goschedImpl puts gp on the global run queue and lets the M schedule
// something else. Gosched and preemption both come here: the global queue
// (not the local one) so that a G that yields does not just run again at
// once on the same P, ahead of everything else.
//
// Mirrors goschedImpl (proc.go:4307). mcall handler.
func goschedImpl(mp *m, gp *g, preempted bool) (*g, bool) {
	sched := mp.sched
	if readgstatus(gp) != _Grunning {
		panic("goschedImpl: bad g status " + gStatusString(readgstatus(gp)))
	}
	if sched.trace != nil {
		kind := EvGoSched
		if preempted {
			kind = EvGoPreempt
		}
		sched.traceEvent(kind, gp.goid, mp.p.id, mp.id, 0)
	}
	casgstatus(gp, _Grunning, _Grunnable)
	dropg(mp)
	sched.lock.Lock()
	sched.globrunqput(gp)
	sched.lock.Unlock()
	wakep(sched)
	return nil, false
}

// gosched_m is the mcall handler for Gosched.
func gosched_m(mp *m, gp *g) (*g, bool) {
	return goschedImpl(mp, gp, false)
}

// gopreempt_m is the mcall handler for a G that found its preempt flag set at
// a safe point.
func gopreempt_m(mp *m, gp *g) (*g, bool) {
	return goschedImpl(mp, gp, true)
}

// acquirep associates pp with mp: mp may now run Gs.
//
// Mirrors acquirep and wirep (proc.go:6259). pp must be idle.
func acquirep(mp *m, pp *p) {
	if mp.p != nil {
		panic("wirep: already in go")
	}
	if pp.m.Load() != nil || pp.status.Load() != _Pidle {
		panic(fmt.Sprintf("wirep: invalid P state: P %d is %s with M %v", pp.id, pStatusString(pp.status.Load()), pp.m.Load() != nil))
	}
	mp.p = pp
	pp.m.Store(mp)
	pp.oldm = mp // procresize prefers to restart a P on the M that ran it last
	pp.status.Store(_Prunning)
	if mp.sched.trace != nil {
		mp.sched.traceEvent(EvProcStart, 0, pp.id, mp.id, 0)
	}
}

// releasep disassociates mp from its P and returns the P, now idle.
//
// Mirrors releasep (proc.go:6324).
func releasep(mp *m) *p {
	pp := mp.p
	if pp == nil {
		panic("releasep: invalid arg")
	}
	if pp.m.Load() != mp || pp.status.Load() != _Prunning {
		panic(fmt.Sprintf("releasep: invalid P state: P %d is %s", pp.id, pStatusString(pp.status.Load())))
	}
	if mp.sched.trace != nil {
		mp.sched.traceEvent(EvProcStop, 0, pp.id, mp.id, 0)
	}
	mp.p = nil
	pp.m.Store(nil)
	pp.status.Store(_Pidle)
	return pp
}

// mstart is the body of every M but sysmon: take the P handed over by
// startm, if any, and run the scheduling loop until Close.
//
// Mirrors mstart1 (proc.go:1904).
func mstart(mp *m) {
	defer mp.sched.mWG.Done()
	if pp := mp.nextp; pp != nil {
		mp.nextp = nil
		acquirep(mp, pp)
	}
	if mp.p == nil {
		return // woken by Close before it had a P
	}
	schedule(mp)
}

// mReserveID returns the next M ID, counting the new M in mcount.
//
// Mirrors mReserveID (proc.go:985). sched.lock must be held.
func (sched *schedt) mReserveID() int64 {
	sched.assertLockHeld("mReserveID")
	id := sched.mnext
	sched.mnext++
	return id
}

// newm creates a new M that starts with pp and the given spinning state, and
// starts its goroutine. id is from mReserveID, or -1 to reserve one here.
//
// Mirrors newm and allocm (proc.go:2857). Called without sched.lock.
func newm(sched *schedt, pp *p, spinning bool, id int64) *m {
	mp := allocm(sched, id)
	mp.nextp = pp
	mp.spinning = spinning
	sched.mWG.Add(1)
	go mstart(mp)
	return mp
}

// allocm allocates an M and records it in allm.
func allocm(sched *schedt, id int64) *m {
	mpp := &mPadded{m: m{sched: sched}}
	mp := &mpp.m
	mp.park.init()
	sched.lock.Lock()
	if id < 0 {
		id = sched.mReserveID()
	}
	mp.id = id
	sched.allm = append(sched.allm, mp)
	sched.lock.Unlock()
	return mp
}

// mput puts mp on the idle M list and checks for deadlock: if this was the
// last M running, nothing can ever wake the Gs that are left.
//
// Mirrors mput (proc.go:7200). sched.lock must be held.
func (sched *schedt) mput(mp *m) {
	sched.assertLockHeld("mput")
	mp.schedlink = sched.midle
	sched.midle = mp
	sched.nmidle++
	sched.checkdead()
}

// mgetSpecific takes mp off the idle list if it is there, or returns nil.
//
// Mirrors mgetSpecific (proc.go:7230). sched.lock must be held.
func (sched *schedt) mgetSpecific(mp *m) *m {
	sched.assertLockHeld("mgetSpecific")
	for pm := &sched.midle; *pm != nil; pm = &(*pm).schedlink {
		if *pm == mp {
			*pm = mp.schedlink
			mp.schedlink = nil
			sched.nmidle--
			return mp
		}
	}
	return nil
}

// mget takes an M from the idle list, or returns nil.
//
// Mirrors mget (proc.go:7213). sched.lock must be held.
func (sched *schedt) mget() *m {
	sched.assertLockHeld("mget")
	mp := sched.midle
	if mp != nil {
		sched.midle = mp.schedlink
		sched.nmidle--
	}
	return mp
}

// stopm parks mp on the idle list until startm hands it a P and wakes it.
// It returns with mp.p set, or with mp.p nil if the Runtime is closing.
//
// Mirrors stopm (proc.go:2992). mp must hold no P and must not be spinning.
func stopm(mp *m) {
	sched := mp.sched
	if mp.p != nil {
		panic("stopm holding p")
	}
	if mp.spinning {
		panic("stopm spinning")
	}
	sched.lock.Lock()
	if sched.closing.Load() {
		sched.lock.Unlock()
		return
	}
	sched.mput(mp)
	sched.lock.Unlock()

	notesleep(&mp.park)
	noteclear(&mp.park)

	pp := mp.nextp
	if pp == nil {
		return // woken by Close
	}
	mp.nextp = nil
	acquirep(mp, pp)
}

// startm schedules some M to run pp, creating an M if none is idle. If pp is
// nil it tries to take an idle P; with none, it does nothing. If spinning is
// set, the caller has already counted the new M in sched.nmspinning, and pp
// must be non-nil with an empty run queue.
//
// Mirrors startm (proc.go:3035). lockheld says whether the caller holds
// sched.lock (it is released and re-taken around newm).
func startm(sched *schedt, pp *p, spinning, lockheld bool) {
	if !lockheld {
		sched.lock.Lock()
	}
	if pp == nil {
		if spinning {
			// The caller incremented nmspinning, but there are no idle Ps,
			// so it is okay to just undo the increment and give up.
			panic("startm: P required for spinning=true")
		}
		pp = sched.pidleget()
		if pp == nil {
			if !lockheld {
				sched.lock.Unlock()
			}
			return
		}
	}
	nmp := sched.mget()
	if nmp == nil {
		// No M is available; make one. Reserve its ID under the lock so
		// that checkdead counts it as running from now on.
		id := sched.mReserveID()
		sched.lock.Unlock()
		newm(sched, pp, spinning, id)
		if lockheld {
			sched.lock.Lock()
		}
		return
	}
	if !lockheld {
		sched.lock.Unlock()
	}
	if nmp.spinning {
		panic("startm: m is spinning")
	}
	if nmp.nextp != nil {
		panic("startm: m has p")
	}
	if spinning && !runqempty(pp) {
		panic("startm: p has runnable gs")
	}
	// The caller incremented nmspinning, so set mp.spinning in the new M.
	nmp.spinning = spinning
	nmp.nextp = pp
	notewakeup(&nmp.park)
}

// handoffp hands off pp, which has no M, to whoever needs it: an M if pp or
// the global queue has work (or nobody is looking for work), else the idle
// list. Called when an M blocks in a system call and sysmon takes its P, and
// when an M leaves a P that still has work.
//
// Mirrors handoffp (proc.go:3131). Called without sched.lock.
func handoffp(pp *p) {
	sched := pp.sched
	// If it has local work, start it straight away.
	if !runqempty(pp) {
		startm(sched, pp, false, false)
		return
	}
	// No local work: if nobody is spinning and no P is idle, nobody will
	// notice new work arriving, so start a spinning M to look for it.
	if sched.nmspinning.Load()+sched.npidle.Load() == 0 && sched.nmspinning.CompareAndSwap(0, 1) {
		sched.needspinning.Store(0)
		startm(sched, pp, true, false)
		return
	}
	sched.lock.Lock()
	if sched.gcwaiting.Load() {
		pp.status.Store(_Pgcstop)
		sched.stopwait--
		if sched.stopwait == 0 {
			notewakeup(&sched.stopnote)
		}
		sched.lock.Unlock()
		return
	}
	if !sched.runq.empty() {
		sched.lock.Unlock()
		startm(sched, pp, false, false)
		return
	}
	when := sched.timer0When.Load()
	sched.pidleput(pp)
	sched.lock.Unlock()

	// With the P idle, someone must still wake for the next timer.
	if when != 0 {
		wakeNetPoller(sched, when)
	}
}

// pidleput puts pp on the idle P list. pp's run queue must be empty.
//
// Mirrors pidleput (proc.go:7373). sched.lock must be held.
func (sched *schedt) pidleput(pp *p) {
	sched.assertLockHeld("pidleput")
	if !runqempty(pp) {
		panic(fmt.Sprintf("pidleput: P %d has a non-empty run queue", pp.id))
	}
	sched.idlepMask.set(pp.id)
	pp.link = sched.pidle
	sched.pidle = pp
	sched.npidle.Add(1)
}

// pidleget takes a P off the idle list, or returns nil.
//
// Mirrors pidleget (proc.go:7402). sched.lock must be held.
func (sched *schedt) pidleget() *p {
	sched.assertLockHeld("pidleget")
	pp := sched.pidle
	if pp != nil {
		sched.idlepMask.clear(pp.id)
		sched.pidle = pp.link
		pp.link = nil
		sched.npidle.Add(-1)
	}
	return pp
}

// pidlegetSpinning is pidleget for an M about to spin: if there is no idle
// P, it sets sched.needspinning so that the next M to release its P spins
// instead of sleeping (see the "delicate dance" in findRunnable).
//
// Mirrors pidlegetSpinning (proc.go:7430). sched.lock must be held.
func (sched *schedt) pidlegetSpinning() *p {
	sched.assertLockHeld("pidlegetSpinning")
	pp := sched.pidleget()
	if pp == nil {
		sched.needspinning.Store(1)
		return nil
	}
	return pp
}

// A pMask is a set of P IDs, readable without a lock (proc.go pMask).
type pMask []atomicUint32

// read reports whether P id is in the set.
func (m pMask) read(id int32) bool {
	return m[id/32].Load()&(1<<(uint32(id)%32)) != 0
}

// set adds P id.
func (m pMask) set(id int32) {
	m[id/32].Or(1 << (uint32(id) % 32))
}

// clear removes P id.
func (m pMask) clear(id int32) {
	m[id/32].And(^(uint32(1) << (uint32(id) % 32)))
}

// A cheaprand is a small, fast, non-cryptographic random source: wyrand, as
// the runtime's cheaprand. Each P owns one, so it needs no lock.
type cheaprand struct {
	state uint64
}

// uint32 returns a pseudo-random uint32.
func (r *cheaprand) uint32() uint32 {
	r.state += 0xa0761d6478bd642f
	hi, lo := bits.Mul64(r.state, r.state^0xe7037ed1a0b428db)
	return uint32(hi ^ lo)
}

// n returns a pseudo-random number in [0, n).
func (r *cheaprand) n(n uint32) uint32 {
	// See https://lemire.me/blog/2016/06/27/a-fast-alternative-to-the-modulo-reduction/
	return uint32((uint64(r.uint32()) * uint64(n)) >> 32)
}

func boolArg(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func pidOf(pp *p) int32 {
	if pp == nil {
		return -1
	}
	return pp.id
}
