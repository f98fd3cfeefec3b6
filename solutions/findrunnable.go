package sched

// This file is how an M that has a P finds the next G to run: lesson
// 04-findrunnable. It mirrors findRunnable, stealWork and the coprime steal
// order (proc.go, Go 1.26: 3389-3900, 7999-8048).
//
// The order of the search is the whole lesson:
//
//  1. stop for stop-the-world; run due timers;
//  2. every 61st tick, one G from the global queue (fairness);
//  3. the local run queue (runnext, then the ring);
//  4. the global queue, a batch;
//  5. steal from other Ps, if spinning is allowed (spinning.go): four passes
//     over all Ps in a random coprime order, runnext only on the last;
//  6. give up: re-check the global queue under the lock, release the P;
//     if spinning, stop spinning and look at the global queue and every run
//     queue one last time, in the order that loses no G (a G may have been
//     readied by someone who saw us spinning and so did not wake anyone);
//     wait for the next timer or park the M.

// stealTries is the number of passes stealWork makes over all Ps.
const stealTries = 4

// findRunnable finds a runnable G to execute: from the local or global run
// queue, or stolen from another P. It blocks (parks the M) until there is
// one. It returns nil only when the Runtime is closing. inheritTime says
// whether gp should inherit the current time slice (it came from runnext).
//
// Mirrors findRunnable (proc.go:3389). Executed by an M that holds a P; may
// return holding a different P.
func findRunnable(mp *m) (gp *g, inheritTime bool) {
	sched := mp.sched
top:
	if sched.closing.Load() {
		return nil, false
	}
	pp := mp.p
	if sched.gcwaiting.Load() {
		gcstopm(mp)
		if mp.p == nil {
			return nil, false // closing
		}
		goto top
	}

	// Run due timers: the Gs they wake go on this P's run queue.
	pollUntil := checkTimers(mp)

	// Check the global runnable queue once in a while to ensure fairness.
	// Otherwise two Gs can completely occupy the local run queue by
	// constantly respawning each other.
	if pp.schedtick.Load()%61 == 0 && !sched.runq.emptyHint() {
		sched.lock.Lock()
		gp := sched.globrunqget()
		sched.lock.Unlock()
		if gp != nil {
			return gp, false
		}
	}

	// Local runq.
	if gp, inheritTime := runqget(pp); gp != nil {
		return gp, inheritTime
	}

	// Global runq.
	if !sched.runq.emptyHint() {
		sched.lock.Lock()
		gp, q := sched.globrunqgetbatch(int32(len(pp.runq)) / 2)
		sched.lock.Unlock()
		if gp != nil {
			if runqputbatch(pp, &q); !q.empty() {
				panic("findRunnable: could not put Gs into an empty local runq")
			}
			return gp, false
		}
	}

	// Spinning Ms: steal work from other Ps.
	//
	// Limit the number of spinning Ms to half the number of busy Ps. This
	// is necessary to prevent excessive CPU consumption when GOMAXPROCS>>1
	// but the program parallelism is low.
	if shouldSpin(mp) {
		if !mp.spinning {
			mp.becomeSpinning()
		}
		gp, inheritTime, newWork := stealWork(mp)
		if gp != nil {
			// Successfully stole.
			return gp, inheritTime
		}
		if newWork {
			// There may be new work (stop-the-world is pending).
			goto top
		}
	}

	// We have nothing to do.
	//
	// Before we drop our P, take snapshots of allp and idlepMask: procresize
	// may replace them once we hold no P.
	allpSnapshot := sched.allp
	idlepMaskSnapshot := sched.idlepMask

	// Return P and block.
	sched.lock.Lock()
	if sched.gcwaiting.Load() {
		sched.lock.Unlock()
		goto top
	}
	if !sched.runq.empty() {
		gp, q := sched.globrunqgetbatch(int32(len(pp.runq)) / 2)
		sched.lock.Unlock()
		if runqputbatch(pp, &q); !q.empty() {
			panic("findRunnable: could not put Gs into an empty local runq")
		}
		return gp, false
	}
	if !mp.spinning && sched.needspinning.Load() == 1 {
		// See the "delicate dance" below: a wakep found no idle P and asked
		// the next M that releases one to spin instead.
		mp.becomeSpinning()
		sched.lock.Unlock()
		goto top
	}
	if releasep(mp) != pp {
		panic("findRunnable: wrong p")
	}
	sched.pidleput(pp)
	sched.lock.Unlock()

	// Delicate dance: the thread transitions from spinning to non-spinning
	// state, potentially concurrently with submission of new work. We must
	// drop nmspinning first and then check all sources again (with a
	// #StoreLoad memory barrier in between). If we do it the other way
	// around, another thread can submit work after we've checked all
	// sources but before we drop nmspinning; as a result nobody will unpark
	// a thread to run the work.
	//
	// If we discover new work below, we need to restore m.spinning as a
	// signal for resetspinning to unpark a new worker thread (because there
	// can be more than one starving goroutine).
	wasSpinning := mp.spinning
	if mp.spinning {
		stopSpinning(mp)

		// Check the global queue and all Ps' run queues once again. The
		// global queue matters as much as the local ones: an M without a P
		// (leaving a system call, or Runtime.Go from outside) puts work
		// there, and its wakep saw us spinning and did nothing.
		sched.lock.Lock()
		if !sched.runq.empty() {
			if pp := sched.pidlegetSpinning(); pp != nil {
				gp, q := sched.globrunqgetbatch(int32(len(pp.runq)) / 2)
				sched.lock.Unlock()
				if gp == nil {
					panic("findRunnable: global runq empty with non-zero size")
				}
				if runqputbatch(pp, &q); !q.empty() {
					panic("findRunnable: could not put Gs into an empty local runq")
				}
				acquirep(mp, pp)
				mp.becomeSpinning()
				return gp, false
			}
		}
		sched.lock.Unlock()

		if pp := checkRunqsNoP(sched, allpSnapshot, idlepMaskSnapshot); pp != nil {
			acquirep(mp, pp)
			mp.becomeSpinning()
			goto top
		}
	}

	// Wait for the next timer, if there is one and no other M is already
	// waiting for it (the runtime blocks in netpoll here).
	if pollUntil = min0(pollUntil, sched.timer0When.Load()); pollUntil != 0 {
		if sched.lastpoll.Swap(0) != 0 {
			if blockUntilTimer(mp, pollUntil, wasSpinning) {
				goto top
			}
		} else if pollerPollUntil := sched.pollUntil.Load(); pollerPollUntil == 0 || pollerPollUntil > pollUntil {
			netpollBreak(sched)
		}
	}
	stopm(mp)
	if mp.p == nil {
		return nil, false // closing
	}
	goto top
}

// stealWork attempts to steal a runnable G from any P. It makes stealTries
// passes over all Ps, each in a fresh random order (one pp.rand.uint32()
// per pass); only on the last may it take a victim's runnext. newWork
// reports that the caller should start over (stop-the-world is pending).
// With sched.trace set, a steal emits EvSteal: G the G returned, P and M
// the thief's, Arg the victim's P, N the number of Gs taken.
//
// Mirrors stealWork (proc.go:3828). Executed by a spinning M that holds a P.
func stealWork(mp *m) (gp *g, inheritTime bool, newWork bool) {
	sched := mp.sched
	pp := mp.p
	for i := 0; i < stealTries; i++ {
		stealRunNextG := i == stealTries-1
		for enum := sched.stealOrder.start(pp.rand.uint32()); !enum.done(); enum.next() {
			if sched.gcwaiting.Load() {
				// stop-the-world is pending: the caller must stop.
				return nil, false, true
			}
			p2 := sched.allp[enum.position()]
			if pp == p2 {
				continue
			}
			// Don't bother to attempt to steal if p2 is idle: idle Ps have
			// empty run queues.
			if sched.idlepMask.read(int32(enum.position())) {
				continue
			}
			t := pp.runqtail.Load()
			if gp := runqsteal(pp, p2, stealRunNextG); gp != nil {
				if sched.trace != nil {
					n := pp.runqtail.Load() - t + 1
					sched.emit(Event{Kind: EvSteal, G: gp.goid, P: pp.id, M: mp.id, Arg: int64(p2.id), N: int64(n)})
				}
				return gp, false, false
			}
		}
	}
	return nil, false, false
}

// randomOrder enumerates all Ps in different pseudo-random orders without
// repetition. If inc and count are coprime, pos, pos+inc, pos+2*inc, ...
// (mod count) visits every P exactly once; start picks pos and inc from one
// random number.
//
// Mirrors randomOrder (proc.go:7999).
type randomOrder struct {
	count    uint32
	coprimes []uint32
}

// randomEnum is one enumeration of a randomOrder.
type randomEnum struct {
	i     uint32
	count uint32
	pos   uint32
	inc   uint32
}

// reset prepares the order for count Ps: the coprimes of count in 1..count,
// each once, in any order (start picks among them with a random number),
// computed afresh. Called by procresize, under stop-the-world.
func (ord *randomOrder) reset(count uint32) {
	ord.count = count
	ord.coprimes = nil
	for i := uint32(1); i <= count; i++ {
		if gcd(i, count) == 1 {
			ord.coprimes = append(ord.coprimes, i)
		}
	}
}

// start begins an enumeration at i % count, stepping by a coprime chosen by
// i / count.
func (ord *randomOrder) start(i uint32) randomEnum {
	return randomEnum{
		count: ord.count,
		pos:   i % ord.count,
		inc:   ord.coprimes[i/ord.count%uint32(len(ord.coprimes))],
	}
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
