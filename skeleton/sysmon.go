package sched

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
	// TODO(07-sysmon): write sysmon as its comment above says.
	// Stuck? Run: kata hint 07-sysmon
	panic("not implemented: sysmon")
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
	// TODO(07-sysmon): write retake as its comment above says.
	// Stuck? Run: kata hint 07-sysmon
	panic("not implemented: retake")
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
	// TODO(07-sysmon): write preemptone as its comment above says.
	// Stuck? Run: kata hint 07-sysmon
	panic("not implemented: preemptone")
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
