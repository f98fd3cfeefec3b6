package sched

import "strconv"

// procresize with the growing of allp and of the idle mask in helpers,
// and its panic saying the numbers it was given (strconv).

// This file is changing the number of Ps: lesson 08-procresize. It mirrors
// procresize, (*p).init and (*p).destroy (proc.go, Go 1.26: 5906-6230).
//
// procresize runs with the world stopped, so nothing else touches the Ps.
// What must not be lost is the work on the Ps that go away: a destroyed P
// pushes its run queue and runnext onto the head of the global queue, so
// those Gs run first, in the order they would have run. Then every
// surviving P is made idle, or, if it has work, handed an M (the one that
// ran it last, if that M is idle). gomaxprocs is stored last, as the
// runtime does (with the world stopped and sched.lock held, no reader can
// see it before then).

// procresize changes the number of Ps to nprocs and returns the list of Ps
// with local work, each with an M to run it in p.m (or none, and then the
// caller starts one). The caller must not hold a P: this scheduler's callers
// are outside it, or a G in Syscall (the runtime's may keep its own P).
//
// Mirrors procresize (proc.go:6030). sched.lock must be held, the world
// stopped.
//
// Before it changes anything it checks (sched.assertLockHeld, which panics
// in debug mode if sched.lock is free) and panics ("procresize: invalid
// arg") if nprocs <= 0. sysmon does not stop with the world: its retake
// reads allp under sched.allpLock, so change sched.allp, and store new Ps
// in its slots, only while holding allpLock. idlepMask has one bit per P
// in 32-bit words: grow it to (nprocs+31)/32 words when it is shorter
// (never shrink it). If sched.trace is set, emit one
// traceEvent(EvResize, 0, -1, -1, int64(nprocs)).
func procresize(sched *schedt, nprocs int32) *p {
	sched.assertLockHeld("procresize")
	old := sched.gomaxprocs.Load()
	if old < 0 || nprocs <= 0 {
		panic("procresize: invalid arg: gomaxprocs " + strconv.Itoa(int(old)) + ", nprocs " + strconv.Itoa(int(nprocs)))
	}
	if sched.trace != nil {
		sched.traceEvent(EvResize, 0, -1, -1, int64(nprocs))
	}

	// Grow allp if necessary. Slots are only ever written while nil: an M
	// that dropped its P may still read a snapshot of the slice.
	if nprocs > int32(len(sched.allp)) {
		sched.allpLock.Lock()
		growAllp(sched, nprocs)
		growIdleMask(sched, nprocs)
		sched.allpLock.Unlock()
	}

	for i := old; i < nprocs; i++ {
		pp := sched.allp[i]
		if pp == nil {
			pp = new(p)
			// sysmon's retake may be reading allp right now.
			sched.allpLock.Lock()
			sched.allp[i] = pp
			sched.allpLock.Unlock()
		}
		pp.init(sched, i)
	}

	// Release resources from unused Ps.
	for i := nprocs; i < old; i++ {
		sched.allp[i].destroy()
		// Can't free the P itself: an M may still hold a snapshot with it.
	}

	// Trim allp.
	if int32(len(sched.allp)) != nprocs {
		sched.allpLock.Lock()
		sched.allp = sched.allp[:nprocs]
		sched.allpLock.Unlock()
	}

	var runnablePs, runnablePsNeedM *p
	for i := nprocs - 1; i >= 0; i-- {
		pp := sched.allp[i]
		pp.status.Store(_Pidle)
		if runqempty(pp) {
			sched.pidleput(pp)
			continue
		}
		// Prefer to run on the most recent M if it is idle. Ps whose old M
		// is not available wait until all the others are handled;
		// otherwise mget may hand out an M that a later P has in oldm.
		var mp *m
		if oldm := pp.oldm; oldm != nil {
			mp = sched.mgetSpecific(oldm)
		}
		if mp == nil {
			pp.link = runnablePsNeedM
			runnablePsNeedM = pp
			continue
		}
		pp.m.Store(mp)
		pp.link = runnablePs
		runnablePs = pp
	}
	// Assign Ms to the remaining runnable Ps; mget may return nil, and then
	// startTheWorld starts a new M.
	for runnablePsNeedM != nil {
		pp := runnablePsNeedM
		runnablePsNeedM = pp.link
		pp.m.Store(sched.mget())
		pp.link = runnablePs
		runnablePs = pp
	}

	sched.stealOrder.reset(uint32(nprocs))
	sched.gomaxprocs.Store(nprocs)
	return runnablePs
}

// init readies pp to be P number id. A P revived after being destroyed
// starts afresh.
//
// Mirrors (*p).init (proc.go:5906).
//
// pp ends _Pgcstop, with pp.id and pp.sched set, its bit in idlepMask
// cleared, and exactly cheaprand{state: cfg.seed ^ (uint64(id)+1) *
// 0x9e3779b97f4a7c15} as its random source, so that a Config.Seed gives
// the same random choices as with the reference.
func (pp *p) init(sched *schedt, id int32) {
	pp.sched = sched
	pp.id = id
	pp.status.Store(_Pgcstop)
	pp.rand = cheaprand{state: sched.cfg.seed ^ (uint64(id)+1)*0x9e3779b97f4a7c15}
	sched.idlepMask.clear(id)
}

// destroy releases pp's resources: its Gs go to the head of the global
// queue in the order they would have run (popping the ring's tail and
// pushing each at the global head keeps that order; runnext goes in front
// of them all), its free Gs to the global free list. pp becomes _Pdead.
//
// Mirrors (*p).destroy (proc.go:5947). sched.lock must be held, the world
// stopped: check it first (sched.assertLockHeld), before touching pp.
func (pp *p) destroy() {
	sched := pp.sched
	sched.assertLockHeld("destroy")
	// Move all runnable goroutines to the global queue.
	for pp.runqhead.Load() != pp.runqtail.Load() {
		// Pop from tail of local queue.
		t := pp.runqtail.Load() - 1
		pp.runqtail.Store(t)
		gp := pp.runq[t%uint32(len(pp.runq))].Load()
		// Push onto head of global queue.
		sched.globrunqputhead(gp)
	}
	if next := pp.runnext.Load(); next != nil {
		sched.globrunqputhead(next)
		pp.runnext.Store(nil)
	}
	gfpurge(pp)
	pp.status.Store(_Pdead)
}

// gfpurge moves all of pp's free Gs to the global free list.
//
// Mirrors gfpurge (proc.go:5569).
//
//kata:given
func gfpurge(pp *p) {
	sched := pp.sched
	sched.gFree.lock.Lock()
	for !pp.gFree.empty() {
		sched.gFree.list.push(pp.gFree.pop())
		pp.gFree.n--
		sched.gFree.n.Add(1)
	}
	sched.gFree.lock.Unlock()
}

// growAllp makes allp nprocs long, reusing its capacity (and the Ps of an
// earlier shrink kept there) if it can. allpLock is held.
func growAllp(sched *schedt, nprocs int32) {
	if nprocs <= int32(cap(sched.allp)) {
		sched.allp = sched.allp[:nprocs]
		return
	}
	nallp := make([]*p, nprocs)
	copy(nallp, sched.allp[:cap(sched.allp)])
	sched.allp = nallp
}

// growIdleMask makes the idle mask big enough for nprocs Ps, keeping its
// bits. allpLock is held.
func growIdleMask(sched *schedt, nprocs int32) {
	words := (nprocs + 31) / 32
	if words <= int32(len(sched.idlepMask)) {
		return
	}
	nmask := make(pMask, words)
	for i := range sched.idlepMask {
		nmask[i].Store(sched.idlepMask[i].Load())
	}
	sched.idlepMask = nmask
}
