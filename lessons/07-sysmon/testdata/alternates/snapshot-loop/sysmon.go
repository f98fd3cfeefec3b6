package sched

// This file is sysmon, the system monitor: lesson 07-sysmon. An alternate
// implementation: sysmon keeps its back-off in a small struct, and retake
// walks a snapshot of allp (a P destroyed meanwhile is _Pdead, and skipped).

// Defaults for sysmon's timing; Config can override them (tests do).
const (
	sysmonMinDelayUS = 20        // first sleep of an active round, µs
	sysmonMaxDelayUS = 10 * 1000 // longest sleep between rounds, µs
	sysmonIdleRounds = 50        // idle rounds before the sleep starts doubling
	forcePreemptNS   = 10 * 1000 * 1000
	forcegcPeriodNS  = 2 * 60 * 1000 * 1000 * 1000 // the deep sleep lasts at most half
	syscallRetakeNS  = 10 * 1000 * 1000            // retake a P from any syscall this old
)

// backoff is sysmon's sleep schedule.
type backoff struct {
	cfg   *config
	idle  int   // rounds in a row that retook nothing
	delay int64 // µs
}

func (b *backoff) reset() { b.idle, b.delay = 0, b.cfg.sysmonMinDelayUS }

// next returns the sleep before the coming round.
func (b *backoff) next() int64 {
	switch {
	case b.idle == 0:
		b.delay = b.cfg.sysmonMinDelayUS
	case b.idle > b.cfg.sysmonIdleRounds:
		b.delay = min(2*b.delay, b.cfg.sysmonMaxDelayUS)
	}
	return b.delay
}

// sysmon is the body of the sysmon M. It runs until Close.
func sysmon(mp *m) {
	sched := mp.sched
	defer sched.mWG.Done()
	b := backoff{cfg: &sched.cfg}
	b.reset()
	for {
		if sched.closing.Load() {
			return
		}
		sched.cfg.usleep(b.next())
		now := sched.cfg.nanotime()
		if sched.gcwaiting.Load() || sched.npidle.Load() == sched.gomaxprocs.Load() {
			sched.lock.Lock()
			stillIdle := sched.gcwaiting.Load() || sched.npidle.Load() == sched.gomaxprocs.Load()
			if stillIdle && sched.closing.Load() {
				sched.lock.Unlock()
				return
			}
			next := sched.timer0When.Load()
			if stillIdle && (next == 0 || next > now) {
				sleep := int64(forcegcPeriodNS / 2)
				if next != 0 && next-now < sleep {
					sleep = next - now
				}
				sched.sysmonwait.Store(true)
				sched.lock.Unlock()
				if sched.trace != nil {
					sched.traceEvent(EvSysmonSleep, 0, -1, mp.id, sleep)
				}
				woken := notetsleep(&sched.sysmonnote, sleep)
				sched.lock.Lock()
				sched.sysmonwait.Store(false)
				noteclear(&sched.sysmonnote)
				if woken {
					b.reset()
				}
			}
			sched.lock.Unlock()
			now = sched.cfg.nanotime()
		}
		if retake(sched, now) > 0 {
			b.idle = 0
		} else {
			b.idle++
		}
	}
}

// retake preempts long time slices and takes Ps back from syscalls. It
// returns the number of Ps taken.
func retake(sched *schedt, now int64) uint32 {
	sched.allpLock.Lock()
	allp := sched.allp
	sched.allpLock.Unlock()

	taken := uint32(0)
	for _, pp := range allp {
		if pp == nil {
			continue
		}
		pd := &pp.sysmontick
		sched.allpLock.Lock() // pp.sysmontick is sysmon's, but keep procresize out
		s := pp.status.Load()
		force := false
		if s == _Prunning || s == _Psyscall {
			if t := pp.schedtick.Load(); t != pd.schedtick {
				pd.schedtick = t
				pd.schedwhen = now
			} else if now >= pd.schedwhen+sched.cfg.forcePreemptNS {
				preemptone(pp)
				force = true
			}
		}
		take := false
		if s == _Psyscall {
			t := pp.syscalltick.Load()
			firstSighting := t != pd.syscalltick
			if firstSighting && !force {
				pd.syscalltick = t
				pd.syscallwhen = now
			} else {
				hasWork := !runqempty(pp)
				nobodyElse := sched.nmspinning.Load()+sched.npidle.Load() == 0
				long := now >= pd.syscallwhen+syscallRetakeNS
				take = hasWork || nobodyElse || long
			}
		}
		sched.allpLock.Unlock()
		if !take {
			continue
		}
		sched.incidlelocked(-1)
		if pp.status.CompareAndSwap(_Psyscall, _Pidle) {
			if sched.trace != nil {
				sched.traceEvent(EvSysmonRetake, 0, pp.id, -1, 0)
			}
			taken++
			pp.syscalltick.Add(1)
			handoffp(pp)
		}
		sched.incidlelocked(1)
	}
	return taken
}

// preemptone asks the G running on pp to stop at its next safe point, and
// reports whether there was one.
func preemptone(pp *p) bool {
	if mp := pp.m.Load(); mp != nil {
		if gp := mp.curg.Load(); gp != nil {
			gp.preempt.Store(true)
			pp.preempt.Store(true)
			if sched := pp.sched; sched.trace != nil {
				sched.traceEvent(EvSysmonPreempt, gp.goid, pp.id, mp.id, 0)
			}
			return true
		}
	}
	return false
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
