package sched

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestL04Differential: the reference is the oracle. On generated states
// (1 to 5 Ps: P0 held by the M under test, the others idle, running or in
// a system call, their rings empty, short, full or wrapped, runnext set or
// not; the global queue empty, short or long; and, set up one step at a
// time: schedtick a multiple of 61 or not, other Ms spinning, this M
// already spinning, needspinning, a stale emptiness hint (the queue empty
// and the hint not, or Gs queued and the hint still 0, as another M's
// push looks to a reader without the lock), Gs asleep on
// timers due or not, another M already waiting for timers, stop-the-world
// pending, the trace on, and work that arrives while the thief backs off
// before a runnext), findRunnable runs as the learner wrote it and as the
// reference does (ref_findRunnable, with its own stealWork and steal
// order) on identical copies, once or a few times in a row, and everything
// observable must agree: the G returned and inheritTime, every queue in
// order, every P's status and random source (the draws of the steal
// order), the idle P list and mask, nmspinning, needspinning, which P the
// M ends with and whether it spins or parked (stopm), the idle Ms handed a
// P, stop-the-world's count, the timers, sched.lastpoll and pollUntil, the
// clock, the back-offs and the trace (spin events aside: when the M stops
// spinning on its way to giving up is free).
//
// Nothing blocks: the M's note is woken before each call, so a stopm
// returns at once with no P (as when the Runtime closes, and findRunnable
// returns nil); and the clock moves on to the deadline the moment the M
// starts waiting for a timer (blockUntilTimer), so that the wait ends at
// once. Idle Ms wait on the idle M list, one per P, so that a wakep hands
// its P to one of them instead of starting a real M.
func TestL04Differential(t *testing.T) {
	sides := map[*kitWorld]*l04dSide{}
	made := 0
	gen := func(r *rand.Rand) (kitState, []kitOp) {
		made++
		// The widened states after them (kitWiden) are of every family.
		st, ops := l04dGen(r, made > l04dStates && made <= l04dStates+l04dLagStates)
		st.Observe = func(w *kitWorld, o *kitObs) { l04dObserve(sides, w, o) }
		return st, ops
	}
	do := func(w *kitWorld, op kitOp, ref bool) string { return l04dDo(sides, w, op, ref) }
	kitDiff(t, l04, l04dStates+l04dLagStates, gen, do, func(kitState, kitOp) bool { return false })
}

// The differential's states: l04dStates of the six families first (their
// seeds, and so the states, as they have always been), then l04dLagStates
// of the seventh, Gs queued behind an emptiness hint that still says 0.
const l04dStates, l04dLagStates = 200, 40

// l04dT0 is where the worlds' clocks start: about 18 minutes into a
// program, an odd number of nanoseconds, drawn for each test binary (a
// round one, 1<<40 as it was, is a time no Runtime's clock reads: a
// twenty-ninth red team's findRunnable kept the fairness tick only where
// lastpoll looked hand-made).
var l04dT0 = (int64(1)<<40 + rand.Int64N(1<<30)) | 1

// l04dSide is what the test keeps of one world beyond the scheduler.
type l04dSide struct {
	mp      *m   // the M under test, holding P0 to begin with
	idle    []*m // the idle Ms, M 300...
	now     int64
	claim   bool // lastpoll was not 0 when findRunnable started: this M may wait for timers
	waited  []int64
	trace   []string // the events but the spin events, in order
	spins   [2]int   // EvSpinStart, EvSpinStop
	rand0   []uint64 // each P's random source at the start
	sleeper []*g
	backoff *kitOp // what happens at the thief's first back-off, if anything
	sleeps  int
}

// l04dGen makes a state of one to five Ps, P0 held by the M under test,
// the steps that set up the rest, and one to three findRunnables. Each
// state leans towards one part of findRunnable (the local and global
// queues, stealing, giving up, timers, work arriving during a back-off),
// with the other steps thrown in at random. lag picks the seventh family:
// Gs queued behind a hint that still says empty, so that only the
// give-up's look under the lock sees them, often with needspinning
// pending and the M kept from spinning by the spinners already counted.
// The six others draw exactly what they drew before it was added.
func l04dGen(r *rand.Rand, lag bool) (kitState, []kitOp) {
	st := kitState{Seed: r.Uint64(), Debug: r.IntN(2) == 0, MinProcs: 1}
	family := r.IntN(6)
	if lag {
		family = 6
	}
	if r.IntN(2) == 0 || family == 0 || family == 6 {
		st.Global = kitGenGlobal(r, 300)
	}
	for i := range 1 + r.IntN(5) {
		ps := kitGenP(r, i)
		if r.IntN(2) == 0 && len(ps.Ring) > 3 {
			ps.Ring = ps.Ring[:r.IntN(4)]
		}
		if family == 4 && i > 0 && r.IntN(3) > 0 {
			ps.Running, ps.Syscall, ps.Ring, ps.Next = true, false, nil, int64(i+1)*1000+999 // only a runnext: the thief backs off
		}
		if !ps.Running && !ps.Syscall {
			ps.Ring, ps.Next = nil, 0 // idle Ps have empty queues
		}
		st.Ps = append(st.Ps, ps)
	}
	st.Ps[0].Running, st.Ps[0].Syscall = true, false
	if family != 0 || r.IntN(3) == 0 {
		st.Ps[0].Ring, st.Ps[0].Next = nil, 0 // P0 looks elsewhere
	}
	if family >= 2 && family != 6 && r.IntN(2) == 0 {
		st.Global = nil
	}
	var ops []kitOp
	add := func(p int, op kitOp) {
		if r.IntN(p) == 0 {
			ops = append(ops, op)
		}
	}
	often := func(fs ...int) int { // 1 in 2 in the families fs, else 1 in 6
		if slices.Contains(fs, family) {
			return 2
		}
		return 6
	}
	add(2, kitOp{Kind: "trace"})
	add(often(0), kitOp{Kind: "schedtick", At: uint32(61 * r.IntN(5))})
	add(often(2, 6), kitOp{Kind: "spinner"})
	add(often(2, 6), kitOp{Kind: "spinner"})
	if len(st.Ps[0].Ring) == 0 && st.Ps[0].Next == 0 {
		add(often(1), kitOp{Kind: "spinning"})
	}
	add(often(2, 6), kitOp{Kind: "needspinning"})
	if len(st.Global) == 0 {
		add(often(5), kitOp{Kind: "stalehint", K: 1 + r.IntN(3)})
	} else if family == 6 {
		ops = append(ops, kitOp{Kind: "stalehint", K: 0})
	}
	add(often(3), kitOp{Kind: "sleeper", Flag: r.IntN(3) == 0, At: uint32(1 + r.IntN(3))})
	add(often(3), kitOp{Kind: "sleeper", Flag: r.IntN(3) == 0, At: uint32(1 + r.IntN(3))})
	add(often(3), kitOp{Kind: "pollwait", At: uint32(r.IntN(4))})
	if len(st.Ps) > 1 {
		add(often(1), kitOp{Kind: "retaken", Q: 1 + r.IntN(len(st.Ps)-1)})
	}
	add(10, kitOp{Kind: "gcwaiting"})
	if family == 4 || r.IntN(6) == 0 {
		ops = append(ops, kitOp{Kind: "backoff", K: r.IntN(4) * 100, Flag: r.IntN(3) == 0})
	}
	for range 1 + r.IntN(3) {
		ops = append(ops, kitOp{Kind: "findRunnable"})
	}
	return st, ops
}

// l04dSideOf returns w's side, made at the first operation: P0's M
// becomes an M between two Gs (no current G), schedtick 1 (no fairness
// check), the clock the test's, no trace, and idle Ms wait on the idle M
// list.
func l04dSideOf(sides map[*kitWorld]*l04dSide, w *kitWorld) *l04dSide {
	if s := sides[w]; s != nil {
		return s
	}
	sched := w.sched
	s := &l04dSide{mp: sched.allp[0].m.Load(), now: l04dT0}
	sides[w] = s
	if s.mp != nil {
		s.mp.curg.Store(nil)
	}
	sched.allp[0].schedtick.Store(1)
	sched.cfg.nanotime = func() int64 {
		// blockUntilTimer asks the time just after it publishes its
		// deadline: the wait is over at once.
		if s.claim && sched.lastpoll.Load() == 0 {
			if until := sched.pollUntil.Load(); until != 0 && until > s.now {
				s.waited = append(s.waited, until)
				s.now = until
			}
		}
		return s.now
	}
	usleep := sched.cfg.usleep
	sched.cfg.usleep = func(us int64) {
		usleep(us)
		s.sleeps++
		if s.sleeps == 1 && s.backoff != nil {
			l04dBackoff(w, *s.backoff)
		}
	}
	sched.trace = nil
	sched.lastpoll.Store(l04dT0)
	for _, pp := range sched.allp {
		s.rand0 = append(s.rand0, pp.rand.state)
	}
	sched.lock.Lock()
	for range sched.allp {
		mp := &m{sched: sched, id: sched.mReserveID()}
		mp.park.init()
		sched.mput(mp)
		s.idle = append(s.idle, mp)
	}
	sched.lock.Unlock()
	return s
}

// l04dDo runs op: a step of the set-up (the same on both copies), or
// findRunnable, the learner's or the reference's.
func l04dDo(sides map[*kitWorld]*l04dSide, w *kitWorld, op kitOp, ref bool) string {
	s := l04dSideOf(sides, w)
	sched := w.sched
	mp := s.mp
	switch op.Kind {
	case "trace":
		sched.trace = func(ev Event) {
			switch ev.Kind {
			case EvSpinStart:
				s.spins[0]++
			case EvSpinStop:
				s.spins[1]++
			}
			if ev.Kind != EvSpinStart && ev.Kind != EvSpinStop {
				ev.When -= l04dT0
				s.trace = append(s.trace, fmt.Sprintf("{%s G %d P %d M %d Arg %d N %d at T+%d}", ev.Kind, w.nameOf(ev.G), ev.P, ev.M, ev.Arg, ev.N, ev.When))
			}
		}
	case "schedtick":
		sched.allp[0].schedtick.Store(op.At)
	case "spinner":
		sched.nmspinning.Add(1)
	case "spinning":
		if mp != nil {
			mp.spinning = true
			sched.nmspinning.Add(1)
		}
	case "needspinning":
		sched.needspinning.Store(1)
	case "stalehint":
		sched.runq.sizeHint.Store(int32(op.K))
	case "sleeper":
		gp := w.g(8500 + int64(len(s.sleeper)))
		gp.atomicstatus.Store(_Gwaiting)
		gp.waitreason = waitReasonSleep
		gp.timer.when, gp.timer.gp = s.now+int64(op.At)*int64(time.Hour), gp
		if op.Flag {
			gp.timer.when = s.now - int64(op.At)
		}
		sched.timersLock.Lock()
		heap.Push(&sched.timers, &gp.timer)
		sched.updateTimer0When()
		sched.timersLock.Unlock()
		s.sleeper = append(s.sleeper, gp)
	case "pollwait":
		sched.lastpoll.Store(0)
		sched.pollUntil.Store([]int64{0, s.now + int64(30*time.Minute), s.now + int64(time.Hour), s.now + int64(3*time.Hour)}[op.At%4])
	case "retaken":
		// sysmon retook P q from a system call and handoffp is starting
		// an M for its Gs: _Pidle, but on no idle list and not in
		// idlepMask.
		if op.Q < len(sched.allp) && sched.idlepMask.read(int32(op.Q)) {
			pp := kitTakeP(sched, int32(op.Q))
			runqputtail(pp, w.g(8800+int64(op.Q)))
		}
	case "gcwaiting":
		sched.lock.Lock()
		sched.gcwaiting.Store(true)
		sched.stopwait = 1 // P0 is the last P to stop
		sched.lock.Unlock()
	case "backoff":
		s.backoff = &op
	case "findRunnable":
		return l04dFind(s, w, ref)
	default:
		panic("l04dDo: unknown operation " + op.Kind)
	}
	return "nothing"
}

// l04dBackoff is what happens while the thief backs off before taking a
// running P's runnext: each running P's M takes its runnext itself; then
// op.K Gs (8700...) land on the global queue and, if op.Flag, G 8600 on
// the ring of the first running P but P0.
func l04dBackoff(w *kitWorld, op kitOp) {
	sched := w.sched
	for _, pp := range sched.allp[1:] {
		if pp.status.Load() == _Prunning {
			if gp := pp.runnext.Load(); gp != nil && pp.runnext.CompareAndSwap(gp, nil) {
				gp.atomicstatus.Store(_Grunning)
			}
		}
	}
	sched.lock.Lock()
	for i := range op.K {
		sched.runq.pushBack(w.g(8700 + int64(i)))
	}
	sched.lock.Unlock()
	if op.Flag {
		for _, pp := range sched.allp[1:] {
			if pp.status.Load() == _Prunning {
				runqputtail(pp, w.g(8600))
				break
			}
		}
	}
}

// l04dFind calls findRunnable on the M under test, if it still holds a
// P, as schedule does: the M's note is woken first, so that a stopm
// returns at once without a P; a G found runs, as execute would start it,
// after resetspinning if the M spins.
func l04dFind(s *l04dSide, w *kitWorld, ref bool) string {
	mp := s.mp
	if mp == nil {
		return "not called: no M holds P0"
	}
	if mp.p == nil {
		return "not called again: the M holds no P"
	}
	sched := w.sched
	s.claim = sched.lastpoll.Load() != 0
	notewakeup(&mp.park)
	var gp *g
	var inherit bool
	defer setInterleaveHook(setInterleaveHook(l04dGuard(kitGoid())))
	if ref {
		gp, inherit = ref_findRunnable(mp)
	} else {
		gp, inherit = findRunnable(mp)
	}
	parked := len(mp.park.c) == 0
	noteclear(&mp.park)
	if gp == nil {
		if parked {
			return "nil, having parked the M (stopm)"
		}
		return "nil, without parking the M"
	}
	res := fmt.Sprintf("%s, inheritTime=%v, with the M spinning=%v", kitGName(gp), inherit, mp.spinning)
	if parked {
		res += ", having parked the M (stopm) on the way"
	}
	if mp.p == nil {
		return res + ", holding no P"
	}
	if mp.spinning {
		resetspinning(mp)
	}
	if gp.atomicstatus.CompareAndSwap(_Grunnable, _Grunning) && !inherit {
		mp.p.schedtick.Add(1)
	}
	return res
}

// l04dGuard returns a hook for the scheduling points that ends a
// findRunnable that goes round for ever (the reference's makes a few
// thousand atomic operations at most here): it panics on the test's
// goroutine, goid, after a million.
func l04dGuard(goid uint64) func() {
	var n atomic.Int64
	return func() {
		if n.Add(1) > 1e6 && kitGoid() == goid {
			n.Store(0)
			panic("findRunnable made a million atomic operations without returning: it goes round for ever in this state (starting over where it should stop or park?)")
		}
	}
}

// l04dObserve adds what findRunnable changes beyond the queues.
func l04dObserve(sides map[*kitWorld]*l04dSide, w *kitWorld, o *kitObs) {
	s := l04dSideOf(sides, w)
	sched := w.sched
	mp := s.mp
	if mp == nil {
		mp = &m{} // no M held P0: nothing ran
	}
	where := "holds no P"
	if mp.p != nil {
		where = fmt.Sprintf("holds P%d", mp.p.id)
	}
	listed := map[*m]bool{}
	for y := sched.midle; y != nil && len(listed) <= len(s.idle)+1; y = y.schedlink {
		listed[y] = true
	}
	onIdle := func(x *m) string {
		if listed[x] {
			return "on the idle M list"
		}
		return "not on the idle M list"
	}
	o.addf("the M under test", "%s, spinning=%v, %s", where, mp.spinning, onIdle(mp))
	var waiting []string // on the list, no P handed: told together
	for _, x := range s.idle {
		if listed[x] && x.nextp == nil {
			waiting = append(waiting, strconv.FormatInt(x.id, 10))
			continue
		}
		handed := "no P handed to it"
		if x.nextp != nil {
			handed = fmt.Sprintf("handed P%d (nextp), spinning=%v", x.nextp.id, x.spinning)
		}
		o.addf(fmt.Sprintf("idle M %d", x.id), "%s, %s", onIdle(x), handed)
	}
	o.addf("the idle Ms still waiting (on the idle M list, no P handed)", "%s", strings.Join(waiting, " "))
	var draws []string
	for i, pp := range w.ps {
		if i < len(s.rand0) && !(w.pristine(pp) && pp.rand.state == s.rand0[i]) {
			draws = append(draws, fmt.Sprintf("P%d %d", i, l04sDraws(s.rand0[i], pp.rand.state)))
		}
	}
	o.addf("draws of each P's pp.rand.uint32() (one per steal pass)", "%s", strings.Join(draws, ", "))
	var mask []uint32
	for i := range sched.idlepMask {
		mask = append(mask, sched.idlepMask[i].Load())
	}
	o.addf("idlepMask", "%#x", mask)
	o.addf("needspinning", "%d", sched.needspinning.Load())
	stopnote := "not woken"
	if len(sched.stopnote.c) > 0 {
		stopnote = "woken"
	}
	o.addf("stop-the-world", "gcwaiting=%v, stopwait=%d, the stopper's note %s", sched.gcwaiting.Load(), sched.stopwait, stopnote)
	pollnote := "not woken (netpollBreak not called)"
	if len(sched.pollnote.c) > 0 {
		pollnote = "woken (netpollBreak)"
	}
	lastpoll := "0 (an M waits for timers)"
	if v := sched.lastpoll.Load(); v != 0 {
		lastpoll = fmt.Sprintf("T+%d", v-l04dT0)
	}
	var waits []string
	for _, u := range s.waited {
		waits = append(waits, fmt.Sprintf("T+%v", time.Duration(u-l04dT0)))
	}
	o.addf("the timer wait", "sched.lastpoll %s, sched.pollUntil %d, the poller's note %s; this M waited until %v (blockUntilTimer); the clock at T+%v",
		lastpoll, sched.pollUntil.Load(), pollnote, waits, time.Duration(s.now-l04dT0))
	var timers []string
	for _, tm := range sched.timers {
		timers = append(timers, fmt.Sprintf("G %d at T+%v", kitPlace(tm.gp), time.Duration(tm.when-l04dT0)))
	}
	next := "0 (none)"
	if w := sched.timer0When.Load(); w != 0 {
		next = fmt.Sprintf("T+%v", time.Duration(w-l04dT0))
	}
	o.addf("the timers", "%v (timer0When %s)", timers, next)
	for _, gp := range s.sleeper {
		o.addf(kitGName(gp), "%s", gStatusString(readgstatus(gp)))
	}
	o.addf("the trace, spin events aside", "%s", strings.Join(s.trace, " "))
	o.addf("the trace's spin events", "%d EvSpinStart, %d EvSpinStop", s.spins[0], s.spins[1])
}
