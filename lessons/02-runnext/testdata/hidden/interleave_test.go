package sched

// Hidden tests of lesson 02-runnext under the controlled scheduler (see
// kitInterleave): the owner and a thief race for runnext one atomic
// operation at a time, in orders chosen by PCT, so that a race whose
// window is one Load wide is found by design. Messages are written for a
// learner who cannot see this file.

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// l02Scenario is an owner and a thief on a constructed P: setup fills the
// owner's runnext and ring; the threads take Gs and report each with who
// took it; check, if set, looks at where the Gs went. If empty is set, the
// thief only asks runqempty of the owner, who always holds a G, so the
// answer must be false.
type l02Scenario struct {
	name  string
	gs    int
	steps int
	empty bool
	setup func(owner *p, gs []*g)
	owner func(owner *p, gs []*g, took func(*g, string))
	thief func(owner, thief *p, took func(*g, string))
	check func(owner *p, gs []*g, who map[*g][]string) string
}

// l02TakeNext is a thief's take of runnext, as runqgrabnext makes it on
// an idle P (no back-off): one Load, one CompareAndSwap.
func l02TakeNext(owner *p, took func(*g, string)) {
	if next := owner.runnext.Load(); next != nil && owner.runnext.CompareAndSwap(next, nil) {
		took(next, "the thief's CompareAndSwap of runnext")
	}
}

var l02Scenarios = []l02Scenario{
	{
		name:  "the owner puts G 2 with next=true (runnext holds G 1) while a thief takes runnext",
		gs:    2,
		steps: 12,
		setup: func(owner *p, gs []*g) { owner.runnext.Store(gs[0]) },
		owner: func(owner *p, gs []*g, took func(*g, string)) { runqput(owner, gs[1], true) },
		thief: func(owner, thief *p, took func(*g, string)) { l02TakeNext(owner, took) },
		check: func(owner *p, gs []*g, who map[*g][]string) string {
			if slices.Contains(who[gs[1]], "P0's ring afterwards") {
				return "G 2, put with next=true, ended on the ring, not in runnext: when the CompareAndSwap of runnext fails (a thief took the old runnext), load runnext again and retry; only the old runnext goes to the ring"
			}
			return ""
		},
	},
	{
		name:  "the owner puts G 2 with next=true (runnext holds G 1) while a thief runs runqgrabnext",
		gs:    2,
		steps: 12,
		setup: func(owner *p, gs []*g) { owner.runnext.Store(gs[0]) },
		owner: func(owner *p, gs []*g, took func(*g, string)) { runqput(owner, gs[1], true) },
		thief: func(owner, thief *p, took func(*g, string)) {
			next, _ := runqgrabnext(owner)
			took(next, "the thief's runqgrabnext")
		},
	},
	{
		name:  "the owner runs runqget twice (runnext G 1, ring [G 2]) while a thief takes runnext",
		gs:    2,
		steps: 12,
		setup: func(owner *p, gs []*g) {
			owner.runnext.Store(gs[0])
			runqputtail(owner, gs[1])
		},
		owner: func(owner *p, gs []*g, took func(*g, string)) {
			for range 2 {
				gp, _ := runqget(owner)
				took(gp, "the owner's runqget")
			}
		},
		thief: func(owner, thief *p, took func(*g, string)) { l02TakeNext(owner, took) },
	},
	{
		name:  "the owner runs runqget (runnext G 1, ring [G 2]) while a thief runs runqgrabnext",
		gs:    2,
		steps: 12,
		setup: func(owner *p, gs []*g) {
			owner.runnext.Store(gs[0])
			runqputtail(owner, gs[1])
		},
		owner: func(owner *p, gs []*g, took func(*g, string)) {
			gp, _ := runqget(owner)
			took(gp, "the owner's runqget")
		},
		thief: func(owner, thief *p, took func(*g, string)) {
			next, _ := runqgrabnext(owner)
			took(next, "the thief's runqgrabnext")
		},
		// Whoever wins runnext, the ring still holds G 2, which only the
		// owner takes: its runqget always has a G to return.
		check: func(owner *p, gs []*g, who map[*g][]string) string {
			if !slices.Contains(who[gs[0]], "the owner's runqget") && !slices.Contains(who[gs[1]], "the owner's runqget") {
				return "the owner's runqget returned nil while its ring held G 2 (a thief had just taken runnext): a failed CompareAndSwap of runnext means only that runnext is gone; go on to the ring"
			}
			return ""
		},
	},
	{
		name:  "the owner readies G 2 and G 3 with next=true and runs one G while a thief steals (runnext too)",
		gs:    3,
		steps: 30,
		setup: func(owner *p, gs []*g) { owner.runnext.Store(gs[0]) },
		owner: func(owner *p, gs []*g, took func(*g, string)) {
			runqput(owner, gs[1], true)
			runqput(owner, gs[2], true)
			gp, _ := runqget(owner)
			took(gp, "the owner's runqget")
		},
		thief: func(owner, thief *p, took func(*g, string)) {
			took(runqsteal(thief, owner, true), "the thief's runqsteal")
		},
	},
	{
		name:  "runqempty while the owner, holding G 1 on its ring, puts G 2 with next=true, then takes G 1",
		gs:    2,
		steps: 12,
		empty: true,
		setup: func(owner *p, gs []*g) { runqputtail(owner, gs[0]) },
		owner: func(owner *p, gs []*g, took func(*g, string)) {
			runqput(owner, gs[1], true)
			took(runqgethead(owner), "the owner's runqgethead")
		},
	},
	{
		name:  "runqempty while the owner, holding G 1 in runnext, puts G 2 with next=false, then runs G 1",
		gs:    2,
		steps: 12,
		empty: true,
		setup: func(owner *p, gs []*g) { owner.runnext.Store(gs[0]) },
		owner: func(owner *p, gs []*g, took func(*g, string)) {
			runqput(owner, gs[1], false)
			gp, _ := runqget(owner)
			took(gp, "the owner's runqget")
		},
	},
	{
		name:  "runqempty while the owner, holding G 1 in runnext, puts G 2 with next=true (kicking G 1 to the ring), then runs G 2",
		gs:    2,
		steps: 12,
		empty: true,
		setup: func(owner *p, gs []*g) { owner.runnext.Store(gs[0]) },
		owner: func(owner *p, gs []*g, took func(*g, string)) {
			runqput(owner, gs[1], true)
			gp, _ := runqget(owner)
			took(gp, "the owner's runqget")
		},
	},
}

// TestL02Interleavings runs the owner and a thief one atomic operation at
// a time, in many orders (PCT: seeds × depths), and checks that every G
// comes out exactly once.
//
// The races of a thief (empty unset) also run in every order up to the
// preemption bound in TestL02Explore, which caught every wrong file of the
// corpus this test caught with them: they run at fewer seeds here; the
// races of runqempty keep all of theirs.
func TestL02Interleavings(t *testing.T) {
	seeds, thiefSeeds := uint64(150), uint64(40)
	if testing.Short() {
		seeds, thiefSeeds = 30, 15
	}
	type run struct {
		sc    l02Scenario
		seed  uint64
		depth int
	}
	var runs []run
	for _, sc := range l02Scenarios {
		n := seeds
		if !sc.empty {
			n = thiefSeeds
		}
		for depth := 1; depth <= 3; depth++ {
			for seed := uint64(1); seed <= n; seed++ {
				runs = append(runs, run{sc, seed, depth})
			}
		}
	}
	// Each run has a scheduler and Gs of its own: they go two at a time
	// on two host Ps, and the first failure in this order is reported.
	if msg := kitEach(len(runs), func(i int) string {
		r := runs[i]
		if msg := l02RunScenario(r.sc, r.seed, r.depth); msg != "" {
			return fmt.Sprintf("%s, in the interleaving of seed %d (depth %d): %s%s", r.sc.name, r.seed, r.depth, msg, kitHint(l02))
		}
		return ""
	}); msg != "" {
		t.Fatal(msg)
	}
}

// l02RunScenario runs sc once and says what went wrong, or "".
func l02RunScenario(sc l02Scenario, seed uint64, depth int) string {
	sched := kitSched(2, Config{})
	kitRingsAt(sched, kitRingBase)
	owner, thief := sched.allp[0], sched.allp[1]
	gs := kitScenarioGs(sched, 1, sc.gs)
	sc.setup(owner, gs)
	who := map[*g][]string{}
	var log []string
	took := func(gp *g, by string) {
		if gp != nil {
			who[gp] = append(who[gp], by)
			log = append(log, fmt.Sprintf("%s took %s", by, kitID(gp)))
		}
	}
	// The threads never run at once (the controller hands the turn over),
	// so took needs no lock.
	saidEmpty := false
	thiefName, thiefFn := "the thief", func() { sc.thief(owner, thief, took) }
	if sc.empty {
		thiefName, thiefFn = "another P", func() { saidEmpty = runqempty(owner) }
	}
	err := kitInterleave(seed, depth, sc.steps,
		"the owner", func() { sc.owner(owner, gs, took) },
		thiefName, thiefFn)
	if err != nil {
		return err.Error()
	}
	if saidEmpty {
		return "runqempty returned true, but the owner held a G all along: read head, tail and runnext, then the tail again, and retry if it moved; answer from those first three reads only (a head or runnext read later belongs to another moment)"
	}
	for _, pp := range []*p{owner, thief} {
		took(pp.runnext.Swap(nil), fmt.Sprintf("P%d's runnext afterwards", pp.id))
		for _, gp := range l02ring(pp) {
			took(gp, fmt.Sprintf("P%d's ring afterwards", pp.id))
		}
	}
	for gp := sched.runq.pop(); gp != nil; gp = sched.runq.pop() {
		took(gp, "the global queue afterwards")
	}
	for _, gp := range gs {
		switch by := who[gp]; {
		case len(by) == 0:
			return fmt.Sprintf("%s was lost: it came out of no run queue (%s)", kitID(gp), strings.Join(log, "; "))
		case len(by) > 1:
			return fmt.Sprintf("%s came out %s (%s): two takers got it from runnext; is every change of runnext a CompareAndSwap from the value loaded (or a Swap), whose result decides what happens next?", kitID(gp), kitCount(int(len(by)), "time"), strings.Join(by, ", "))
		}
	}
	if sc.check != nil {
		return sc.check(owner, gs, who)
	}
	return ""
}
