package sched

// This file is how an M that has a P finds the next G to run: lesson
// 04-findrunnable. It mirrors findRunnable, stealWork and the coprime steal
// order (proc.go, Go 1.26: 3389-3900, 7999-8048).
//
// The order of the search is the whole lesson:
//
//  1. stop for stop-the-world; run due timers;
//  2. every 61st tick, one G from the global queue (fairness);
//  3. the local run queue (runnext, then the ring);
//  4. the global queue, a batch;
//  5. steal from other Ps, if spinning is allowed (spinning.go): four passes
//     over all Ps in a random coprime order, runnext only on the last;
//  6. give up: re-check the global queue under the lock, release the P;
//     if spinning, stop spinning and look at the global queue and every run
//     queue one last time, in the order that loses no G (a G may have been
//     readied by someone who saw us spinning and so did not wake anyone);
//     wait for the next timer or park the M.

// stealTries is the number of passes stealWork makes over all Ps.
const stealTries = 4

// findRunnable finds a runnable G to execute: from the local or global run
// queue, or stolen from another P. It blocks (parks the M) until there is
// one. It returns nil only when the Runtime is closing. inheritTime says
// whether gp should inherit the current time slice (it came from runnext).
//
// Mirrors findRunnable (proc.go:3389). Executed by an M that holds a P; may
// return holding a different P.
func findRunnable(mp *m) (gp *g, inheritTime bool) {
	// TODO(04-findrunnable): write findRunnable as its comment above says.
	// Stuck? Run: kata hint 04-findrunnable
	panic("not implemented: findRunnable")
}

// stealWork attempts to steal a runnable G from any P. It makes stealTries
// passes over all Ps, each in a fresh random order (one pp.rand.uint32()
// per pass); only on the last may it take a victim's runnext. newWork
// reports that the caller should start over (stop-the-world is pending).
// With sched.trace set, a steal emits EvSteal: G the G returned, P and M
// the thief's, Arg the victim's P, N the number of Gs taken.
//
// Mirrors stealWork (proc.go:3828). Executed by a spinning M that holds a P.
func stealWork(mp *m) (gp *g, inheritTime bool, newWork bool) {
	// TODO(04-findrunnable): write stealWork as its comment above says.
	// Stuck? Run: kata hint 04-findrunnable
	panic("not implemented: stealWork")
}

// randomOrder enumerates all Ps in different pseudo-random orders without
// repetition. If inc and count are coprime, pos, pos+inc, pos+2*inc, ...
// (mod count) visits every P exactly once; start picks pos and inc from one
// random number.
//
// Mirrors randomOrder (proc.go:7999).
type randomOrder struct {
	count    uint32
	coprimes []uint32
}

// randomEnum is one enumeration of a randomOrder.
type randomEnum struct {
	i     uint32
	count uint32
	pos   uint32
	inc   uint32
}

// reset prepares the order for count Ps: the coprimes of count in 1..count,
// each once, in any order (start picks among them with a random number),
// computed afresh. Called by procresize, under stop-the-world.
func (ord *randomOrder) reset(count uint32) {
	// TODO(04-findrunnable): write reset as its comment above says.
	// Stuck? Run: kata hint 04-findrunnable
	panic("not implemented: reset")
}

// start begins an enumeration at i % count, stepping by a coprime chosen by
// i / count.
func (ord *randomOrder) start(i uint32) randomEnum {
	// TODO(04-findrunnable): write start as its comment above says.
	// Stuck? Run: kata hint 04-findrunnable
	panic("not implemented: start")
}

//kata:given
func (enum *randomEnum) done() bool {
	return enum.i == enum.count
}

//kata:given
func (enum *randomEnum) next() {
	enum.i++
	enum.pos = (enum.pos + enum.inc) % enum.count
}

//kata:given
func (enum *randomEnum) position() uint32 {
	return enum.pos
}

//kata:given
func gcd(a, b uint32) uint32 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// min0 returns the smaller of two deadlines, where 0 means none.
//
//kata:given
func min0(a, b int64) int64 {
	if a == 0 || (b != 0 && b < a) {
		return b
	}
	return a
}
