package sched

// This file is the local run queue's ring buffer: lesson 01-ringbuffer.
// It mirrors the ring parts of runqput, runqputslow, runqputbatch, runqget,
// runqgrab, runqsteal and runqdrain (proc.go, Go 1.26: 7478-7760). runnext,
// the one-G slot in front of the ring, is lesson 02 (runnext.go).
//
// The protocol. Only the owner P pushes, at the tail; the owner pops and
// thieves steal at the head. So:
//   - runqtail is written only by the owner, with a store-release that
//     publishes the slot it just filled;
//   - runqhead is advanced by anyone, always with a compare-and-swap, which
//     commits the consumption of the slots read before it;
//   - head and tail are read with load-acquire; tail-head (with uint32
//     wrap-around) is the number of queued Gs, at most len(runq).

// runqputtail puts gp on the tail of pp's ring. If the ring is full it moves
// half of it, plus gp, to the global queue (runqputslow).
//
// Mirrors the ring half of runqput. Executed only by the owner P.
func runqputtail(pp *p, gp *g) {
	for {
		h := pp.runqhead.Load() // load-acquire, synchronize with consumers
		t := pp.runqtail.Load()
		if t-h < uint32(len(pp.runq)) {
			pp.runq[t%uint32(len(pp.runq))].Store(gp)
			pp.runqtail.Store(t + 1) // store-release, makes the item available for consumption
			return
		}
		if runqputslow(pp, gp, h, t) {
			return
		}
		// The ring was not full after all (a thief took some); the put above
		// must now succeed.
	}
}

// runqputslow moves half of pp's full ring, plus gp, to the global queue in
// one batch, so the next 128 puts are cheap again and other Ps can find the
// work without stealing: the 128 oldest Gs in order, then gp (shuffled if
// RandomizeScheduler is set, as the runtime does under -race). h and t are
// the head and tail the caller read. It returns false, having moved nothing
// and queued nothing, if the CAS of the head from h fails (a consumer got
// there first: the ring is no longer full).
// With RandomizeScheduler the shuffle is uniform (Fisher-Yates with
// pp.rand), gp included.
//
// Mirrors runqputslow (proc.go:7524). Executed only by the owner P.
func runqputslow(pp *p, gp *g, h, t uint32) bool {
	var batch [len(pp.runq)/2 + 1]*g

	// First, grab a batch from the local queue.
	n := t - h
	n = n / 2
	if n != uint32(len(pp.runq)/2) {
		panic("runqputslow: queue is not full")
	}
	for i := uint32(0); i < n; i++ {
		batch[i] = pp.runq[(h+i)%uint32(len(pp.runq))].Load()
	}
	if !pp.runqhead.CompareAndSwap(h, h+n) { // cas-release, commits consume
		return false
	}
	batch[n] = gp

	if pp.sched.cfg.randomizeScheduler {
		for i := uint32(1); i <= n; i++ {
			j := pp.rand.n(i + 1)
			batch[i], batch[j] = batch[j], batch[i]
		}
	}

	// Link the goroutines and put the batch on the global queue.
	for i := uint32(0); i < n; i++ {
		batch[i].schedlink = batch[i+1]
	}
	q := gQueue{head: batch[0], tail: batch[n], size: int32(n + 1)}
	pp.sched.lock.Lock()
	pp.sched.globrunqputbatch(&q)
	pp.sched.lock.Unlock()
	return true
}

// runqputbatch puts as many Gs of q as fit on pp's ring, behind what is
// queued, and publishes them with one store of the tail. They keep q's
// order, unless RandomizeScheduler is set: then they are shuffled, as the
// runtime does under -race. What does not fit is left in q, in order, for
// the caller to put on the global queue.
// With RandomizeScheduler the shuffle is uniform among the Gs put.
//
// Mirrors runqputbatch (proc.go:7565). Executed only by the owner P.
func runqputbatch(pp *p, q *gQueue) {
	if q.empty() {
		return
	}
	h := pp.runqhead.Load()
	t0 := pp.runqtail.Load()
	t := t0
	n := uint32(0)
	for !q.empty() && t-h < uint32(len(pp.runq)) {
		gp := q.pop()
		pp.runq[t%uint32(len(pp.runq))].Store(gp)
		t++
		n++
	}

	if pp.sched.cfg.randomizeScheduler {
		off := func(o uint32) uint32 {
			return (t0 + o) % uint32(len(pp.runq))
		}
		for i := uint32(1); i < n; i++ {
			j := pp.rand.n(i + 1)
			a, b := pp.runq[off(i)].Load(), pp.runq[off(j)].Load()
			pp.runq[off(i)].Store(b)
			pp.runq[off(j)].Store(a)
		}
	}

	pp.runqtail.Store(t) // store-release, publishes the whole batch
}

// runqgethead takes the G at the head of pp's ring, or returns nil if the
// ring is empty.
//
// Mirrors the ring half of runqget (proc.go:7598). Executed only by the owner
// P, racing with thieves for the head.
func runqgethead(pp *p) *g {
	for {
		h := pp.runqhead.Load() // load-acquire, synchronize with other consumers
		t := pp.runqtail.Load()
		if t == h {
			return nil
		}
		gp := pp.runq[h%uint32(len(pp.runq))].Load()
		if pp.runqhead.CompareAndSwap(h, h+1) { // cas-release, commits consume
			return gp
		}
	}
}

// runqdrain takes every G off pp's run queue, runnext first, and returns
// them in the order they would have run.
//
// Mirrors runqdrain (proc.go:7623). Executed only by the owner P.
func runqdrain(pp *p) (drainQ gQueue) {
	if next := pp.runnext.Load(); next != nil && pp.runnext.CompareAndSwap(next, nil) {
		drainQ.pushBack(next)
	}
	for {
		h := pp.runqhead.Load()
		t := pp.runqtail.Load()
		qn := t - h
		if qn == 0 {
			return
		}
		if qn > uint32(len(pp.runq)) { // read inconsistent h and t
			continue
		}
		if !pp.runqhead.CompareAndSwap(h, h+qn) {
			continue
		}
		// The slots can be read after the CAS: only the owner (us) writes
		// them, and nobody else will consume them now.
		for i := uint32(0); i < qn; i++ {
			drainQ.pushBack(pp.runq[(h+i)%uint32(len(pp.runq))].Load())
		}
		return
	}
}

// runqgrab takes the older half of pp's ring (n - n/2 of n Gs, from the
// head) and stores them in batch, a ring of the same size, starting at
// batchHead. It returns the number taken. If the ring is empty and
// stealRunNextG is set, it tries runnext instead (runqgrabnext); if that
// says retry (runnext changed meanwhile, maybe kicked onto the ring), it
// reads the ring again.
// It writes at most len(batch)/2 slots from batchHead on: the rest of
// batch is the thief's own queue.
//
// Mirrors runqgrab (proc.go:7662). Can be executed by any P.
func runqgrab(pp *p, batch *[256]atomicRingSlot, batchHead uint32, stealRunNextG bool) uint32 {
	for {
		h := pp.runqhead.Load() // load-acquire, synchronize with other consumers
		t := pp.runqtail.Load() // load-acquire, synchronize with the producer
		n := t - h
		n = n - n/2
		if n == 0 {
			if !stealRunNextG {
				return 0
			}
			next, retry := runqgrabnext(pp)
			if retry {
				continue
			}
			if next == nil {
				return 0
			}
			batch[batchHead%uint32(len(batch))].Store(next)
			return 1
		}
		if n > uint32(len(pp.runq)/2) { // read inconsistent h and t
			continue
		}
		for i := uint32(0); i < n; i++ {
			gp := pp.runq[(h+i)%uint32(len(pp.runq))].Load()
			batch[(batchHead+i)%uint32(len(batch))].Store(gp)
		}
		if pp.runqhead.CompareAndSwap(h, h+n) { // cas-release, commits consume
			return n
		}
	}
}

// runqsteal steals half of the Gs from p2's run queue into pp's and returns
// the last one it took (the newest of the batch) to run, or nil if there
// was nothing to steal. The others are queued on pp's ring, oldest first.
//
// Why the last: runqgrab copies the batch straight into pp's own ring,
// into the n slots past pp's tail t, which nobody else may read until the
// tail moves. Keeping the G in the last of them, slot t+n-1, leaves the
// others in t..t+n-2 already in place: one store of the tail (t+n-1)
// publishes them all, and nothing has to move.
// If the Gs to queue do not fit after those pp holds, it panics (the
// runtime throws "runqsteal: runq overflow") rather than overwrite a
// queued G.
//
// Mirrors runqsteal (proc.go:7730). Executed by pp's owner; p2 is any other P.
func runqsteal(pp, p2 *p, stealRunNextG bool) *g {
	t := pp.runqtail.Load()
	n := runqgrab(p2, &pp.runq, t, stealRunNextG)
	if n == 0 {
		return nil
	}
	n--
	gp := pp.runq[(t+n)%uint32(len(pp.runq))].Load()
	if n == 0 {
		return gp
	}
	h := pp.runqhead.Load() // load-acquire, synchronize with consumers
	if t-h+n >= uint32(len(pp.runq)) {
		panic("runqsteal: runq overflow")
	}
	pp.runqtail.Store(t + n) // store-release, makes the items available for consumption
	return gp
}

// runqlen returns the number of Gs in pp's ring (not counting runnext). The
// answer may be stale by the time it is used unless pp is stopped.
//
//kata:given
func runqlen(pp *p) uint32 {
	for {
		h := pp.runqhead.Load()
		t := pp.runqtail.Load()
		if t-h <= uint32(len(pp.runq)) {
			return t - h
		}
	}
}
