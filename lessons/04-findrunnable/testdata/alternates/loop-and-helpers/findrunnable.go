package sched

// An alternate findrunnable.go: the same search written as a for loop over
// small helpers instead of one function with goto, a steal loop that walks
// the victims of each pass from a precomputed list, a steal order that
// draws the increment from the low bits of the random number and the start
// position from the high ones, and (as the runtime, unlike the reference)
// one more look at the global queue after dropping nmspinning.

const stealTries = 4

// findRunnable finds a runnable G to execute; it blocks until there is one
// and returns nil only when the Runtime is closing.
func findRunnable(mp *m) (*g, bool) {
	sched := mp.sched
	for {
		if sched.closing.Load() {
			return nil, false
		}
		if sched.gcwaiting.Load() {
			gcstopm(mp)
			if mp.p == nil {
				return nil, false
			}
			continue
		}
		pp := mp.p
		pollUntil := checkTimers(mp)

		if gp := fairnessPick(sched, pp); gp != nil {
			return gp, false
		}
		if gp, inherit := runqget(pp); gp != nil {
			return gp, inherit
		}
		if gp := globalBatch(sched, pp, true); gp != nil {
			return gp, false
		}

		if shouldSpin(mp) {
			if !mp.spinning {
				mp.becomeSpinning()
			}
			gp, stw := stealWork(mp)
			if gp != nil {
				return gp, false
			}
			if stw {
				continue
			}
		}

		gp, again := giveUp(mp, pp, pollUntil)
		if gp != nil {
			return gp, false
		}
		if !again {
			return nil, false
		}
	}
}

// fairnessPick takes one G from the global queue on every 61st tick.
func fairnessPick(sched *schedt, pp *p) *g {
	if pp.schedtick.Load()%61 != 0 || sched.runq.emptyHint() {
		return nil
	}
	sched.lock.Lock()
	defer sched.lock.Unlock()
	return sched.globrunqget()
}

// globalBatch takes a batch from the global queue: the first G to run, the
// rest onto pp's ring. lock says whether to take sched.lock (false: the
// caller holds it and this releases it).
func globalBatch(sched *schedt, pp *p, lock bool) *g {
	if lock {
		if sched.runq.emptyHint() {
			return nil
		}
		sched.lock.Lock()
	}
	gp, q := sched.globrunqgetbatch(int32(len(pp.runq) / 2))
	sched.lock.Unlock()
	if gp == nil {
		return nil
	}
	runqputbatch(pp, &q)
	if !q.empty() {
		panic("findRunnable: could not put Gs into an empty local runq")
	}
	return gp
}

// giveUp is the end of the search: the last looks, then release the P and
// park. It returns a G found on the way, or again = true to search again
// (with a P), or again = false when the Runtime is closing.
func giveUp(mp *m, pp *p, pollUntil int64) (gp *g, again bool) {
	sched := mp.sched
	allpSnapshot := sched.allp
	maskSnapshot := sched.idlepMask

	sched.lock.Lock()
	switch {
	case sched.gcwaiting.Load():
		sched.lock.Unlock()
		return nil, true
	case !sched.runq.empty():
		return globalBatch(sched, pp, false), true
	case !mp.spinning && sched.needspinning.Load() == 1:
		mp.becomeSpinning()
		sched.lock.Unlock()
		return nil, true
	}
	if releasep(mp) != pp {
		panic("findRunnable: wrong p")
	}
	sched.pidleput(pp)
	sched.lock.Unlock()

	wasSpinning := mp.spinning
	if wasSpinning {
		stopSpinning(mp)
		// As the runtime does (proc.go:3676-3692): the global queue too may
		// have received a G whose wakep saw this M still spinning.
		sched.lock.Lock()
		if !sched.runq.empty() {
			if idle := sched.pidlegetSpinning(); idle != nil {
				gp := globalBatch(sched, idle, false)
				acquirep(mp, idle)
				mp.becomeSpinning()
				return gp, true
			}
		}
		sched.lock.Unlock()
		if idle := checkRunqsNoP(sched, allpSnapshot, maskSnapshot); idle != nil {
			acquirep(mp, idle)
			mp.becomeSpinning()
			return nil, true
		}
	}

	if deadline := min0(pollUntil, sched.timer0When.Load()); deadline != 0 {
		if sched.lastpoll.Swap(0) != 0 {
			if blockUntilTimer(mp, deadline, wasSpinning) {
				return nil, true
			}
		} else if until := sched.pollUntil.Load(); until == 0 || until > deadline {
			netpollBreak(sched)
		}
	}
	stopm(mp)
	return nil, mp.p != nil
}

// stealWork makes stealTries passes over the other busy Ps; only the last
// may take a runnext. stw reports a pending stop-the-world.
func stealWork(mp *m) (gp *g, stw bool) {
	sched := mp.sched
	pp := mp.p
	victims := make([]int32, 0, len(sched.allp))
	for pass := 1; pass <= stealTries; pass++ {
		victims = victims[:0]
		for enum := sched.stealOrder.start(pp.rand.uint32()); !enum.done(); enum.next() {
			victims = append(victims, int32(enum.position()))
		}
		for _, id := range victims {
			if sched.gcwaiting.Load() {
				return nil, true
			}
			if id == pp.id || sched.idlepMask.read(id) {
				continue
			}
			p2 := sched.allp[id]
			before := pp.runqtail.Load()
			if gp := runqsteal(pp, p2, pass == stealTries); gp != nil {
				if sched.trace != nil {
					sched.emit(Event{Kind: EvSteal, G: gp.goid, P: pp.id, M: mp.id, Arg: int64(p2.id), N: int64(pp.runqtail.Load() - before + 1)})
				}
				return gp, false
			}
		}
	}
	return nil, false
}

type randomOrder struct {
	count    uint32
	coprimes []uint32
}

type randomEnum struct {
	i     uint32
	count uint32
	pos   uint32
	inc   uint32
}

// reset lists the increments coprime with count, from scratch.
func (ord *randomOrder) reset(count uint32) {
	list := make([]uint32, 0, count)
	for c := count; c >= 1; c-- {
		if gcd(count, c) == 1 {
			list = append(list, c)
		}
	}
	ord.count, ord.coprimes = count, list
}

// start takes the first P from i mod count and the increment from the
// quotient, so that the two do not come from the same bits of i.
func (ord *randomOrder) start(i uint32) randomEnum {
	q, r := i/ord.count, i%ord.count
	return randomEnum{count: ord.count, pos: r, inc: ord.coprimes[q%uint32(len(ord.coprimes))]}
}

//kata:given
func (enum *randomEnum) done() bool {
	return enum.i == enum.count
}

//kata:given
func (enum *randomEnum) next() {
	enum.i++
	enum.pos = (enum.pos + enum.inc) % enum.count
}

//kata:given
func (enum *randomEnum) position() uint32 {
	return enum.pos
}

//kata:given
func gcd(a, b uint32) uint32 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// min0 returns the smaller of two deadlines, where 0 means none.
//
//kata:given
func min0(a, b int64) int64 {
	if a == 0 || (b != 0 && b < a) {
		return b
	}
	return a
}
