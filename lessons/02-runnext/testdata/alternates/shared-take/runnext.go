package sched

// runnext with one helper for every taker: takeNext is the only place
// runnext goes from a G to nil, used by the owner (runqget) and by a
// thief (runqgrabnext); runqput's CAS loop is a three-clause for.

// takeNext takes next out of pp.runnext if it is still there.
func takeNext(pp *p, next *g) bool {
	return next != nil && pp.runnext.CompareAndSwap(next, nil)
}

// useRunnext says whether a G readied with next=true goes to runnext.
func useRunnext(pp *p) bool {
	cfg := &pp.sched.cfg
	if !cfg.haveSysmon {
		return false // no sysmon would stop a pair that shares the slice
	}
	return !cfg.randomizeScheduler || pp.rand.n(2) != 0
}

func runqput(pp *p, gp *g, next bool) {
	if next && useRunnext(pp) {
		old := pp.runnext.Load()
		for ; !pp.runnext.CompareAndSwap(old, gp); old = pp.runnext.Load() {
		}
		if old == nil {
			return
		}
		gp = old // kicked out of runnext: to the ring's tail
	}
	runqputtail(pp, gp)
}

func runqget(pp *p) (gp *g, inheritTime bool) {
	if next := pp.runnext.Load(); takeNext(pp, next) {
		return next, true
	}
	return runqgethead(pp), false
}

func runqempty(pp *p) bool {
	for {
		h, t, next := pp.runqhead.Load(), pp.runqtail.Load(), pp.runnext.Load()
		if pp.runqtail.Load() != t {
			continue // the tail moved: runnext may have been kicked to the ring
		}
		return h == t && next == nil
	}
}

func runqgrabnext(pp *p) (next *g, retry bool) {
	if next = pp.runnext.Load(); next == nil {
		return nil, false
	}
	if pp.status.Load() == _Prunning {
		pp.sched.cfg.usleep(3) // let the owner run the G it just readied
	}
	if takeNext(pp, next) {
		return next, false
	}
	return nil, true
}
