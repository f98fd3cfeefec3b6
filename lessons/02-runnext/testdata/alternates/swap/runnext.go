package sched

// An alternate runnext.go: runnext is exchanged with Swap instead of a CAS
// loop, the coin is the low bit of the P's random number, runqempty reads
// the tail first and re-reads it last, and runqgrabnext checks the victim's
// M and current G as Go 1.26 does.

// runqput puts gp on pp's local run queue: in runnext if next (kicking the
// old runnext to the ring), else on the ring's tail.
func runqput(pp *p, gp *g, next bool) {
	cfg := &pp.sched.cfg
	useNext := next && cfg.haveSysmon
	if useNext && cfg.randomizeScheduler {
		useNext = pp.rand.uint32()&1 == 1
	}
	if !useNext {
		runqputtail(pp, gp)
		return
	}
	// Swap is atomic: if a thief took the old runnext in the meantime, we
	// see nil and have nothing to kick.
	if old := pp.runnext.Swap(gp); old != nil {
		runqputtail(pp, old)
	}
}

// runqget takes runnext if set (inheriting the time slice), else the ring's
// head.
func runqget(pp *p) (*g, bool) {
	if pp.runnext.Load() != nil {
		// Only the owner sets runnext to a G, so nil here means a thief
		// took it: fall through to the ring.
		if next := pp.runnext.Swap(nil); next != nil {
			return next, true
		}
	}
	gp := runqgethead(pp)
	return gp, false
}

// runqempty reports whether pp has nothing queued; never falsely.
func runqempty(pp *p) bool {
	tail := pp.runqtail.Load()
	for {
		head := pp.runqhead.Load()
		next := pp.runnext.Load()
		again := pp.runqtail.Load()
		if again == tail {
			return head == tail && next == nil
		}
		tail = again
	}
}

// runqgrabnext takes pp's runnext for a thief, backing off first if pp is
// running a G that is not in a system call.
func runqgrabnext(pp *p) (*g, bool) {
	next := pp.runnext.Load()
	if next == nil {
		return nil, false
	}
	if pp.status.Load() == _Prunning {
		if mp := pp.m.Load(); mp != nil {
			if cur := mp.curg.Load(); cur == nil || readgstatus(cur) != _Gsyscall {
				pp.sched.cfg.usleep(3)
			}
		}
	}
	if pp.runnext.CompareAndSwap(next, nil) {
		return next, false
	}
	return nil, true
}
