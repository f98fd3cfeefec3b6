package sched

// The spinning protocol written with index loops and early returns:
// wakep claims the spinner with one CompareAndSwap (no load first), and
// checkRunqsNoP finds the first busy P with work before it takes the lock.

func shouldSpin(mp *m) bool {
	s := mp.sched
	switch {
	case mp.spinning:
		return true
	case 2*s.nmspinning.Load() >= s.gomaxprocs.Load()-s.npidle.Load():
		return false
	}
	return true
}

func (mp *m) becomeSpinning() {
	s := mp.sched
	mp.spinning = true
	s.nmspinning.Add(1)
	s.needspinning.Store(0)
	if s.trace == nil {
		return
	}
	s.traceEvent(EvSpinStart, 0, pidOf(mp.p), mp.id, 0)
}

func stopSpinning(mp *m) {
	s := mp.sched
	mp.spinning = false
	n := s.nmspinning.Add(-1)
	if n < 0 {
		panic("findRunnable: negative nmspinning")
	}
	if s.trace == nil {
		return
	}
	s.traceEvent(EvSpinStop, 0, pidOf(mp.p), mp.id, 0)
}

func resetspinning(mp *m) {
	if mp.spinning {
		stopSpinning(mp)
		wakep(mp.sched)
		return
	}
	panic("resetspinning: not a spinning m")
}

func wakep(sched *schedt) {
	if !sched.nmspinning.CompareAndSwap(0, 1) {
		return
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

func checkRunqsNoP(sched *schedt, allpSnapshot []*p, idlepMaskSnapshot pMask) *p {
	found := -1
	for i := 0; i < len(allpSnapshot) && found < 0; i++ {
		if !idlepMaskSnapshot.read(int32(i)) && !runqempty(allpSnapshot[i]) {
			found = i
		}
	}
	if found < 0 {
		return nil
	}
	sched.lock.Lock()
	pp := sched.pidlegetSpinning()
	sched.lock.Unlock()
	return pp
}
