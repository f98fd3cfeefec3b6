package sched

// This file is system calls and P hand-off, in the model of Go ≤ 1.25 (see
// doc.go for what Go 1.26 changed): entersyscall, exitsyscall,
// exitsyscallfast, exitsyscall0 (proc.go, Go 1.25).
//
// A G about to block in the OS gives up its P without giving up its M: the P
// goes _Psyscall, still remembered by the M (m.oldp). If the call is short,
// the M takes the same P back on return (the fast path, a CAS). If it is
// long, sysmon's retake CASes the P to _Pidle and hands it off to another
// M, so that the P's other Gs keep running.

// entersyscall is called by gp just before it blocks in Syscall.
//
// Mirrors reentersyscall (proc.go, Go 1.25). Called by gp itself.
func entersyscall(gp *g) {
	mp := gp.m
	sched := mp.sched
	pp := mp.p
	if sched.trace != nil {
		sched.traceEvent(EvGoSyscall, gp.goid, pp.id, mp.id, 0)
	}
	casgstatus(gp, _Grunning, _Gsyscall)
	if sched.sysmonwait.Load() {
		entersyscall_sysmon(sched)
	}

	mp.syscalltick = pp.syscalltick.Load()
	pp.m.Store(nil)
	mp.oldp = pp
	mp.p = nil
	pp.status.Store(_Psyscall)
	if sched.gcwaiting.Load() {
		entersyscall_gcwait(mp)
	}
}

// entersyscall_sysmon wakes sysmon from its deep sleep: with a P in a system
// call, sysmon must watch it.
func entersyscall_sysmon(sched *schedt) {
	sched.lock.Lock()
	if sched.sysmonwait.Load() {
		sched.sysmonwait.Store(false)
		notewakeup(&sched.sysmonnote)
	}
	sched.lock.Unlock()
}

// entersyscall_gcwait gives the P to a pending stop-the-world at once,
// rather than make it wait for sysmon.
func entersyscall_gcwait(mp *m) {
	sched := mp.sched
	pp := mp.oldp
	sched.lock.Lock()
	if sched.stopwait > 0 && pp.status.CompareAndSwap(_Psyscall, _Pgcstop) {
		pp.syscalltick.Add(1)
		sched.stopwait--
		if sched.stopwait == 0 {
			notewakeup(&sched.stopnote)
		}
	}
	sched.lock.Unlock()
}

// exitsyscall is called by gp when its blocking call returns: it needs a P
// again before it can run Go code.
//
// Mirrors exitsyscall (proc.go, Go 1.25). Called by gp itself.
func exitsyscall(gp *g) {
	mp := gp.m
	sched := mp.sched
	oldp := mp.oldp
	mp.oldp = nil
	if exitsyscallfast(mp, oldp) {
		// There's a P for us, so we can run.
		mp.p.syscalltick.Add(1)
		casgstatus(gp, _Gsyscall, _Grunning)
		if sched.trace != nil {
			sched.traceEvent(EvGoSyscallExit, gp.goid, mp.p.id, mp.id, boolArg(mp.p == oldp))
		}
		return
	}

	// Call the scheduler: wait for a P with the G on the global queue.
	mcall(gp, exitsyscall0)

	// Scheduler returned, so we're allowed to run now.
	gp.m.p.syscalltick.Add(1)
}

// exitsyscallfast tries to get a P without blocking: the one the M had
// (if nobody took it), or any idle one.
//
// Mirrors exitsyscallfast (proc.go, Go 1.25).
func exitsyscallfast(mp *m, oldp *p) bool {
	sched := mp.sched
	// Try to re-acquire the last P.
	if oldp != nil && oldp.status.Load() == _Psyscall && oldp.status.CompareAndSwap(_Psyscall, _Pidle) {
		acquirep(mp, oldp)
		if mp.syscalltick != oldp.syscalltick.Load() {
			// The P was retaken and then entered a syscall again.
			oldp.syscalltick.Add(1)
		}
		return true
	}
	// Try to get any other idle P.
	if sched.npidle.Load() > 0 {
		sched.lock.Lock()
		pp := sched.pidleget()
		if pp != nil && sched.sysmonwait.Load() {
			// A P comes back to life: wake sysmon to watch it.
			sched.sysmonwait.Store(false)
			notewakeup(&sched.sysmonnote)
		}
		sched.lock.Unlock()
		if pp != nil {
			acquirep(mp, pp)
			return true
		}
	}
	return false
}

// exitsyscall0 is the slow path of exitsyscall, run on the M after gp's
// coroutine has yielded: find an idle P and run gp on it, or put gp on the
// global queue and park the M.
//
// Mirrors exitsyscall0 (proc.go, Go 1.25). mcall handler; mp holds no P.
func exitsyscall0(mp *m, gp *g) (*g, bool) {
	sched := mp.sched
	casgstatus(gp, _Gsyscall, _Grunnable)
	dropg(mp)
	sched.lock.Lock()
	pp := sched.pidleget()
	if sched.trace != nil {
		// Before the G is queued: once it is, another M may start it.
		sched.traceEvent(EvGoSyscallExit, gp.goid, pidOf(pp), mp.id, 0)
	}
	if pp == nil {
		sched.globrunqput(gp)
	} else if sched.sysmonwait.Load() {
		sched.sysmonwait.Store(false)
		notewakeup(&sched.sysmonnote)
	}
	sched.lock.Unlock()
	if pp != nil {
		acquirep(mp, pp)
		return gp, false
	}
	stopm(mp)
	return nil, false
}
