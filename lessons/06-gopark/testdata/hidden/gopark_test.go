package sched

// Hidden tests of lesson 06-gopark. Messages are written for a learner who
// cannot see this file.
//
// Code that runs on the scheduler's goroutines (a G's body, an unlockf)
// must not call t.Fatal: it records what went wrong in an l06problems, and
// the test reports it once the Runtime has finished.

import (
	"cmp"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
)

const l06 = "06-gopark"

// l06problems collects failures seen inside the scheduler.
type l06problems struct {
	mu   sync.Mutex
	msgs []string
}

func (p *l06problems) addf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.msgs = append(p.msgs, fmt.Sprintf(format, args...))
}

// check fails the test with the first problems recorded, if any.
func (p *l06problems) check(t *testing.T) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.msgs) == 0 {
		return
	}
	msgs := p.msgs
	more := ""
	if len(msgs) > 3 {
		more = fmt.Sprintf("\n(and %d more)", len(msgs)-3)
		msgs = msgs[:3]
	}
	t.Fatalf("%s%s%s", strings.Join(msgs, "\n"), more, kitHint(l06))
}

// l06err is what Wait returned, for a message: a panic's value without
// its stack (the learner's code is not in this package's file names).
func l06err(err error) string {
	var pe *PanicError
	if errors.As(err, &pe) {
		return fmt.Sprintf("G %d panicked: %v", pe.G, pe.Value)
	}
	return err.Error()
}

// l06run is kitRun that reports the problems recorded first (they say more
// than a deadlock or a panic they led to), then an error from Wait.
func l06run(t *testing.T, cfg Config, probs *l06problems, body func(*G)) {
	t.Helper()
	err := kitRun(t, cfg, 20*time.Second, body)
	probs.check(t)
	if err != nil {
		t.Fatalf("Runtime.Wait returned an error: %s%s", l06err(err), kitHint(l06))
	}
}

// l06call runs fn, a call into the learner's code from the test's own
// goroutine, and turns a panic into a failure that says what was called.
func l06call(t *testing.T, what string, fn func()) {
	t.Helper()
	panicked := true
	var r any
	func() {
		defer func() { r = recover() }()
		fn()
		panicked = false
	}()
	if panicked {
		t.Fatalf("%s panicked: %v%s", what, r, kitHint(l06))
	}
}

// l06waitQuiet waits, from a running G's body, until every other M is
// parked on the idle list and every other P is idle: from then on only
// this G's actions can wake an M. It never calls a G method (no safe
// point), so the G keeps its P meanwhile.
func l06waitQuiet(gp *G) bool {
	sched := gp.sched
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		sched.lock.Lock()
		running := sched.mcount() - sched.nmidle - sched.nmsys
		quiet := running == 1 && sched.npidle.Load() == sched.gomaxprocs.Load()-1 && sched.nmspinning.Load() == 0
		sched.lock.Unlock()
		if quiet {
			return true
		}
		runtime.Gosched()
	}
	return false
}

// TestL06UnlockfRunsAfterPark parks a G with gopark and an unlockf of the
// test's own, and looks at the G from inside the unlockf: by then it must
// be _Gwaiting, with its wait reason, and off its M.
func TestL06UnlockfRunsAfterPark(t *testing.T) {
	for _, procs := range []int{1, 4} {
		var probs l06problems
		var calls atomic.Int32
		const rounds = 30
		l06run(t, Config{Procs: procs}, &probs, func(gp *G) {
			var parked atomic.Pointer[g]
			lock := new(int) // what the unlockf "releases"
			for r := 0; r < rounds; r++ {
				// The waker readies whatever the unlockf publishes.
				gp.Go(func(w *G) {
					for parked.Load() == nil {
						w.Gosched()
					}
					w.Ready(parked.Swap(nil))
				})
				mp := gp.m
				before := calls.Load()
				gopark(gp, func(pg *g, l unsafe.Pointer) bool {
					calls.Add(1)
					if pg != gp {
						probs.addf("unlockf was called with %s, want G %d, the G that parked", kitID(pg), gp.goid)
					}
					if l != unsafe.Pointer(lock) {
						probs.addf("unlockf was called with lock %p, want %p, the lock passed to gopark", l, lock)
					}
					if s := readgstatus(gp); s != _Gwaiting {
						probs.addf("with %s: when unlockf ran, G %d was %s, want waiting: park_m must casgstatus the G to _Gwaiting (and dropg) before it calls unlockf; an unlockf that releases a lock lets another G ready this one at once, while it would still be running", kitCount(int(procs), "P"), gp.goid, gStatusString(s))
					}
					if gp.waitreason != waitReasonPark {
						probs.addf("when unlockf ran, G %d's wait reason was %q, want %q, the reason passed to gopark", gp.goid, gp.waitreason, waitReasonPark)
					}
					if gp.m != nil {
						probs.addf("when unlockf ran, G %d's m was still set: park_m must drop the G from its M (dropg) before it calls unlockf", gp.goid)
					}
					if cur := mp.curg.Load(); cur != nil {
						probs.addf("when unlockf ran, the M's curg was still %s: park_m must drop the G from its M (dropg) before it calls unlockf", kitID(cur))
					}
					parked.Store(pg)
					return true
				}, unsafe.Pointer(lock), waitReasonPark)

				if n := calls.Load() - before; n != 1 {
					probs.addf("one gopark called unlockf %s, want exactly once", kitCount(int(n), "time"))
				}
				if s := readgstatus(gp); s != _Grunning {
					probs.addf("G %d returned from gopark %s, want running", gp.goid, gStatusString(s))
				}
				if gp.m == nil || gp.m.curg.Load() != gp {
					probs.addf("G %d returned from gopark but is not its M's curg", gp.goid)
				}
			}
		})
		if n := calls.Load(); n != rounds {
			t.Fatalf("with %s: %s called unlockf %s, want %d (once each)%s", kitCount(int(procs), "P"), kitCount(int(rounds), "gopark"), kitCount(int(n), "time"), rounds, kitHint(l06))
		}
	}
}

// TestL06DeclinedParkRunsAgain: an unlockf that returns false makes the G
// run again at once, on the same M and P, before anything queued there, and
// without touching the run queue. One P, so that nothing else can run
// meanwhile.
func TestL06DeclinedParkRunsAgain(t *testing.T) {
	var probs l06problems
	var childRuns atomic.Int32
	const rounds = 20
	err := kitRun(t, Config{Procs: 1}, 20*time.Second, func(gp *G) {
		for r := 0; r < rounds; r++ {
			// Two new Gs: the first goes in this P's runnext, and the
			// second kicks it to the ring and takes its place. The one in
			// runnext would run next if the parent were queued instead of
			// resumed.
			gp.Go(func(*G) { childRuns.Add(1) })
			gp.Go(func(*G) { childRuns.Add(1) })
			mp, pp := gp.m, gp.m.p
			before := childRuns.Load()
			nextBefore, ringBefore := pp.runnext.Load(), l06ring(pp)
			var statusInUnlockf uint32
			gopark(gp, func(pg *g, _ unsafe.Pointer) bool {
				statusInUnlockf = readgstatus(pg)
				return false
			}, nil, waitReasonPark)
			if statusInUnlockf != _Gwaiting {
				probs.addf("when unlockf ran, G %d was %s, want waiting: park_m changes the status first, then calls unlockf", gp.goid, gStatusString(statusInUnlockf))
			}
			if childRuns.Load() != before {
				probs.addf("after its unlockf returned false, G %d did not run again at once: the G in runnext ran first. park_m must make the G runnable and hand it straight back to execute (return it), not queue it", gp.goid)
				return
			}
			if gp.m != mp || mp.p != pp {
				probs.addf("after its unlockf returned false, G %d came back on another M or P: it must run again at once on the same M", gp.goid)
				return
			}
			if s := readgstatus(gp); s != _Grunning || mp.curg.Load() != gp {
				probs.addf("after its unlockf returned false, G %d is %s (M's curg %s), want running on its M", gp.goid, gStatusString(s), kitID(mp.curg.Load()))
				return
			}
			if next, ring := pp.runnext.Load(), l06ring(pp); next != nextBefore || !slices.Equal(ring, ringBefore) {
				probs.addf("after its unlockf returned false, G %d ran again, but its P's run queue changed: before the park, runnext was %s and the ring %v; after, runnext is %s and the ring %v. "+
					"The declined G went through the run queue (runqput into runnext kicks the G waiting there to the ring's tail, behind the others, and a spinning M could steal the declined G meanwhile). "+
					"park_m must hand the G straight back to execute (make it _Grunnable and return gp, true) and leave the run queue as it was",
					gp.goid, kitID(nextBefore), ringBefore, kitID(next), ring)
				return
			}
		}
	})
	probs.check(t)
	if err != nil {
		t.Fatalf("G 1 parked with an unlockf that returns false, and then Wait returned: %s\nA G whose unlockf returns false must not stay parked: park_m makes it runnable again and returns it, to run at once%s", l06err(err), kitHint(l06))
	}
	if n := childRuns.Load(); n != 2*rounds {
		t.Fatalf("%d children were started, %d ran%s", 2*rounds, n, kitHint(l06))
	}
}

// l06readyState builds a scheduler with procs Ps and an M holding P 0, as
// a running G's M would. sched.closing is set so that an M started by
// wakep returns at once instead of running the test's coroutine-less Gs;
// l06settle waits for it.
func l06readyState(procs int) (*schedt, *m, *p) {
	sched := kitSched(procs, Config{})
	sched.closing.Store(true)
	sched.lock.Lock()
	// Take P 0 off the idle list (whatever order procresize left it in).
	var others []*p
	pp := sched.pidleget()
	for pp != sched.allp[0] {
		others = append(others, pp)
		pp = sched.pidleget()
	}
	for _, o := range others {
		sched.pidleput(o)
	}
	id := sched.mReserveID()
	sched.lock.Unlock()
	mp := &m{sched: sched, id: id}
	mp.park.init()
	acquirep(mp, pp)
	return sched, mp, pp
}

// l06settle waits for the Ms that wakep may have started to exit.
func l06settle(sched *schedt) {
	sched.mWG.Wait()
}

// l06waitingG makes a G parked in _Gwaiting.
func l06waitingG(sched *schedt, id int64) *g {
	gp := kitG(sched, id)
	gp.atomicstatus.Store(_Gwaiting)
	gp.waitreason = waitReasonPark
	return gp
}

// l06ring lists the goids on pp's ring, head to tail.
func l06ring(pp *p) []int64 {
	var ids []int64
	for i, t := pp.runqhead.Load(), pp.runqtail.Load(); i != t; i++ {
		ids = append(ids, kitRawSlot(&pp.runq[i%uint32(len(pp.runq))]).Load().goid)
	}
	return ids
}

// TestL06ReadyRunnext: goready on a constructed state puts the G in the
// current P's runnext (through runqput, which kicks the old runnext to the
// ring), makes it runnable, and wakes an idle P; ready(next=false) puts it
// on the ring's tail.
func TestL06ReadyRunnext(t *testing.T) {
	// goready with runnext empty, one idle P.
	sched, mp, pp := l06readyState(2)
	gp := l06waitingG(sched, 7)
	l06call(t, "goready(G 7), G 7 parked in _Gwaiting,", func() { goready(mp, gp) })
	l06settle(sched)
	if s := readgstatus(gp); s != _Grunnable {
		t.Fatalf("after goready, G 7 is %s, want runnable%s", gStatusString(s), kitHint(l06))
	}
	if next := pp.runnext.Load(); next != gp {
		t.Fatalf("after goready(G 7) on an M holding P 0, P 0's runnext is %s and its ring %v; want runnext G 7: goready readies into runnext, to run next on this P%s", kitID(next), l06ring(pp), kitHint(l06))
	}
	if ring := l06ring(pp); len(ring) != 0 || !sched.runq.empty() {
		t.Fatalf("after goready(G 7), P 0's ring holds %v and the global queue %s; want both empty (G 7 is in runnext only)", ring, kitCount(int(sched.runq.size), "G"))
	}
	sched.lock.Lock()
	npidle, nm := sched.npidle.Load(), len(sched.allm)
	sched.lock.Unlock()
	if npidle != 0 || nm == 0 {
		t.Fatalf("after goready with P 1 idle, %s are still idle and %s were started: ready must call wakep, which starts a spinning M on the idle P%s", kitCount(int(npidle), "P"), kitCount(int(nm), "M"), kitHint(l06))
	}

	// goready with runnext taken: the old runnext goes to the ring.
	sched, mp, pp = l06readyState(1)
	old := kitG(sched, 1)
	pp.runnext.Store(old)
	gp = l06waitingG(sched, 2)
	l06call(t, "goready(G 2), G 2 parked in _Gwaiting,", func() { goready(mp, gp) })
	l06settle(sched)
	if next, ring := pp.runnext.Load(), l06ring(pp); next != gp || len(ring) != 1 || ring[0] != 1 {
		t.Fatalf("goready(G 2) on a P whose runnext was G 1 left runnext %s and ring %v; want runnext G 2 and ring [1]: put the G with runqput(pp, gp, true), which kicks the old runnext to the ring, never lose it%s", kitID(next), ring, kitHint(l06))
	}

	// ready(next=false): the tail of the ring, runnext untouched.
	sched, mp, pp = l06readyState(1)
	for _, gp := range kitGs(sched, 1, 2) {
		runqputtail(pp, gp)
	}
	pp.runnext.Store(kitG(sched, 3))
	gp = l06waitingG(sched, 4)
	l06call(t, "ready(G 4, next=false), G 4 parked in _Gwaiting,", func() { ready(mp, gp, false) })
	l06settle(sched)
	if next, ring := pp.runnext.Load(), l06ring(pp); l06gid(next) != 3 || !slices.Equal(ring, []int64{1, 2, 4}) {
		t.Fatalf("ready(G 4, next=false) on a P with runnext G 3 and ring [1 2] left runnext %s and ring %v; want runnext G 3 and ring [1 2 4]: with next=false the G goes on the tail%s", kitID(next), ring, kitHint(l06))
	}
	if s := readgstatus(gp); s != _Grunnable {
		t.Fatalf("after ready(next=false), G 4 is %s, want runnable", gStatusString(s))
	}

	// goready again and again while another thread moves nmspinning and
	// npidle (nmspinning never 0, so wakep has no M to start), on a P whose
	// ring is empty or holds Gs, with RandomizeScheduler or without; and
	// while a thief also takes Gs from the head of the P's ring.
	for _, randomize := range []bool{false, true} {
		for _, queued := range []int{0, 3} {
			l06stirredReady(t, randomize, queued, false)
		}
		l06stirredReady(t, randomize, 64, true)
	}
}

// l06stirredReady is TestL06ReadyRunnext's stirred question: goready on an
// M holding P 0, whose ring holds queued Gs and whose runnext is empty.
// With thief, the stir also takes the G at the head of P 0's ring, as a
// thief on another M would (a twenty-eighth red team's ready sent the G to
// the tail only when it saw its own ring's length move): the ring must
// then be what is left of it, and each question starts from it full again.
func l06stirredReady(t *testing.T, randomize bool, queued int, thief bool) {
	t.Helper()
	sched, mp, pp := l06readyState(1)
	sched.cfg.randomizeScheduler = randomize
	first := int64(50)
	if thief {
		first = 5000
	}
	ring := kitGs(sched, first, queued)
	// refill empties the ring and puts ring's Gs back, as its owner, with
	// no operation the stirrer steps before: the ring is full when goready
	// starts, and the thief's steps fall within goready.
	refill := func() {
		for {
			h, t := kitRawRing(&pp.runqhead).Load(), kitRawRing(&pp.runqtail).Load()
			if h == t || kitRawRing(&pp.runqhead).CompareAndSwap(h, t) {
				break
			}
		}
		kitPutAll(pp, ring)
	}
	refill()
	want := l06ring(pp)
	sched.nmspinning.Store(1)
	stir := kitStirSquare(&sched.nmspinning, &sched.npidle)
	what := fmt.Sprintf("another thread moved nmspinning between 1 and 2 and npidle between 0 and 1 (so wakep starts no M), P 0's ring %v, RandomizeScheduler %v", want, randomize)
	if thief {
		stir = kitStirCycle(stir, kitStirSteal(pp, func(gp *g) bool { return gp.goid >= first }))
		what = fmt.Sprintf("another thread moved nmspinning between 1 and 2 and npidle between 0 and 1 (so wakep starts no M) and stole Gs from the head of P 0's ring (G %d to G %d before each goready), RandomizeScheduler %v", first, first+int64(queued)-1, randomize)
	}
	const n = 100
	intoRunnext := 0
	kitStirred(t, l06, what, n, stir, func(i int) string {
		if i == 0 {
			intoRunnext = 0
		}
		if thief {
			refill()
		}
		gp := l06waitingG(sched, int64(100+i))
		var r any
		func() {
			defer func() { r = recover() }()
			goready(mp, gp)
		}()
		if r != nil {
			return fmt.Sprintf("goready(G %d) panicked: %v", gp.goid, r)
		}
		next, got := pp.runnext.Load(), l06ring(pp)
		left := want
		if thief {
			// What the thief left: the newest Gs of the ring, and G gp
			// behind them if runqput's coin sent it to the tail.
			rest := got
			if next == nil && len(rest) > 0 && rest[len(rest)-1] == gp.goid {
				rest = rest[:len(rest)-1]
			}
			if len(rest) <= len(want) && slices.Equal(rest, want[len(want)-len(rest):]) {
				left = rest
			}
		}
		switch {
		case next == gp && slices.Equal(got, left):
			intoRunnext++
			pp.runnext.Store(nil)
		case randomize && next == nil && slices.Equal(got, append(slices.Clone(left), gp.goid)):
			// runqput's coin sent it to the tail: take the ring back to
			// what it was.
			refill()
		default:
			return fmt.Sprintf("goready(G %d) on an M holding P 0, with runnext empty and the ring %s, left runnext %s and the ring %s; want runnext G %d and the ring as it was (less what the other thread took from its head): goready readies into runnext", gp.goid, l06ids(want), kitID(next), l06ids(got), gp.goid)
		}
		if i == n-1 && intoRunnext == 0 {
			return fmt.Sprintf("%d goreadys on an M holding P 0, with runnext empty and the ring %s, never put the G in runnext: goready readies into runnext (with RandomizeScheduler, runqput's coin sends it to the tail about half the time, not every time)", n, l06ids(want))
		}
		return ""
	})
}

// l06ids shows a ring's G IDs, each run of more than four in a row as its
// first and last.
func l06ids(ids []int64) string {
	var parts []string
	for i := 0; i < len(ids); {
		j := i + 1
		for j < len(ids) && ids[j] == ids[j-1]+1 {
			j++
		}
		if j-i > 4 {
			parts = append(parts, fmt.Sprintf("%d ... %d", ids[i], ids[j-1]))
		} else {
			for _, id := range ids[i:j] {
				parts = append(parts, fmt.Sprint(id))
			}
		}
		i = j
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func l06gid(gp *g) int64 {
	if gp == nil {
		return -1
	}
	return gp.goid
}

// TestL06ReadyNotWaitingPanics: readying a G that is not parked is a bug
// in the caller (a G readied twice would run twice); ready must panic,
// saying which G and in what status, before queueing anything.
func TestL06ReadyNotWaitingPanics(t *testing.T) {
	try := func(mp *m, gp *g) (msg string, panicked bool) {
		defer func() {
			if r := recover(); r != nil {
				msg, panicked = fmt.Sprint(r), true
			}
		}()
		goready(mp, gp)
		return "", false
	}
	for _, st := range []uint32{_Grunnable, _Grunning, _Gsyscall, _Gdead} {
		sched, mp, pp := l06readyState(1)
		gp := kitG(sched, 42)
		gp.atomicstatus.Store(st)
		msg, panicked := try(mp, gp)
		l06settle(sched)
		if !panicked {
			t.Fatalf("goready of G 42, which is %s (not waiting), returned normally; it must panic: a G readied that is not parked could end up queued twice, or run on two Ms%s", gStatusString(st), kitHint(l06))
		}
		if !strings.Contains(msg, "42") || !strings.Contains(msg, gStatusString(st)) {
			t.Fatalf("goready of G 42, which is %s, panicked with %q; the message must say which G (42) and its status (%q)", gStatusString(st), msg, gStatusString(st))
		}
		if s := readgstatus(gp); s != st {
			t.Fatalf("goready of G 42 (%s) panicked but changed its status to %s: check before changing anything", gStatusString(st), gStatusString(s))
		}
		if pp.runnext.Load() != nil || len(l06ring(pp)) != 0 {
			t.Fatalf("goready of G 42 (%s) panicked but queued it anyway (runnext %s, ring %v)", gStatusString(st), kitID(pp.runnext.Load()), l06ring(pp))
		}
	}

	// The same G readied twice.
	sched, mp, pp := l06readyState(1)
	gp := l06waitingG(sched, 9)
	l06call(t, "the first goready(G 9), G 9 parked in _Gwaiting,", func() { goready(mp, gp) })
	msg, panicked := try(mp, gp)
	l06settle(sched)
	if !panicked {
		t.Fatalf("G 9 was readied twice and the second goready returned normally (runnext %s, ring %v); it must panic, since G 9 is already runnable%s", kitID(pp.runnext.Load()), l06ring(pp), kitHint(l06))
	}
	if !strings.Contains(msg, "9") {
		t.Fatalf("the second goready of G 9 panicked with %q; the message must say which G (9)", msg)
	}
	if pp.runnext.Load() != gp || len(l06ring(pp)) != 0 {
		t.Fatalf("after G 9 was readied twice, runnext is %s and the ring %v; want G 9 in runnext once", kitID(pp.runnext.Load()), l06ring(pp))
	}

	// gopark by a G that is not running: the same kind of bug, caught at
	// once, before the M or the G records anything. A G in a system call is
	// still wired to its M; the others have none.
	for _, st := range []uint32{_Gsyscall, _Grunnable, _Gwaiting} {
		sched, mp, _ := l06readyState(1)
		gp := kitG(sched, 42)
		gp.atomicstatus.Store(st)
		if st == _Gsyscall {
			gp.m = mp
			mp.curg.Store(gp)
		}
		called := false
		panicked := func() (p bool) {
			defer func() { p = recover() != nil }()
			gopark(gp, func(*g, unsafe.Pointer) bool { called = true; return true }, unsafe.Pointer(mp), waitReasonPark)
			return false
		}()
		l06settle(sched)
		if !panicked {
			t.Fatalf("gopark by G 42, which is %s (not running), returned normally; it must panic: only the running G can park itself%s", gStatusString(st), kitHint(l06))
		}
		if called || mp.waitunlockf != nil || mp.waitlock != nil || mp.mcallfn != nil || gp.waitreason != waitReasonZero || readgstatus(gp) != st {
			t.Fatalf("gopark by G 42, which is %s (not running), panicked only after it had changed things (unlockf called %v, mp.waitunlockf set %v, mp.waitlock set %v, mcall made %v, wait reason %q, status %s): check the status first%s",
				gStatusString(st), called, mp.waitunlockf != nil, mp.waitlock != nil, mp.mcallfn != nil, gp.waitreason, gStatusString(readgstatus(gp)), kitHint(l06))
		}
	}
}

// TestL06ParkReadyInRuntime: G.Park and G.Ready in a real Runtime. With
// one P, right after Ready the readied G is in the readying G's runnext.
// With two Ps, Ready wakes the idle P, which steals the readied G while
// the readying G keeps its own P busy.
func TestL06ParkReadyInRuntime(t *testing.T) {
	var probs l06problems
	var resumed atomic.Int32
	l06run(t, Config{Procs: 1}, &probs, func(gp *G) {
		var a atomic.Pointer[g]
		gp.Go(func(ga *G) {
			ga.Park(func() bool { a.Store(ga); return true })
			resumed.Add(1)
		})
		for a.Load() == nil {
			gp.Gosched()
		}
		other := a.Load()
		if s := readgstatus(other); s != _Gwaiting {
			probs.addf("after Park's commit ran, G %d is %s, want waiting", other.goid, gStatusString(s))
			return
		}
		gp.Ready(other)
		if s := readgstatus(other); s != _Grunnable {
			probs.addf("right after G %d readied G %d, G %d is %s, want runnable", gp.goid, other.goid, other.goid, gStatusString(s))
		}
		if next := gp.m.p.runnext.Load(); next != other {
			probs.addf("right after G %d readied G %d, its P's runnext is %s (ring %v); want G %d: goready puts the G in the current P's runnext", gp.goid, other.goid, kitID(next), l06ring(gp.m.p), other.goid)
		}
		if resumed.Load() != 0 {
			probs.addf("G %d ran before the G that readied it gave up its P", other.goid)
		}
	})
	if resumed.Load() != 1 {
		t.Fatalf("the parked G resumed %s after Ready, want once%s", kitCount(int(resumed.Load()), "time"), kitHint(l06))
	}

	probs = l06problems{}
	resumed.Store(0)
	l06run(t, Config{Procs: 2}, &probs, func(gp *G) {
		var a atomic.Pointer[g]
		gp.Go(func(ga *G) {
			ga.Park(func() bool { a.Store(ga); return true })
			resumed.Add(1)
		})
		for a.Load() == nil {
			gp.Gosched()
		}
		if !l06waitQuiet(gp) {
			probs.addf("setup: the other M never went idle (P 1 idle, nobody spinning) within 10s")
			return
		}
		other := a.Load()
		gp.Ready(other)
		// Keep this P busy, with no safe point: only another P can run it.
		deadline := time.Now().Add(5 * time.Second)
		for resumed.Load() == 0 && time.Now().Before(deadline) {
			runtime.Gosched()
		}
		if resumed.Load() == 0 {
			probs.addf("G %d readied G %d and kept its P busy for 5s with the other P idle, and G %d never ran: ready must call wakep, so that an idle P starts an M to steal the work", gp.goid, other.goid, other.goid)
		}
	})
}

// TestL06DeadlockReported: Gs blocked in every way gopark offers, and no M
// left running: Wait reports the deadlock, with each G's wait reason.
func TestL06DeadlockReported(t *testing.T) {
	ch, ch2 := NewChan[int](0), NewChan[int](0)
	var mu Mutex
	var wg WaitGroup
	wg.Add(1)
	// Each G notes its ID: a G's ID comes from its creator's P's batch of
	// IDs, and the creator may move to another P between two of its Go
	// calls (under load it did: 1, 2, 3, 18, 19).
	var ids [5]atomic.Int64
	err := kitRun(t, Config{Procs: 4}, 20*time.Second, func(gp *G) {
		ids[0].Store(gp.ID())
		mu.Lock(gp)
		gp.Go(func(g *G) { ids[1].Store(g.ID()); ch.Recv(g) })
		gp.Go(func(g *G) { ids[2].Store(g.ID()); mu.Lock(g) })
		gp.Go(func(g *G) { ids[3].Store(g.ID()); wg.Wait(g) })
		gp.Go(func(g *G) { ids[4].Store(g.ID()); g.Park(nil) })
		ch2.Send(gp, 1)
	})
	var de *DeadlockError
	if !errors.As(err, &de) {
		t.Fatalf("five Gs each blocked for ever (chan send, chan receive, Mutex, WaitGroup, Park): Wait returned %v, want a *DeadlockError%s", l06err(err), kitHint(l06))
	}
	if !strings.HasPrefix(err.Error(), "all goroutines are asleep - deadlock!") {
		t.Fatalf("the deadlock error says %q, want it to start with %q", err.Error(), "all goroutines are asleep - deadlock!")
	}
	want := []WaitingG{{ids[0].Load(), "chan send"}, {ids[1].Load(), "chan receive"}, {ids[2].Load(), "sync.Mutex.Lock"}, {ids[3].Load(), "sync.WaitGroup.Wait"}, {ids[4].Load(), "park"}}
	slices.SortFunc(want, func(a, b WaitingG) int { return cmp.Compare(a.ID, b.ID) })
	// Compared as values: a lesson file's String method on WaitingG (or a
	// Format) would make their printed forms equal.
	if !slices.Equal(de.Waiting, want) {
		t.Fatalf("the deadlock lists the waiting Gs %s, want %s (ID and wait reason): gopark must record the reason it is given in gp.waitreason, and leave the G _Gwaiting%s", l06waiting(de.Waiting), l06waiting(want), kitHint(l06))
	}
}

// l06waiting shows waiting Gs by their fields, whatever methods
// WaitingG has.
func l06waiting(ws []WaitingG) string {
	var s []string
	for _, w := range ws {
		s = append(s, fmt.Sprintf("{%d %q}", w.ID, w.Reason))
	}
	return "[" + strings.Join(s, " ") + "]"
}

// TestL06Stress: channel ping-pong, a Mutex, a WaitGroup and a relay of
// Gs parked with Park, all on 4 Ps under the race detector: every G runs
// exactly once, every value arrives, the Mutex excludes.
func TestL06Stress(t *testing.T) {
	kitPreempted(t)
	const (
		pairs, rounds  = 40, 100
		lockers, locks = 100, 20
		relay          = 60
		total          = 2*pairs + lockers + relay
		repeats        = 2
	)
	for rep := 0; rep < repeats; rep++ {
		var probs l06problems
		var ran [total]atomic.Int32
		counter := 0 // guarded by mu
		var mu Mutex
		sems := make([]kitSem, relay+1)
		var order []int // relay order, guarded by the relay itself
		l06run(t, Config{Procs: 4, RandomizeScheduler: true}, &probs, func(gp *G) {
			var wg WaitGroup
			wg.Add(total)
			id := 0
			start := func(fn func(g *G)) {
				i := id
				id++
				gp.Go(func(g *G) {
					ran[i].Add(1)
					fn(g)
					wg.Done(g)
				})
			}
			for p := 0; p < pairs; p++ {
				ping, pong := NewChan[int](0), NewChan[int](0)
				start(func(g *G) {
					for r := 0; r < rounds; r++ {
						ping.Send(g, r)
						if v, ok := pong.Recv(g); !ok || v != -r {
							probs.addf("ping-pong pair %d, round %d: received %d, %v; want %d, true", p, r, v, ok, -r)
							return
						}
					}
				})
				start(func(g *G) {
					for r := 0; r < rounds; r++ {
						v, ok := ping.Recv(g)
						if !ok || v != r {
							probs.addf("ping-pong pair %d, round %d: received %d, %v; want %d, true", p, r, v, ok, r)
							return
						}
						pong.Send(g, -v)
					}
				})
			}
			for l := 0; l < lockers; l++ {
				start(func(g *G) {
					for k := 0; k < locks; k++ {
						mu.Lock(g)
						counter++
						if k%5 == 0 {
							g.Gosched()
						}
						mu.Unlock(g)
					}
				})
			}
			// A relay: G k waits on sems[k], then wakes G k+1.
			for k := 0; k < relay; k++ {
				start(func(g *G) {
					sems[k].acquire(g)
					order = append(order, k)
					sems[k+1].release(g)
				})
			}
			sems[0].release(gp)
			sems[relay].acquire(gp)
			wg.Wait(gp)
			mu.Lock(gp)
			if counter != lockers*locks {
				probs.addf("%s each incremented a counter %s under the Mutex: it holds %d, want %d", kitCount(int(lockers), "G"), kitCount(int(locks), "time"), counter, lockers*locks)
			}
			mu.Unlock(gp)
			for k := range order {
				if order[k] != k {
					probs.addf("the relay of Gs parked with Park ran in the order %v, want 0, 1, 2, ...", order)
					break
				}
			}
			if len(order) != relay {
				probs.addf("%d of the %d relay Gs passed the baton", len(order), relay)
			}
		})
		for i := range ran {
			if c := ran[i].Load(); c != 1 {
				t.Fatalf("on 4 Ps, G number %d (of %d blocking on channels, a Mutex, a WaitGroup and Park) ran %s, want exactly once%s", i, total, kitCount(int(c), "time"), kitHint(l06))
			}
		}
	}
}
