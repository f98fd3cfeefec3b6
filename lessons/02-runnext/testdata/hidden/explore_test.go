package sched

// Lesson 02 under the exhaustive explorer (kitExplore): the owner of a
// running P and a thief race for runnext in EVERY order with at most two
// preemptions, not in the orders seeds pick. The P is running, as it is
// when a thief finds a G in its runnext: runqgrabnext then backs off
// before it takes the G, which widens its window.

import (
	"fmt"
	"testing"
)

// l02ExploreBound is the preemption bound: every schedule with at most
// this many switches away from a thread that could have gone on. The
// reference's final states, the oracle, are explored with the same bound
// as the learner's: measured, one more adds none to any scenario below.
const l02ExploreBound = 2

// l02Impl is one implementation of runnext: the learner's or the
// reference's (the ref_ copies), run on the same starts.
type l02Impl struct {
	put      func(pp *p, gp *g, next bool)
	get      func(pp *p) (*g, bool)
	grabNext func(pp *p) (*g, bool)
	empty    func(pp *p) bool
}

var (
	l02Mine = l02Impl{runqput, runqget, runqgrabnext, runqempty}
	l02Ref  = l02Impl{ref_runqput, ref_runqget, ref_runqgrabnext, ref_runqempty}
)

// l02ExploreScenario is the owner of P0 and a thief on P1. check, if set,
// looks at the final state once every G is known to be in one place. A
// scenario with noOracle is checked by its invariants only: its thief
// calls runqsteal, whose reference copy is lesson 01's, not built here.
type l02ExploreScenario struct {
	name     string
	bound    int // the preemption bound, if not l02ExploreBound
	noOracle bool
	gs       int
	setup    func(owner *p, gs []*g)
	owner    func(im l02Impl, w *kitQueues, owner *p)
	thief    func(im l02Impl, w *kitQueues, owner, thief *p)
	check    func(w *kitQueues) string
}

// l02ExploreGet is the owner's runqget; it notes what inheritTime said.
func l02ExploreGet(im l02Impl, w *kitQueues, owner *p) {
	gp, inherit := im.get(owner)
	w.took(gp, "the owner's runqget")
	if gp != nil && inherit {
		w.note(kitID(gp) + " inherits the time slice")
	}
}

// l02ExploreGrabNext is a thief's runqgrabnext, retried as runqgrab does.
func l02ExploreGrabNext(im l02Impl, w *kitQueues, owner, thief *p) {
	for {
		next, retry := im.grabNext(owner)
		if !retry {
			w.took(next, "the thief's runqgrabnext")
			return
		}
	}
}

var l02ExploreScenarios = []l02ExploreScenario{
	{
		name: "the owner runs runqget (runnext G 1, ring [G 2]) while a thief runs runqgrabnext",
		gs:   2,
		setup: func(owner *p, gs []*g) {
			kitRawG(&owner.runnext).Store(gs[0])
			kitPutAll(owner, gs[1:])
		},
		owner: l02ExploreGet,
		thief: l02ExploreGrabNext,
		check: func(w *kitQueues) string {
			if by := w.who[w.gs[1]]; len(by) == 1 && by[0] == "the owner's runqget" && w.noted("G 2 inherits the time slice") {
				return "the owner's runqget returned G 2 from the ring with inheritTime true: only the G taken from runnext inherits the time slice; when the thief's CompareAndSwap wins runnext, what the owner loaded from it says nothing of the G it returns"
			}
			return ""
		},
	},
	{
		name:  "the owner puts G 2 with next=true (runnext holds G 1) while a thief runs runqgrabnext",
		gs:    2,
		setup: func(owner *p, gs []*g) { kitRawG(&owner.runnext).Store(gs[0]) },
		owner: func(im l02Impl, w *kitQueues, owner *p) { im.put(owner, w.gs[1], true) },
		thief: l02ExploreGrabNext,
	},
	{
		name:  "the owner puts G 2, then G 3, with next=true (runnext holds G 1) while a thief runs runqgrabnext",
		gs:    3,
		bound: 3, // the thief loads G 1, the owner replaces it, the thief takes G 2, the owner puts G 3
		setup: func(owner *p, gs []*g) { kitRawG(&owner.runnext).Store(gs[0]) },
		owner: func(im l02Impl, w *kitQueues, owner *p) {
			im.put(owner, w.gs[1], true)
			im.put(owner, w.gs[2], true)
		},
		thief: l02ExploreGrabNext,
	},
	{
		// The runtime's RunSchedLocalQueueEmptyTest, every order of it: the
		// P always holds a G, but it moves from runnext to the ring.
		name:  "the owner puts G 2 with next=true (kicking G 1 from runnext to the ring), then runs runqget, while another thread asks runqempty",
		gs:    2,
		bound: 1, // runqempty reads the ring, the owner kicks and takes, runqempty reads runnext
		setup: func(owner *p, gs []*g) { kitRawG(&owner.runnext).Store(gs[0]) },
		owner: func(im l02Impl, w *kitQueues, owner *p) {
			im.put(owner, w.gs[1], true)
			l02ExploreGet(im, w, owner)
		},
		thief: func(im l02Impl, w *kitQueues, owner, thief *p) {
			if im.empty(owner) {
				w.note("runqempty said empty")
			}
		},
		check: func(w *kitQueues) string {
			if w.noted("runqempty said empty") {
				return "runqempty returned true, but the P held a G all along (G 1, kicked from runnext to the ring, or G 2 in runnext): between its read of the ring and its read of runnext, the owner moved G 1 to the ring and took G 2. Read runqtail again after runnext, and look again if it moved"
			}
			return ""
		},
	},
	{
		name:     "the owner puts G 2 with next=true, then runs runqget (runnext holds G 1) while a thief runs runqsteal, runnext too",
		gs:       2,
		setup:    func(owner *p, gs []*g) { kitRawG(&owner.runnext).Store(gs[0]) },
		noOracle: true,
		owner: func(im l02Impl, w *kitQueues, owner *p) {
			im.put(owner, w.gs[1], true)
			l02ExploreGet(im, w, owner)
		},
		thief: func(im l02Impl, w *kitQueues, owner, thief *p) {
			w.took(runqsteal(thief, owner, true), "the thief's runqsteal")
		},
	},
}

// l02AskScenario is runqempty asked by another P, its steps explored,
// while the owner and a thief change the P one whole operation at a time
// (kitAtomically): the steps of those operations race in the scenarios
// above; here, what runqempty reads between them.
type l02AskScenario struct {
	name  string
	gs    int
	setup func(owner *p, gs []*g)
	ops   []l02WholeOp
}

// l02WholeOp is one whole operation of the owner or a thief.
type l02WholeOp struct {
	label string
	do    func(im l02Impl, w *kitQueues, owner, thief *p)
}

var l02AskScenarios = []l02AskScenario{
	{
		// The P always holds a G, but runnext fills while the thief
		// empties the ring, and the ring refills while runnext empties: a
		// runqempty that reads runnext again (not the tail) sees nil, an
		// empty ring and nil again.
		name:  "another P asks runqempty while the owner (ring [G 1]) puts G 2 with next=true, a thief takes G 1, the owner puts G 3 with next=false and runs runqget",
		gs:    3,
		setup: func(owner *p, gs []*g) { kitPutAll(owner, gs[:1]) },
		ops: []l02WholeOp{
			{"the owner's runqput(P0, G 2, next=true), all of it", func(im l02Impl, w *kitQueues, owner, thief *p) { im.put(owner, w.gs[1], true) }},
			{"a thief's runqsteal of G 1 from P0's ring, all of it", func(im l02Impl, w *kitQueues, owner, thief *p) {
				w.took(runqsteal(thief, owner, false), "the thief's runqsteal")
			}},
			{"the owner's runqput(P0, G 3, next=false), all of it", func(im l02Impl, w *kitQueues, owner, thief *p) { im.put(owner, w.gs[2], false) }},
			{"the owner's runqget(P0), all of it", func(im l02Impl, w *kitQueues, owner, thief *p) { l02ExploreGet(im, w, owner) }},
		},
	},
}

// l02ExploreAsking explores sc: every order of runqempty's steps among the
// whole operations, checked by l02ExploreAsk.
func l02ExploreAsking(sc l02AskScenario) string {
	return kitExplore(len(sc.ops)+1, 0, func() kitStart {
		w := kitNewQueues(2, sc.gs)
		owner, thief := w.ps[0], w.ps[1]
		sc.setup(owner, w.gs)
		s := w.start(
			kitThread{"another P", func() {
				if l02Mine.empty(owner) {
					w.note("runqempty said empty")
				}
			}},
			kitThread{"the owner and a thief", func() {
				for _, op := range sc.ops {
					kitAtomically(op.label, func() { op.do(l02Mine, w, owner, thief) })
				}
			}})
		l02ExploreAsk(&s, w, owner)
		return s
	}).fail
}

// l02ExploreAsk makes s check a runqempty asked while the owner and the
// thief ran: at every step it looks whether the owner's P is empty (no G
// on its ring, none in runnext), and at the end a "said empty" is wrong if
// it never was.
func l02ExploreAsk(s *kitStart, w *kitQueues, owner *p) {
	check, final := s.check, s.final
	wasEmpty := false
	s.check = func() string {
		if kitRawRing(&owner.runqhead).Load() == kitRawRing(&owner.runqtail).Load() && kitRawG(&owner.runnext).Load() == nil {
			wasEmpty = true
		}
		return check()
	}
	s.final = func() (string, string) {
		key, problem := final()
		if problem == "" && w.noted("runqempty said empty") && !wasEmpty {
			problem = "runqempty returned true, but the P held a G at every step (in runnext or on its ring): a G moved into runnext while the ring emptied, and back onto the ring while runnext emptied. Seeing runnext nil twice does not mean it stayed nil; what pins the moment is the tail: read head, tail and runnext, then the tail again, and retry if it moved"
		}
		return key, problem
	}
}

// TestL02Explore runs the owner and a thief in every order with at most
// two preemptions (three where a scenario says), checking at every step
// that no G is in two places, and at the end that every G came out exactly
// once, in a final state the reference (ref_) also reaches. Then
// runqempty, asked while the owner and a thief change the P, in every
// order of its steps among their operations.
func TestL02Explore(t *testing.T) {
	if msg := kitEach(len(l02ExploreScenarios), func(i int) string {
		sc := l02ExploreScenarios[i]
		bound := l02ExploreBound
		if sc.bound != 0 {
			bound = sc.bound
		}
		start := func(im l02Impl) func() kitStart {
			return func() kitStart {
				w := kitNewQueues(2, sc.gs)
				owner, thief := w.ps[0], w.ps[1]
				sc.setup(owner, w.gs)
				s := w.start(
					kitThread{"the owner", func() { sc.owner(im, w, owner) }},
					kitThread{"the thief", func() { sc.thief(im, w, owner, thief) }})
				if sc.check != nil {
					final := s.final
					s.final = func() (string, string) {
						key, problem := final()
						if problem == "" {
							problem = sc.check(w)
						}
						return key, problem
					}
				}
				return s
			}
		}
		var fail string
		if sc.noOracle {
			fail = kitExplore(bound, 0, start(l02Mine)).fail
		} else {
			fail = kitExploreOracle(bound, bound, start(l02Mine), start(l02Ref))
		}
		if fail != "" {
			return fmt.Sprintf("%s: %s%s", sc.name, fail, kitHint(l02))
		}
		return ""
	}); msg != "" {
		t.Fatal(msg)
	}
	for _, sc := range l02AskScenarios {
		if fail := l02ExploreAsking(sc); fail != "" {
			t.Fatalf("%s: %s%s", sc.name, fail, kitHint(l02))
		}
	}
}
