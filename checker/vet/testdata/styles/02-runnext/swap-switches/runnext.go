package sched

// runnext by Swap: the owner is the only writer of a G into runnext, so
// it can swap its G in and look at what came out (a thief's CAS to nil
// either happened before, and the swap returns nil, or fails after). The
// rest is written as switches.

func runqput(pp *p, gp *g, next bool) {
	switch {
	case !next, !pp.sched.cfg.haveSysmon:
	case pp.sched.cfg.randomizeScheduler && pp.rand.n(2) == 0:
	default:
		old := pp.runnext.Swap(gp)
		if old == nil {
			return
		}
		gp = old
	}
	runqputtail(pp, gp)
}

func runqget(pp *p) (*g, bool) {
	next := pp.runnext.Load()
	switch {
	case next == nil:
	case pp.runnext.CompareAndSwap(next, nil):
		return next, true
	}
	// Lost the CAS: only a thief takes runnext to nil, so the ring.
	return runqgethead(pp), false
}

func runqempty(pp *p) bool {
	var h, t uint32
	var next *g
	for done := false; !done; done = t == pp.runqtail.Load() {
		h = pp.runqhead.Load()
		t = pp.runqtail.Load()
		next = pp.runnext.Load()
	}
	return h == t && next == nil
}

func runqgrabnext(pp *p) (*g, bool) {
	next := pp.runnext.Load()
	switch {
	case next == nil:
		return nil, false
	case pp.status.Load() == _Prunning:
		pp.sched.cfg.usleep(3)
	}
	if !pp.runnext.CompareAndSwap(next, nil) {
		return nil, true
	}
	return next, false
}
