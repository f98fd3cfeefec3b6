package sched

import "strconv"

// The spinning protocol with its repeated steps in helpers: traceSpin
// emits a spin event, claimIdleP takes an idle P under sched.lock, and a
// negative count panics with the count it saw (strconv).

// traceSpin emits kind (EvSpinStart or EvSpinStop) for mp, if tracing.
func traceSpin(mp *m, kind EventKind) {
	if mp.sched.trace != nil {
		mp.sched.traceEvent(kind, 0, pidOf(mp.p), mp.id, 0)
	}
}

// claimIdleP takes an idle P for a spinning M, or nil, under sched.lock.
func claimIdleP(sched *schedt) *p {
	sched.lock.Lock()
	defer sched.lock.Unlock()
	return sched.pidlegetSpinning()
}

// mustNotBeNegative panics, naming who, if n < 0.
func mustNotBeNegative(who string, n int32) {
	if n < 0 {
		panic(who + ": negative nmspinning (" + strconv.Itoa(int(n)) + ")")
	}
}

func shouldSpin(mp *m) bool {
	if mp.spinning {
		return true
	}
	s := mp.sched
	busy := s.gomaxprocs.Load() - s.npidle.Load()
	return 2*s.nmspinning.Load() < busy
}

func (mp *m) becomeSpinning() {
	mp.spinning = true
	mp.sched.nmspinning.Add(1)
	mp.sched.needspinning.Store(0)
	traceSpin(mp, EvSpinStart)
}

func stopSpinning(mp *m) {
	mp.spinning = false
	mustNotBeNegative("findRunnable", mp.sched.nmspinning.Add(-1))
	traceSpin(mp, EvSpinStop)
}

func resetspinning(mp *m) {
	if !mp.spinning {
		panic("resetspinning: not a spinning m (M " + strconv.FormatInt(mp.id, 10) + ")")
	}
	stopSpinning(mp)
	wakep(mp.sched)
}

func wakep(sched *schedt) {
	if sched.nmspinning.Load() != 0 || !sched.nmspinning.CompareAndSwap(0, 1) {
		return // an M spins already: it will find the work
	}
	pp := claimIdleP(sched)
	if pp == nil {
		mustNotBeNegative("wakep", sched.nmspinning.Add(-1))
		return
	}
	startm(sched, pp, true, false)
}

func checkRunqsNoP(sched *schedt, allpSnapshot []*p, idlepMaskSnapshot pMask) *p {
	for id, p2 := range allpSnapshot {
		if idlepMaskSnapshot.read(int32(id)) || runqempty(p2) {
			continue
		}
		return claimIdleP(sched)
	}
	return nil
}
