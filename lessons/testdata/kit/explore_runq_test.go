//go:build kata_interleave

package sched

// The run queues as kitExplore sees them: a world of Ps and Gs where
// threads take Gs and say so (took), an invariant checked at every step
// (no G is in two places at once, no ring holds more than 256), and a final
// state (where each G ended, each exactly once) whose key names them all.

import (
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
)

// The invariant, the setup and the final state read and write the atomics
// around the scheduling points (each type of atomics.go is defined on its
// sync/atomic type, so a pointer to one converts to the other): a
// point costs a look-up of the calling goroutine (kitParticipantOf), and
// the invariant, read at every step, would make most of them.

func kitRaw32(a *atomicUint32) *atomic.Uint32         { return (*atomic.Uint32)(a) }
func kitRawRing(a *atomicRingIndex) *atomic.Uint32    { return (*atomic.Uint32)(a) }
func kitRawG(a *atomicPointer[g]) *atomic.Pointer[g]  { return (*atomic.Pointer[g])(a) }
func kitRawSlot(a *atomicRingSlot) *atomic.Pointer[g] { return (*atomic.Pointer[g])(a) }

// kitPutAll puts gs on pp's ring in order, before any thread runs, as
// runqputtail would (the ring has room).
func kitPutAll(pp *p, gs []*g) {
	t := kitRawRing(&pp.runqtail).Load()
	for _, gp := range gs {
		kitRawSlot(&pp.runq[t%uint32(len(pp.runq))]).Store(gp)
		t++
	}
	kitRawRing(&pp.runqtail).Store(t)
}

// kitQueues is one execution's world: a scheduler with its Ps and Gs, and
// who took which G.
type kitQueues struct {
	sched *schedt
	ps    []*p
	gs    []*g
	who   map[*g][]string
	notes []string // what the threads recorded besides Gs, for the final key
}

// kitNewQueues builds a scheduler with procs Ps (P0 running, as its owner
// plays it; the others idle) and n Gs, G 1 to G n (kitScenarioGs).
func kitNewQueues(procs, n int) *kitQueues {
	sched := kitSched(procs, Config{})
	kitRingsAt(sched, kitRingBase)
	w := &kitQueues{sched: sched, who: map[*g][]string{}}
	w.ps = append(w.ps, kitRunningP(sched, 0))
	w.ps = append(w.ps, sched.allp[1:]...)
	w.gs = kitScenarioGs(sched, 1, n)
	// P0's current G is numbered as a G of the same scheduler would be.
	w.ps[0].m.Load().curg.Load().goid = kitGoidBase + int64(n) + 1
	return w
}

// took records that by took gp (nil: nothing). Threads call it; they never
// run at once, so it needs no lock.
func (w *kitQueues) took(gp *g, by string) {
	if gp != nil {
		w.who[gp] = append(w.who[gp], by)
	}
}

// note records something a thread saw, which the final key includes.
func (w *kitQueues) note(s string) { w.notes = append(w.notes, s) }

// noted reports whether a thread noted s.
func (w *kitQueues) noted(s string) bool {
	for _, n := range w.notes {
		if n == s {
			return true
		}
	}
	return false
}

// check is the invariant of every step: each P's ring holds 0 to 256 Gs,
// and no G is in two places (two slots of rings, a runnext, the global
// queue, or taken) at once.
func (w *kitQueues) check() string {
	seen := make([]bool, len(w.gs)+1) // by place: the Gs are G 1 to G n
	twice := func(gp *g) bool {
		if gp == nil || kitPlace(gp) < 1 || kitPlace(gp) > int64(len(w.gs)) {
			return false
		}
		if seen[kitPlace(gp)] {
			return true
		}
		seen[kitPlace(gp)] = true
		return false
	}
	for _, pp := range w.ps {
		h, t := kitRawRing(&pp.runqhead).Load(), kitRawRing(&pp.runqtail).Load()
		if t-h > uint32(len(pp.runq)) {
			return fmt.Sprintf("P%d's ring holds %s (head %d, tail %d): more than its 256 slots", pp.id, kitCount(int(int32(t-h)), "G"), h, t)
		}
		for i := h; i != t; i++ {
			if gp := kitRawSlot(&pp.runq[i%uint32(len(pp.runq))]).Load(); twice(gp) {
				return w.twoPlaces(gp)
			}
		}
		if gp := kitRawG(&pp.runnext).Load(); twice(gp) {
			return w.twoPlaces(gp)
		}
	}
	if w.sched.lock.TryLock() { // a thread may be paused holding it
		defer w.sched.lock.Unlock()
		for gp := w.sched.runq.head; gp != nil; gp = gp.schedlink {
			if twice(gp) {
				return w.twoPlaces(gp)
			}
		}
	}
	for _, gp := range w.gs {
		for range w.who[gp] {
			if twice(gp) {
				return w.twoPlaces(gp)
			}
		}
	}
	return ""
}

// twoPlaces says where gp is, found in two places at once.
func (w *kitQueues) twoPlaces(gp *g) string {
	var places []string
	for _, pp := range w.ps {
		for i, t := kitRawRing(&pp.runqhead).Load(), kitRawRing(&pp.runqtail).Load(); i != t; i++ {
			if kitRawSlot(&pp.runq[i%uint32(len(pp.runq))]).Load() == gp {
				places = append(places, fmt.Sprintf("P%d's ring", pp.id))
			}
		}
		if kitRawG(&pp.runnext).Load() == gp {
			places = append(places, fmt.Sprintf("P%d's runnext", pp.id))
		}
	}
	if w.sched.lock.TryLock() {
		for q := w.sched.runq.head; q != nil; q = q.schedlink {
			if q == gp {
				places = append(places, "the global queue")
			}
		}
		w.sched.lock.Unlock()
	}
	for _, by := range w.who[gp] {
		places = append(places, "taken by "+by)
	}
	return fmt.Sprintf("%s is in two places at once: %s", kitID(gp), strings.Join(places, " and "))
}

// final empties every queue into took and returns the final state's key
// (where each G ended, and the notes) and what is wrong with it: a G lost
// or taken twice.
func (w *kitQueues) final() (key, problem string) {
	for _, pp := range w.ps {
		w.took(kitRawG(&pp.runnext).Swap(nil), fmt.Sprintf("P%d's runnext afterwards", pp.id))
		for h, t := kitRawRing(&pp.runqhead).Load(), kitRawRing(&pp.runqtail).Load(); h != t; h++ {
			w.took(kitRawSlot(&pp.runq[h%uint32(len(pp.runq))]).Load(), fmt.Sprintf("P%d's ring afterwards", pp.id))
		}
	}
	for gp := w.sched.runq.pop(); gp != nil; gp = w.sched.runq.pop() {
		w.took(gp, "the global queue afterwards")
	}
	var parts []string
	for _, gp := range w.gs {
		switch by := w.who[gp]; {
		case len(by) == 0 && problem == "":
			problem = fmt.Sprintf("%s was lost: it came out of no run queue", kitID(gp))
		case len(by) > 1 && problem == "":
			problem = fmt.Sprintf("%s came out %s (%s)", kitID(gp), kitCount(int(len(by)), "time"), strings.Join(by, ", "))
		}
		parts = append(parts, fmt.Sprintf("%s: %s", kitID(gp), strings.Join(w.who[gp], ", ")))
	}
	notes := append([]string(nil), w.notes...)
	sort.Strings(notes)
	return strings.Join(append(parts, notes...), "; "), problem
}

// start is the world as kitExplore runs it: its threads, its invariant and
// its final state.
func (w *kitQueues) start(threads ...kitThread) kitStart {
	return kitStart{threads: threads, check: w.check, final: w.final}
}
