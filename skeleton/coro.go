package sched

import "iter"

// This file is the glue between Gs and Go's coroutines: how an M resumes a G
// (gogo) and how a G hands control back to its M (mcall).
//
// A G's body runs on a coroutine made by iter.Pull. Resuming the coroutine
// switches the M's goroutine straight to it, with no trip through Go's own
// scheduler (~70 ns for a round trip on the machine this was written on, a
// goroutine hand-off costs ~250 ns); whichever M resumes it next, the G picks
// up where it stopped. When the G must stop running (it parks, yields, is
// preempted, exits, or leaves a system call without a P) it stores the
// handler it wants in m.mcallfn and yields: the M's call to resume returns,
// and the M runs the handler on its own stack, as g0 does in the runtime.
// That ordering is what makes gopark safe: by the time park_m runs unlockf
// and someone else may goready the G, its coroutine has fully stopped.
//
// A G whose function returns does not end its coroutine: goexit0 puts it on
// a free list, and the coroutine loops to run the next function newproc
// gives it.

// errCoroStopped unwinds a parked G's stack when Close stops its coroutine.
type errCoroStopped struct{}

// newcoro gives gp its coroutine.
func newcoro(gp *g) {
	gp.resume, gp.stop = iter.Pull(func(yield func(struct{}) bool) {
		gp.yield = yield
		defer func() {
			// Close stopped us: the unwinding is over, let the coroutine end.
			if r := recover(); r != nil {
				if _, ok := r.(errCoroStopped); !ok {
					panic(r)
				}
			}
		}()
		for {
			gp.run()
			// goexit1: hand the G to its M to be freed. When the G is
			// reused, this returns with gp.fn set to the new function.
			mcall(gp, goexit0)
		}
	})
}

// run calls gp's function. A panic in it does not crash the process, as it
// would in Go: the Runtime records it (Wait returns it) and the G exits.
func (gp *g) run() {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(errCoroStopped); ok {
				panic(r)
			}
			gp.sched.gpanic(gp, r)
		}
	}()
	gp.fn(gp)
}

// gogo resumes gp's coroutine on the calling M and returns when gp calls
// mcall.
//
// Mirrors gogo (asm_*.s).
func gogo(gp *g) {
	gp.resume()
}

// mcall switches from gp back to its M, which then runs fn(m, gp). It
// returns when some M resumes gp again.
//
// Mirrors mcall (asm_*.s). Called by gp itself.
func mcall(gp *g, fn func(mp *m, gp *g) (*g, bool)) {
	gp.m.mcallfn = fn
	if !gp.yield(struct{}{}) {
		panic(errCoroStopped{})
	}
}
