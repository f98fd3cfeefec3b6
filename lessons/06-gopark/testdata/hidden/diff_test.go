package sched

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"
)

// TestL06Differential: the reference is the oracle. On generated states
// (1 to 4 Ps, P0 held by an M running a G, the others idle, running or in
// a system call, rings empty, short or full, runnext set or not, another M
// spinning or not, the trace on or off, Config.RandomizeScheduler and
// NoSysmon sometimes), a few parks and readies run as the learner wrote
// gopark, park_m, goready and ready and as the reference does (ref_gopark,
// ...) on identical copies, and everything observable must agree: what
// park_m hands back to execute, every G's status, wait reason and M, each
// M's current G and gopark's arguments left on it, what each unlockf saw
// when it ran (who called it, the G's status, its M, sched.lock), every
// queue in order, the idle P list, nmspinning and needspinning, the idle
// Ms woken (with which P, spinning or not) and the trace, event by event.
//
// The G's coroutine is played by the test: its mcall hands control to the
// M, which runs the handler at once (as execute does after gogo returns)
// and then lets the G go on. Idle Ms wait on the idle M list, one per P, so
// that a wakep hands its P to one of them instead of starting a real M.
func TestL06Differential(t *testing.T) {
	sides := map[*kitWorld]*l06Side{}
	gen := func(r *rand.Rand) (kitState, []kitOp) {
		st, ops := l06GenDiff(r)
		st.Observe = func(w *kitWorld, o *kitObs) { l06Observe(sides, w, o) }
		return st, ops
	}
	do := func(w *kitWorld, op kitOp, ref bool) string { return l06DoDiff(sides, w, op, ref) }
	kitDiff(t, l06, 80, gen, do, func(kitState, kitOp) bool { return false })
}

// l06Side is what the test keeps of one world beyond the scheduler: its
// Ms, the Gs the operations made, and what the unlockfs saw.
type l06Side struct {
	ms    []*m // the running Ps' Ms, then the idle ones
	gs    []*g // the Gs the operations parked or readied, in order
	calls []string
	phase string // who runs now: the G, or the M on its behalf
	next  int64  // the next G an operation starts running: 7000, 7001...
	// nilUnlockf: the M's last gopark had a nil unlockf. Whether park_m
	// then clears mp.waitlock too is free.
	nilUnlockf map[*m]bool
	// unparks says, for each EvGoUnpark, where its G was when it was
	// emitted; early, what a ready did before its G was queued.
	unparks []string
	early   []string
	op      string // the operation running
}

// l06Locks are the locks gopark is handed: lock i is &l06Locks[i].
var l06Locks [8]int64

func l06LockName(p unsafe.Pointer) string {
	if p == nil {
		return "nil"
	}
	for i := range l06Locks {
		if p == unsafe.Pointer(&l06Locks[i]) {
			return fmt.Sprintf("lock %d", i)
		}
	}
	return "a pointer that is not the lock gopark was given"
}

// l06GenDiff makes a state of one to four Ps, P0 held by an M running a G
// (kitRunningP), and one to four operations on P0.
func l06GenDiff(r *rand.Rand) (kitState, []kitOp) {
	st := kitState{Seed: r.Uint64(), Trace: r.IntN(3) > 0, Debug: r.IntN(2) == 0, Global: kitGenGlobal(r, 5), MinProcs: 1, HighIDs: true}
	st.Randomize = r.IntN(6) == 0
	st.NoSysmon = r.IntN(8) == 0
	for i := range 1 + r.IntN(4) {
		ps := kitGenP(r, i)
		if r.IntN(2) == 0 && len(ps.Ring) > 3 {
			ps.Ring = ps.Ring[:r.IntN(4)]
		}
		st.Ps = append(st.Ps, ps)
	}
	st.Ps[0].Running, st.Ps[0].Syscall = true, false
	var ops []kitOp
	if r.IntN(4) == 0 {
		ops = append(ops, kitOp{Kind: "spinner"})
	}
	for range 1 + r.IntN(4) {
		switch r.IntN(5) {
		case 0, 1:
			// K: the unlockf (0 nil, 1 returns true, 2 returns false);
			// At: the wait reason; Flag: the G is not _Grunning.
			ops = append(ops, kitOp{Kind: "gopark", K: r.IntN(3), At: uint32(1 + r.IntN(6)), Flag: r.IntN(10) == 0})
		case 2:
			ops = append(ops, kitOp{Kind: "goready", K: l06Which(r)})
		default:
			ops = append(ops, kitOp{Kind: "ready", K: l06Which(r), Flag: r.IntN(2) == 0})
		}
	}
	return st, ops
}

// l06Which picks the G a ready readies: 0 a G waiting since before the
// test, 1 the last G parked (if it is still waiting), 2 a G that is not
// waiting.
func l06Which(r *rand.Rand) int {
	switch r.IntN(8) {
	case 0:
		return 2
	case 1, 2, 3:
		return 1
	}
	return 0
}

// l06SideOf returns w's side, made at the first operation: the Ms of the
// running Ps, and idle Ms (M 300, 301, ...) on the idle M list, one per
// P.
func l06SideOf(sides map[*kitWorld]*l06Side, w *kitWorld) *l06Side {
	if s := sides[w]; s != nil {
		return s
	}
	s := &l06Side{phase: "the test", next: 7000, nilUnlockf: map[*m]bool{}}
	sides[w] = s
	sched := w.sched
	if !w.trace {
		sched.trace = nil // the kit records the trace always; off here, as with no Config.Trace
	}
	if trace := sched.trace; trace != nil {
		sched.trace = func(ev Event) {
			gp := w.byID(ev.G)
			switch {
			case gp == nil:
			case ev.Kind == EvGoPark:
				// "Before anything else": still running, on its M.
				s.unparks = append(s.unparks, fmt.Sprintf("GoPark: G %d was %s, gp.m %s", kitPlace(gp), gStatusString(readgstatus(gp)), l06MName(gp.m)))
			case ev.Kind == EvGoUnpark && s.op == "gopark":
				// A declined park: whether the G is already _Grunnable is free.
				s.unparks = append(s.unparks, fmt.Sprintf("GoUnpark: G %d was %s", kitPlace(gp), l06Where(sched, gp)))
			case ev.Kind == EvGoUnpark:
				s.unparks = append(s.unparks, fmt.Sprintf("GoUnpark: G %d was %s and %s", kitPlace(gp), gStatusString(readgstatus(gp)), l06Where(sched, gp)))
			}
			trace(ev)
		}
	}
	for _, pp := range sched.allp {
		if mp := pp.m.Load(); mp != nil {
			s.ms = append(s.ms, mp)
		}
	}
	sched.lock.Lock()
	for range sched.allp {
		mp := &m{sched: sched, id: sched.mReserveID()}
		mp.park.init()
		sched.mput(mp)
		s.ms = append(s.ms, mp)
	}
	sched.lock.Unlock()
	return s
}

// l06DoDiff runs op with the learner's functions, or the reference's.
func l06DoDiff(sides map[*kitWorld]*l06Side, w *kitWorld, op kitOp, ref bool) string {
	s := l06SideOf(sides, w)
	sched := w.sched
	mp := sched.allp[op.P].m.Load()
	if mp == nil {
		panic("l06DoDiff: P" + fmt.Sprint(op.P) + " has no M")
	}
	s.op = op.Kind
	switch op.Kind {
	case "spinner":
		sched.nmspinning.Add(1) // another M, not one of this test's, spins
		return "nothing"
	case "gopark":
		return l06Park(s, w, mp, op, ref)
	case "goready", "ready":
		gp := l06ReadyWhich(s, w, op.K)
		s.gs = append(s.gs, gp)
		defer setInterleaveHook(setInterleaveHook(l06Early(s, sched, gp)))
		switch {
		case op.Kind == "goready" && ref:
			ref_goready(mp, gp)
		case op.Kind == "goready":
			goready(mp, gp)
		case ref:
			ref_ready(mp, gp, op.Flag)
		default:
			ready(mp, gp, op.Flag)
		}
		return "nothing (a function with no result)"
	}
	panic("l06DoDiff: unknown operation " + op.Kind)
}

// l06ReadyWhich returns the G a ready readies (see l06Which).
func l06ReadyWhich(s *l06Side, w *kitWorld, which int) *g {
	if which == 1 {
		for i := len(s.gs) - 1; i >= 0; i-- {
			if readgstatus(s.gs[i]) == _Gwaiting {
				return s.gs[i]
			}
		}
	}
	gp := w.newG()
	if which != 2 {
		gp.atomicstatus.Store(_Gwaiting)
		gp.waitreason = waitReasonChanReceive
	}
	return gp
}

// l06Park has the G mp runs (a new one, G 7000..., if mp runs none) call
// gopark. The test plays its coroutine: mcall's yield runs the handler on
// the M at once, as execute does when gogo returns, then returns to the
// G.
func l06Park(s *l06Side, w *kitWorld, mp *m, op kitOp, ref bool) string {
	gp := mp.curg.Load()
	if gp == nil {
		gp = w.g(s.next)
		s.next++
		gp.atomicstatus.Store(_Grunning)
		gp.m = mp
		mp.curg.Store(gp)
	}
	if op.Flag {
		gp.atomicstatus.Store(_Grunnable) // gopark by a G that is not running
	}
	s.gs = append(s.gs, gp)
	lock := unsafe.Pointer(&l06Locks[len(s.calls)%len(l06Locks)])
	n := len(s.calls)
	var unlockf func(*g, unsafe.Pointer) bool
	s.nilUnlockf[mp] = op.K == 0
	if op.K > 0 {
		s.calls = append(s.calls, fmt.Sprintf("unlockf #%d was never called", n+1))
		unlockf = func(pg *g, l unsafe.Pointer) bool {
			locked := "free"
			if !w.sched.lock.TryLock() {
				locked = "held"
			} else {
				w.sched.lock.Unlock()
			}
			s.calls[n] = fmt.Sprintf("unlockf #%d ran %s, given %s and %s; the G was %s (wait reason %q), gp.m %s, the M's curg %s, sched.lock %s",
				n+1, s.phase, kitGName(pg), l06LockName(l), gStatusString(readgstatus(gp)), gp.waitreason, l06MName(gp.m), kitGName(mp.curg.Load()), locked)
			return op.K == 1
		}
	}
	var handed string
	// The G's coroutine, played by the test: its yield is the G's mcall
	// reaching the M, which runs the handler at once.
	gp.coro = &coro{gp: gp}
	gp.coro.resume = func() (struct{}, bool) {
		panic("the M resumed the G itself (gogo, execute) inside its mcall handler: park_m returns the G to run, and execute runs it")
	}
	gp.coro.yield = func(struct{}) bool {
		s.phase = "on the M, in the handler the G's mcall asked for"
		fn := mp.mcallfn
		mp.mcallfn = nil
		if fn == nil {
			handed = "the G yielded to the M without a handler (mcall sets mp.mcallfn)"
		} else {
			next, inherit := fn(mp, gp)
			handed = fmt.Sprintf("the handler returned %s, inheritTime=%v", kitGName(next), inherit)
		}
		s.phase = "on the G, after its mcall returned"
		return true
	}
	s.phase = "on the G, inside gopark before its mcall"
	if ref {
		ref_gopark(gp, unlockf, lock, waitReason(op.At))
	} else {
		gopark(gp, unlockf, lock, waitReason(op.At))
	}
	s.phase = "the test"
	if handed == "" {
		return "gopark returned without handing the G to the M (no mcall)"
	}
	return "gopark returned; " + handed
}

func l06MName(mp *m) string {
	if mp == nil {
		return "nil"
	}
	return fmt.Sprintf("M %d", mp.id)
}

// l06Observe adds what parking and readying change beyond the queues.
func l06Observe(sides map[*kitWorld]*l06Side, w *kitWorld, o *kitObs) {
	s := l06SideOf(sides, w)
	sched := w.sched
	o.addf("needspinning", "%d", sched.needspinning.Load())
	for _, mp := range s.ms {
		idle := "not on the idle M list"
		for x := sched.midle; x != nil; x = x.schedlink {
			if x == mp {
				idle = "on the idle M list"
			}
		}
		woken := "not woken"
		if len(mp.park.c) > 0 {
			woken = "woken"
		}
		handed := "no P handed to it"
		if mp.nextp != nil {
			handed = fmt.Sprintf("handed P%d (nextp)", mp.nextp.id)
		}
		waitlock := l06LockName(mp.waitlock)
		if s.nilUnlockf[mp] {
			waitlock = "free (the last unlockf was nil)"
		}
		o.addf(fmt.Sprintf("M %d", mp.id), "curg %s, %s, %s, %s, spinning=%v; gopark's arguments left on it: waitunlockf set=%v, waitlock %s",
			kitGName(mp.curg.Load()), idle, woken, handed, mp.spinning, mp.waitunlockf != nil, waitlock)
	}
	seen := map[*g]bool{}
	for _, gp := range s.gs {
		if seen[gp] {
			continue
		}
		seen[gp] = true
		o.addf(kitGName(gp), "%s, wait reason %q, gp.m %s", gStatusString(readgstatus(gp)), gp.waitreason, l06MName(gp.m))
	}
	o.addf("the unlockf calls", "%s", l06None(s.calls))
	o.addf("where each GoPark's and GoUnpark's G was when it was emitted", "%s", l06None(s.unparks))
	o.addf("Ms handed a P while the readied G was not yet queued", "%s", l06None(s.early))
}

func l06None(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, "; ")
}

// l06Where says where gp is queued: on a P's ring or runnext, on the
// global queue, or nowhere. It reads the queues with the scheduling
// points' hook off (see l06Early).
func l06Where(sched *schedt, gp *g) string {
	for _, pp := range sched.allp {
		if (*atomic.Pointer[g])(&pp.runnext).Load() == gp {
			return fmt.Sprintf("in P%d's runnext", pp.id)
		}
		h, t := (*atomic.Uint32)(&pp.runqhead).Load(), (*atomic.Uint32)(&pp.runqtail).Load()
		for i := h; i != t && i-h <= uint32(len(pp.runq)); i++ {
			if kitRawSlot(&pp.runq[i%uint32(len(pp.runq))]).Load() == gp {
				return fmt.Sprintf("on P%d's ring", pp.id)
			}
		}
	}
	for x := sched.runq.head; x != nil; x = x.schedlink {
		if x == gp {
			return "on the global queue"
		}
	}
	return "on no queue"
}

// l06Early returns a hook for the scheduling points of a ready of gp,
// made on the test's goroutine: at each of that goroutine's, if an idle M has been handed a P (startm, from wakep) while gp is
// on no queue yet, it records it: the M would look for gp and not find it.
func l06Early(s *l06Side, sched *schedt, gp *g) func() {
	busy, flagged := false, false
	var before []*m // the Ms not yet handed a P
	for _, mp := range s.ms {
		if mp.nextp == nil {
			before = append(before, mp)
		}
	}
	goid := kitGoid()
	return func() {
		if busy || flagged || kitGoid() != goid {
			return // a goroutine of another test's Runtime still closing
		}
		busy = true
		defer func() { busy = false }()
		for _, mp := range before {
			if mp.nextp != nil && l06Where(sched, gp) == "on no queue" {
				s.early = append(s.early, fmt.Sprintf("M %d was handed P%d while %s was on no queue", mp.id, mp.nextp.id, kitGName(gp)))
				flagged = true
				return
			}
		}
	}
}
