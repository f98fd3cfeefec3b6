package sched

import "strconv"

// Lesson 01 written with small helpers: every index into a ring goes
// through slotOf, the ring's size is a constant, and the panics say the
// numbers they saw (strconv, no fmt).

// ringSize is the number of slots of a P's ring.
const ringSize = uint32(len(p{}.runq))

// slotOf is the slot of ring position i.
func slotOf(i uint32) uint32 { return i % ringSize }

// ends reads pp's head, then its tail: load-acquire both.
func ends(pp *p) (h, t uint32) {
	h = pp.runqhead.Load()
	t = pp.runqtail.Load()
	return h, t
}

// consume commits the consumption of n slots from h, or reports that
// another consumer moved the head first.
func consume(pp *p, h, n uint32) bool {
	return pp.runqhead.CompareAndSwap(h, h+n)
}

func runqputtail(pp *p, gp *g) {
	for {
		h, t := ends(pp)
		if t-h < ringSize {
			pp.runq[slotOf(t)].Store(gp)
			pp.runqtail.Store(t + 1)
			return
		}
		if runqputslow(pp, gp, h, t) {
			return
		}
	}
}

func runqputslow(pp *p, gp *g, h, t uint32) bool {
	n := (t - h) / 2
	if n != ringSize/2 {
		panic("runqputslow: queue is not full: head " + strconv.FormatUint(uint64(h), 10) + ", tail " + strconv.FormatUint(uint64(t), 10))
	}
	batch := make([]*g, 0, n+1)
	for i := range n {
		batch = append(batch, pp.runq[slotOf(h+i)].Load())
	}
	if !consume(pp, h, n) {
		return false
	}
	batch = append(batch, gp)
	if pp.sched.cfg.randomizeScheduler {
		shuffleGs(pp, batch)
	}
	var q gQueue
	for _, b := range batch {
		q.pushBack(b)
	}
	pp.sched.lock.Lock()
	pp.sched.globrunqputbatch(&q)
	pp.sched.lock.Unlock()
	return true
}

// shuffleGs shuffles gs uniformly (Fisher-Yates), with pp's generator.
func shuffleGs(pp *p, gs []*g) {
	for i := len(gs) - 1; i > 0; i-- {
		j := pp.rand.n(uint32(i) + 1)
		gs[i], gs[j] = gs[j], gs[i]
	}
}

func runqputbatch(pp *p, q *gQueue) {
	h, t := ends(pp)
	var put []*g
	for !q.empty() && t-h+uint32(len(put)) < ringSize {
		put = append(put, q.pop())
	}
	if len(put) == 0 {
		return
	}
	if pp.sched.cfg.randomizeScheduler {
		shuffleGs(pp, put)
	}
	for i, gp := range put {
		pp.runq[slotOf(t+uint32(i))].Store(gp)
	}
	pp.runqtail.Store(t + uint32(len(put)))
}

func runqgethead(pp *p) *g {
	for {
		h, t := ends(pp)
		if t == h {
			return nil
		}
		gp := pp.runq[slotOf(h)].Load()
		if consume(pp, h, 1) {
			return gp
		}
	}
}

func runqdrain(pp *p) (drainQ gQueue) {
	if next := pp.runnext.Load(); next != nil && pp.runnext.CompareAndSwap(next, nil) {
		drainQ.pushBack(next)
	}
	for {
		h, t := ends(pp)
		n := t - h
		if n == 0 {
			return drainQ
		}
		if n > ringSize || !consume(pp, h, n) {
			continue // inconsistent h and t, or a thief moved the head
		}
		for i := range n {
			drainQ.pushBack(pp.runq[slotOf(h+i)].Load())
		}
		return drainQ
	}
}

func runqgrab(pp *p, batch *[256]atomicRingSlot, batchHead uint32, stealRunNextG bool) uint32 {
	for {
		h, t := ends(pp)
		n := (t - h) - (t-h)/2
		switch {
		case n == 0 && !stealRunNextG:
			return 0
		case n == 0:
			next, retry := runqgrabnext(pp)
			if retry {
				continue
			}
			if next == nil {
				return 0
			}
			batch[slotOf(batchHead)].Store(next)
			return 1
		case n > ringSize/2:
			continue // inconsistent h and t: read them again
		}
		for i := range n {
			batch[slotOf(batchHead+i)].Store(pp.runq[slotOf(h+i)].Load())
		}
		if consume(pp, h, n) {
			return n
		}
	}
}

func runqsteal(pp, p2 *p, stealRunNextG bool) *g {
	t := pp.runqtail.Load()
	n := runqgrab(p2, &pp.runq, t, stealRunNextG)
	if n == 0 {
		return nil
	}
	last := t + n - 1
	gp := pp.runq[slotOf(last)].Load()
	if n == 1 {
		return gp
	}
	if h := pp.runqhead.Load(); last-h >= ringSize {
		panic("runqsteal: runq overflow: " + strconv.Itoa(int(n-1)) + " stolen Gs do not fit behind " + strconv.Itoa(int(t-h)))
	}
	pp.runqtail.Store(last)
	return gp
}

func runqlen(pp *p) uint32 {
	for {
		h, t := ends(pp)
		if t-h <= ringSize {
			return t - h
		}
	}
}
