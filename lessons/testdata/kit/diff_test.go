package sched

// Differential testing: the reference is the oracle. A test describes a
// scheduler state in plain data (kitState) and a few operations on it
// (kitOp); the kit builds the state twice, identically, runs the learner's
// functions on one copy and the reference's (their ref_ copies, see
// internal/oracle) on the other, and compares everything a test can see
// after each operation: what it returned, every P's ring (counters and
// Gs, in order), runnext, status, the global queue (its Gs in order, and
// its size), the idle P list, the spinning count, sched.lock, the
// back-offs (usleep calls and their lengths). A failing state is then
// shrunk (fewer Ps, fewer Gs, smaller counters, fewer operations) and
// printed in words; not when the run stops at its first failure (see
// kitFailFast).
//
// States are built by writing the fields directly, not with the Lab's
// Runqput: that is the learner's runqput in lessons 01 and 02, so a state
// built with it would already be the learner's.

import (
	"cmp"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// kitState is a scheduler state, in plain data. G IDs say where a G
// starts: P p's ring holds G (p+1)*1000+i, its runnext G (p+1)*1000+999,
// the global queue G 9000+i; Gs the operations bring are 8000+i. Every
// slot of a ring outside head..tail holds a stale G (kitStale), as a ring
// that has been used does.
type kitState struct {
	Ps        []kitPState
	Global    []int64
	Randomize bool // Config.RandomizeScheduler
	Debug     bool // Config.Debug: lock assertions on
	Trace     bool // compare the trace events too: only where the lesson's contract names them
	NoSysmon  bool // Config.NoSysmon
	Seed      uint64
	MinProcs  int // the operations name Ps up to MinProcs-1: shrinking keeps them
	// Idle Ps more, after those of Ps: idle, their rings empty, as on a
	// big machine (kitWiden). 0 in a state as a lesson generates it.
	Idle int
	// Base idle Ps more, before those of Ps: the state's Ps are numbered
	// Base, Base+1... and the operations name them so (kitHigh, where
	// HighIDs is set). 0 in a state as a lesson generates it.
	Base int
	// MBase numbers the world's Ms from MBase on: Ms 0 to MBase-1 were
	// made before and run no Go code now (counted in nmsys, so that
	// checkdead counts the running Ms as in a world of few). Set by the
	// lesson's generator where its contract does not depend on the Ms'
	// numbers (lesson 05: half its states); 0 elsewhere.
	MBase int64
	// Dead dead Gs more are cached on the global free list, beyond the 0
	// to 150 of kitLivedFree: a program that once ran that many Gs more
	// at once. Set by the lesson's generator where the free lists are
	// part of its contract (lesson 08: one state in five); 0 elsewhere.
	Dead int
	// HighIDs says the lesson's operations name Ps only by kitOp.P and
	// kitOp.Q, and nothing else of it takes the state's Ps to be the
	// first: kitDiff may then number them high (kitHigh).
	HighIDs bool
	// Observe, if set, adds what a lesson's test compares beyond the
	// kit's observables.
	Observe func(w *kitWorld, o *kitObs)
}

// kitPState is one P of a kitState.
type kitPState struct {
	Head    uint32
	Ring    []int64
	Next    int64 // 0: none
	Running bool  // _Prunning with an M and a running G (kitRunningP); else idle
	Syscall bool  // _Psyscall, with no M (its G in a system call); not with Running
}

// kitStale is the ID of the stale G left in the slots of P p's ring.
func kitStale(p int) int64 { return 100000 + int64(p) }

// kitGName names a G for a learner: its name (kitPlace), or what a stale
// one is.
func kitGName(gp *g) string {
	if gp == nil {
		return "nil"
	}
	if id := kitPlace(gp); id >= 100000 && id < 200000 {
		return fmt.Sprintf("G %d (a stale G left in P%d's ring, outside runqhead..runqtail)", id, id-100000)
	}
	return fmt.Sprintf("G %d", kitPlace(gp))
}

// kitGList names a list of Gs: [G 3 G 4].
func kitGList(gs []*g) string {
	names := make([]string, len(gs))
	for i, gp := range gs {
		names[i] = kitGName(gp)
	}
	return "[" + strings.Join(names, " ") + "]"
}

// String describes the state as a learner reads it.
func (st kitState) String() string {
	var b strings.Builder
	if st.Base > 0 {
		fmt.Fprintf(&b, "P0..P%d idle, their rings empty; ", st.Base-1)
	}
	for i, ps := range st.Ps {
		ring := make([]string, len(ps.Ring))
		for j, id := range ps.Ring {
			ring[j] = fmt.Sprintf("G %d", id)
		}
		fmt.Fprintf(&b, "P%d's ring holds [%s], runqhead=%d runqtail=%d", st.Base+i, strings.Join(ring, " "), ps.Head, ps.Head+uint32(len(ps.Ring)))
		if ps.Next != 0 {
			fmt.Fprintf(&b, ", runnext G %d", ps.Next)
		}
		if ps.Running {
			b.WriteString(", running")
		} else if ps.Syscall {
			b.WriteString(", in a system call")
		} else {
			b.WriteString(", idle")
		}
		b.WriteString("; ")
	}
	if n := st.Base + len(st.Ps); st.Idle > 0 {
		fmt.Fprintf(&b, "P%d..P%d idle, their rings empty (GOMAXPROCS=%d); ", n, n+st.Idle-1, n+st.Idle)
	} else if st.Base > 0 {
		fmt.Fprintf(&b, "GOMAXPROCS=%d; ", n)
	}
	if st.Dead > 0 {
		fmt.Fprintf(&b, "%d dead Gs more on the global free list (a program that once ran that many Gs more); ", st.Dead)
	}
	fmt.Fprintf(&b, "the global queue holds %s", kitCount(int(len(st.Global)), "G"))
	if len(st.Global) > 0 {
		fmt.Fprintf(&b, " (G %d..G %d)", st.Global[0], st.Global[len(st.Global)-1])
	}
	if st.Randomize {
		b.WriteString("; Config{RandomizeScheduler: true}")
	}
	if st.NoSysmon {
		b.WriteString("; Config{NoSysmon: true}")
	}
	if st.Debug {
		b.WriteString("; Config{Debug: true}")
	}
	if st.Trace {
		b.WriteString("; sched.trace set")
	}
	return b.String()
}

// kitWorld is one built copy of a kitState.
type kitWorld struct {
	sched   *schedt
	gs      map[int64]*g // the world's Gs, from pool
	pool    map[int64]*g // Gs of earlier worlds, reused: fewer allocations, a faster test under -race
	usleeps []int64      // the back-offs asked for, in µs
	events  []Event      // the trace since the world was built
	tracing bool
	trace   bool                         // kitState.Trace
	ps      []*p                         // every P built, those procresize destroys included
	extra   func(w *kitWorld, o *kitObs) // kitState.Observe
	nextG   int64                        // the next G an operation brings: 8000, 8001...
	ids     *rand.Rand                   // draws the Gs' IDs (name)
	idBase  int64                        // name's first ID, if it numbers the Gs in a row; 0: spread
	names   map[int64]int64              // the name of the G of each ID, for the trace
	// idleCounts are the counters, by ID, of the Ps the state does not
	// describe one by one (its Base and Idle Ps), as they were built: the
	// observers describe those together while they stay so (pristine).
	idleCounts map[int32][2]uint32
}

// g returns the world's G named id (G 1000 is P0's first), made runnable
// if new. Messages and the trace name it by id (kitPlace); its ID is
// drawn at random (see name).
func (w *kitWorld) g(id int64) *g {
	gp, ok := w.gs[id]
	if !ok {
		if gp, ok = w.pool[id]; ok {
			*gp = g{sched: w.sched}
			gp.atomicstatus.Store(_Grunnable)
		} else {
			gp = kitG(w.sched, 0)
			w.pool[id] = gp
		}
		w.name(gp, id)
		w.gs[id] = gp
	}
	return gp
}

// name gives gp the name id and an ID of its own, drawn by the state's
// seed, so that the reference's world and the learner's number their Gs
// alike. In one state of three the Gs are spread over 1 to 4,000 (the
// range the real runs' Gs have; more for a state of more Gs): a
// twenty-first red team's file ran its mistakes only for Gs numbered
// under 1000, which these never were. In the others they are numbered in
// a row, as Gs started together are, from anywhere up to 4,000 or, in
// one state of three, anywhere up to 2^40, as in a program that has run
// for long: a twenty-seventh red team's files ran their mistakes only for
// Gs numbered in a row, or past 20,000, which these never were.
func (w *kitWorld) name(gp *g, id int64) {
	if len(w.names) == 0 {
		switch w.ids.IntN(3) {
		case 0:
			w.idBase = 0
		case 1:
			w.idBase = 1 + w.ids.Int64N(4000)
		case 2:
			w.idBase = 1 + w.ids.Int64N(1<<40)
		}
	}
	var goid int64
	if w.idBase != 0 {
		goid = w.idBase + int64(len(w.names))
	} else {
		span := 4000 + 2*int64(len(w.names)) // always half free: few draws
		goid = 1 + w.ids.Int64N(span)
		for _, taken := w.names[goid]; taken; _, taken = w.names[goid] {
			goid = 1 + w.ids.Int64N(span)
		}
	}
	gp.goid, gp.cell = goid, kitScenarioPlace(id)
	w.names[goid] = id
}

// nameOf is the name of the world's G with ID goid, or goid.
func (w *kitWorld) nameOf(goid int64) int64 {
	if id, ok := w.names[goid]; ok {
		return id
	}
	return goid
}

// byID returns the world's G with ID goid, or nil.
func (w *kitWorld) byID(goid int64) *g {
	if id, ok := w.names[goid]; ok {
		return w.gs[id]
	}
	return nil
}

// newG returns a G no queue holds yet: the operations' G 8000, 8001...
func (w *kitWorld) newG() *g {
	w.nextG++
	return w.g(8000 + w.nextG - 1)
}

// kitBuild builds st, with Gs of the pool.
func kitBuild(st kitState, pool map[int64]*g) *kitWorld {
	w := &kitWorld{gs: map[int64]*g{}, pool: pool, trace: st.Trace, extra: st.Observe,
		ids: rand.New(rand.NewPCG(st.Seed, 0x67696473)), names: map[int64]int64{}}
	procs := st.Base + len(st.Ps) + st.Idle
	cfg := Config{Procs: procs, Seed: st.Seed, RandomizeScheduler: st.Randomize, NoSysmon: st.NoSysmon, Debug: st.Debug,
		Nanotime: func() int64 { return 1e9 }, Usleep: func(us int64) { w.usleeps = append(w.usleeps, us) },
		Trace: func(ev Event) {
			if w.tracing {
				ev.G = w.nameOf(ev.G) // the trace names Gs as the state does
				w.events = append(w.events, ev)
			}
		}}
	w.sched = newSchedt(cfg) // as NewLab makes its scheduler
	if st.MBase > 0 {
		w.sched.lock.Lock()
		w.sched.mnext += st.MBase
		w.sched.nmsys += int32(st.MBase)
		w.sched.lock.Unlock()
	}
	if kitMix(st.Seed, 401)%2 == 0 {
		// GOMAXPROCS went up and back since New (kitResized).
		kitGOMAXPROCS(w.sched, int32(min(procs+kitResized(st.Seed, procs), maxProcs)))
		kitGOMAXPROCS(w.sched, int32(procs))
	}
	defer func() { w.tracing = true }()
	for i, ps := range st.Ps {
		id := st.Base + i
		pp := w.sched.allp[id]
		if ps.Running {
			kitRunningP(w.sched, int32(id))
			w.name(pp.m.Load().curg.Load(), 1000000+int64(id))
		} else if ps.Syscall {
			kitTakeP(w.sched, int32(id))
			pp.status.Store(_Psyscall)
		}
		stale := w.g(kitStale(id))
		for s := range pp.runq {
			kitPlainStore(&pp.runq[s], stale)
		}
		pp.runqhead.Store(ps.Head)
		for j, id := range ps.Ring {
			kitPlainStore(&pp.runq[(ps.Head+uint32(j))%uint32(len(pp.runq))], w.g(id))
		}
		pp.runqtail.Store(ps.Head + uint32(len(ps.Ring)))
		if ps.Next != 0 {
			pp.runnext.Store(w.g(ps.Next))
		}
	}
	for _, id := range st.Global {
		w.sched.runq.pushBack(w.g(id))
	}
	kitLivedFree(w.sched, w.sched.allp[st.Base:st.Base+len(st.Ps)], st.Dead)
	w.ps = slices.Clone(w.sched.allp)
	if st.Base > 0 || st.Idle > 0 {
		w.idleCounts = map[int32][2]uint32{}
		for i, pp := range w.ps {
			if i < st.Base || i >= st.Base+len(st.Ps) {
				w.idleCounts[pp.id] = [2]uint32{pp.runqhead.Load(), pp.runqtail.Load()}
			}
		}
	}
	return w
}

// pristine reports whether the world's P pp is one of the state's Idle Ps
// and as it was built: idle, its ring empty, its counters where they
// were, no runnext. Observers describe such Ps together, so that a state
// of maxProcs Ps costs no more to compare than the few that changed.
func (w *kitWorld) pristine(pp *p) bool {
	c, ok := w.idleCounts[pp.id]
	return ok && int(pp.id) < len(w.ps) && w.ps[pp.id] == pp && pp.status.Load() == _Pidle &&
		pp.runqhead.Load() == c[0] && pp.runqtail.Load() == c[1] && pp.runnext.Load() == nil
}

// kitQuiet turns the noise (noise_test.go) off until the function it
// returns is called: a differential runs on one thread, where the noise
// only costs time. In the benchmarks' build, which has no scheduling
// points, it does nothing.
var kitQuiet = func() (restore func()) { return func() {} }

// kitPlainStore sets a slot of a world's ring before anything runs in the
// world, with a plain write, not the atomic store the scheduler makes. The
// value is the same to every later read, atomic or not, on this goroutine
// or one it starts; but under the race detector each atomic store to a new
// address makes a synchronisation object, kept until the memory is freed,
// and filling every slot of every P's ring of two worlds per state that way
// was most of a differential's time (lesson 04's: 240 states, 2.6 s).
func kitPlainStore(slot *atomicRingSlot, gp *g) {
	*(**g)(unsafe.Pointer(slot)) = gp
}

// kitObs is what a test can see of a world, observable by observable, in
// a fixed order: "P0's ring" → "[G 3 G 4] (runqhead=7 runqtail=9)". Values
// are compared by a compact key and put in words only when they differ.
type kitObs struct {
	names []string
	vals  map[string]kitVal
}

// kitVal is one observable: Gs (by ID) and what else there is to say.
type kitVal struct {
	gs     []*g
	list   bool   // gs is a list to show, in front of text
	sorted bool   // gs in any order
	text   string // the rest: counters, a status...
}

func (v kitVal) key() string {
	b := make([]byte, 0, 8*len(v.gs)+len(v.text))
	for _, gp := range v.gs {
		if gp == nil {
			b = append(b, 'n')
		} else {
			b = strconv.AppendInt(b, kitPlace(gp), 10)
		}
		b = append(b, ',')
	}
	return string(append(b, v.text...))
}

func (v kitVal) String() string {
	if !v.list {
		return v.text
	}
	s := kitGList(v.gs)
	if v.sorted {
		s += " in any order"
	}
	if v.text != "" {
		s += " " + v.text
	}
	return s
}

// kitShowPair writes two values that differ. Lists of more than 48 Gs (a
// widened state's global queue) are cut to the Gs around the first place
// they differ, with how many are left out on each side.
func kitShowPair(want, got kitVal) (string, string) {
	if !want.list || !got.list || max(len(want.gs), len(got.gs)) <= 48 {
		return want.String(), got.String()
	}
	d := 0
	for d < len(want.gs) && d < len(got.gs) && want.gs[d] == got.gs[d] {
		d++
	}
	show := func(v kitVal) string {
		lo, hi := max(0, d-8), min(len(v.gs), d+8)
		var b strings.Builder
		b.WriteString("[")
		if lo > 0 {
			fmt.Fprintf(&b, "(%d Gs) ", lo)
		}
		b.WriteString(strings.Trim(kitGList(v.gs[lo:hi]), "[]"))
		if hi < len(v.gs) {
			fmt.Fprintf(&b, " (%d Gs more)", len(v.gs)-hi)
		}
		fmt.Fprintf(&b, "] (%d Gs in all", len(v.gs))
		if v.sorted {
			b.WriteString(", in any order")
		}
		b.WriteString(")")
		if v.text != "" {
			b.WriteString(" " + v.text)
		}
		return b.String()
	}
	return show(want), show(got)
}

func (o *kitObs) add(name string, v kitVal) {
	if o.vals == nil {
		o.vals = map[string]kitVal{}
	}
	o.names = append(o.names, name)
	o.vals[name] = v
}

func (o *kitObs) addf(name, format string, args ...any) {
	o.add(name, kitVal{text: fmt.Sprintf(format, args...)})
}

// observe records w's state. unordered: the Gs of rings and of the global
// queue as sorted multisets, and the idle P list as a set (a contract that
// leaves their order free).
func (w *kitWorld) observe(o *kitObs, unordered bool) {
	sched := w.sched
	list := func(gs []*g, text string) kitVal {
		if unordered {
			slices.SortFunc(gs, func(a, b *g) int { return cmp.Compare(kitPlace(a), kitPlace(b)) })
		}
		return kitVal{gs: gs, list: true, sorted: unordered, text: text}
	}
	var pristine []int32
	for i, pp := range w.ps {
		if w.pristine(pp) {
			pristine = append(pristine, pp.id)
			continue
		}
		h, t := pp.runqhead.Load(), pp.runqtail.Load()
		var ring []*g
		for j := h; j != t && len(ring) <= len(pp.runq); j++ {
			ring = append(ring, pp.runq[j%uint32(len(pp.runq))].Load())
		}
		counters := fmt.Sprintf("(runqhead=%d runqtail=%d)", h, t)
		if pp.status.Load() == _Pdead {
			counters = "(a destroyed P: where its counters stop is free)"
		}
		o.add(fmt.Sprintf("P%d's ring", i), list(ring, counters))
		o.add(fmt.Sprintf("P%d's runnext", i), kitVal{gs: []*g{pp.runnext.Load()}, list: true})
		o.addf(fmt.Sprintf("P%d's status", i), "%s", pStatusString(pp.status.Load()))
	}
	if w.idleCounts != nil {
		o.addf("the Idle Ps as built (idle, their rings empty)", "%s", kitRanges(pristine))
	}
	var global []*g
	for gp := sched.runq.head; gp != nil && len(global) <= len(w.gs); gp = gp.schedlink {
		global = append(global, gp)
	}
	tail := "consistent"
	if n := len(global); (n == 0) != (sched.runq.tail == nil) || n > 0 && sched.runq.tail != global[n-1] {
		tail = "tail pointer is not the last G"
	}
	o.add("the global queue", list(global, fmt.Sprintf("(size=%d, sizeHint=%d, %s)", sched.runq.size, sched.runq.sizeHint.Load(), tail)))
	var idle []int32
	for pp := sched.pidle; pp != nil && len(idle) <= len(sched.allp); pp = pp.link {
		idle = append(idle, pp.id)
	}
	if unordered {
		slices.Sort(idle)
		o.addf("the idle P list", "%v in any order (npidle=%d)", idle, sched.npidle.Load())
	} else {
		o.addf("the idle P list", "%v (npidle=%d)", idle, sched.npidle.Load())
	}
	o.addf("nmspinning", "%d", sched.nmspinning.Load())
	locked := "not held"
	if !sched.lock.TryLock() {
		locked = "held"
	} else {
		sched.lock.Unlock()
	}
	o.addf("sched.lock", "%s", locked)
	o.addf("back-offs (usleep calls, µs)", "%s", kitRuns(w.usleeps))
	if w.trace {
		o.addf("trace events", "%s", kitRuns(w.events))
	}
	if w.extra != nil {
		w.extra(w, o)
	}
}

// kitRanges writes ascending IDs as ranges: "P3..P9 P12".
func kitRanges(ids []int32) string {
	var b strings.Builder
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		if j > i {
			fmt.Fprintf(&b, "P%d..P%d", ids[i], ids[j])
		} else {
			fmt.Fprintf(&b, "P%d", ids[i])
		}
		i = j + 1
	}
	if b.Len() == 0 {
		return "none"
	}
	return b.String()
}

// kitOp is one operation of a differential test, in data: what it does is
// the lesson's (kitDiff's do). Shrinking may lower K.
type kitOp struct {
	Kind string
	P, Q int    // the Ps it works on (Q: a victim, say)
	K    int    // a count (Gs in a batch, n of a batch get)
	MinK int    // the smallest K the contract allows: shrinking stops there
	At   uint32 // an index (batchHead)
	Flag bool   // a flag (stealRunNextG, next)
}

// kitDiffRun runs ops on two builds of st, the learner's functions on one
// and the reference's on the other (do(w, op, ref) runs op and returns
// what it returned, in words), comparing after each operation. It returns
// "" if they agree, else what differed.
func kitDiffRun(st kitState, ops []kitOp, do func(w *kitWorld, op kitOp, ref bool) string, unordered func(st kitState, op kitOp) bool, pools *[2]map[int64]*g) string {
	mine, ref := kitBuild(st, pools[0]), kitBuild(st, pools[1])
	loose := false
	for i, op := range ops {
		got, why := kitCall(func() string { return do(mine, op, false) })
		want, _ := kitCall(func() string { return do(ref, op, true) })
		loose = loose || unordered(st, op)
		var o1, o2 kitObs
		o1.addf("returned", "%s", got)
		o2.addf("returned", "%s", want)
		mine.observe(&o1, loose)
		ref.observe(&o2, loose)
		var diffs []string
		for _, name := range o2.names {
			if o1.vals[name].key() != o2.vals[name].key() {
				want, got := kitShowPair(o2.vals[name], o1.vals[name])
				diffs = append(diffs, fmt.Sprintf("  %s: the reference's %s, yours %s", name, want, got))
			}
		}
		if len(diffs) > 0 {
			if why != "" {
				diffs = append(diffs, "  yours panicked with: "+strings.SplitN(why, "\n", 2)[0])
			}
			return fmt.Sprintf("after operation %d, %s:\n%s", i+1, kitOpName(op), strings.Join(diffs, "\n"))
		}
		if strings.HasPrefix(want, "panicked") {
			return "" // both panicked alike: the state is broken past this point
		}
	}
	return ""
}

// kitCall runs f and returns its result, or "panicked" and the panic's
// message: where the reference panics (a runq overflow), the learner's
// code must panic too, with any message.
func kitCall(f func() string) (s, panicked string) {
	defer func() {
		if r := recover(); r != nil {
			s, panicked = "panicked", fmt.Sprint(r)
		}
	}()
	return f(), ""
}

// kitOpName names an operation for a learner.
func kitOpName(op kitOp) string {
	switch op.Kind {
	case "runqputtail":
		return fmt.Sprintf("runqputtail(P%d, a new G)", op.P)
	case "runqputbatch":
		return fmt.Sprintf("runqputbatch(P%d, a queue of %d new Gs)", op.P, op.K)
	case "runqgethead", "runqdrain", "runqget", "runqempty", "runqgrabnext":
		return fmt.Sprintf("%s(P%d)", op.Kind, op.P)
	case "runqgrab":
		return fmt.Sprintf("runqgrab(P%d, a fresh batch ring, batchHead=%d, stealRunNextG=%v)", op.P, op.At, op.Flag)
	case "runqsteal":
		return fmt.Sprintf("runqsteal(P%d, P%d, stealRunNextG=%v) (P%d steals from P%d)", op.P, op.Q, op.Flag, op.P, op.Q)
	case "runqput":
		return fmt.Sprintf("runqput(P%d, a new G, next=%v)", op.P, op.Flag)
	case "globrunqgetbatch":
		return fmt.Sprintf("globrunqgetbatch(%d) with sched.lock held", op.K)
	case "procresize":
		return fmt.Sprintf("procresize(sched, %d) with the world stopped and sched.lock held", op.K)
	case "globrunqputbatch":
		return fmt.Sprintf("globrunqputbatch(a queue of %d new Gs) with sched.lock held", op.K)
	case "spinner":
		return "another M starts spinning (sched.nmspinning + 1)"
	case "gopark":
		unlockf := [...]string{"a nil unlockf", "an unlockf that returns true", "an unlockf that returns false (the park is declined)"}[op.K]
		if op.Flag {
			return fmt.Sprintf("gopark by the G on P%d's M, which is _Grunnable, not running, with %s", op.P, unlockf)
		}
		return fmt.Sprintf("gopark(the G running on P%d's M (a new one if none), %s, a lock, wait reason %q), then the M runs its mcall handler", op.P, unlockf, waitReason(op.At))
	case "goready", "ready":
		which := [...]string{"a G waiting since before the test", "the last G parked (if still waiting)", "a G that is _Grunnable, not waiting"}[op.K]
		if op.Kind == "goready" {
			return fmt.Sprintf("goready(P%d's M, %s)", op.P, which)
		}
		return fmt.Sprintf("ready(P%d's M, %s, next=%v)", op.P, which, op.Flag)
	case "findRunnable":
		return "findRunnable(the M holding P0), then, if it returned a G, resetspinning if the M spins, and the G starts (schedtick + 1 unless it inherits the time slice)"
	case "trace":
		return "the trace is on (sched.trace set)"
	case "schedtick":
		return fmt.Sprintf("P0's schedtick = %d", op.At)
	case "spinning":
		return "this M is already spinning (mp.spinning, counted in nmspinning)"
	case "needspinning":
		return "sched.needspinning = 1 (a wakep found no idle P)"
	case "stalehint":
		if op.K == 0 {
			return "the global queue's emptiness hint is stale: sizeHint = 0 with Gs on the queue (another M's push, as a reader without sched.lock may see it)"
		}
		return fmt.Sprintf("the global queue's emptiness hint is stale: sizeHint = %d with the queue empty", op.K)
	case "sleeper":
		if op.Flag {
			return fmt.Sprintf("a new G sleeps on a timer already due (%dns ago)", op.At)
		}
		if op.At == 0 {
			return "a new G sleeps on a timer due now"
		}
		return fmt.Sprintf("a new G sleeps on a timer due in %dh", op.At)
	case "pollwait":
		return fmt.Sprintf("another M already waits for timers (sched.lastpoll = 0) until %s", [...]string{"a deadline not set yet (sched.pollUntil = 0)", "T+30m", "T+1h", "T+3h"}[op.At%4])
	case "retaken":
		return fmt.Sprintf("if P%d is idle: sysmon retook it from a system call and G %d is on its ring (_Pidle, off the idle list, not in idlepMask: handoffp is starting an M for it)", op.Q, 8800+op.Q)
	case "gcwaiting":
		return "stop-the-world is pending (sched.gcwaiting set, sched.stopwait = 1: P0 is the last P to stop)"
	case "backoff":
		what := fmt.Sprintf("%d new Gs (G 8700...) land on the global queue", op.K)
		if op.Flag {
			what += " and G 8600 on the ring of the first running P but P0"
		}
		return "while the thief backs off (Usleep) before a running P's runnext: every running P's M takes its runnext to run itself; " + what
	}
	return op.Kind + " with sched.lock held"
}

// kitDiff runs the differential test on n generated states, then on
// kitWideStates(n) more widened (kitWiden): gen makes a state and its
// operations from a seeded source. A failing state is shrunk and reported
// in words, with the seed that made it.
func kitDiff(t *testing.T, lesson string, n int, gen func(r *rand.Rand) (kitState, []kitOp),
	do func(w *kitWorld, op kitOp, ref bool) string, unordered func(st kitState, op kitOp) bool) {
	t.Helper()
	defer kitQuiet()()
	pools := &[2]map[int64]*g{{}, {}}
	wide, high := kitWideStates(n), 0 // high: kitHighStates(n) once the first state says HighIDs
	for seed := uint64(1); seed <= uint64(n+wide+high); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x6b617461))
		st, ops := gen(r)
		if seed == 1 && st.HighIDs {
			high = kitHighStates(n)
		}
		switch {
		case seed > uint64(n+wide):
			kitHigh(r, &st, ops)
		case seed > uint64(n):
			kitWiden(r, &st, ops, int(seed)-n-1)
		}
		if kitDiffRun(st, ops, do, unordered, pools) == "" {
			continue
		}
		shrunk := "not shrunk: " + kitFailFastWhy
		if !kitFailFast() {
			st, ops = kitShrink(st, ops, func(st kitState, ops []kitOp) bool { return kitDiffRun(st, ops, do, unordered, pools) != "" })
			shrunk = "shrunk"
		}
		names := make([]string, len(ops))
		for i, op := range ops {
			names[i] = kitOpName(op)
		}
		t.Fatalf("your functions and the reference's disagree (state %d, %s):\nstate: %s\noperations: %s\n%s\n"+
			"(what this test compares, some of it newly part of the contract, is under \"What the tests check\" in: kata task %s)%s",
			seed, shrunk, st, strings.Join(names, "; "), kitDiffRun(st, ops, do, unordered, pools), lesson[:2], kitHint(lesson))
	}
}

// kitWideStates is how many widened states a differential of n states
// runs after them (kitWiden).
func kitWideStates(n int) int { return max(4, n/20) }

// kitWiden makes a generated state and its operations one of a big machine
// and a long-lived program: the i-th widened state of a test. The states a
// lesson's generator makes stop at a few Ps and a few thousand Gs: a
// thirty-third red team's files took their mistakes only past 64 Ps
// (lessons 04, 05, 08) or 6,000 Gs on the global queue (lesson 03), which
// no state reached. Where the reference is the oracle, a state anywhere in
// the scheduler's range is as good a question as a small one, so the
// widened states reach its corner and draw below it:
//   - every fourth (the first included): maxProcs Ps, the state's own and
//     idle ones after them, a resize (procresize) to as many, and 2^15 Gs
//     on a global queue that has some;
//   - the others: a log-uniform number of Ps up to maxProcs, a resize to
//     as many, and, in every second of them, a log-uniform number of Gs up
//     to 2^15 on a global queue that has some.
//
// A mistake a file takes only beyond maxProcs Ps cannot be taken; one it
// takes only beyond 2^15 Gs on the global queue is not looked for. The
// corner is every fourth state, not every one: a world of maxProcs Ps
// costs some hundred small ones to build and compare under the race
// detector, and the course's own runs grade every hidden test many times.
func kitWiden(r *rand.Rand, st *kitState, ops []kitOp, i int) {
	corner := i%4 == 0
	procs := func() int {
		if corner {
			return maxProcs
		}
		return kitLogUniform(r, len(st.Ps)+1, maxProcs)
	}
	st.Idle = procs() - len(st.Ps)
	for k := range ops {
		if ops[k].Kind == "procresize" {
			ops[k].K = procs()
		}
	}
	if n := len(st.Global); n > 0 && i%2 == 0 {
		long := 1 << 15
		if !corner {
			long = kitLogUniform(r, n+1, long)
		}
		for k := range long - n {
			st.Global = append(st.Global, kitWideG+int64(k))
		}
	}
}

// kitHighStates is how many states a differential of n states runs after
// the widened ones where its operations name Ps only by number
// (kitState.HighIDs): kitHigh's.
func kitHighStates(n int) int { return n / 5 }

// kitHigh numbers a generated state's Ps high: 64 to 255 idle Ps before
// them (Base), and up to 3 after; the operations name them so. A
// thirty-fourth red team's steal went wrong only between a thief and a
// victim both numbered 64 or more, where the widened states (kitWiden),
// whose own Ps come first, never put them; one in five states more, of a
// few hundred Ps each, asks there.
func kitHigh(r *rand.Rand, st *kitState, ops []kitOp) {
	st.Base, st.Idle = 64+r.IntN(192), r.IntN(4)
	for k := range ops {
		if ops[k].P >= len(st.Ps) || ops[k].Q >= len(st.Ps) {
			panic(fmt.Sprintf("kitHigh: operation %s names a P the state does not describe: HighIDs is for a lesson whose operations name only the state's own Ps", ops[k].Kind))
		}
		ops[k].P += st.Base
		ops[k].Q += st.Base
	}
}

// kitWideG names the first of the Gs kitWiden adds to a global queue.
const kitWideG = 2_000_000

// kitLogUniform draws from lo..hi, log-uniformly.
func kitLogUniform(r *rand.Rand, lo, hi int) int {
	if lo >= hi {
		return hi
	}
	f := r.Float64()
	return min(hi, int(math.Exp(math.Log(float64(lo))+f*(math.Log(float64(hi)+1)-math.Log(float64(lo))))))
}

// kitDiffLoop is kitDiff for a lesson whose state is its own (S, not
// kitState; widened where S has a method widened(r, ops, i) S): run says where the learner's and the reference's runs of a
// state differ ("" if nowhere) and whether the learner's hung; shrink makes
// a failing state smaller; name names an operation. A state whose run hung
// is reported as it is: shrinking would wait for the hang again and again.
func kitDiffLoop[S fmt.Stringer](t *testing.T, lesson, file, clock string, n int, gen func(r *rand.Rand) (S, []kitOp),
	run func(S, []kitOp, *[2]map[int64]*g) (string, bool), shrink func(S, []kitOp, func(S, []kitOp) bool) (S, []kitOp), name func(kitOp, S) string) {
	t.Helper()
	pools := &[2]map[int64]*g{{}, {}}
	hung := false
	fails := func(st S, ops []kitOp) bool {
		diff, h := run(st, ops, pools)
		hung = hung || h
		return diff != "" && !hung
	}
	for seed := uint64(1); seed <= uint64(n+kitWideStates(n)); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x6b617461))
		st, ops := gen(r)
		if seed > uint64(n) {
			// Widened states (kitWiden), where the lesson's state has them.
			wide, ok := any(st).(interface {
				widened(*rand.Rand, []kitOp, int) S
			})
			if !ok {
				break
			}
			st = wide.widened(r, ops, int(seed)-n-1)
		}
		diff, h := run(st, ops, pools)
		if diff == "" {
			continue
		}
		shrunk := "shrunk"
		switch hung = h; {
		case hung:
			shrunk = "not shrunk: an operation of yours hung"
		case kitFailFast():
			shrunk = "not shrunk: " + kitFailFastWhy
		default:
			st, ops = shrink(st, ops, fails)
			diff, _ = run(st, ops, pools)
		}
		names := make([]string, len(ops))
		for i, op := range ops {
			names[i] = name(op, st)
		}
		t.Fatalf("your %s and the reference's disagree (state %d, %s%s):\nstate: %s\noperations: %s\n%s\n"+
			"(what this test compares is under \"What the tests check\" in: kata task %s)%s",
			file, seed, shrunk, clock, st, strings.Join(names, "; "), diff, lesson[:2], kitHint(lesson))
	}
}

// kitRuns prints a list as "%v" does, or, past 64 items (sysmon runs up
// to l07LongRounds rounds, preempting a G in each), as kitRunsOf does.
func kitRuns[T comparable](xs []T) string {
	if len(xs) <= 64 {
		return fmt.Sprint(xs)
	}
	return "[" + kitRunsOf(xs, func(x T) string { return fmt.Sprint(x) }) + "]"
}

// kitRunsOf prints each run of equal items once, with its length: "20 ×51
// 40 80 … 10000 ×900", so that a failure shows where two long sequences
// part.
func kitRunsOf[T comparable](xs []T, str func(T) string) string {
	var b strings.Builder
	for i := 0; i < len(xs); {
		j := i
		for j < len(xs) && xs[j] == xs[i] {
			j++
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(str(xs[i]))
		if j-i > 1 {
			fmt.Fprintf(&b, " ×%d", j-i)
		}
		i = j
	}
	return b.String()
}

// kitFailFast reports whether the run stops at its first failure
// (-test.failfast). kata runs tests so only where it asks whether a test
// fails, not what it says: a mutant of the self-check, or blame's run of a
// failing test with one function swapped for the reference's. A learner's
// check never does; there a failing state is shrunk before it is shown.
func kitFailFast() bool {
	f := flag.Lookup("test.failfast")
	return f != nil && f.Value.String() == "true"
}

// kitFailFastWhy says in a failure's message why its state was not shrunk.
const kitFailFastWhy = "the run stops at its first failure"

// kitEvents lists events with every field (Event.String leaves out the
// Arg of most kinds).
func kitEvents(evs []Event) string {
	str := func(ev Event) string {
		return fmt.Sprintf("{%s G=%d P=%d M=%d Arg=%d N=%d}", ev.Kind, ev.G, ev.P, ev.M, ev.Arg, ev.N)
	}
	if len(evs) > 64 {
		return kitRunsOf(evs, str)
	}
	items := make([]string, len(evs))
	for i, ev := range evs {
		items[i] = str(ev)
	}
	return strings.Join(items, " ")
}

// kitShrink makes a failing state and its operations smaller while fails
// still holds: fewer operations, fewer Ps, fewer Gs on each ring and on
// the global queue, no runnext, an idle P, smaller counters, smaller
// batches. It tries each change in turn and keeps those that still fail,
// until none does (or it has tried enough).
func kitShrink(st kitState, ops []kitOp, fails func(kitState, []kitOp) bool) (kitState, []kitOp) {
	deadline := time.Now().Add(kitShrinkTime)
	for tries := 0; tries < 2000 && time.Now().Before(deadline); {
		progress := false
		for _, c := range kitShrinkSteps(st, ops) {
			tries++
			if fails(c.st, c.ops) {
				st, ops, progress = c.st, c.ops, true
				break
			}
		}
		if !progress {
			break
		}
	}
	return st, ops
}

// kitShrinkTime bounds a shrinking: the failure is found already, and a
// widened state's worlds (kitWiden) take milliseconds each to build, many
// more under the race detector; what is shown is as small as it got.
const kitShrinkTime = 3 * time.Second

type kitCandidate struct {
	st  kitState
	ops []kitOp
}

// kitShrinkSteps lists the one-step smaller versions of a state.
func kitShrinkSteps(st kitState, ops []kitOp) []kitCandidate {
	var out []kitCandidate
	clone := func() kitState {
		c := st
		c.Ps = slices.Clone(st.Ps)
		for i := range c.Ps {
			c.Ps[i].Ring = slices.Clone(st.Ps[i].Ring)
		}
		c.Global = slices.Clone(st.Global)
		return c
	}
	// First the steps that make the world smaller, fewer Ps and Gs to
	// build: a widened state (kitWiden) costs a thousand small ones.
	var big []kitCandidate
	for _, idle := range kitFewer(st.Idle) {
		c := clone()
		c.Idle = idle
		big = append(big, kitCandidate{c, ops})
	}
	for _, n := range kitFewer(len(st.Global)) {
		c := clone()
		c.Global = c.Global[:n]
		big = append(big, kitCandidate{c, ops})
	}
	for _, n := range kitFewer(st.Dead) {
		c := clone()
		c.Dead = n
		big = append(big, kitCandidate{c, ops})
	}
	for i := range ops {
		if len(ops) > 1 {
			out = append(out, kitCandidate{st, slices.Delete(slices.Clone(ops), i, i+1)})
		}
		if ops[i].At != 0 {
			c := slices.Clone(ops)
			c[i].At = 0
			out = append(out, kitCandidate{st, c})
		}
		if k := ops[i].K; k > 0 {
			for _, smaller := range []int{0, k / 2, k - 1} {
				if smaller < k && smaller >= ops[i].MinK {
					c := slices.Clone(ops)
					c[i].K = smaller
					out = append(out, kitCandidate{st, c})
				}
			}
		}
	}
	if len(st.Ps) > max(st.MinProcs, 1) {
		c := clone()
		c.Ps = c.Ps[:len(c.Ps)-1]
		out = append(out, kitCandidate{c, ops})
	}
	for i, ps := range st.Ps {
		if n := len(ps.Ring); n > 0 {
			for _, keep := range [][2]int{{0, n / 2}, {n / 2, n}, {0, n - 1}, {1, n}} {
				c := clone()
				c.Ps[i].Ring = c.Ps[i].Ring[keep[0]:keep[1]]
				out = append(out, kitCandidate{c, ops})
			}
		}
		if ps.Next != 0 {
			c := clone()
			c.Ps[i].Next = 0
			out = append(out, kitCandidate{c, ops})
		}
		if ps.Running || ps.Syscall {
			c := clone()
			c.Ps[i].Running, c.Ps[i].Syscall = false, false
			out = append(out, kitCandidate{c, ops})
		}
		for _, h := range []uint32{0, ps.Head / 2, ps.Head - ps.Head%256} {
			if h < ps.Head {
				c := clone()
				c.Ps[i].Head = h
				out = append(out, kitCandidate{c, ops})
			}
		}
	}
	return append(big, out...)
}

// kitFewer lists the smaller counts to try instead of n, from 0 up: 0,
// n/2, n-n/4, n-n/8... n-1, so that a count the failure needs above some
// threshold (a widened state's thousands of Gs) is found in a few steps
// each, not one step down at a time.
func kitFewer(n int) []int {
	var out []int
	for cut := n; cut > 0; cut /= 2 {
		if k := n - cut; len(out) == 0 || k > out[len(out)-1] {
			out = append(out, k)
		}
	}
	if n > 0 && out[len(out)-1] != n-1 {
		out = append(out, n-1)
	}
	return out
}

// kitGenP makes a P's state for a generated test: an empty, partly full,
// full or nearly full ring, its counters anywhere (near the uint32
// wrap-around, a quarter of the time), runnext set a third of the time.
func kitGenP(r *rand.Rand, p int) kitPState {
	ps := kitPState{Running: r.IntN(2) == 0}
	ps.Syscall = !ps.Running && r.IntN(4) == 0
	switch r.IntN(4) {
	case 0:
		ps.Head = uint32(r.IntN(1000))
	case 1:
		ps.Head = ^uint32(0) - uint32(r.IntN(64)) // the ring straddles the wrap-around
	default:
		ps.Head = r.Uint32()
	}
	var n int
	switch r.IntN(6) {
	case 0:
		n = 0
	case 1:
		n = 256
	case 2:
		n = 255 + r.IntN(2)
	case 3:
		n = 1 + r.IntN(3)
	default:
		n = r.IntN(257)
	}
	for i := range n {
		ps.Ring = append(ps.Ring, int64(p+1)*1000+int64(i))
	}
	if r.IntN(3) == 0 {
		ps.Next = int64(p+1)*1000 + 999
	}
	return ps
}

// kitGenGlobal makes the global queue of a generated test: empty a third
// of the time, else up to most Gs.
func kitGenGlobal(r *rand.Rand, most int) []int64 {
	var gs []int64
	if r.IntN(3) > 0 {
		for i := range 1 + r.IntN(most) {
			gs = append(gs, 9000+int64(i))
		}
	}
	return gs
}
