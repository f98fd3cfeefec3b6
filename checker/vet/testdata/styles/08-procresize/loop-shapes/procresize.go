package sched

// procresize with other loop shapes: the Ps that need an M are collected
// in a slice before they are linked, destroy walks its ring from the tail
// with the head and tail read once, and gfpurge pops until nil.

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
		panic("procresize: invalid arg")
	}
	if sched.trace != nil {
		sched.traceEvent(EvResize, 0, -1, -1, int64(nprocs))
	}

	// Grow allp if necessary. Slots are only ever written while nil: an M
	// that dropped its P may still read a snapshot of the slice.
	if nprocs > int32(len(sched.allp)) {
		sched.allpLock.Lock()
		if nprocs <= int32(cap(sched.allp)) {
			sched.allp = sched.allp[:nprocs]
		} else {
			nallp := make([]*p, nprocs)
			copy(nallp, sched.allp[:cap(sched.allp)])
			sched.allp = nallp
		}
		if words := (nprocs + 31) / 32; words > int32(len(sched.idlepMask)) {
			nmask := make(pMask, words)
			for i := range sched.idlepMask {
				nmask[i].Store(sched.idlepMask[i].Load())
			}
			sched.idlepMask = nmask
		}
		sched.allpLock.Unlock()
	}

	// Initialize new Ps (or revive dead ones).
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
	var needM []*p
	for pp := runnablePsNeedM; pp != nil; pp = pp.link {
		needM = append(needM, pp)
	}
	for _, pp := range needM {
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
	h, t := pp.runqhead.Load(), pp.runqtail.Load()
	for ; t != h; t-- {
		sched.globrunqputhead(pp.runq[(t-1)%uint32(len(pp.runq))].Load())
	}
	pp.runqtail.Store(t)
	if next := pp.runnext.Load(); next != nil {
		sched.globrunqputhead(next)
		pp.runnext.Store(nil)
	}
	gfpurge(pp)
	pp.status.Store(_Pdead)
}

func gfpurge(pp *p) {
	sched := pp.sched
	sched.gFree.lock.Lock()
	defer sched.gFree.lock.Unlock()
	for gp := pp.gFree.pop(); gp != nil; gp = pp.gFree.pop() {
		sched.gFree.list.push(gp)
		pp.gFree.n--
		sched.gFree.n.Add(1)
	}
}
