package sched

// retake with each P's two checks in functions of their own
// (preemptIfLong, syscallTooLong), a switch on the status, and the
// allpLock released by a deferred call.

// This file is sysmon, the system monitor: lesson 07-sysmon. It mirrors
// sysmon, retake and preemptone (the Go 1.25 model; in Go 1.26's proc.go
// they are at 6486, 6630 and 6866).
//
// sysmon is an M that never holds a P and runs no G. It wakes every 20µs,
// backing off (doubling, to at most 10ms) once it has had nothing to do for
// 50 rounds in a row, and sleeps deeply while every P is idle. Each round it
// retakes: a P whose G has run the same time slice for 10ms gets that G
// preempted; a P whose M has sat in a system call gets handed off to another
// M so that the P's other Gs can run.

// Defaults for sysmon's timing; Config can override them (tests do).
const (
	sysmonMinDelayUS = 20        // first sleep of an active round, µs
	sysmonMaxDelayUS = 10 * 1000 // longest sleep between rounds, µs
	sysmonIdleRounds = 50        // idle rounds before the sleep starts doubling
	forcePreemptNS   = 10 * 1000 * 1000
	forcegcPeriodNS  = 2 * 60 * 1000 * 1000 * 1000 // proc.go:6476; the deep sleep lasts at most half
	syscallRetakeNS  = 10 * 1000 * 1000            // retake a P from any syscall this old
)

// sysmon is the body of the sysmon M. It runs until Close.
//
// Mirrors sysmon (proc.go:6486). Runs without a P.
//
// The deep sleep (every P idle, or the world stopped) lasts until a
// wake-up, the next timer (timer0When - now) or forcegcPeriodNS/2,
// whichever comes first; while a timer is already due (0 < timer0When <=
// now) there is none. If sched.trace is set, sysmon emits
// traceEvent(EvSysmonSleep, 0, -1, mp.id, sleep) just before notetsleep,
// with sysmonwait set and no lock held, sleep being that longest time
// (ns). After it, sysmon clears sysmonwait and the note under sched.lock,
// and reads the clock again.
func sysmon(mp *m) {
	sched := mp.sched
	defer sched.mWG.Done()
	cfg := &sched.cfg

	idle := 0 // how many cycles in succession we had not woken somebody up
	delay := int64(0)
	for !sched.closing.Load() {
		if idle == 0 { // start with 20us sleep...
			delay = cfg.sysmonMinDelayUS
		} else if idle > cfg.sysmonIdleRounds { // start doubling the sleep after 1ms...
			delay *= 2
		}
		if delay > cfg.sysmonMaxDelayUS { // up to 10ms
			delay = cfg.sysmonMaxDelayUS
		}
		cfg.usleep(delay)
		now := cfg.nanotime()

		// Sleep deeply while the world is stopped or every P is idle: there
		// is nothing to preempt and no syscall to retake. Whoever brings a P
		// back to life (a syscall entering or leaving, startTheWorld) wakes
		// us through sysmonnote.
		if sched.gcwaiting.Load() || sched.npidle.Load() == sched.gomaxprocs.Load() {
			sched.lock.Lock()
			if sched.gcwaiting.Load() || sched.npidle.Load() == sched.gomaxprocs.Load() {
				syscallWake := false
				next := sched.timer0When.Load()
				if sched.closing.Load() {
					// Close set closing before taking the lock to wake us:
					// it may have looked for sysmonwait before we set it.
					sched.lock.Unlock()
					return
				}
				if next == 0 || next > now {
					sched.sysmonwait.Store(true)
					sched.lock.Unlock()
					sleep := int64(forcegcPeriodNS / 2)
					if next != 0 && next-now < sleep {
						sleep = next - now
					}
					if sched.trace != nil {
						sched.traceEvent(EvSysmonSleep, 0, -1, mp.id, sleep)
					}
					syscallWake = notetsleep(&sched.sysmonnote, sleep)
					sched.lock.Lock()
					sched.sysmonwait.Store(false)
					noteclear(&sched.sysmonnote)
				}
				if syscallWake {
					idle = 0
					delay = cfg.sysmonMinDelayUS
				}
			}
			sched.lock.Unlock()
			now = cfg.nanotime()
		}

		// Retake Ps blocked in syscalls and preempt long-running Gs.
		if retake(sched, now) != 0 {
			idle = 0
		} else {
			idle++
		}
	}
}

func retake(sched *schedt, now int64) uint32 {
	var n uint32
	sched.allpLock.Lock()
	defer sched.allpLock.Unlock()
	for i := 0; i < len(sched.allp); i++ { // allp may change while allpLock is released below
		pp := sched.allp[i]
		if pp == nil {
			continue
		}
		s := pp.status.Load()
		preempted := false
		switch s {
		case _Prunning, _Psyscall:
			preempted = preemptIfLong(sched, pp, now)
		}
		if s != _Psyscall || !syscallTooLong(sched, pp, now, preempted) {
			continue
		}
		// Hand the P off, without allpLock (handoffp may start an M).
		sched.allpLock.Unlock()
		sched.incidlelocked(-1)
		if pp.status.CompareAndSwap(s, _Pidle) {
			if sched.trace != nil {
				sched.traceEvent(EvSysmonRetake, 0, pp.id, -1, 0)
			}
			n++
			pp.syscalltick.Add(1)
			handoffp(pp)
		}
		sched.incidlelocked(1)
		sched.allpLock.Lock()
	}
	return n
}

// preemptIfLong records pp's schedule tick, or preempts its G if the tick
// has not moved for forcePreemptNS; it reports whether it preempted.
func preemptIfLong(sched *schedt, pp *p, now int64) bool {
	pd := &pp.sysmontick
	if t := pp.schedtick.Load(); pd.schedtick != t {
		pd.schedtick, pd.schedwhen = t, now
		return false
	}
	if pd.schedwhen+sched.cfg.forcePreemptNS > now {
		return false
	}
	preemptone(pp)
	return true
}

// syscallTooLong records pp's syscall tick, and reports whether pp, in a
// system call, should be retaken: it has work, or nobody is looking for
// work, or it has been in the call for syscallRetakeNS (or was just
// preempted for running too long).
func syscallTooLong(sched *schedt, pp *p, now int64, preempted bool) bool {
	pd := &pp.sysmontick
	if t := pp.syscalltick.Load(); !preempted && pd.syscalltick != t {
		pd.syscalltick, pd.syscallwhen = t, now
		return false
	}
	idleHelp := sched.nmspinning.Load()+sched.npidle.Load() > 0
	return !runqempty(pp) || !idleHelp || pd.syscallwhen+syscallRetakeNS <= now
}

// preemptone asks the G running on pp to stop at its next safe point. It
// reports whether there was a G to ask. Best effort: the G may already have
// moved on, and a G that never reaches a safe point is never preempted.
//
// Mirrors preemptone (proc.go:6866).
//
// The P's M may change pp.m and m.curg meanwhile: read each once. If
// sched.trace is set, emit traceEvent(EvSysmonPreempt, gp.goid, pp.id,
// mp.id, 0) for the G asked.
func preemptone(pp *p) bool {
	mp := pp.m.Load()
	if mp == nil {
		return false
	}
	gp := mp.curg.Load()
	if gp == nil {
		return false
	}
	gp.preempt.Store(true)
	pp.preempt.Store(true)
	if sched := pp.sched; sched.trace != nil {
		sched.traceEvent(EvSysmonPreempt, gp.goid, pp.id, mp.id, 0)
	}
	return true
}

// incidlelocked adjusts the count of idle locked Ms.
//
// Mirrors incidlelocked (proc.go:6355).
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
