package sched

import "strconv"

// This file is stop-the-world: stopTheWorld, startTheWorld, gcstopm and
// preemptall (proc.go, Go 1.26: 1628, 1760, 3296, 6843). GOMAXPROCS and
// the on-demand invariant check use it.
//
// Stopping the world does not CAS every P to _Pgcstop: idle Ps are taken off
// the idle list, Ps in a system call are CASed from _Psyscall, and running
// Ps stop themselves — asked by gcwaiting and a preemption request, each
// running M reaches findRunnable, sees gcwaiting and parks in gcstopm. The
// last one to stop wakes the stopper.

// stopTheWorld stops every P. The caller must not hold a P (it is outside
// the scheduler, or a G in Syscall). Only one stop-the-world runs at a time.
//
// Mirrors stopTheWorldWithSema (proc.go:1628).
func stopTheWorld(sched *schedt) {
	sched.stwLock.Lock()
	sched.lock.Lock()
	sched.stopwait = sched.gomaxprocs.Load()
	sched.gcwaiting.Store(true)
	preemptall(sched)
	// Stop Ps in a system call.
	for _, pp := range sched.allp {
		s := pp.status.Load()
		if s == _Psyscall && pp.status.CompareAndSwap(s, _Pgcstop) {
			pp.syscalltick.Add(1)
			sched.stopwait--
		}
	}
	// Stop idle Ps.
	for {
		pp := sched.pidleget()
		if pp == nil {
			break
		}
		pp.status.Store(_Pgcstop)
		sched.stopwait--
	}
	wait := sched.stopwait > 0
	sched.lock.Unlock()

	// Wait for the remaining Ps to stop voluntarily.
	if wait {
		for {
			// Wait for 100µs, then try to re-preempt in case of any races.
			if notetsleep(&sched.stopnote, 100*1000) {
				noteclear(&sched.stopnote)
				break
			}
			preemptall(sched)
		}
	}

	sched.lock.Lock()
	defer sched.lock.Unlock()
	if sched.stopwait != 0 {
		panic("stopTheWorld: not stopped (stopwait != 0)")
	}
	for _, pp := range sched.allp {
		if s := pp.status.Load(); s != _Pgcstop {
			panic("stopTheWorld: not stopped (P " + strconv.Itoa(int(pp.id)) + " is " + pStatusString(s) + ")")
		}
	}
	if sched.trace != nil {
		sched.traceEvent(EvStopTheWorld, 0, -1, -1, 0)
	}
	if sched.cfg.debug {
		if err := sched.checkInvariants(); err != nil {
			panic(err.Error())
		}
	}
}

// startTheWorld restarts the Ps after stopTheWorld, first resizing to
// newprocs Ps if newprocs is not 0. Ps with work get an M at once; then one
// spinning M is woken in case there is more work than that.
//
// Mirrors startTheWorldWithSema (proc.go:1760).
func startTheWorld(sched *schedt, newprocs int32) {
	sched.lock.Lock()
	procs := sched.gomaxprocs.Load()
	if newprocs != 0 {
		procs = newprocs
	}
	p1 := procresize(sched, procs)
	if sched.cfg.debug {
		if err := sched.checkInvariants(); err != nil {
			sched.lock.Unlock()
			panic(err.Error())
		}
	}
	sched.gcwaiting.Store(false)
	if sched.sysmonwait.Load() {
		sched.sysmonwait.Store(false)
		notewakeup(&sched.sysmonnote)
	}
	sched.lock.Unlock()

	for p1 != nil {
		pp := p1
		p1 = p1.link
		pp.link = nil
		if mp := pp.m.Load(); mp != nil {
			pp.m.Store(nil)
			if mp.nextp != nil {
				panic("startTheWorld: inconsistent mp->nextp")
			}
			mp.nextp = pp
			notewakeup(&mp.park)
		} else {
			// Start M to run P.
			newm(sched, pp, false, -1)
		}
	}
	if sched.trace != nil {
		sched.traceEvent(EvStartTheWorld, 0, -1, -1, int64(procs))
	}

	// Wake up an additional proc in case we have excessive runnable Gs in
	// local queues or in the global queue.
	wakep(sched)
	sched.stwLock.Unlock()
}

// gcstopm stops the current M for stop-the-world: its P goes _Pgcstop and
// the M parks until startTheWorld gives it a P again.
//
// Mirrors gcstopm (proc.go:3296). Executed by an M that holds a P.
func gcstopm(mp *m) {
	sched := mp.sched
	if !sched.gcwaiting.Load() {
		panic("gcstopm: not waiting for gc")
	}
	if mp.spinning {
		mp.spinning = false
		// OK to just drop nmspinning here, startTheWorld will unpark
		// threads as necessary.
		if sched.nmspinning.Add(-1) < 0 {
			panic("gcstopm: negative nmspinning")
		}
	}
	pp := releasep(mp)
	sched.lock.Lock()
	pp.status.Store(_Pgcstop)
	sched.stopwait--
	if sched.stopwait == 0 {
		notewakeup(&sched.stopnote)
	}
	sched.lock.Unlock()
	stopm(mp)
}

// preemptall asks every running G to stop at its next safe point.
//
// Mirrors preemptall (proc.go:6843). Unlike the runtime's, it holds
// allpLock, as retake does around preemptone: goexit0 takes allpLock
// before a dead G can be reused, so a G preemptone looks at is not given
// a new goid while it reads the old one.
func preemptall(sched *schedt) {
	sched.allpLock.Lock()
	defer sched.allpLock.Unlock()
	for _, pp := range sched.allp {
		if pp.status.Load() != _Prunning {
			continue
		}
		preemptone(pp)
	}
}
