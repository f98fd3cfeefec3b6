package sched

// This file is sysmon, the system monitor: lesson 07-sysmon. An alternate
// implementation: the back-off is computed from the idle count in closed
// form, the deep sleep and each of retake's two jobs are helpers, and the
// syscall conditions are written as a positive "worth taking" test.

// Defaults for sysmon's timing; Config can override them (tests do).
const (
	sysmonMinDelayUS = 20        // first sleep of an active round, µs
	sysmonMaxDelayUS = 10 * 1000 // longest sleep between rounds, µs
	sysmonIdleRounds = 50        // idle rounds before the sleep starts doubling
	forcePreemptNS   = 10 * 1000 * 1000
	forcegcPeriodNS  = 2 * 60 * 1000 * 1000 * 1000 // the deep sleep lasts at most half
	syscallRetakeNS  = 10 * 1000 * 1000            // retake a P from any syscall this old
)

// sysmonDelay is the sleep, in µs, of a round after idle rounds in a row
// that retook nothing: the minimum up to cfg.sysmonIdleRounds of them, then
// doubling each round, capped.
func sysmonDelay(cfg *config, idle int) int64 {
	d := cfg.sysmonMinDelayUS
	for i := cfg.sysmonIdleRounds; i < idle && d < cfg.sysmonMaxDelayUS; i++ {
		d *= 2
	}
	return min(d, cfg.sysmonMaxDelayUS)
}

// sysmon is the body of the sysmon M. It runs until Close.
func sysmon(mp *m) {
	sched := mp.sched
	defer sched.mWG.Done()
	cfg := &sched.cfg
	idle := 0
	for !sched.closing.Load() {
		cfg.usleep(sysmonDelay(cfg, idle))
		now := cfg.nanotime()
		if sysmonAllIdle(sched) {
			woken, closing := sysmonDeepSleep(sched, mp, now)
			if closing {
				return
			}
			if woken {
				idle = 0
			}
			now = cfg.nanotime()
		}
		if retake(sched, now) == 0 {
			idle++
		} else {
			idle = 0
		}
	}
}

func sysmonAllIdle(sched *schedt) bool {
	return sched.gcwaiting.Load() || sched.npidle.Load() == sched.gomaxprocs.Load()
}

// sysmonDeepSleep sleeps on sysmonnote while every P is idle (checked again
// under sched.lock). It reports whether a wake-up ended the sleep, and
// whether the Runtime is closing.
func sysmonDeepSleep(sched *schedt, mp *m, now int64) (woken, closing bool) {
	sched.lock.Lock()
	defer sched.lock.Unlock()
	if !sysmonAllIdle(sched) {
		return false, false
	}
	if sched.closing.Load() {
		return false, true
	}
	next := sched.timer0When.Load()
	if next != 0 && next <= now {
		return false, false // a timer is due: go and look
	}
	sleep := int64(forcegcPeriodNS / 2)
	if next != 0 {
		sleep = min(sleep, next-now)
	}
	sched.sysmonwait.Store(true)
	sched.lock.Unlock()
	if sched.trace != nil {
		sched.traceEvent(EvSysmonSleep, 0, -1, mp.id, sleep)
	}
	woken = notetsleep(&sched.sysmonnote, sleep)
	sched.lock.Lock()
	sched.sysmonwait.Store(false)
	noteclear(&sched.sysmonnote)
	return woken, false
}

// sliceOver reports whether pp's G has run the same time slice for
// forcePreemptNS, recording a new slice if its schedtick moved.
func sliceOver(sched *schedt, pp *p, now int64) bool {
	pd := &pp.sysmontick
	if t := pp.schedtick.Load(); t != pd.schedtick {
		pd.schedtick, pd.schedwhen = t, now
		return false
	}
	return now-pd.schedwhen >= sched.cfg.forcePreemptNS
}

// syscallWorthTaking decides whether to take pp, in a syscall, from its M:
// not on the first sighting of a syscall (unless force), then if any of
// work queued, nobody to notice new work, or 10ms in the call.
func syscallWorthTaking(sched *schedt, pp *p, now int64, force bool) bool {
	pd := &pp.sysmontick
	if t := pp.syscalltick.Load(); !force && t != pd.syscalltick {
		pd.syscalltick, pd.syscallwhen = t, now
		return false
	}
	switch {
	case !runqempty(pp):
		return true
	case sched.nmspinning.Load()+sched.npidle.Load() == 0:
		return true
	case now-pd.syscallwhen >= syscallRetakeNS:
		return true
	}
	return false
}

// retake preempts long time slices and takes Ps back from syscalls. It
// returns the number of Ps taken.
func retake(sched *schedt, now int64) uint32 {
	var n uint32
	sched.allpLock.Lock()
	defer sched.allpLock.Unlock()
	for i := 0; i < len(sched.allp); i++ {
		pp := sched.allp[i]
		if pp == nil {
			continue
		}
		s := pp.status.Load()
		if s != _Prunning && s != _Psyscall {
			continue
		}
		over := sliceOver(sched, pp, now)
		if over {
			preemptone(pp)
		}
		if s != _Psyscall || !syscallWorthTaking(sched, pp, now, over) {
			continue
		}
		sched.allpLock.Unlock()
		sched.incidlelocked(-1)
		if pp.status.CompareAndSwap(_Psyscall, _Pidle) {
			if sched.trace != nil {
				sched.traceEvent(EvSysmonRetake, 0, pp.id, -1, 0)
			}
			pp.syscalltick.Add(1)
			n++
			handoffp(pp)
		}
		sched.incidlelocked(1)
		sched.allpLock.Lock()
	}
	return n
}

// preemptone asks the G running on pp to stop at its next safe point, and
// reports whether there was one.
func preemptone(pp *p) bool {
	mp := pp.m.Load()
	var gp *g
	if mp != nil {
		gp = mp.curg.Load()
	}
	if gp == nil {
		return false
	}
	pp.preempt.Store(true)
	gp.preempt.Store(true)
	if sched := pp.sched; sched.trace != nil {
		sched.traceEvent(EvSysmonPreempt, gp.goid, pp.id, mp.id, 0)
	}
	return true
}

// incidlelocked adjusts the count of idle locked Ms.
//
//kata:given
func (sched *schedt) incidlelocked(v int32) {
	sched.lock.Lock()
	sched.nmidlelocked += v
	if v > 0 {
		sched.checkdead()
	}
	sched.lock.Unlock()
}
