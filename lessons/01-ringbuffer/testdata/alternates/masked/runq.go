package sched

// An alternative ring: a power-of-two mask instead of modulo, helpers for
// the slot arithmetic, counted loops instead of for-ever loops, and
// runqputbatch shuffling a slice before it stores (Durstenfeld's order,
// from the end) rather than swapping slots.

const ringMask = uint32(len(p{}.runq) - 1)

func slot(pp *p, i uint32) *atomicRingSlot {
	return &pp.runq[i&ringMask]
}

func runqputtail(pp *p, gp *g) {
	for {
		head, tail := pp.runqhead.Load(), pp.runqtail.Load()
		if tail-head <= ringMask {
			slot(pp, tail).Store(gp)
			pp.runqtail.Store(tail + 1)
			return
		}
		if runqputslow(pp, gp, head, tail) {
			return
		}
	}
}

func runqputslow(pp *p, gp *g, h, t uint32) bool {
	half := (t - h) / 2
	if half != (ringMask+1)/2 {
		panic("runqputslow: queue is not full")
	}
	moved := make([]*g, 0, half+1)
	for i := uint32(0); i < half; i++ {
		moved = append(moved, slot(pp, h+i).Load())
	}
	if !pp.runqhead.CompareAndSwap(h, h+half) {
		return false
	}
	moved = append(moved, gp)
	if pp.sched.cfg.randomizeScheduler {
		for i := 1; i < len(moved); i++ {
			j := pp.rand.n(uint32(i + 1))
			moved[i], moved[j] = moved[j], moved[i]
		}
	}
	var q gQueue
	for _, m := range moved {
		q.pushBack(m)
	}
	pp.sched.lock.Lock()
	pp.sched.globrunqputbatch(&q)
	pp.sched.lock.Unlock()
	return true
}

func runqputbatch(pp *p, q *gQueue) {
	head, tail := pp.runqhead.Load(), pp.runqtail.Load()
	var fit []*g
	for tail-head+uint32(len(fit)) <= ringMask && !q.empty() {
		fit = append(fit, q.pop())
	}
	if pp.sched.cfg.randomizeScheduler {
		// Durstenfeld's shuffle, from the end, before the Gs are stored.
		for i := len(fit) - 1; i > 0; i-- {
			j := int(pp.rand.n(uint32(i + 1)))
			fit[i], fit[j] = fit[j], fit[i]
		}
	}
	for _, gp := range fit {
		slot(pp, tail).Store(gp)
		tail++
	}
	pp.runqtail.Store(tail)
}

func runqgethead(pp *p) *g {
	for {
		head := pp.runqhead.Load()
		if head == pp.runqtail.Load() {
			return nil
		}
		gp := slot(pp, head).Load()
		if pp.runqhead.CompareAndSwap(head, head+1) {
			return gp
		}
	}
}

func runqdrain(pp *p) (drainQ gQueue) {
	if next := pp.runnext.Swap(nil); next != nil {
		drainQ.pushBack(next)
	}
	for {
		head, tail := pp.runqhead.Load(), pp.runqtail.Load()
		if head == tail {
			return
		}
		if tail-head > ringMask+1 {
			continue
		}
		if pp.runqhead.CompareAndSwap(head, tail) {
			for i := head; i != tail; i++ {
				drainQ.pushBack(slot(pp, i).Load())
			}
			return
		}
	}
}

func runqgrab(pp *p, batch *[256]atomicRingSlot, batchHead uint32, stealRunNextG bool) uint32 {
	for {
		head := pp.runqhead.Load()
		tail := pp.runqtail.Load()
		queued := tail - head
		take := (queued + 1) / 2
		if take == 0 {
			if !stealRunNextG {
				return 0
			}
			next, retry := runqgrabnext(pp)
			switch {
			case retry:
				continue
			case next == nil:
				return 0
			}
			batch[batchHead&ringMask].Store(next)
			return 1
		}
		if take > (ringMask+1)/2 {
			continue
		}
		for i := uint32(0); i < take; i++ {
			batch[(batchHead+i)&ringMask].Store(slot(pp, head+i).Load())
		}
		if pp.runqhead.CompareAndSwap(head, head+take) {
			return take
		}
	}
}

func runqsteal(pp, p2 *p, stealRunNextG bool) *g {
	tail := pp.runqtail.Load()
	n := runqgrab(p2, &pp.runq, tail, stealRunNextG)
	if n == 0 {
		return nil
	}
	last := slot(pp, tail+n-1).Load()
	if n > 1 {
		if tail-pp.runqhead.Load()+n-1 >= ringMask+1 {
			panic("runqsteal: runq overflow")
		}
		pp.runqtail.Store(tail + n - 1)
	}
	return last
}

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
