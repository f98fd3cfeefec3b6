package sched

// Lesson 01 through a view of its own: ring wraps a P's slots and
// counters in methods (a type the file declares, so it may have them),
// and every loop that reads head and tail is a labelled loop that reads
// them again by continuing.

type ring struct{ pp *p }

func (r ring) size() uint32                { return uint32(len(r.pp.runq)) }
func (r ring) at(i uint32) *g              { return r.pp.runq[i%r.size()].Load() }
func (r ring) put(i uint32, gp *g)         { r.pp.runq[i%r.size()].Store(gp) }
func (r ring) head() uint32                { return r.pp.runqhead.Load() }
func (r ring) tail() uint32                { return r.pp.runqtail.Load() }
func (r ring) publish(t uint32)            { r.pp.runqtail.Store(t) }
func (r ring) take(h, n uint32) bool       { return r.pp.runqhead.CompareAndSwap(h, h+n) }
func (r ring) randomized() bool            { return r.pp.sched.cfg.randomizeScheduler }
func (r ring) pick(bound uint32) uint32    { return r.pp.rand.n(bound) }
func (r ring) swap(i, j uint32)            { a, b := r.at(i), r.at(j); r.put(i, b); r.put(j, a) }
func (r ring) fits(h, t, n uint32) bool    { return t-h+n <= r.size() }
func (r ring) half() uint32                { return r.size() / 2 }
func (r ring) consistent(h, t uint32) bool { return t-h <= r.size() }

func runqputtail(pp *p, gp *g) {
	r := ring{pp}
retry:
	h, t := r.head(), r.tail()
	if r.fits(h, t, 1) {
		r.put(t, gp)
		r.publish(t + 1)
		return
	}
	if !runqputslow(pp, gp, h, t) {
		goto retry
	}
}

func runqputslow(pp *p, gp *g, h, t uint32) bool {
	r := ring{pp}
	n := (t - h) / 2
	if n != r.half() {
		panic("runqputslow: queue is not full")
	}
	var batch [len(pp.runq)/2 + 1]*g
	for i := uint32(0); i < n; i++ {
		batch[i] = r.at(h + i)
	}
	if !r.take(h, n) {
		return false
	}
	batch[n] = gp
	if r.randomized() {
		for i := n; i > 0; i-- {
			j := r.pick(i + 1)
			batch[i], batch[j] = batch[j], batch[i]
		}
	}
	q := gQueue{}
	for i := uint32(0); i <= n; i++ {
		q.pushBack(batch[i])
	}
	pp.sched.lock.Lock()
	defer pp.sched.lock.Unlock()
	pp.sched.globrunqputbatch(&q)
	return true
}

func runqputbatch(pp *p, q *gQueue) {
	r := ring{pp}
	h, t0 := r.head(), r.tail()
	t := t0
	for ; !q.empty() && r.fits(h, t, 1); t++ {
		r.put(t, q.pop())
	}
	if r.randomized() {
		for i := t - t0; i > 1; i-- {
			r.swap(t0+i-1, t0+r.pick(i))
		}
	}
	if t != t0 {
		r.publish(t)
	}
}

func runqgethead(pp *p) *g {
	r := ring{pp}
	for h, t := r.head(), r.tail(); h != t; h, t = r.head(), r.tail() {
		if gp := r.at(h); r.take(h, 1) {
			return gp
		}
	}
	return nil
}

func runqdrain(pp *p) (drainQ gQueue) {
	r := ring{pp}
	if next := pp.runnext.Load(); next != nil && pp.runnext.CompareAndSwap(next, nil) {
		drainQ.pushBack(next)
	}
	h, t := r.head(), r.tail()
	for t != h && (!r.consistent(h, t) || !r.take(h, t-h)) {
		h, t = r.head(), r.tail()
	}
	for ; h != t; h++ {
		drainQ.pushBack(r.at(h))
	}
	return drainQ
}

func runqgrab(pp *p, batch *[256]atomicRingSlot, batchHead uint32, stealRunNextG bool) uint32 {
	r := ring{pp}
	into := func(i uint32, gp *g) { batch[(batchHead+i)%uint32(len(batch))].Store(gp) }
again:
	h, t := r.head(), r.tail()
	n := (t - h + 1) / 2
	if n > r.half() {
		goto again
	}
	if n == 0 {
		if !stealRunNextG {
			return 0
		}
		next, retry := runqgrabnext(pp)
		if retry {
			goto again
		}
		if next == nil {
			return 0
		}
		into(0, next)
		return 1
	}
	for i := uint32(0); i < n; i++ {
		into(i, r.at(h+i))
	}
	if !r.take(h, n) {
		goto again
	}
	return n
}

func runqsteal(pp, p2 *p, stealRunNextG bool) *g {
	r := ring{pp}
	t := r.tail()
	n := runqgrab(p2, &pp.runq, t, stealRunNextG)
	switch n {
	case 0:
		return nil
	case 1:
		return r.at(t)
	}
	gp := r.at(t + n - 1)
	if h := r.head(); t-h+n-1 >= r.size() {
		panic("runqsteal: runq overflow")
	}
	r.publish(t + n - 1)
	return gp
}

func runqlen(pp *p) uint32 {
	r := ring{pp}
	for {
		if h, t := r.head(), r.tail(); r.consistent(h, t) {
			return t - h
		}
	}
}
