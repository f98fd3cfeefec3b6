package sched

// This file is runnext, the one-G slot in front of each P's ring: lesson
// 02-runnext. It mirrors the runnext halves of runqput, runqget, runqempty
// and runqgrab (proc.go, Go 1.26: 7478, 7598, 7447, 7662).
//
// Why runnext exists: when a G readies another and then blocks (a channel
// ping-pong), the readied G should run at once, on the same P, inheriting the
// rest of the time slice: the pair then behaves like one goroutine and never
// waits behind the whole queue. Only the owner P sets runnext to a G; anyone
// may take it, always with a CAS.

// runqput tries to put gp on pp's local run queue. If next is false, it adds
// gp to the tail of the ring. If next is true, gp goes into pp.runnext and
// the G it displaces, if any, is kicked to the tail of the ring.
//
// Mirrors runqput (proc.go:7478). Executed only by the owner P.
func runqput(pp *p, gp *g, next bool) {
	if !pp.sched.cfg.haveSysmon && next {
		// A runnext G shares the time slice of the G that readied it
		// (inheritTime from runqget). Only sysmon's preemption stops a
		// ping-pong pair from starving everyone else, so without sysmon
		// runnext must not be used at all.
		next = false
	}
	if pp.sched.cfg.randomizeScheduler && next && pp.rand.n(2) == 0 {
		next = false
	}

	if next {
		for {
			oldnext := pp.runnext.Load()
			if !pp.runnext.CompareAndSwap(oldnext, gp) {
				continue // a thief took oldnext meanwhile; read again
			}
			if oldnext == nil {
				return
			}
			// Kick the old runnext out to the regular run queue.
			gp = oldnext
			break
		}
	}
	runqputtail(pp, gp)
}

// runqget gets a G from pp's local run queue: runnext first, then the head
// of the ring. inheritTime is true if gp came from runnext and should
// inherit the current time slice; false if it should start a new one.
//
// Mirrors runqget (proc.go:7598). Executed only by the owner P.
func runqget(pp *p) (gp *g, inheritTime bool) {
	// If runnext is set and the CAS fails, it could only have been stolen by
	// another P: other Ps can set runnext to nil, but only this P can set it
	// to a G. So there is no need to retry the CAS.
	if next := pp.runnext.Load(); next != nil && pp.runnext.CompareAndSwap(next, nil) {
		return next, true
	}
	return runqgethead(pp), false
}

// runqempty reports whether pp has no Gs on its local run queue, runnext
// included. It never returns true falsely.
//
// Mirrors runqempty (proc.go:7447). Can be called by any P.
func runqempty(pp *p) bool {
	// Defend against a race where 1) pp has G1 in runnext but runqhead ==
	// runqtail, 2) runqput on pp kicks G1 to the runq, 3) runqget on pp
	// empties runnext. Observing runqhead == runqtail and then runnext ==
	// nil does not mean the queue is empty: tail must not have moved
	// between the two reads.
	for {
		head := pp.runqhead.Load()
		tail := pp.runqtail.Load()
		runnext := pp.runnext.Load()
		if tail == pp.runqtail.Load() {
			return head == tail && runnext == nil
		}
	}
}

// runqgrabnext is runqgrab's last resort when pp's ring is empty: take
// pp.runnext. If pp is running, it first backs off for ~3µs: the usual case
// is a G that has just readied runnext and is about to block, and stealing
// in that window would bounce the pair between Ps. It returns retry = true
// if the CAS lost (the owner ran it, or another thief took it), so that the
// caller re-reads the ring.
//
// Mirrors the runnext branch of runqgrab (proc.go:7669-7709). Executed by a
// thief.
func runqgrabnext(pp *p) (next *g, retry bool) {
	next = pp.runnext.Load()
	if next == nil {
		return nil, false
	}
	if pp.status.Load() == _Prunning {
		// Sleep to ensure that pp isn't about to run the G we are about to
		// steal. A synchronous channel hand-off takes ~50ns, so 3µs
		// overshoots ~50×.
		pp.sched.cfg.usleep(3)
	}
	if !pp.runnext.CompareAndSwap(next, nil) {
		return nil, true
	}
	return next, false
}
