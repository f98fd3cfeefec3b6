package sched

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestL08Differential: the reference is the oracle. On generated states
// (1 to 6 Ps, each ring empty, short or full, runnext set or not, Gs on
// the global queue, the world stopped), procresize to 1..8 Ps runs as the
// learner wrote it and as the reference does (ref_procresize) on
// identical copies, and everything observable must agree: the list of Ps
// with work, every P's ring, runnext and status (destroyed Ps included),
// the global queue (each destroyed P's Gs together, runnext first, in the
// order they would have run, in front of the Gs that were there; which
// destroyed P's come first is free), the idle P list and npidle, allp's
// length,
// gomaxprocs, idlepMask, each P's random source (drawn from since the P
// was made: a survivor keeps it), the steal order's
// coprimes (as a set: their order is free), the trace (one EvResize).
// No idle M is on the list: which M a P gets is TestL08SurvivorsGetAnM's.
func TestL08Differential(t *testing.T) {
	kitDiff(t, l08, 50, l08GenDiff, l08DoDiff, func(kitState, kitOp) bool { return true })
}

// l08GenDiff makes an idle state of one to six Ps and one resize.
func l08GenDiff(r *rand.Rand) (kitState, []kitOp) {
	// The trace is compared by l08Observe (l08Trace), not as it comes:
	// which destroyed P's Gs go first is free, in the trace as on the queue.
	st := kitState{Seed: r.Uint64(), Debug: true, Global: kitGenGlobal(r, 10), Observe: l08Observe}
	for i := range 1 + r.IntN(6) {
		ps := kitGenP(r, i)
		ps.Running, ps.Syscall = false, false // stopTheWorld stops idle Ps only, here
		if r.IntN(2) == 0 && len(ps.Ring) > 3 {
			ps.Ring = ps.Ring[:r.IntN(4)] // short rings: most Ps have little work
		}
		st.Ps = append(st.Ps, ps)
	}
	ops := []kitOp{{Kind: "procresize", K: 1 + r.IntN(8), MinK: 1}}
	if r.IntN(5) == 0 {
		// A program that once ran many Gs at once: up to l08Dead dead Gs
		// more on the global free list, that many in every second such
		// state. A thirty-fourth red team's procresize lost a destroyed
		// P's free Gs only past 2^16 of them. Drawn last, so the rest of
		// every state is as before.
		st.Dead = l08Dead
		if r.IntN(2) == 0 {
			st.Dead = kitLogUniform(r, 151, l08Dead)
		}
	}
	return st, ops
}

// l08Dead is the most dead Gs a state caches beyond kitLivedFree's.
const l08Dead = 1 << 17

// l08DoDiff stops the world by hand (as l08stopWorld does) and runs
// procresize(op.K) with sched.lock held.
func l08DoDiff(w *kitWorld, op kitOp, ref bool) string {
	sched := w.sched
	sched.lock.Lock()
	defer sched.lock.Unlock()
	// The Ps have made random choices since they were made (their steal
	// orders), as a running scheduler's have: a surviving P keeps its
	// source as it is; only a new or revived P gets a fresh one (init).
	for _, pp := range sched.allp {
		for range pp.id + 1 {
			pp.rand.uint32()
		}
	}
	sched.stopwait = sched.gomaxprocs.Load()
	sched.gcwaiting.Store(true)
	for pp := sched.pidleget(); pp != nil; pp = sched.pidleget() {
		pp.status.Store(_Pgcstop)
		sched.stopwait--
	}
	var head *p
	if ref {
		head = ref_procresize(sched, int32(op.K))
	} else {
		head = procresize(sched, int32(op.K))
	}
	var list []int32
	for pp := head; pp != nil && len(list) <= len(w.ps)+8; pp = pp.link {
		list = append(list, pp.id)
	}
	slices.Sort(list)
	return fmt.Sprintf("the Ps with work %v, in any order", list)
}

// l08Observe adds what procresize changes beyond the queues.
func l08Observe(w *kitWorld, o *kitObs) {
	sched := w.sched
	o.addf("len(allp)", "%d", len(sched.allp))
	o.addf("gomaxprocs", "%d", sched.gomaxprocs.Load())
	var mask []uint32
	for i := range sched.idlepMask {
		mask = append(mask, sched.idlepMask[i].Load())
	}
	o.addf("idlepMask", "%#x", mask)
	for i, pp := range sched.allp {
		o.addf(fmt.Sprintf("P%d's id and random source", i), "id=%d rand=%#x", pp.id, pp.rand.state)
	}
	coprimes := slices.Clone(sched.stealOrder.coprimes)
	slices.Sort(coprimes)
	o.addf("stealOrder", "count=%d coprimes=%v in any order", sched.stealOrder.count, coprimes)
	o.addf("the global free list", "%d Gs", sched.gFree.n.Load())
	o.addf("the global queue, by runs of Gs of one P", "%v", l08Runs(sched))
	o.addf("trace events (a destroyed P's Gs onto the global queue: runs of one P's, in any order of the Ps)", "%s", l08Trace(w.events))
}

// l08Trace lists the trace events as kitEvents does, except where Gs of
// destroyed Ps go onto the global queue: each P's events are one run, the
// runs are sorted (which P's Gs go first is free, as on the queue), and
// the lengths the events give the queue are listed after them, in order.
func l08Trace(evs []Event) string {
	var out, runs []string
	var lens []int64
	flush := func() {
		if len(runs) > 0 {
			slices.Sort(runs)
			out = append(out, fmt.Sprintf("onto the global queue: %v, its length after each: %v", runs, lens))
		}
		runs, lens = nil, nil
	}
	owner := int64(-1)
	for _, ev := range evs {
		if ev.Kind != EvGlobalRunq || ev.N <= 0 || ev.G >= 9000 {
			flush()
			owner = -1
			out = append(out, kitEvents([]Event{ev}))
			continue
		}
		if ev.G/1000 != owner || len(runs) == 0 {
			runs = append(runs, "")
			owner = ev.G / 1000
		}
		runs[len(runs)-1] += fmt.Sprintf("{G=%d P=%d M=%d N=%d}", ev.G, ev.P, ev.M, ev.N)
		lens = append(lens, ev.Arg)
	}
	flush()
	return strings.Join(out, " ")
}

// l08Runs splits the global queue into runs of Gs that came from one
// place (P p's Gs are G (p+1)*1000.., the global queue's G 9000..) and
// lists the runs, those of destroyed Ps sorted by P: a destroyed P's Gs
// must stay together and in order, but which P's come first is free.
func l08Runs(sched *schedt) []string {
	var runs [][]int64
	owner := func(id int64) int64 { return min(id/1000, 9) }
	for gp := sched.runq.head; gp != nil && len(runs) < 10000; gp = gp.schedlink {
		if n := len(runs); n > 0 && owner(runs[n-1][0]) == owner(kitPlace(gp)) {
			runs[n-1] = append(runs[n-1], kitPlace(gp))
			continue
		}
		runs = append(runs, []int64{kitPlace(gp)})
	}
	var out []string
	for _, r := range runs {
		out = append(out, fmt.Sprint(r))
	}
	n := len(out)
	if n > 0 && owner(runs[n-1][0]) == 9 {
		n-- // the Gs that were there stay last
	}
	slices.Sort(out[:n])
	return out
}
