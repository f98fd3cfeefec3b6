package sched

// TestL02ControlledSteal: a running P's runnext and ring in use by its
// owner while two thieves steal from it, run one atomic operation at a
// time by a controlled scheduler that switches threads at random
// (kitInterleaveWalk). The world looks like a real scheduler's, as
// TestL02Stress's: the Gs are numbered from 2 up as New numbers them, the
// Ps are running, each under an M whose current G is the G that readies
// others or none, in the scheduler; every second seed randomizes the
// scheduler; a thief's back-off lets the others run. A file cannot tell
// this run from a real one by what it sees, and here a mistake meets
// thousands of switches.

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
)

func TestL02ControlledSteal(t *testing.T) {
	kitEachSeed(t, uint64(len(l02Walks)), func(seed uint64) string { return l02ControlledSteal(t, seed) })
}

// l02ControlledSteal runs TestL02ControlledSteal's world with one seed and
// says what went wrong, or "".
func l02ControlledSteal(t *testing.T, seed uint64) string {
	walk := l02Walks[(seed-1)%uint64(len(l02Walks))]
	w := newL02StealWorld(seed, 2000)
	err := kitInterleaveWalkWatched(seed, walk, w.watch, "the owner", w.owner, "thief 1", w.thief(1), "thief 2", w.thief(2))
	msg := ""
	if err != nil {
		msg = err.Error()
	} else { // else a thread may still run: read nothing
		msg = w.verdict()
	}
	if msg == "" {
		return ""
	}
	return fmt.Sprintf("P 0's owner put %s, a few at a time (each with next=true or false at random), running its Gs after each few, while two thieves ran runqsteal(stealRunNextG=true) on it: %s (switched at random at one in %.0f atomic operations)%s",
		kitCount(w.n, "G"), msg, 1/walk, kitReplay(t, l02, seed))
}

// l02Walks are the chances of a switch at each point, by seed: not more
// often than one in 10 (see l01Walks in lesson 01's tests), not less than
// one in 30, as the owner runs its Gs after every few and a long turn
// would only watch thieves spin.
var l02Walks = []float64{1.0 / 10, 1.0 / 20, 1.0 / 15, 1.0 / 30}

// l02StealWorld is an owner that puts n Gs on its P, a few at a time
// (runnext or the ring at random), running them after each few, while
// thieves steal from it until it is done. Who took which G is
// recorded; the owner checks each runqget's inheritTime.
type l02StealWorld struct {
	sched    *schedt
	n        int
	gs       []*g
	seen     sync.Map
	total    atomic.Int64
	problem  chan string // the first problem found
	stop     atomic.Bool
	lastNext *g         // the owner's: the G in runnext after its last put, unless it took it back
	rng      *rand.Rand // the owner's choices
	// For each thief, what watch has seen during its steal under way: the
	// owner's ring empty (emptied), and after that its runnext empty too
	// (found): a steal that finds nothing must have met both, in that
	// order, as runqgrab's read of the ring and then runqgrabnext's of
	// runnext do.
	emptied, found [3]bool
}

// watch is TestL02ControlledSteal's watch (kitInterleaveWalkWatched): it
// looks at the owner's P with plain loads, no scheduling point.
func (w *l02StealWorld) watch() {
	pp := w.sched.allp[0]
	ringEmpty := kitRawRing(&pp.runqtail).Load() == kitRawRing(&pp.runqhead).Load()
	nextEmpty := kitRawG(&pp.runnext).Load() == nil
	for i := range w.emptied {
		w.emptied[i] = w.emptied[i] || ringEmpty
		w.found[i] = w.found[i] || (w.emptied[i] && nextEmpty)
	}
}

func newL02StealWorld(seed uint64, n int) *l02StealWorld {
	// A thief's back-off lets the others run, as they do on real threads
	// while it sleeps. Every second seed randomizes the scheduler, as
	// TestL02Stress does.
	sched := kitSched(3, Config{Usleep: func(int64) { kitSleep() }, RandomizeScheduler: seed%2 == 0, Seed: seed})
	for i := range int32(3) {
		l02RunningP(sched, i)
	}
	rng := rand.New(rand.NewPCG(seed, 2))
	kitRingsAt(sched, rng.Uint32()) // a ring's counters are anywhere, as on a busy P
	return &l02StealWorld{sched: sched, n: n, gs: kitGs(sched, 2, n), problem: make(chan string, 1), rng: rng}
}

// l02RunningP makes P id running under an M of its own, in the scheduler
// (no current G) as a thief's is when it steals.
func l02RunningP(sched *schedt, id int32) {
	kitRunningP(sched, id).m.Load().curg.Store(nil)
}

func (w *l02StealWorld) report(msg string) {
	select {
	case w.problem <- msg:
	default:
	}
}

func (w *l02StealWorld) take(gp *g, who string) {
	if prev, loaded := w.seen.LoadOrStore(gp, who); loaded {
		w.report(fmt.Sprintf("%s came out twice: first from %s, then from %s; only a CompareAndSwap may empty runnext", kitID(gp), prev.(string), who))
	}
	w.total.Add(1)
}

// thief is thief i's loop: steal from the owner, then run its own Gs.
func (w *l02StealWorld) thief(i int) func() {
	return func() {
		thief, owner := w.sched.allp[i], w.sched.allp[0]
		for !w.stop.Load() {
			w.emptied[i], w.found[i] = false, false
			w.watch()
			if gp := runqsteal(thief, owner, true); gp == nil && !w.found[i] {
				w.report(fmt.Sprintf("thief %d's runqsteal(stealRunNextG=true) returned nothing, but the owner's P never had an empty ring followed by an empty runnext during the call "+
					"(every operation of every thread was the controlled scheduler's, so the test saw each state): runqgrabnext returns nil without retry only when it read runnext empty; "+
					"after a lost CompareAndSwap of runnext, say retry (**new**: this test checks it since late November 2026)", i))
			} else if gp != nil {
				w.take(gp, "a thief's runqsteal")
				for gp, _ := runqget(thief); gp != nil; gp, _ = runqget(thief) {
					w.take(gp, "a thief's own runqget")
				}
			}
		}
	}
}

// owner runs its P as a scheduler does: a G, its M's current G, readies a
// few others, each into runnext or onto the ring at random; then the P,
// in the scheduler, runs Gs until it has none; and again, until every G
// is put. Then it stops the thieves.
func (w *l02StealWorld) owner() {
	pp := w.sched.allp[0]
	cur := kitG(w.sched, 1)
	cur.atomicstatus.Store(_Grunning)
	for i, gp := range w.gs {
		pp.m.Load().curg.Store(cur)
		runqput(pp, gp, w.rng.IntN(2) == 0)
		// Only the owner sets runnext to a G: what it holds now is the
		// G last put there, or nil if a thief took it.
		w.lastNext = pp.runnext.Load()
		if w.rng.IntN(3) == 0 || i == len(w.gs)-1 {
			pp.m.Load().curg.Store(nil)
			for gp := w.get(pp); gp != nil; gp = w.get(pp) {
				cur = gp
				cur.atomicstatus.Store(_Grunning)
			}
		}
	}
	w.stop.Store(true)
}

// get is one runqget of the owner's.
func (w *l02StealWorld) get(pp *p) *g {
	gp, inheritTime := runqget(pp)
	if gp == nil {
		// Only the owner puts Gs on its P: once runqget finds it empty,
		// it stays empty.
		if next, h, t := pp.runnext.Load(), pp.runqhead.Load(), pp.runqtail.Load(); next != nil || h != t {
			w.report(fmt.Sprintf("the owner's runqget returned nil while its P still held Gs (runnext = %s, %d on the ring): when a thief wins the CompareAndSwap of runnext, only runnext is gone; take the ring's head", kitID(next), t-h))
		}
		return nil
	}
	w.take(gp, "the owner's runqget")
	// runnext holds only the G the owner last put with next=true, so a G
	// from runnext is that one, and that one comes from nowhere else.
	switch fromNext := gp == w.lastNext; {
	case inheritTime && !fromNext:
		w.report(fmt.Sprintf("the owner's runqget returned %s from the ring with inheritTime = true (runnext was %s, which a thief took): inheritTime is true only for the G whose CompareAndSwap of runnext succeeded", kitID(gp), kitID(w.lastNext)))
	case !inheritTime && fromNext:
		w.report(fmt.Sprintf("the owner's runqget returned %s from runnext with inheritTime = false, want true", kitID(gp)))
	}
	if gp == w.lastNext {
		w.lastNext = nil
	}
	return gp
}

// verdict, once every thread is done, is what went wrong, or "".
func (w *l02StealWorld) verdict() string {
	select {
	case msg := <-w.problem:
		return msg + kitHint(l02)
	default:
	}
	for gp := w.sched.runq.pop(); gp != nil; gp = w.sched.runq.pop() {
		w.take(gp, "the global queue")
	}
	if got := w.total.Load(); got != int64(w.n) {
		return fmt.Sprintf("%s came out, want %d: some were lost (a kicked runnext not put on the ring, or a stolen runnext not returned)", kitCount(int(got), "G"), w.n) + kitHint(l02)
	}
	return ""
}
