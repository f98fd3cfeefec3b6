package sched

// sysmon with its sleep schedule in a function (nextDelay) and the deep
// sleep of an idle scheduler in another (deepSleep), which says whether a
// system call woke it.

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
		delay = nextDelay(cfg, idle, delay)
		cfg.usleep(delay)
		now := cfg.nanotime()

		// Sleep deeply while the world is stopped or every P is idle: there
		// is nothing to preempt and no syscall to retake. Whoever brings a P
		// back to life (a syscall entering or leaving, startTheWorld) wakes
		// us through sysmonnote.
		if sched.gcwaiting.Load() || sched.npidle.Load() == sched.gomaxprocs.Load() {
			sched.lock.Lock()
			if sched.gcwaiting.Load() || sched.npidle.Load() == sched.gomaxprocs.Load() {
				if sched.closing.Load() {
					sched.lock.Unlock()
					return
				}
				if deepSleep(mp, now) {
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

// retake preempts Gs that have run one time slice for forcePreemptNS, and
// takes Ps back from system calls. It returns the number of Ps retaken from
// syscalls: only that counts as sysmon having been useful (preemption does
// not reset its idle count).
//
// A P in a syscall is taken on the second sighting of the same syscall (so
// at least one sysmon tick, 20µs, after it began), and then only if any of:
// its run queue has work; nobody is spinning and no P is idle (so nobody
// else would run new work); or the syscall has lasted 10ms.
//
// Mirrors retake (proc.go, Go 1.25). Executed by sysmon.
//
// allp may end in nil slots (procresize grows it before it stores the new
// Ps): skip them. The P's M changes its status and ticks while retake
// looks: read each once per look, and decide on what was read. Never wait
// for sched.lock while holding allpLock (procresize takes them the other
// way round). To take a P: incidlelocked(-1); the CAS; if won, count it,
// bump pp.syscalltick by one, and only then handoffp(pp) (after which the
// P is another M's); then incidlelocked(1). If sched.trace is set, emit
// traceEvent(EvSysmonRetake, 0, pp.id, -1, 0) for each P taken.
func retake(sched *schedt, now int64) uint32 {
	n := 0
	sched.allpLock.Lock()
	// We can't use a range loop over allp because we may temporarily drop
	// allpLock: re-read it each time around the loop.
	for i := 0; i < len(sched.allp); i++ {
		pp := sched.allp[i]
		if pp == nil {
			continue
		}
		pd := &pp.sysmontick
		s := pp.status.Load()
		sysretake := false
		if s == _Prunning || s == _Psyscall {
			// Preempt G if it's running on the same schedtick for too long.
			// This could be from a single long-running G or a sequence of Gs
			// run via runnext, which share a single schedtick time slice.
			t := pp.schedtick.Load()
			if pd.schedtick != t {
				pd.schedtick = t
				pd.schedwhen = now
			} else if pd.schedwhen+sched.cfg.forcePreemptNS <= now {
				preemptone(pp)
				// In case of syscall, preemptone() doesn't work, because
				// there is no M wired to P.
				sysretake = true
			}
		}
		if s == _Psyscall {
			// Retake P from syscall if it's there for more than 1 sysmon
			// tick (at least 20us).
			t := pp.syscalltick.Load()
			if !sysretake && pd.syscalltick != t {
				pd.syscalltick = t
				pd.syscallwhen = now
				continue
			}
			// On the one hand we don't want to retake Ps if there is no
			// other work to do, but on the other hand we want to retake
			// them eventually because they can prevent the sysmon thread
			// from deep sleep.
			if runqempty(pp) && sched.nmspinning.Load()+sched.npidle.Load() > 0 && pd.syscallwhen+syscallRetakeNS > now {
				continue
			}
			// Drop allpLock so we can take sched.lock.
			sched.allpLock.Unlock()
			// Pretend one more M is running before the CAS. Otherwise the M
			// we retake from can exit the syscall, go idle and report a
			// deadlock while we are still handing its P off.
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
	}
	sched.allpLock.Unlock()
	return uint32(n)
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

// nextDelay is how long sysmon sleeps after idle rounds that woke nobody,
// having slept delay last: 20 µs while it finds work, doubling after
// sysmonIdleRounds idle rounds, never more than 10 ms.
func nextDelay(cfg *config, idle int, delay int64) int64 {
	switch {
	case idle == 0:
		delay = cfg.sysmonMinDelayUS
	case idle > cfg.sysmonIdleRounds:
		delay *= 2
	}
	return min(delay, cfg.sysmonMaxDelayUS)
}

// deepSleep parks sysmon while every P is idle (or the world is stopping),
// until the next timer or forcegcPeriodNS/2, unless a timer is due now.
// sched.lock is held on entry and on return. It reports whether a system
// call woke it.
func deepSleep(mp *m, now int64) bool {
	sched := mp.sched
	next := sched.timer0When.Load()
	if next != 0 && next <= now {
		return false
	}
	sched.sysmonwait.Store(true)
	sched.lock.Unlock()
	sleep := int64(forcegcPeriodNS / 2)
	if next != 0 && next-now < sleep {
		sleep = next - now
	}
	if sched.trace != nil {
		sched.traceEvent(EvSysmonSleep, 0, -1, mp.id, sleep)
	}
	woke := notetsleep(&sched.sysmonnote, sleep)
	sched.lock.Lock()
	sched.sysmonwait.Store(false)
	noteclear(&sched.sysmonnote)
	return woke
}
