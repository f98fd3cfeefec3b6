package sched

// Lesson 01 under the exhaustive explorer (kitExplore): the scenarios of
// TestL01Interleavings, and smaller ones of three threads, run in EVERY
// order with at most two preemptions, not in the orders seeds pick.

import (
	"fmt"
	"testing"
)

// l01ExploreBound is the preemption bound: every schedule with at most
// this many switches away from a thread that could have gone on. The
// reference's final states, the oracle, are explored with the same bound:
// measured, bound 3 adds none to any two-thread scenario below (and takes 2
// to 4 times as many executions), nor bound 2 to the three-thread one.
const l01ExploreBound = 2

// l01Impl is one implementation of the ring: the learner's or the
// reference's (the ref_ copies), run on the same starts.
type l01Impl struct {
	putTail  func(pp *p, gp *g)
	getHead  func(pp *p) *g
	steal    func(pp, p2 *p, stealRunNextG bool) *g
	drain    func(pp *p) gQueue
	putBatch func(pp *p, q *gQueue)
}

var (
	l01Mine = l01Impl{runqputtail, runqgethead, runqsteal, runqdrain, runqputbatch}
	l01Ref  = l01Impl{ref_runqputtail, ref_runqgethead, ref_runqsteal, ref_runqdrain, ref_runqputbatch}
	// l01RefDrainByHead is the reference with a drain that takes its ring
	// one G at a time: as right as the reference's one CAS (every G out
	// once, in order), though a thief may take Gs from between two of its
	// takes; task 01 does not ask for the drain to take the ring at once.
	l01RefDrainByHead = l01Impl{ref_runqputtail, ref_runqgethead, ref_runqsteal, l01DrainByHead, ref_runqputbatch}
)

// l01DrainByHead is runqdrain written as runnext's G, then runqgethead
// until the ring is empty.
func l01DrainByHead(pp *p) (q gQueue) {
	if next := pp.runnext.Load(); next != nil && pp.runnext.CompareAndSwap(next, nil) {
		q.pushBack(next)
	}
	for gp := ref_runqgethead(pp); gp != nil; gp = ref_runqgethead(pp) {
		q.pushBack(gp)
	}
	return q
}

// l01ExploreScenarios are an owner and thieves on a P0 that setup fills;
// each thief makes one runqsteal (runnext too if next is set), and what it
// leaves on its own ring is counted at the end.
var l01ExploreScenarios = []struct {
	name    string
	gs      int
	thieves int
	bound   int // the preemption bound, if not l01ExploreBound
	next    bool
	drains  bool // the owner drains: a drain by runqgethead is right too
	// shuffles: RandomizeScheduler is on, and the owner's batch is
	// shuffled. The order is the file's to choose (any uniform shuffle),
	// so the final states are not compared with the reference's: every
	// step must keep each G in one place, and every G come out once.
	shuffles bool
	// slotRuns: a run of a thread's slot operations is one step
	// (kitStart.slotRuns), for the full ring's 257 Gs.
	slotRuns bool
	setup    func(owner *p, gs []*g)
	owner    func(im l01Impl, owner *p, gs []*g, took func(*g, string))
}{
	{
		name:    "the owner takes a G, puts G 4 and takes one more (ring [G 1, G 2, G 3]) while a thief steals",
		gs:      4,
		thieves: 1,
		setup:   func(owner *p, gs []*g) { kitPutAll(owner, gs[:3]) },
		owner: func(im l01Impl, owner *p, gs []*g, took func(*g, string)) {
			took(im.getHead(owner), "the owner's runqgethead")
			im.putTail(owner, gs[3])
			took(im.getHead(owner), "the owner's runqgethead")
		},
	},
	{
		name:    "the owner drains its ring of four while a thief steals",
		gs:      4,
		thieves: 1,
		setup:   func(owner *p, gs []*g) { kitPutAll(owner, gs) },
		drains:  true,
		owner:   l01ExploreDrain,
	},
	{
		name:     "the owner puts G 257 on a full ring (half goes global) and takes a G while a thief steals",
		gs:       257,
		thieves:  1,
		bound:    1, // 257 Gs: each execution costs 3 ms; the full ring's races need one preemption
		slotRuns: true,
		setup:    func(owner *p, gs []*g) { kitPutAll(owner, gs[:256]) },
		owner: func(im l01Impl, owner *p, gs []*g, took func(*g, string)) {
			im.putTail(owner, gs[256])
			took(im.getHead(owner), "the owner's runqgethead")
		},
	},
	{
		// One store of the tail publishes the whole batch: a thief sees
		// none of it or all of it, never a part.
		name:    "the owner puts a batch of three (G 1, G 2, G 3) on its empty ring with runqputbatch and takes a G while a thief steals",
		gs:      3,
		thieves: 1,
		setup:   func(owner *p, gs []*g) {},
		owner:   l01ExploreBatch,
	},
	{
		// The shuffle moves Gs between slots: before the tail is stored,
		// no thief can see them; after, a thief may copy a slot the
		// owner is rewriting, and take a G twice or lose one.
		name:     "with RandomizeScheduler, the owner puts a batch of four (G 1 to G 4) on its empty ring with runqputbatch, shuffled, and takes a G while a thief steals",
		gs:       4,
		thieves:  1,
		bound:    1,
		shuffles: true,
		setup:    func(owner *p, gs []*g) { owner.sched.cfg.randomizeScheduler = true },
		owner:    l01ExploreBatch,
	},
	{
		name:    "the owner drains its queue (runnext G 1, ring [G 2]) while a thief steals, runnext too",
		gs:      2,
		thieves: 1,
		next:    true,
		setup: func(owner *p, gs []*g) {
			runqputtail(owner, gs[1])
			kitRawG(&owner.runnext).Store(gs[0])
		},
		drains: true,
		owner:  l01ExploreDrain,
	},
	{
		name:    "the owner takes one G of three while two thieves steal",
		gs:      3,
		thieves: 2,
		bound:   1, // three threads: 882 executions at bound 2, for no more final states
		setup:   func(owner *p, gs []*g) { kitPutAll(owner, gs) },
		owner: func(im l01Impl, owner *p, gs []*g, took func(*g, string)) {
			took(im.getHead(owner), "the owner's runqgethead")
		},
	},
}

// l01ExploreBatch is an owner that puts all the Gs on its ring with
// runqputbatch, then takes one.
func l01ExploreBatch(im l01Impl, owner *p, gs []*g, took func(*g, string)) {
	var q gQueue
	for _, gp := range gs {
		q.pushBack(gp)
	}
	im.putBatch(owner, &q)
	for gp := q.pop(); gp != nil; gp = q.pop() {
		took(gp, "the owner's batch, left over")
	}
	took(im.getHead(owner), "the owner's runqgethead")
}

// l01ExploreDrain is an owner that drains its queue.
func l01ExploreDrain(im l01Impl, owner *p, gs []*g, took func(*g, string)) {
	q := im.drain(owner)
	for gp := q.pop(); gp != nil; gp = q.pop() {
		took(gp, "the owner's runqdrain")
	}
}

// TestL01Explore runs an owner and one or two thieves in every order with
// at most two preemptions, checking at every step that no G is in two
// places and no ring overflows, and at the end that every G came out
// exactly once, in a final state the reference's ring (ref_) also reaches
// from the same start.
func TestL01Explore(t *testing.T) {
	if msg := kitEach(len(l01ExploreScenarios), func(i int) string {
		sc := l01ExploreScenarios[i]
		start := func(im l01Impl) func() kitStart {
			return func() kitStart {
				w := kitNewQueues(1+sc.thieves, sc.gs)
				owner := w.ps[0]
				sc.setup(owner, w.gs)
				threads := []kitThread{{"the owner", func() { sc.owner(im, owner, w.gs, w.took) }}}
				for i := 1; i <= sc.thieves; i++ {
					name := "the thief"
					if sc.thieves > 1 {
						name = fmt.Sprintf("thief %d", i)
					}
					threads = append(threads, kitThread{name, func() {
						w.took(im.steal(w.ps[i], owner, sc.next), name+"'s runqsteal")
					}})
				}
				s := w.start(threads...)
				s.slotRuns = sc.slotRuns
				return s
			}
		}
		bound := l01ExploreBound
		if sc.bound != 0 {
			bound = sc.bound
		}
		if sc.shuffles {
			if fail := kitExplore(bound, 0, start(l01Mine)).fail; fail != "" {
				return fmt.Sprintf("%s: %s: shuffle the Gs in their slots before the store of the tail publishes them%s", sc.name, fail, kitHint(l01))
			}
			return ""
		}
		var alsoRight []func() kitStart
		if sc.drains {
			alsoRight = append(alsoRight, start(l01RefDrainByHead))
		}
		if fail := kitExploreOracle(bound, bound, start(l01Mine), start(l01Ref), alsoRight...); fail != "" {
			return fmt.Sprintf("%s: %s%s", sc.name, fail, kitHint(l01))
		}
		return ""
	}); msg != "" {
		t.Fatal(msg)
	}
}
