package sched

// An alternate spinning.go: the gate computed step by step, wakep claiming
// the spinner with an explicit CAS loop, stopSpinning checking the count
// before it moves it, and checkRunqsNoP split into "is there work?" and
// "take a P".

// shouldSpin reports whether mp may look for work on other Ps.
func shouldSpin(mp *m) bool {
	if mp.spinning {
		return true
	}
	sched := mp.sched
	busy := sched.gomaxprocs.Load() - sched.npidle.Load()
	spinners := sched.nmspinning.Load()
	return spinners+spinners < busy
}

// becomeSpinning marks mp as spinning and counts it.
func (mp *m) becomeSpinning() {
	mp.spinning = true
	mp.sched.needspinning.Store(0)
	mp.sched.nmspinning.Add(1)
	if mp.sched.trace != nil {
		mp.sched.traceEvent(EvSpinStart, 0, pidOf(mp.p), mp.id, 0)
	}
}

// stopSpinning marks mp as no longer spinning and uncounts it.
func stopSpinning(mp *m) {
	sched := mp.sched
	for {
		n := sched.nmspinning.Load()
		if n <= 0 {
			panic("stopSpinning: nmspinning would go negative")
		}
		if sched.nmspinning.CompareAndSwap(n, n-1) {
			break
		}
	}
	mp.spinning = false
	if sched.trace != nil {
		sched.traceEvent(EvSpinStop, 0, pidOf(mp.p), mp.id, 0)
	}
}

// resetspinning: a spinning M found work; hand the spinning over.
func resetspinning(mp *m) {
	if !mp.spinning {
		panic("resetspinning: not a spinning m")
	}
	stopSpinning(mp)
	wakep(mp.sched)
}

// wakep starts a spinning M if nobody spins and a P is idle.
func wakep(sched *schedt) {
	for {
		if sched.nmspinning.Load() > 0 {
			return // someone is already looking
		}
		if sched.nmspinning.CompareAndSwap(0, 1) {
			break
		}
	}
	sched.lock.Lock()
	pp := sched.pidlegetSpinning()
	sched.lock.Unlock()
	if pp != nil {
		startm(sched, pp, true, false)
		return
	}
	if sched.nmspinning.Add(-1) < 0 {
		panic("wakep: negative nmspinning")
	}
}

// checkRunqsNoP returns an idle P if some P that was busy has work.
func checkRunqsNoP(sched *schedt, allpSnapshot []*p, idlepMaskSnapshot pMask) *p {
	if !anyWork(allpSnapshot, idlepMaskSnapshot) {
		return nil
	}
	sched.lock.Lock()
	defer sched.lock.Unlock()
	return sched.pidlegetSpinning()
}

// anyWork reports whether a P not idle in the snapshot has a queued G.
func anyWork(allpSnapshot []*p, idle pMask) bool {
	for i := len(allpSnapshot) - 1; i >= 0; i-- {
		if idle.read(int32(i)) {
			continue
		}
		if !runqempty(allpSnapshot[i]) {
			return true
		}
	}
	return false
}
