package sched

// An alternate procresize.go: allp is reallocated whenever it grows (the
// old array is only read, never written, so an M holding a snapshot of it
// sees no change); destroy collects a P's Gs in run order first and then
// pushes them onto the global head last-first; the surviving Ps are sorted
// into idle and busy in one loop, and the busy ones get their Ms in two
// passes over a slice.

// procresize changes the number of Ps to nprocs and returns the Ps with
// local work, linked through p.link, each with an M in p.m if one is idle.
func procresize(sched *schedt, nprocs int32) *p {
	sched.assertLockHeld("procresize")
	old := sched.gomaxprocs.Load()
	if old < 0 || nprocs <= 0 {
		panic("procresize: invalid arg")
	}
	if sched.trace != nil {
		sched.traceEvent(EvResize, 0, -1, -1, int64(nprocs))
	}

	if int(nprocs) > len(sched.allp) {
		growAllp(sched, nprocs)
	}
	for id := old; id < nprocs; id++ {
		if sched.allp[id] == nil {
			pp := new(p)
			sched.allpLock.Lock() // sysmon's retake reads allp under it
			sched.allp[id] = pp
			sched.allpLock.Unlock()
		}
		sched.allp[id].init(sched, id)
	}
	for id := nprocs; id < old; id++ {
		sched.allp[id].destroy()
	}
	if len(sched.allp) > int(nprocs) {
		sched.allpLock.Lock()
		sched.allp = sched.allp[:nprocs]
		sched.allpLock.Unlock()
	}

	// Idle Ps go on the idle list (highest ID first, so that P 0 ends up
	// at its head); the others need an M.
	var busy []*p
	for id := nprocs - 1; id >= 0; id-- {
		pp := sched.allp[id]
		pp.status.Store(_Pidle)
		pp.m.Store(nil)
		if runqempty(pp) {
			sched.pidleput(pp)
		} else {
			busy = append(busy, pp)
		}
	}
	// First every P whose last M is idle takes it back; only then are the
	// remaining idle Ms handed out, so none is taken from its own P.
	for _, pp := range busy {
		if pp.oldm != nil {
			if mp := sched.mgetSpecific(pp.oldm); mp != nil {
				pp.m.Store(mp)
			}
		}
	}
	var list *p
	for _, pp := range busy {
		if pp.m.Load() == nil {
			pp.m.Store(sched.mget()) // nil if none is left: startTheWorld starts one
		}
		pp.link = list
		list = pp
	}

	sched.stealOrder.reset(uint32(nprocs))
	sched.gomaxprocs.Store(nprocs)
	return list
}

// growAllp makes room for nprocs Ps in a new array, keeping the Ps of the
// old one (dead ones beyond its length included, to be revived), and grows
// idlepMask to match.
func growAllp(sched *schedt, nprocs int32) {
	sched.allpLock.Lock()
	defer sched.allpLock.Unlock()
	nallp := make([]*p, nprocs, max(nprocs, int32(cap(sched.allp))))
	copy(nallp[:cap(nallp)], sched.allp[:cap(sched.allp)])
	sched.allp = nallp

	words := int(nprocs+31) / 32
	if words <= len(sched.idlepMask) {
		return
	}
	mask := make(pMask, words)
	for i := range sched.idlepMask {
		mask[i].Store(sched.idlepMask[i].Load())
	}
	sched.idlepMask = mask
}

// init makes pp P number id of sched, stopped, with a fresh random source.
// Its fields are set one by one, never by overwriting the whole struct: an
// M that went idle before the world stopped may still be reading a revived
// P's run queue through an old snapshot of allp.
func (pp *p) init(sched *schedt, id int32) {
	pp.sched, pp.id = sched, id
	pp.rand = cheaprand{state: sched.cfg.seed ^ (uint64(id)+1)*0x9e3779b97f4a7c15}
	pp.status.Store(_Pgcstop)
	sched.idlepMask.clear(id)
}

// destroy moves pp's Gs to the head of the global queue, in the order pp
// would have run them, and its free Gs to the global free list; pp is then
// dead.
func (pp *p) destroy() {
	sched := pp.sched
	sched.assertLockHeld("destroy")
	var gs []*g
	if next := pp.runnext.Swap(nil); next != nil {
		gs = append(gs, next)
	}
	h, t := pp.runqhead.Load(), pp.runqtail.Load()
	for ; h != t; h++ {
		gs = append(gs, pp.runq[h%uint32(len(pp.runq))].Load())
	}
	pp.runqhead.Store(t)
	for i := len(gs) - 1; i >= 0; i-- {
		sched.globrunqputhead(gs[i])
	}
	gfpurge(pp)
	pp.status.Store(_Pdead)
}

// gfpurge moves all of pp's free Gs to the global free list.
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
