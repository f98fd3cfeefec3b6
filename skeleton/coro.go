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
// A coroutine is the G's stack, and like a stack it outlives the G: a G
// whose function returns does not end its coroutine, goexit0 gives it back
// to its M, and the coroutine loops to run the next G that M starts. A G
// takes a coroutine when it first runs (execute), not when it is created: the
// runtime's newproc1 gives the new G its stack at once (gfget, malg), but
// here a G that waits in a run queue behind thousands of others would carry
// a coroutine gone cold by the time it runs, and each switch to and from it
// would miss the cache several times (the coroutine's goroutine, its stack,
// iter.Pull's state). Taken at the first run from the M's free list, last
// in first out, it is the one the M's last G exited on, still warm.

// A coro is a coroutine a G runs on: its stack.
type coro struct {
	// gp is the G running on the coroutine, from its first run to its
	// exit; nil while the coroutine is free. Set by the M that resumes
	// it, before the coroutine reads it.
	gp *g

	// resume runs the G until it calls mcall; yield is how the G's side
	// hands control back; stop unwinds the coroutine at Close.
	resume func() (struct{}, bool)
	yield  func(struct{}) bool
	stop   func()

	link *coro // next on a free list
}

// errCoroStopped unwinds a parked G's stack when Close stops its coroutine.
type errCoroStopped struct{}

// newcoro makes a free coroutine.
func newcoro() *coro {
	c := new(coro)
	c.resume, c.stop = iter.Pull(func(yield func(struct{}) bool) {
		c.yield = yield
		defer func() {
			// Close stopped us: the unwinding is over, let the coroutine end.
			if r := recover(); r != nil {
				if _, ok := r.(errCoroStopped); !ok {
					panic(r)
				}
			}
		}()
		for {
			c.gp.run()
			// goexit1: hand the G to its M to be freed. This returns when
			// an M starts another G on the coroutine: c.gp is that G.
			mcall(c.gp, goexit0)
		}
	})
	return c
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
// mcall. gp must have a coroutine: see corobind.
//
// Mirrors gogo (asm_*.s).
func gogo(gp *g) {
	gp.coro.resume()
}

// corobind gives gp, about to run for the first time on mp, a coroutine.
// Called by execute, not by gogo, so that gogo stays small enough to be
// inlined on every switch.
func corobind(mp *m, gp *g) {
	c := corofget(mp)
	c.gp = gp
	gp.coro = c
}

// mcall switches from gp back to its M, which then runs fn(m, gp). It
// returns when some M resumes gp again.
//
// Mirrors mcall (asm_*.s). Called by gp itself.
func mcall(gp *g, fn func(mp *m, gp *g) (*g, bool)) {
	gp.m.mcallfn = fn
	if !gp.coro.yield(struct{}{}) {
		panic(errCoroStopped{})
	}
}

// corofput gives dead gp's coroutine back to mp's free list. If the list
// grows to 64 it moves half to the global list, so that an M where Gs exit
// does not hoard the coroutines an M where they start must then make anew.
//
// Mirrors gfput (proc.go:5465), for the stack a dead G keeps there.
// Executed by mp, after gp's coroutine has yielded for good.
func corofput(mp *m, gp *g) {
	c := gp.coro
	gp.coro = nil
	c.gp = nil
	c.link = mp.corofree.first
	mp.corofree.first = c
	mp.corofree.n++
	if mp.corofree.n >= 64 {
		sched := mp.sched
		sched.corofree.lock.Lock()
		for mp.corofree.n >= 32 {
			c := mp.corofree.first
			mp.corofree.first = c.link
			mp.corofree.n--
			c.link = sched.corofree.first
			sched.corofree.first = c
		}
		sched.corofree.lock.Unlock()
	}
}

// corofget takes a coroutine from mp's free list, refilling it with up to
// 32 from the global list when it is empty, or makes a new one.
//
// Mirrors gfget (proc.go:5507). Executed by mp.
func corofget(mp *m) *coro {
	if mp.corofree.first == nil {
		sched := mp.sched
		sched.corofree.lock.Lock()
		for mp.corofree.n < 32 && sched.corofree.first != nil {
			c := sched.corofree.first
			sched.corofree.first = c.link
			c.link = mp.corofree.first
			mp.corofree.first = c
			mp.corofree.n++
		}
		sched.corofree.lock.Unlock()
	}
	c := mp.corofree.first
	if c == nil {
		return newcoro()
	}
	mp.corofree.first = c.link
	mp.corofree.n--
	c.link = nil
	return c
}

// corostopall ends every coroutine: those of the Gs in gs that have one
// (unwinding the G's stack), and the free ones. Called by Close once no M
// runs.
func (sched *schedt) corostopall(gs []*g) {
	for _, gp := range gs {
		if gp.coro != nil {
			gp.coro.stop()
		}
	}
	sched.lock.Lock()
	ms := append([]*m(nil), sched.allm...)
	sched.lock.Unlock()
	for _, mp := range ms {
		for c := mp.corofree.first; c != nil; c = c.link {
			c.stop()
		}
	}
	sched.corofree.lock.Lock()
	for c := sched.corofree.first; c != nil; c = c.link {
		c.stop()
	}
	sched.corofree.lock.Unlock()
}
