package sched

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestL07Differential: the reference is the oracle. On 300 generated states
// (1 to 5 Ps, each idle, running a G (or an M with no G), or in a system
// call, with a few Gs queued or none; sysmon's last look at each P
// (pp.sysmontick) fresh, old or never; Ms spinning or not; a stop-the-world
// pending or not; a timer armed or not; a nil slot at the end of allp),
// a few operations run on identical copies: retake at times that move on
// by 0 to 25ms, preemptone, a P's G entering or leaving a system call, a
// new time slice, and sysmon itself for up to 70 rounds (now and then up to
// l07LongRounds) on an injected clock, its deep sleeps (every P idle, or a
// stop-the-world pending) ended by an M as a syscall ends them. The
// learner's functions run on one copy and the reference's
// (ref_retake, ref_preemptone, ref_sysmon) on the other, and everything
// observable must agree after each operation: what it returned, every P's
// status, queues, ticks, sysmontick and preempt flag, each running G's
// preempt flag, the idle P list, nmspinning and needspinning, which idle M
// was handed which P (spinning or not), nmidlelocked, the stop-the-world's
// count, the trace, and the sleeps sysmon asked for.
func TestL07Differential(t *testing.T) {
	kitDiffLoop(t, l07, "sysmon.go", "; t0 = 1s on the clock", 300, l07dGen, l07dRun, l07dShrink, func(op kitOp, _ l07dState) string { return l07dOpName(op) })
}

// l07steps are how far the clock moves before an operation, and how long
// ago sysmon last looked at a P: around the 20µs tick and the 10ms rules.
var l07steps = []int64{0, 1, 20e3, 5e6, 10e6 - 1, 10e6, 10e6 + 1, 25e6}

// l07timers are when the next timer is due (sched.timer0When): none,
// already due at l07t0, soon, or in 20s.
var l07timers = []int64{0, l07t0 - 1e6, l07t0 + 10e6, l07t0 + 20e9}

// l07dP is what a generated state says of one P beyond its queues (which
// are kitPState's).
type l07dP struct {
	Schedtick, Syscalltick uint32
	SchedSeen, SyscallSeen bool // sysmon's last look saw these very ticks
	SchedAge, SyscallAge   int  // ... that long ago (an index of l07steps)
	NoG                    bool // a running P whose M has no current G
}

// l07dState is a generated state: the kit's (Ps, their queues, the global
// queue, the trace) and what retake and sysmon read beyond it.
type l07dState struct {
	kit        kitState
	Ps         []l07dP
	Nmspinning int32
	GCWaiting  bool  // a stop-the-world is pending, waiting for Stopwait Ps
	Stopwait   int32 // how many Ps the stop-the-world still waits for
	Timer      int   // the next timer: l07timers[Timer]
	WakeAfter  int   // how far the clock moves on in each of sysmon's deep sleeps (l07steps), before a wake-up ends it
	NilSlot    bool  // allp ends in a nil slot, as while procresize grows it
	// Shift moves every time of the world on (the clock, the Ps' last
	// sightings, the timer, lastpoll): t0 is l07t0+Shift. 0 in the states
	// l07dGen makes; a widened state's program has run for long.
	Shift int64
}

// widened is st in a program that has run for long: its clock's t0 at
// 2^62ns (146 years) in every second widened state, else log-uniform from
// 1s to that. Every state l07dGen makes starts its clock at 1s: a
// thirty-third red team's sysmon retook a P in a system call whatever the
// spinning Ms and idle Ps, only once the clock passed 10 hours. Its Ps
// stay as they are (each has sysmon's own past, l07dP).
func (st l07dState) widened(r *rand.Rand, _ []kitOp, i int) l07dState {
	t0 := int64(1) << 62
	if i%2 == 1 {
		t0 = int64(kitLogUniform(r, int(l07t0), 1<<62))
	}
	st.Shift = t0 - l07t0
	return st
}

func (st l07dState) String() string {
	var b strings.Builder
	for i, ps := range st.kit.Ps {
		d := st.Ps[i]
		switch {
		case ps.Running && d.NoG:
			fmt.Fprintf(&b, "P%d _Prunning, its M running no G", i)
		case ps.Running:
			fmt.Fprintf(&b, "P%d _Prunning (G %d on M %d)", i, 1000000+i, 200+i)
		case ps.Syscall:
			fmt.Fprintf(&b, "P%d _Psyscall (no M)", i)
		default:
			fmt.Fprintf(&b, "P%d _Pidle", i)
		}
		var q []string
		for _, id := range ps.Ring {
			q = append(q, fmt.Sprintf("G %d", id))
		}
		if ps.Next != 0 {
			q = append(q, fmt.Sprintf("runnext G %d", ps.Next))
		}
		if len(q) > 0 {
			fmt.Fprintf(&b, ", queued [%s]", strings.Join(q, " "))
		}
		if ps.Running || ps.Syscall {
			fmt.Fprintf(&b, ", schedtick=%d syscalltick=%d, sysmontick{%s}", d.Schedtick, d.Syscalltick, l07dSeen(d))
		}
		b.WriteString("; ")
	}
	if st.NilSlot {
		b.WriteString("allp ends in a nil slot; ")
	}
	fmt.Fprintf(&b, "the global queue holds %s; nmspinning=%d", kitCount(int(len(st.kit.Global)), "G"), st.Nmspinning)
	if st.GCWaiting {
		fmt.Fprintf(&b, "; a stop-the-world pending (gcwaiting, stopwait=%d)", st.Stopwait)
	}
	if st.Timer > 0 {
		fmt.Fprintf(&b, "; the next timer at %s", l07dAt(l07timers[st.Timer]))
	}
	if st.Shift != 0 {
		fmt.Fprintf(&b, "; in this state t0 is not 1s but %s on the clock (%dns: a program that has run that long), every time above counted from it", time.Duration(l07t0+st.Shift), l07t0+st.Shift)
	}
	if st.WakeAfter > 0 {
		fmt.Fprintf(&b, "; the clock moves on %s in each of sysmon's deep sleeps", time.Duration(l07steps[st.WakeAfter]))
	}
	if st.kit.Trace {
		b.WriteString("; sched.trace set")
	}
	return b.String()
}

// l07dAt names a time: t0-20µs, t0, t0+10ms.
func l07dAt(t int64) string {
	if t < l07t0 {
		return "t0-" + time.Duration(l07t0-t).String()
	}
	return l07at(t)
}

// l07dSeen says what sysmon saw last of a P.
func l07dSeen(d l07dP) string {
	sched := fmt.Sprintf("schedtick=%d schedwhen=%s", d.Schedtick+1, l07dAt(l07t0-l07steps[d.SchedAge]))
	if d.SchedSeen {
		sched = fmt.Sprintf("schedtick=%d schedwhen=%s", d.Schedtick, l07dAt(l07t0-l07steps[d.SchedAge]))
	}
	sys := fmt.Sprintf("syscalltick=%d syscallwhen=%s", d.Syscalltick+1, l07dAt(l07t0-l07steps[d.SyscallAge]))
	if d.SyscallSeen {
		sys = fmt.Sprintf("syscalltick=%d syscallwhen=%s", d.Syscalltick, l07dAt(l07t0-l07steps[d.SyscallAge]))
	}
	return sched + " " + sys
}

// l07dWorld is one built copy of an l07dState.
type l07dWorld struct {
	*kitWorld
	now       int64
	shift     int64       // l07dState.Shift: times are shown as they would be without it
	ms        l07ms       // idle Ms, for handoffp's startm
	curgs     []*g        // the G each P's M ran when built, by P (nil: none)
	mps       []*m        // the M each running P, or P in a system call, had when built
	sysmonM   *m          // the M sysmon runs as
	wakeAfter int         // l07dState.WakeAfter
	finish    func()      // lets a held sysmon go, and waits for it
	hung      atomic.Bool // an operation of the learner's did not come back in time
	lost      atomic.Bool // ... nor at all: its goroutine is left behind, still using the world
}

// l07dLimit is how long an operation may take: every one takes
// microseconds, unless it waits for a lock it holds or sleeps for real.
const l07dLimit = 5 * time.Second

// l07dCall runs f as kitCall does, but gives up after l07dLimit (the
// goroutine is left behind: the failure is reported).
func l07dCall(w *l07dWorld, f func() string) (s, panicked string) {
	type result struct{ s, panicked string }
	c := make(chan result, 1)
	go func() {
		s, panicked := kitCall(f)
		c <- result{s, panicked}
	}()
	select {
	case r := <-c:
		return r.s, r.panicked
	case <-time.After(l07dLimit):
		w.lost.Store(true)
		w.hung.Store(true)
		return fmt.Sprintf("did not return in %s (waiting for a lock it holds?)", l07dLimit), ""
	}
}

func l07dBuild(st l07dState, pools *[2]map[int64]*g, i int) *l07dWorld {
	w := &l07dWorld{kitWorld: kitBuild(st.kit, pools[i]), now: l07t0 + st.Shift, shift: st.Shift}
	sched := w.sched
	if !st.kit.Trace {
		sched.trace = nil
	}
	for i, pp := range w.ps {
		d := st.Ps[i]
		pp.schedtick.Store(d.Schedtick)
		pp.syscalltick.Store(d.Syscalltick)
		pd := &pp.sysmontick
		pd.schedtick, pd.syscalltick = d.Schedtick+1, d.Syscalltick+1
		if d.SchedSeen {
			pd.schedtick = d.Schedtick
		}
		if d.SyscallSeen {
			pd.syscalltick = d.Syscalltick
		}
		pd.schedwhen = l07t0 + st.Shift - l07steps[d.SchedAge]
		pd.syscallwhen = l07t0 + st.Shift - l07steps[d.SyscallAge]
		mp := pp.m.Load()
		var gp *g
		if mp != nil {
			gp = mp.curg.Load()
			if d.NoG {
				mp.curg.Store(nil)
			}
		} else if st.kit.Ps[i].Syscall {
			// The M in the system call: it took the P in kitBuild, then
			// entersyscall let go of it.
			mp = kitNewM(sched)
			gp = w.g(1000000 + int64(i))
			gp.atomicstatus.Store(_Gsyscall)
			gp.m = mp
			mp.curg.Store(gp)
		}
		w.mps = append(w.mps, mp)
		w.curgs = append(w.curgs, gp)
	}
	sched.nmspinning.Store(st.Nmspinning)
	if st.GCWaiting {
		sched.gcwaiting.Store(true)
		sched.stopwait = st.Stopwait
	}
	if when := l07timers[st.Timer]; when != 0 {
		sched.timer0When.Store(when + st.Shift)
	}
	if last := sched.lastpoll.Load(); last != 0 {
		sched.lastpoll.Store(last + st.Shift)
	}
	if st.NilSlot {
		sched.allp = append(sched.allp, nil)
	}
	w.ms = l07idleMs(sched)
	for range len(w.ps) {
		w.ms = append(w.ms, l07idleMs(sched)...)
	}
	w.sysmonM = kitNewM(sched)
	w.wakeAfter = st.WakeAfter
	return w
}

// l07dOpName names an operation for a learner.
func l07dOpName(op kitOp) string {
	switch op.Kind {
	case "retake":
		return fmt.Sprintf("the clock moves on %s, retake", time.Duration(l07steps[op.K]))
	case "preemptone":
		return fmt.Sprintf("preemptone(P%d)", op.P)
	case "enter":
		return fmt.Sprintf("P%d's G enters a system call (pp.m = nil, _Psyscall)", op.P)
	case "leave":
		return fmt.Sprintf("P%d's G leaves its system call (CAS _Psyscall → _Prunning, syscalltick+1, pp.m = its M)", op.P)
	case "slice":
		return fmt.Sprintf("P%s a new time slice (schedtick+1)", kitCount(int(op.P), "start"))
	case "sysmon":
		rounds := "rounds"
		if op.K == 1 {
			rounds = "round"
		}
		return fmt.Sprintf("sysmon runs %d %s (each Config.Usleep moves the clock on by the sleep; a deep sleep ends when an M wakes it, as a syscall does)", op.K, rounds)
	}
	return op.Kind
}

// l07dDo runs op on w: the reference's functions if ref.
func l07dDo(w *l07dWorld, op kitOp, ref bool) string {
	sched := w.sched
	var pp *p
	if op.P < len(w.ps) {
		pp = w.ps[op.P]
	}
	switch op.Kind {
	case "retake":
		w.now += l07steps[op.K]
		var n uint32
		if ref {
			n = ref_retake(sched, w.now)
		} else {
			n = retake(sched, w.now)
		}
		return fmt.Sprintf("%d (at %s)", n, l07dAt(w.now-w.shift))
	case "preemptone":
		if ref {
			return fmt.Sprint(ref_preemptone(pp))
		}
		return fmt.Sprint(preemptone(pp))
	case "enter":
		if pp.status.Load() != _Prunning || w.mps[op.P] == nil {
			return "nothing to do (the P is not running)"
		}
		pp.m.Store(nil)
		pp.status.Store(_Psyscall)
		return "done"
	case "leave":
		if !pp.status.CompareAndSwap(_Psyscall, _Prunning) {
			return "the CAS failed (the P is no longer _Psyscall): the M goes on without it"
		}
		pp.syscalltick.Add(1)
		pp.m.Store(w.mps[op.P])
		return "done"
	case "slice":
		pp.schedtick.Add(1)
		return "done"
	case "sysmon":
		return l07dSysmon(w, op.K, l07steps[w.wakeAfter], ref)
	}
	panic("l07dDo: unknown operation " + op.Kind)
}

// l07dSysmon runs sysmon for rounds rounds: each sleep it asks for moves
// the clock on, and in the sleep after the last round it is held while
// the test looks (w.finish lets it go, with sched.closing set). Its deep
// sleeps end as a syscall ends one: an M that finds sysmonwait set under
// sched.lock clears it and wakes sysmonnote, the clock moved on by
// wakeAfter. So every deep sleep is woken, whatever the timing, as long as
// it would not end by itself first: a state whose next timer is due within
// a second does not run sysmon. A sysmon that does not ask for its next
// sleep in time (asleep with sysmonwait unset?) is reported.
func l07dSysmon(w *l07dWorld, rounds int, wakeAfter int64, ref bool) string {
	sched := w.sched
	if next := sched.timer0When.Load(); next > w.now && next-w.now < 1e9 {
		return "not run (a deep sleep would end at the timer, before or after the wake-up)"
	}
	firstEvent := len(w.events)
	var mu sync.Mutex
	var sleeps []int64
	var clock atomic.Int64
	clock.Store(w.now)
	held, release := make(chan struct{}), make(chan struct{})
	sched.cfg.nanotime = clock.Load
	sched.cfg.usleep = func(us int64) {
		mu.Lock()
		sleeps = append(sleeps, us)
		n := len(sleeps)
		mu.Unlock()
		if n == rounds+1 {
			close(held)
			<-release
		}
		if n <= rounds {
			clock.Add(us * 1000)
		}
	}
	stopWaker := l07dWaker(sched, &clock, wakeAfter)
	sched.mWG.Add(1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if ref {
			ref_sysmon(w.sysmonM)
		} else {
			sysmon(w.sysmonM)
		}
	}()
	w.finish = func() {
		// As Close does: closing set; the waker wakes a deep sleep.
		sched.closing.Store(true)
		close(release)
		stopWaker := l07dWaker(sched, &clock, wakeAfter)
		defer stopWaker()
		select {
		case <-done:
		case <-time.After(l07dLimit): // left behind: the failure is reported
		}
	}
	var what string
	defer stopWaker() // before the test looks: it would see sched.lock held by the waker
	select {
	case <-held:
		what = fmt.Sprintf("asked for its sleep #%d", rounds+1)
	case <-done:
		what = "returned, with sched.closing unset"
	case <-time.After(l07dLimit / 2):
		w.hung.Store(true)
		what = fmt.Sprintf("did not ask for its next sleep in %s", l07dLimit/2)
		if sched.sysmonwait.Load() {
			what += " (asleep on sysmonnote, sysmonwait set)"
		}
	}
	mu.Lock()
	w.usleeps = append(w.usleeps, sleeps[:min(len(sleeps), rounds+1)]...)
	mu.Unlock()
	if !w.hung.Load() {
		// An event's When is the clock when it was emitted, and the waker
		// may move the clock on between sysmon's setting sysmonwait and
		// its EvSysmonSleep: compare what happened, not when.
		for i := firstEvent; i < len(w.events); i++ {
			w.events[i].When = 0
		}
	}
	w.now = clock.Load()
	return what
}

// l07dWaker starts an M that ends sysmon's deep sleeps as a syscall
// does: under sched.lock, if sysmonwait is set, it moves the clock on by
// wakeAfter, clears sysmonwait and wakes sysmonnote. It returns a function
// that stops it and waits until it has.
func l07dWaker(sched *schedt, clock *atomic.Int64, wakeAfter int64) func() {
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		// It polls, yielding between looks, rather than ticking: a
		// timer's tick comes a millisecond late under the race detector,
		// and that was a third of this test's time.
		for {
			select {
			case <-stop:
				return
			default:
				runtime.Gosched()
			}
			if sched.lock.TryLock() {
				if sched.sysmonwait.Load() {
					clock.Add(wakeAfter)
					sched.sysmonwait.Store(false)
					notewakeup(&sched.sysmonnote)
				}
				sched.lock.Unlock()
			}
		}
	}()
	return func() {
		close(stop)
		<-stopped
	}
}

// l07dObserve adds what retake, preemptone and sysmon change beyond the
// kit's observables.
func l07dObserve(w *l07dWorld, o *kitObs) {
	sched := w.sched
	if w.trace {
		o.addf("trace events, every field", "%s", kitEvents(w.events))
	}
	for i, pp := range w.ps {
		pd := pp.sysmontick
		o.addf(fmt.Sprintf("P%d's ticks", i), "schedtick=%d syscalltick=%d", pp.schedtick.Load(), pp.syscalltick.Load())
		o.addf(fmt.Sprintf("P%d's sysmontick", i), "{schedtick=%d schedwhen=%s syscalltick=%d syscallwhen=%s}",
			pd.schedtick, l07dAt(pd.schedwhen-w.shift), pd.syscalltick, l07dAt(pd.syscallwhen-w.shift))
		o.addf(fmt.Sprintf("P%d's preempt flag", i), "%v", pp.preempt.Load())
		mid := "none"
		if mp := pp.m.Load(); mp != nil {
			mid = fmt.Sprint(mp.id)
		}
		o.addf(fmt.Sprintf("P%d's M", i), "%s", mid)
		if gp := w.curgs[i]; gp != nil {
			o.addf(fmt.Sprintf("G %d's preempt flag", kitPlace(gp)), "%v", gp.preempt.Load())
		}
	}
	allpLock := "not held"
	if !sched.allpLock.TryLock() {
		allpLock = "held"
	} else {
		sched.allpLock.Unlock()
	}
	o.addf("allpLock", "%s", allpLock)
	if !sched.lock.TryLock() {
		return // the kit reports sched.lock held
	}
	defer sched.lock.Unlock()
	onList := map[*m]bool{}
	for mp := sched.midle; mp != nil && len(onList) <= len(w.ms); mp = mp.schedlink {
		onList[mp] = true
	}
	o.addf("idle Ms", "%d (nmidle=%d)", len(onList), sched.nmidle)
	for _, mp := range w.ms {
		switch {
		case onList[mp]:
			o.addf(fmt.Sprintf("M %d", mp.id), "on the idle M list")
		case mp.nextp == nil:
			o.addf(fmt.Sprintf("M %d", mp.id), "taken off the idle list, given no P")
		default:
			o.addf(fmt.Sprintf("M %d", mp.id), "started with P%d (mp.nextp), spinning=%v, woken=%v", mp.nextp.id, mp.spinning, len(mp.park.c) == 1)
		}
	}
	o.addf("nmidlelocked", "%d", sched.nmidlelocked)
	o.addf("needspinning", "%d", sched.needspinning.Load())
	o.addf("the stop-the-world", "gcwaiting=%v stopwait=%d stopnote woken=%v", sched.gcwaiting.Load(), sched.stopwait, len(sched.stopnote.c) == 1)
	o.addf("sysmonwait", "%v", sched.sysmonwait.Load())
	o.addf("allp", "%d slots", len(sched.allp))
}

// l07dRun runs ops on two builds of st and returns "" if the learner's
// functions and the reference's agree after each, else what differed.
func l07dRun(st l07dState, ops []kitOp, pools *[2]map[int64]*g) (diff string, hung bool) {
	mine, ref := l07dBuild(st, pools, 0), l07dBuild(st, pools, 1)
	defer func() { hung = mine.hung.Load() }()
	defer func() {
		for _, w := range []*l07dWorld{mine, ref} {
			if !w.lost.Load() && w.finish != nil {
				w.finish()
			}
		}
	}()
	for i, op := range ops {
		got, why := l07dCall(mine, func() string { return l07dDo(mine, op, false) })
		if mine.hung.Load() {
			return fmt.Sprintf("after operation %d, %s:\n  yours %s; the reference's returned %s", i+1, l07dOpName(op), got, l07dDo(ref, op, true)), true
		}
		want, _ := kitCall(func() string { return l07dDo(ref, op, true) })
		var o1, o2 kitObs
		o1.addf("returned", "%s", got)
		o2.addf("returned", "%s", want)
		mine.observe(&o1, false)
		ref.observe(&o2, false)
		l07dObserve(mine, &o1)
		l07dObserve(ref, &o2)
		var diffs []string
		for _, name := range o2.names {
			if o1.vals[name].key() != o2.vals[name].key() {
				diffs = append(diffs, fmt.Sprintf("  %s: the reference's %s, yours %s", name, o2.vals[name], o1.vals[name]))
			}
		}
		if len(diffs) > 0 {
			if why != "" {
				diffs = append(diffs, "  yours panicked with: "+strings.SplitN(why, "\n", 2)[0])
			}
			return fmt.Sprintf("after operation %d, %s:\n%s", i+1, l07dOpName(op), strings.Join(diffs, "\n")), false
		}
		if strings.HasPrefix(want, "panicked") {
			return "", false
		}
	}
	return "", false
}

// l07dValid reports whether st is a state a scheduler can be in: an idle
// P has nothing queued (pidleput refuses one with work).
func l07dValid(st l07dState) bool {
	for _, ps := range st.kit.Ps {
		if !ps.Running && !ps.Syscall && (len(ps.Ring) > 0 || ps.Next != 0) {
			return false
		}
	}
	return true
}

// l07dShrink makes a failing state smaller: the kit's steps (fewer Ps,
// Gs, operations, smaller clock steps), then this lesson's (nobody
// spinning, no stop-the-world, no timer, no nil slot, sysmon's last looks
// at the P the same as now, ticks 0).
func l07dShrink(st l07dState, ops []kitOp, fails func(l07dState, []kitOp) bool) (l07dState, []kitOp) {
	deadline := time.Now().Add(kitShrinkTime)
	for tries := 0; tries < 1000 && time.Now().Before(deadline); {
		progress := false
		var cands []l07dState
		var candOps [][]kitOp
		for _, c := range kitShrinkSteps(st.kit, ops) {
			s := st
			s.kit = c.st
			s.Ps = st.Ps[:len(c.st.Ps)]
			cands, candOps = append(cands, s), append(candOps, c.ops)
		}
		simpler := func(f func(s *l07dState)) {
			s := st
			s.Ps = slices.Clone(st.Ps)
			f(&s)
			cands, candOps = append(cands, s), append(candOps, ops)
		}
		if st.Nmspinning > 0 {
			simpler(func(s *l07dState) { s.Nmspinning = 0 })
		}
		if st.GCWaiting {
			simpler(func(s *l07dState) { s.GCWaiting, s.Stopwait = false, 0 })
		}
		if st.Timer > 0 {
			simpler(func(s *l07dState) { s.Timer = 0 })
		}
		if st.WakeAfter > 0 {
			simpler(func(s *l07dState) { s.WakeAfter = 0 })
		}
		if st.NilSlot {
			simpler(func(s *l07dState) { s.NilSlot = false })
		}
		if st.kit.Trace {
			simpler(func(s *l07dState) { s.kit.Trace = false })
		}
		for i, d := range st.Ps {
			if d.NoG {
				simpler(func(s *l07dState) { s.Ps[i].NoG = false })
			}
			if d.Schedtick != 0 || d.Syscalltick != 0 {
				simpler(func(s *l07dState) { s.Ps[i].Schedtick, s.Ps[i].Syscalltick = 0, 0 })
			}
			if d.SchedAge > 0 {
				simpler(func(s *l07dState) { s.Ps[i].SchedAge = 0 })
			}
			if d.SyscallAge > 0 {
				simpler(func(s *l07dState) { s.Ps[i].SyscallAge = 0 })
			}
		}
		for i := range cands {
			tries++
			if l07dValid(cands[i]) && fails(cands[i], candOps[i]) {
				st, ops, progress = cands[i], candOps[i], true
				break
			}
		}
		if !progress {
			break
		}
	}
	return st, ops
}

// l07dGen makes a state of one to five Ps and one to four operations,
// sysmon's run always last.
func l07dGen(r *rand.Rand) (l07dState, []kitOp) {
	n := 1 + r.IntN(5)
	st := l07dState{kit: kitState{Seed: r.Uint64(), Trace: r.IntN(3) > 0, Debug: r.IntN(2) == 0, NoSysmon: true, Global: kitGenGlobal(r, 3)}}
	if r.IntN(3) == 0 {
		st.kit.Global = nil
	}
	for i := range n {
		ps := kitPState{Head: r.Uint32()}
		switch r.IntN(5) {
		case 0:
		case 1, 2:
			ps.Syscall = true
		default:
			ps.Running = true
		}
		if ps.Running || ps.Syscall {
			if r.IntN(2) == 0 {
				for j := range r.IntN(4) {
					ps.Ring = append(ps.Ring, int64(i+1)*1000+int64(j))
				}
			}
			if r.IntN(4) == 0 {
				ps.Next = int64(i+1)*1000 + 999
			}
		}
		st.kit.Ps = append(st.kit.Ps, ps)
		st.Ps = append(st.Ps, l07dP{
			Schedtick: uint32(r.IntN(5)), Syscalltick: uint32(r.IntN(5)),
			SchedSeen: r.IntN(3) > 0, SyscallSeen: r.IntN(3) > 0,
			SchedAge: r.IntN(len(l07steps)), SyscallAge: r.IntN(len(l07steps)),
			NoG: ps.Running && r.IntN(4) == 0,
		})
	}
	st.Nmspinning = int32(max(0, r.IntN(5)-2))
	if r.IntN(6) == 0 {
		st.GCWaiting = true
		st.Stopwait = int32(1 + r.IntN(3))
	}
	if r.IntN(3) == 0 {
		st.Timer = 1 + r.IntN(len(l07timers)-1)
	}
	st.NilSlot = r.IntN(5) == 0
	var ops []kitOp
	for range 1 + r.IntN(3) {
		p := r.IntN(n)
		switch k := r.IntN(10); {
		case k < 5:
			ops = append(ops, kitOp{Kind: "retake", K: r.IntN(len(l07steps))})
		case k < 6:
			ops = append(ops, kitOp{Kind: "preemptone", P: p})
		case k < 7:
			ops = append(ops, kitOp{Kind: "enter", P: p})
		case k < 8:
			ops = append(ops, kitOp{Kind: "leave", P: p})
		default:
			ops = append(ops, kitOp{Kind: "slice", P: p})
		}
	}
	if r.IntN(3) == 0 {
		ops = append(ops, kitOp{Kind: "retake", K: r.IntN(len(l07steps))})
	}
	st.WakeAfter = r.IntN(len(l07steps))
	if r.IntN(3) == 0 {
		if r.IntN(3) == 0 {
			// No P runs: once retake has taken the Ps in syscalls, every P
			// is idle, and sysmon sleeps deeply.
			for i := range st.kit.Ps {
				if st.kit.Ps[i].Running {
					st.kit.Ps[i].Running, st.kit.Ps[i].Syscall, st.Ps[i].NoG = false, true, false
				}
			}
			st.Timer = []int{0, 1, 3, 3}[r.IntN(4)] // how long the deep sleep may last, or none
			st.kit.Trace = true                     // EvSysmonSleep says how long
		}
		ops = append(ops, kitOp{Kind: "sysmon", K: 1 + r.IntN(70), MinK: 1})
		if r.IntN(8) == 0 {
			// A long stretch: sysmon's idle count is a loop local, which no
			// state can set; only rounds reach it. A thirty-fourth red
			// team's sysmon went wrong only after 1,000 idle rounds in a
			// row. Drawn last, so the rest of every state is as before.
			ops[len(ops)-1].K = kitLogUniform(r, 71, l07LongRounds)
		}
	}
	return st, ops
}

// l07LongRounds is the most rounds a sysmon operation runs: one in eight
// runs 71 to this many (log-uniform), the others 1 to 70.
const l07LongRounds = 1 << 16
