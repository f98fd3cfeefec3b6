package sched

// Lesson 01 under the exhaustive explorer (kitExplore): the scenarios of
// TestL01Interleavings, and smaller ones of three threads, run in EVERY
// order with at most two preemptions, not in the orders seeds pick.

import (
	"fmt"
	"slices"
	"strings"
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
	putTail func(pp *p, gp *g)
	getHead func(pp *p) *g
	steal   func(pp, p2 *p, stealRunNextG bool) *g
	drain   func(pp *p) gQueue
}

var (
	l01Mine = l01Impl{runqputtail, runqgethead, runqsteal, runqdrain}
	l01Ref  = l01Impl{ref_runqputtail, ref_runqgethead, ref_runqsteal, ref_runqdrain}
)

// l01ExploreScenarios are an owner and thieves on a P0 that setup fills;
// each thief makes one runqsteal (runnext too if next is set), and what it
// leaves on its own ring is counted at the end. The rings are small: every
// load and store of a slot is a scheduling point, and a full ring (the
// owner's runqputslow reads 128 slots, a thief copies 128) makes some
// 400 per execution, and tens of thousands of orders with two
// preemptions. The full ring is raced by TestL01Interleavings and
// TestL01StealInterleavings instead (PCT, and l01DirectedCopy).
var l01ExploreScenarios = []struct {
	name    string
	gs      int
	thieves int
	bound   int // the preemption bound, if not l01ExploreBound
	next    bool
	setup   func(owner *p, gs []*g)
	owner   func(im l01Impl, owner *p, gs []*g, took func(*g, string))
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
		owner:   l01ExploreDrain,
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
		owner: l01ExploreDrain,
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
				return w.start(threads...)
			}
		}
		bound := l01ExploreBound
		if sc.bound != 0 {
			bound = sc.bound
		}
		if fail := kitExploreOracle(bound, bound, start(l01Mine), start(l01Ref)); fail != "" {
			return fmt.Sprintf("%s: %s%s", sc.name, fail, kitHint(l01))
		}
		return ""
	}); msg != "" {
		t.Fatal(msg)
	}
}

// Two races of the ring's slots need one switch at a moment the state
// names, and are run once in that order (kitDirected): exploring the
// orders around it would cost too much (a thief that copies 128 slots
// makes 256 scheduling points), and the switch is the one that matters.

// l01DirectedPublish: the owner puts G 1 on its empty ring, and a thief
// steals the moment the owner's tail moves. An owner that stores the tail
// before it writes the slot lets the thief read the slot empty.
func l01DirectedPublish(im l01Impl) string {
	return kitDirected(func() kitStart {
		w := kitNewQueues(2, 1)
		owner, thief := w.ps[0], w.ps[1]
		t0 := kitRaw32(&owner.runqtail).Load()
		slot := t0 % uint32(len(owner.runq))
		moved, empty := false, false // the tail has moved; the slot was empty then
		return kitStart{
			threads: []kitThread{
				{"the owner", func() { im.putTail(owner, w.gs[0]) }},
				{"the thief", func() { w.took(im.steal(thief, owner, false), "the thief's runqsteal") }},
			},
			steer: func() int {
				if !moved && kitRaw32(&owner.runqtail).Load() != t0 {
					moved, empty = true, kitRawG(&owner.runq[slot]).Load() == nil
				}
				if moved {
					return 1
				}
				return 0
			},
			final: func() (string, string) {
				key, problem := w.final()
				if problem != "" && empty {
					problem = fmt.Sprintf("G 1 was lost: the owner stored P0's runqtail (%d → %d) before it wrote slot %d, and the thief, which ran just then, read slot %d, found no G, and moved the head past it; G 1, written there afterwards, is outside the ring. Fill the slot first, then store the tail: the tail's store-release is what publishes the slot", t0, t0+1, slot, slot)
				}
				return key, problem
			},
		}
	})
}

// l01DirectedCopy: a thief steals the older half of a full ring, and the
// owner puts G 257 the moment the thief's CAS moves the head: the room
// it made is slot 0, where G 1 was. A thief that copies the slots after
// its CAS copies G 257.
func l01DirectedCopy(im l01Impl) string {
	return kitDirected(func() kitStart {
		w := kitNewQueues(2, 257)
		owner, thief := w.ps[0], w.ps[1]
		kitPutAll(owner, w.gs[:256])
		h0 := kitRaw32(&owner.runqhead).Load()
		moved := false
		return kitStart{
			threads: []kitThread{
				{"the owner", func() { im.putTail(owner, w.gs[256]) }},
				{"the thief", func() { w.took(im.steal(thief, owner, false), "the thief's runqsteal") }},
			},
			steer: func() int {
				if moved = moved || kitRaw32(&owner.runqhead).Load() != h0; moved {
					return 0
				}
				return 1
			},
			final: func() (string, string) {
				key, problem := w.final()
				g257 := w.gs[256]
				if problem != "" && slices.ContainsFunc(w.who[g257], func(by string) bool { return strings.Contains(by, "thief") || strings.HasPrefix(by, "P1") }) {
					problem = fmt.Sprintf("G 1 was lost and G 257 came out twice (%s): the thief moved P0's runqhead from %d to %d with its CompareAndSwap and only then read the slots; in between, the owner saw the room and put G 257 into slot 0, where G 1 was, and the thief copied G 257 instead of G 1. Once the head has moved, the slots behind it are the owner's again. Read the slots first, then CAS the head: the CAS commits what you read, and if it fails, someone else took them: read again", strings.Join(w.who[g257], ", "), h0, h0+128)
				}
				return key, problem
			},
		}
	})
}

// l01DirectedPutSlow: the owner puts G 257 on its full ring, which moves
// half of it to the global queue, and a thief steals the moment the owner
// is about to store a counter. runqputslow moves the head only with a
// CompareAndSwap and stores no counter; one that checks the head with a
// Load and then moves it with a Store is switched out between the two,
// and the thief takes the same Gs.
func l01DirectedPutSlow(im l01Impl) string {
	return kitDirected(func() kitStart {
		w := kitNewQueues(2, 257)
		owner, thief := w.ps[0], w.ps[1]
		kitPutAll(owner, w.gs[:256])
		switched := false
		return kitStart{
			threads: []kitThread{
				{"the owner", func() { im.putTail(owner, w.gs[256]) }},
				{"the thief", func() { w.took(im.steal(thief, owner, false), "the thief's runqsteal") }},
			},
			steer: func() int {
				if switched = switched || kitPendingOp() == "atomicUint32.Store"; switched {
					return 1
				}
				return 0
			},
			final: func() (string, string) {
				key, problem := w.final()
				for _, gp := range w.gs {
					by := strings.Join(w.who[gp], ", ")
					if len(w.who[gp]) > 1 && strings.Contains(by, "global queue") && (strings.Contains(by, "thief") || strings.Contains(by, "P1")) {
						problem = fmt.Sprintf("%s came out twice (%s): the owner's runqputslow checked runqhead with a Load and was about to move it with a Store when the thief stole; the thief's CompareAndSwap took the same oldest Gs, and the owner's Store then moved the head anyway. Anyone may move the head: move it only with a CompareAndSwap from the head you read the slots at, which fails if someone moved it since (then return false: the ring is no longer full)", kitID(gp), by)
						break
					}
				}
				return key, problem
			},
		}
	})
}
