package sched

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
	// TODO(08-procresize): write procresize as its comment above says.
	// Stuck? Run: kata hint 08-procresize
	panic("not implemented: procresize")
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
	// TODO(08-procresize): write init as its comment above says.
	// Stuck? Run: kata hint 08-procresize
	panic("not implemented: init")
}

// destroy releases pp's resources: its Gs go to the head of the global
// queue in the order they would have run (popping the ring's tail and
// pushing each at the global head keeps that order; runnext goes in front
// of them all), its free Gs to the global free list. pp becomes _Pdead.
//
// Mirrors (*p).destroy (proc.go:5947). sched.lock must be held, the world
// stopped: check it first (sched.assertLockHeld), before touching pp.
func (pp *p) destroy() {
	// TODO(08-procresize): write destroy as its comment above says.
	// Stuck? Run: kata hint 08-procresize
	panic("not implemented: destroy")
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
