package sched

// This file is the spinning-M protocol: lesson 05-spinning. It mirrors
// wakep, resetspinning, becomeSpinning and checkRunqsNoP, and the spinning
// gate of findRunnable (proc.go, Go 1.26: 3212-3246, 4021-4034, 3517).
//
// The problem: an M that finds no work could sleep at once, but then new
// work would always need a (slow) OS wake-up; or every M could keep looking,
// burning CPU. Go keeps a few Ms "spinning" (looking for work without
// sleeping), and follows two rules:
//
//   - whoever submits work (newproc, ready, ...) calls wakep, which starts a
//     spinning M only if there is an idle P and nobody is spinning yet;
//   - a spinning M that finds work stops spinning and calls wakep itself
//     (resetspinning), so that one spinner hands over to the next while
//     there is more work. A spinning M that finds nothing must make sure,
//     before it sleeps, that no G was queued for it to find while it was
//     counted (findRunnable).
//
// nmspinning counts spinning Ms. It never goes negative; there is no other
// bound on it (see the book's invariants appendix).

// shouldSpin reports whether mp may look for work on other Ps: it already
// spins, or fewer than half of the busy Ps have a spinning M. This limits
// CPU burned in spinning when GOMAXPROCS is large but the program's
// parallelism is low. It gates only voluntary spinning: wakep and handoffp
// start spinning Ms without it.
//
// Mirrors the gate in findRunnable (proc.go:3517). Executed by mp.
func shouldSpin(mp *m) bool {
	sched := mp.sched
	return mp.spinning || 2*sched.nmspinning.Load() < sched.gomaxprocs.Load()-sched.npidle.Load()
}

// becomeSpinning marks mp as spinning and counts it. With sched.trace set,
// it emits EvSpinStart: G 0 (no G), P pidOf(mp.p), M mp.id, Arg 0.
//
// Mirrors (*m).becomeSpinning (proc.go:1073). Executed by mp.
func (mp *m) becomeSpinning() {
	sched := mp.sched
	mp.spinning = true
	sched.nmspinning.Add(1)
	sched.needspinning.Store(0)
	if sched.trace != nil {
		sched.traceEvent(EvSpinStart, 0, pidOf(mp.p), mp.id, 0)
	}
}

// stopSpinning marks mp as no longer spinning and uncounts it, and panics
// if nmspinning goes below 0. With sched.trace set, it emits EvSpinStop:
// G 0, P pidOf(mp.p), M mp.id, Arg 0.
//
// Mirrors the first half of resetspinning, also inlined in findRunnable.
// Executed by mp.
func stopSpinning(mp *m) {
	sched := mp.sched
	mp.spinning = false
	if sched.nmspinning.Add(-1) < 0 {
		panic("findRunnable: negative nmspinning")
	}
	if sched.trace != nil {
		sched.traceEvent(EvSpinStop, 0, pidOf(mp.p), mp.id, 0)
	}
}

// resetspinning is called by a spinning M that found a G to run: it stops
// spinning and, since there may be more work where this came from, wakes
// another M to spin in its place.
//
// Mirrors resetspinning (proc.go:4021). Executed by mp.
func resetspinning(mp *m) {
	if !mp.spinning {
		panic("resetspinning: not a spinning m")
	}
	stopSpinning(mp)
	// M wakeup policy is deliberately somewhat conservative, so check if
	// we need to wake up another P here.
	wakep(mp.sched)
}

// wakep tries to add one more P to execute Gs, because there is new work
// (a G was created or readied). It starts a spinning M if, and only if, no M
// is spinning and a P is idle: the spinning M will find the work, and
// resetspinning will chain another if there is more.
//
// Mirrors wakep (proc.go:3212). Called from anywhere, without sched.lock.
func wakep(sched *schedt) {
	// Be conservative about spinning threads: only start one if none
	// exists already. The CAS 0→1 both checks and claims it.
	if sched.nmspinning.Load() != 0 || !sched.nmspinning.CompareAndSwap(0, 1) {
		return
	}

	sched.lock.Lock()
	pp := sched.pidlegetSpinning()
	if pp == nil {
		if sched.nmspinning.Add(-1) < 0 {
			panic("wakep: negative nmspinning")
		}
		sched.lock.Unlock()
		return
	}
	sched.lock.Unlock()

	startm(sched, pp, true, false)
}

// checkRunqsNoP is the last look at the other Ps' queues of an M that was
// spinning and has released its P: if any non-idle P has work, take an idle
// P (to go back to spinning with) and return it. Without this look, work
// submitted while the M was counted as spinning would wait for someone else
// to come along.
//
// Mirrors checkRunqsNoP (proc.go:3902). Executed by an M with no P.
func checkRunqsNoP(sched *schedt, allpSnapshot []*p, idlepMaskSnapshot pMask) *p {
	for id, p2 := range allpSnapshot {
		if !idlepMaskSnapshot.read(int32(id)) && !runqempty(p2) {
			sched.lock.Lock()
			pp := sched.pidlegetSpinning()
			sched.lock.Unlock()
			// With no idle P there is no point looking further: we could not
			// run what we find.
			return pp
		}
	}
	return nil
}
