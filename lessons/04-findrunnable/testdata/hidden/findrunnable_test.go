package sched

// Hidden tests of lesson 04-findrunnable. Messages are written for a learner
// who cannot see this file.
//
// Most tests build a scheduler with kitSched, give P0 to a hand-made M and
// call findRunnable on it directly. l04find runs the call on its own
// goroutine: if the M parks (stopm) where it should have found work, the test
// wakes it the way Close does and reports the park instead of hanging.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const l04 = "04-findrunnable"

// l04take takes P id off the idle list.
func l04take(sched *schedt, id int32) *p {
	return kitTakeP(sched, id)
}

// l04m returns an M holding P id, made as the scheduler makes its own.
func l04m(sched *schedt, id int32) *m {
	mp := kitNewM(sched)
	acquirep(mp, l04take(sched, id))
	return mp
}

// l04busy makes P id owned by an M that is running a G (kitRunningP): off
// the idle list, _Prunning, with an M whose curg is _Grunning. Nobody runs
// it: the test plays its owner.
func l04busy(sched *schedt, id int32) *p {
	return kitRunningP(sched, id)
}

// l04sleeps records the calls of an injected Config.Usleep, and runs hook
// (if set) on each.
type l04sleeps struct {
	mu    sync.Mutex
	calls []int64
	hook  func(n int)
}

func (s *l04sleeps) usleep(usec int64) {
	s.mu.Lock()
	s.calls = append(s.calls, usec)
	n := len(s.calls)
	hook := s.hook
	s.mu.Unlock()
	if hook != nil {
		hook(n)
	}
}

func (s *l04sleeps) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.calls)
}

// l04sched is kitSched with an injected Usleep that records calls (no real
// sleeping).
func l04sched(procs int, seed uint64) (*schedt, *l04sleeps) {
	s := &l04sleeps{}
	return kitSched(procs, Config{Usleep: s.usleep, Seed: seed}), s
}

// l04find calls findRunnable(mp) on its own goroutine. parked reports that
// the M parked in stopm instead of returning a G; the test then wakes it as
// Close would (findRunnable returns nil) so that nothing is left hanging.
func l04find(t *testing.T, mp *m) (gp *g, inheritTime, parked bool) {
	t.Helper()
	sched := mp.sched
	done := make(chan struct{})
	go func() {
		defer close(done)
		gp, inheritTime = findRunnable(mp)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case <-done:
			return gp, inheritTime, false
		case <-time.After(200 * time.Microsecond):
		}
		sched.lock.Lock()
		idle := sched.nmidle > 0
		sched.lock.Unlock()
		if idle || time.Now().After(deadline) {
			// Wake the M the way Close does: closing set, no P handed over.
			sched.closing.Store(true)
			sched.lock.Lock()
			for x := sched.mget(); x != nil; x = sched.mget() {
				notewakeup(&x.park)
			}
			sched.lock.Unlock()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("findRunnable neither returned a G nor stayed parked: after Close-style wake-up (closing set, no P) it did not return within 10s" + kitHint(l04))
			}
			if !idle {
				t.Fatal("findRunnable did not return within 10s and did not park the M either: is it looping forever?" + kitHint(l04))
			}
			return gp, inheritTime, true
		}
	}
}

// l04ring returns the IDs of the Gs queued on pp's ring, head first,
// without taking them.
func l04ring(pp *p) []int64 {
	var ids []int64
	for i := pp.runqhead.Load(); i != pp.runqtail.Load(); i++ {
		ids = append(ids, kitRawSlot(&pp.runq[i%uint32(len(pp.runq))]).Load().goid)
	}
	return ids
}

// l04global returns the IDs on the global queue, head first.
func l04global(sched *schedt) []int64 {
	sched.lock.Lock()
	defer sched.lock.Unlock()
	var ids []int64
	for gp := sched.runq.head; gp != nil; gp = gp.schedlink {
		ids = append(ids, gp.goid)
	}
	return ids
}

func l04globput(sched *schedt, gs ...*g) {
	sched.lock.Lock()
	for _, gp := range gs {
		sched.runq.pushBack(gp)
	}
	sched.lock.Unlock()
}

func l04ids(first int64, n int) []int64 {
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = first + int64(i)
	}
	return ids
}

func l04same(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// l04list prints IDs compactly for messages.
func l04list(ids []int64) string {
	if len(ids) == 0 {
		return "[]"
	}
	if len(ids) > 12 {
		return fmt.Sprintf("%v ... %v (%s)", ids[:6], ids[len(ids)-3:], kitCount(int(len(ids)), "G"))
	}
	return fmt.Sprint(ids)
}

func TestL04LocalBeforeGlobal(t *testing.T) {
	sched, _ := l04sched(2, 0)
	mp := l04m(sched, 0)
	pp := mp.p
	pp.schedtick.Store(1) // not a multiple of 61: no fairness check
	l04globput(sched, kitG(sched, 100), kitG(sched, 101))
	pp.runnext.Store(kitG(sched, 1))
	runqputtail(pp, kitG(sched, 2))
	runqputtail(pp, kitG(sched, 3))
	setup := "P0 has G 1 in runnext and G 2, G 3 on its ring; the global queue holds G 100, G 101; schedtick = 1"

	want := []struct {
		id      int64
		inherit bool
		why     string
	}{
		{1, true, "runnext comes first, and inherits the time slice"},
		{2, false, "then the ring, from the head"},
		{3, false, "then the ring, from the head"},
		{100, false, "the local queue is empty now: the global queue"},
	}
	for i, w := range want {
		gp, inherit, parked := l04find(t, mp)
		if parked {
			t.Fatalf("%s. findRunnable call #%d parked the M; want G %d (%s)"+kitHint(l04), setup, i+1, w.id, w.why)
		}
		if gp == nil || gp.goid != w.id || inherit != w.inherit {
			t.Fatalf("%s. findRunnable call #%d returned %s (inheritTime=%v), want G %d (inheritTime=%v): %s. Look at the local run queue (runqget, which also says whether to inherit) before the global queue"+kitHint(l04),
				setup, i+1, kitID(gp), inherit, w.id, w.inherit, w.why)
		}
		if i < 3 {
			if got := l04global(sched); len(got) != 2 {
				t.Fatalf("%s. findRunnable call #%d returned local G %d but the global queue changed to %v: while the local queue has work, leave the global queue alone (unless schedtick %% 61 == 0)", setup, i+1, w.id, got)
			}
		}
	}
}

func TestL04GlobalBatch(t *testing.T) {
	for _, c := range []struct{ procs, size int }{
		{1, 1}, {1, 10}, {1, 200}, {1, 1000}, {2, 10}, {2, 3}, {4, 3}, {4, 100}, {3, 300}, {8, 1000},
	} {
		sched, _ := l04sched(c.procs, 0)
		mp := l04m(sched, 0)
		pp := mp.p
		pp.schedtick.Store(1)
		l04globput(sched, kitGs(sched, 1, c.size)...)
		k := min(128, c.size, c.size/c.procs+1)
		setup := fmt.Sprintf("GOMAXPROCS %d, P0's local queue empty, G 1..G %d on the global queue", c.procs, c.size)

		gp, inherit, parked := l04find(t, mp)
		if parked {
			t.Fatalf("%s: findRunnable parked the M; want it to take G 1 from the global queue"+kitHint(l04), setup)
		}
		if gp == nil || gp.goid != 1 || inherit {
			t.Fatalf("%s: findRunnable returned %s (inheritTime=%v), want G 1, the head of the global queue (inheritTime=false)"+kitHint(l04), setup, kitID(gp), inherit)
		}
		if got, want := l04ring(pp), l04ids(2, k-1); !l04same(got, want) {
			t.Fatalf("%s: after findRunnable returned G 1, P0's ring holds %s; want %s: take a batch of min(len(runq)/2, size, size/GOMAXPROCS+1) = %s "+
				"(globrunqgetbatch with n = len(pp.runq)/2), run the first and put the rest on the local ring in order"+kitHint(l04),
				setup, l04list(got), l04list(want), kitCount(int(k), "G"))
		}
		if got, want := l04global(sched), l04ids(int64(k+1), c.size-k); !l04same(got, want) {
			t.Fatalf("%s: after taking a batch of %d, the global queue holds %s, want %s", setup, k, l04list(got), l04list(want))
		}
	}
}

func TestL04Fairness61(t *testing.T) {
	// On two Ps, and on maxProcs: a thirty-third red team's findRunnable
	// skipped the check past 64 Ps, which no world of the tests had.
	for _, c := range []struct {
		tick   uint32
		global bool
		procs  int
	}{
		{0, true, 2}, {61, true, 2}, {122, true, 2}, {61 * 7, true, 2},
		{1, false, 2}, {60, false, 2}, {62, false, 2}, {121, false, 2}, {61*7 + 1, false, 2},
		{61, true, maxProcs}, {61 * 3, true, maxProcs}, {62, false, maxProcs},
	} {
		sched, _ := l04sched(c.procs, 0)
		mp := l04m(sched, 0)
		pp := mp.p
		pp.schedtick.Store(c.tick)
		runqputtail(pp, kitG(sched, 1))
		l04globput(sched, kitG(sched, 100), kitG(sched, 101))
		setup := fmt.Sprintf("%d Ps; P0's ring holds G 1, the global queue G 100 and G 101, P0's schedtick = %d", c.procs, c.tick)

		gp, _, parked := l04find(t, mp)
		if parked {
			t.Fatalf("%s: findRunnable parked the M"+kitHint(l04), setup)
		}
		if c.global {
			if gp == nil || gp.goid != 100 {
				t.Fatalf("%s: findRunnable returned %s, want G 100: when schedtick %% 61 == 0, take one G from the global queue before the local queue, or two Gs that keep respawning each other on the local queue starve the global one forever"+kitHint(l04), setup, kitID(gp))
			}
			if got := l04global(sched); !l04same(got, []int64{101}) {
				t.Fatalf("%s: the fairness check took G 100 and left the global queue as %v, want [101]: it takes one G (globrunqget), not a batch", setup, got)
			}
			if got := l04ring(pp); !l04same(got, []int64{1}) {
				t.Fatalf("%s: after the fairness check P0's ring holds %v, want [1] untouched", setup, got)
			}
		} else {
			if gp == nil || gp.goid != 1 {
				t.Fatalf("%s: findRunnable returned %s, want G 1 from the local queue: only when schedtick %% 61 == 0 does the global queue go first"+kitHint(l04), setup, kitID(gp))
			}
			if got := l04global(sched); len(got) != 2 {
				t.Fatalf("%s: findRunnable returned the local G 1 but the global queue changed to %v", setup, got)
			}
		}
	}

	// Tick 61 with an empty global queue: the local queue, as usual.
	sched, _ := l04sched(2, 0)
	mp := l04m(sched, 0)
	mp.p.schedtick.Store(61)
	runqputtail(mp.p, kitG(sched, 1))
	if gp, _, parked := l04find(t, mp); parked || gp == nil || gp.goid != 1 {
		t.Fatalf("schedtick 61, empty global queue, G 1 on P0's ring: findRunnable returned %s (parked=%v), want G 1"+kitHint(l04), kitID(gp), parked)
	}

	// A tick of 61 again and again while another thread puts a G on P1's
	// ring and takes it back: the global queue still goes first (and P0's
	// ring is never empty, so findRunnable has no reason to look at P1).
	// It is asked by an M as the scheduler makes them (kitRealM), with and
	// without RandomizeScheduler.
	for _, randomize := range []bool{false, true} {
		l04stirredFairness(t, randomize)
	}
}

// l04stirredFairness is TestL04Fairness61's stirred question. The other
// thread moves, in turn: P1's ring (a G put and taken back), the global
// queue (a G of its own pushed onto its back, and taken off, under
// sched.lock), lastpoll (as an M that polled the network sets it), and
// P1's ticks. None of it changes the answer: the global
// queue's head is the G asked about, and P0's ring is never empty.
func l04stirredFairness(t *testing.T, randomize bool) {
	t.Helper()
	sched := kitSched(2, Config{RandomizeScheduler: randomize})
	mp := kitRealM(sched, 0)
	runqputtail(mp.p, kitG(sched, 1))
	p1, g500 := sched.allp[1], kitG(sched, 500)
	global := kitNewGlobalStir(sched, 900000)
	ring := func() {
		runqputtail(p1, g500)
		runqgethead(p1)
	}
	lastpoll := func() { sched.lastpoll.Store(kitClockNow()) } // another M polled the network
	stir := kitStirCycle(append([]func(){ring, global.step, lastpoll}, kitStirTicks(p1)...)...)
	kitStirred(t, l04, fmt.Sprintf("another thread put G 500 on P1's ring and took it back, pushed G 900000 onto the back of the global queue and took it off, moved P1's ticks and set lastpoll as a network poll does, over and over (RandomizeScheduler %v)", randomize), 100, stir, func(i int) string {
		tick := 61 * uint32(i+1)
		mp.p.schedtick.Store(tick)
		want := kitG(sched, int64(1000+i))
		sched.lock.Lock()
		global.settle()
		sched.runq.pushBack(want)
		sched.lock.Unlock()
		if gp, _ := findRunnable(mp); gp != want {
			return fmt.Sprintf("with P0's schedtick %d, G 1 on its ring and G %d at the head of the global queue, findRunnable returned %s, want G %d: when schedtick %% 61 == 0, the global queue goes first", tick, want.goid, kitID(gp), want.goid)
		}
		return ""
	})
}

func TestL04StealHalf(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7, 8, 100, 255, 256} {
		sched, _ := l04sched(2, 0)
		mp := l04m(sched, 0)
		victim := l04busy(sched, 1)
		for _, gp := range kitGs(sched, 1, n) {
			runqputtail(victim, gp)
		}
		victim.runnext.Store(kitG(sched, 999))
		k := n - n/2
		ring := "G 1"
		if n > 1 {
			ring = fmt.Sprintf("G 1..G %d", n)
		}
		setup := fmt.Sprintf("P0's queues and the global queue are empty; busy P1 has %s on its ring and G 999 in runnext", ring)

		gp, inherit, parked := l04find(t, mp)
		if parked {
			t.Fatalf("%s: findRunnable parked the M instead of stealing from P1: after the local and global queues, steal (stealWork, runqsteal)"+kitHint(l04), setup)
		}
		if gp == nil || gp.goid != int64(k) {
			t.Fatalf("%s: findRunnable returned %s, want G %d: runqsteal takes the oldest half (%s, G 1..G %d) and returns the last one taken"+kitHint(l04), setup, kitID(gp), k, kitCount(int(k), "G"), k)
		}
		if inherit {
			t.Fatalf("%s: a stolen G was returned with inheritTime=true; a stolen G starts a new time slice (inheritTime=false)", setup)
		}
		if got, want := l04ring(mp.p), l04ids(1, k-1); !l04same(got, want) {
			t.Fatalf("%s: after the steal P0's ring holds %s, want %s", setup, l04list(got), l04list(want))
		}
		if got, want := l04ring(victim), l04ids(int64(k+1), n-k); !l04same(got, want) {
			t.Fatalf("%s: after the steal P1's ring holds %s, want %s: one steal takes half, from one victim", setup, l04list(got), l04list(want))
		}
		if next := victim.runnext.Load(); next == nil || next.goid != 999 {
			t.Fatalf("%s: P1's runnext is now %s, want G 999: a victim's runnext is taken only when its ring is empty", setup, kitID(next))
		}
		if !mp.spinning || sched.nmspinning.Load() != 1 {
			t.Fatalf("%s: after stealing, mp.spinning = %v and sched.nmspinning = %d; want true and 1: an M that steals is spinning (call mp.becomeSpinning() once the gate shouldSpin lets it)"+kitHint(l04),
				setup, mp.spinning, sched.nmspinning.Load())
		}
		if mp.p.id != 0 {
			t.Fatalf("%s: findRunnable returned holding P%d, want P0 (it had no reason to let P0 go)", setup, mp.p.id)
		}
	}
}

// TestL04RunnextOnlyOnLastPass: a victim's runnext is taken only on the
// last of the stealTries passes, after backing off (usleep) if the victim is
// running.
func TestL04RunnextOnlyOnLastPass(t *testing.T) {
	// A running victim with nothing but runnext: stolen, after one usleep(3).
	sched, sleeps := l04sched(2, 0)
	mp := l04m(sched, 0)
	victim := l04busy(sched, 1)
	victim.runnext.Store(kitG(sched, 7))
	setup := "P0's queues and the global queue are empty; running P1 (_Prunning) has an empty ring and G 7 in runnext"
	gp, inherit, parked := l04find(t, mp)
	if parked {
		t.Fatalf("%s: findRunnable parked the M and left G 7 behind: on the last of the 4 passes, stealWork must call runqsteal with stealRunNextG = true"+kitHint(l04), setup)
	}
	if gp == nil || gp.goid != 7 || inherit {
		t.Fatalf("%s: findRunnable returned %s (inheritTime=%v), want G 7 stolen from runnext (inheritTime=false)"+kitHint(l04), setup, kitID(gp), inherit)
	}
	if n := sleeps.count(); n != 1 {
		t.Fatalf("%s: stealing G 7 called Usleep %s, want once: the thief backs off ~3µs once before taking a running P's runnext", setup, kitCount(int(n), "time"))
	}
	if victim.runnext.Load() != nil {
		t.Fatalf("%s: G 7 was returned but P1's runnext still holds %s", setup, kitID(victim.runnext.Load()))
	}

	// Six running victims with only runnext, one with a G on its ring: the
	// ring is found on the first pass, so no runnext is ever touched. The
	// victim with the ring moves around and the seed changes, so that the
	// thieves' random orders visit runnext victims first many times.
	for trial := 0; trial < 35; trial++ {
		sched, sleeps := l04sched(8, uint64(trial+1))
		mp := l04m(sched, 0)
		ringP := int32(1 + trial%7)
		for id := int32(1); id < 8; id++ {
			pp := l04busy(sched, id)
			if id == ringP {
				runqputtail(pp, kitG(sched, 50))
			} else {
				pp.runnext.Store(kitG(sched, 10+int64(id)))
			}
		}
		setup := fmt.Sprintf("8 Ps, all running; P%d has G 50 on its ring, the 6 others only a G in runnext (G 1x on P x); P0 looks for work (trial %d)", ringP, trial+1)
		gp, _, parked := l04find(t, mp)
		if parked {
			t.Fatalf("%s: findRunnable parked the M"+kitHint(l04), setup)
		}
		if gp == nil || gp.goid != 50 {
			t.Fatalf("%s: findRunnable stole %s, want G 50: runnext may be stolen only on the last of the 4 passes (stealRunNextG = i == stealTries-1), and the first pass finds G 50 on P%d's ring"+kitHint(l04), setup, kitID(gp), ringP)
		}
		if n := sleeps.count(); n != 0 {
			t.Fatalf("%s: findRunnable called Usleep %s before finding G 50: it tried to steal a runnext on an early pass; only the last pass may"+kitHint(l04), setup, kitCount(int(n), "time"))
		}
		for id := int32(1); id < 8; id++ {
			if id != ringP && sched.allp[id].runnext.Load() == nil {
				t.Fatalf("%s: P%d's runnext was taken; runnext is stolen only on the last pass"+kitHint(l04), setup, id)
			}
		}
	}
}

// TestL04IdlePsSkipped: a P in idlepMask is not stolen from.
func TestL04IdlePsSkipped(t *testing.T) {
	// P1 is idle but (against the rules) has Gs: the thief must not look.
	sched, _ := l04sched(2, 0)
	mp := l04m(sched, 0)
	idle := sched.allp[1]
	for _, gp := range kitGs(sched, 1, 4) {
		runqputtail(idle, gp)
	}
	setup := "P1 is idle (on the idle list, in idlepMask) but its ring holds G 1..G 4; P0 has nothing"
	gp, _, parked := l04find(t, mp)
	if !parked {
		t.Fatalf("%s: findRunnable returned %s; want it to park: stealWork skips idle Ps (sched.idlepMask), whose queues are empty by definition"+kitHint(l04), setup, kitID(gp))
	}
	if got := l04ring(idle); !l04same(got, l04ids(1, 4)) {
		t.Fatalf("%s: after findRunnable P1's ring holds %v, want [1 2 3 4] untouched", setup, got)
	}
	if n := sched.nmspinning.Load(); n != 0 {
		t.Fatalf("%s: findRunnable parked the M with sched.nmspinning = %d, want 0: stop spinning before parking"+kitHint(l04), setup, n)
	}

	// With a busy P2 that has work too, the thief takes P2's, every time.
	for trial := 0; trial < 10; trial++ {
		sched, _ := l04sched(3, uint64(trial+1))
		mp := l04m(sched, 0)
		for _, gp := range kitGs(sched, 1, 2) {
			runqputtail(sched.allp[1], gp)
		}
		busy := l04busy(sched, 2)
		runqputtail(busy, kitG(sched, 20))
		gp, _, parked := l04find(t, mp)
		if parked || gp == nil || gp.goid != 20 {
			t.Fatalf("idle P1 holds G 1, G 2 (against the rules), busy P2 holds G 20: findRunnable returned %s (parked=%v), want G 20 from P2: never steal from a P in idlepMask"+kitHint(l04), kitID(gp), parked)
		}
		if got := l04ring(sched.allp[1]); len(got) != 2 {
			t.Fatalf("idle P1 held G 1, G 2 and now holds %v: idle Ps must not be stolen from", got)
		}
	}

	// Only the Ps in idlepMask are skipped, whatever the status of the
	// others. sysmon retook P1 from a system call (_Psyscall to _Pidle) and
	// handoffp is starting an M for the Gs on its ring: P1 is _Pidle, but
	// not on the idle list and not in idlepMask. Until that M runs, a thief
	// may take them.
	sched, _ = l04sched(2, 0)
	mp = l04m(sched, 0)
	retaken := kitTakeP(sched, 1) // _Pidle, off the idle list, out of idlepMask, no M
	for _, gp := range kitGs(sched, 1, 4) {
		runqputtail(retaken, gp)
	}
	// The new M arrives (acquirep) only if this one comes back from giving
	// up a second time: if it skipped P1, it has checkRunqsNoP's P to spin
	// on and P1's Gs to look for, round and round.
	newM := kitNewM(sched)
	stops, arrived := 0, false // only touched on this M's goroutine until it returns
	sched.trace = func(ev Event) {
		if ev.Kind == EvSpinStop {
			if stops++; stops == 2 {
				arrived = true
				acquirep(newM, retaken)
			}
		}
	}
	setup = "P1 was retaken from a system call by sysmon and is being handed off to a new M (status _Pidle, no M yet, but not on the idle list and not in idlepMask) with G 1..G 4 on its ring; P0 has nothing"
	gp, _, parked = l04find(t, mp)
	if parked || gp == nil || gp.goid != 2 || arrived {
		what := fmt.Sprintf("findRunnable returned %s (parked=%v)", kitID(gp), parked)
		if arrived {
			what = fmt.Sprintf("this M gave up (stopSpinning) twice without stealing from P1, until P1's new M took it; then findRunnable returned %s (parked=%v)", kitID(gp), parked)
		}
		t.Fatalf("%s: %s; want G 2, stolen from P1 at once (the older half, G 1 and G 2, returning the last): skip the Ps in sched.idlepMask, not those whose status is _Pidle. "+
			"A P is _Pidle without being idle while it changes hands (retaken from a system call, handed to a new M), and its Gs wait for whoever comes first"+kitHint(l04), setup, what)
	}
}

// TestL04SpinningGate: findRunnable steals only if shouldSpin lets it, and
// counts the M as spinning exactly once.
func TestL04SpinningGate(t *testing.T) {
	// Gate closed: another M spins, 2 Ps are busy (P0, P1), P2 is idle.
	// 2*nmspinning = 2 is not < 2 busy Ps, so this M must not steal.
	sched, _ := l04sched(3, 0)
	mp := l04m(sched, 0)
	victim := l04busy(sched, 1)
	runqputtail(victim, kitG(sched, 1))
	runqputtail(victim, kitG(sched, 2))
	sched.nmspinning.Store(1) // some other M
	setup := "3 Ps: P0 (this M) and P1 busy, P2 idle; another M is spinning (nmspinning = 1); P1 holds G 1, G 2"
	gp, _, parked := l04find(t, mp)
	if !parked {
		t.Fatalf("%s: findRunnable returned %s; want it to park without stealing: 2*nmspinning < GOMAXPROCS-npidle is 2 < 2, false, so shouldSpin says no"+kitHint(l04), setup, kitID(gp))
	}
	if got := l04ring(victim); !l04same(got, []int64{1, 2}) {
		t.Fatalf("%s: P1's ring went from [1 2] to %v although this M may not spin", setup, got)
	}
	if n := sched.nmspinning.Load(); n != 1 || mp.spinning {
		t.Fatalf("%s: after parking, nmspinning = %d and mp.spinning = %v; want 1 (the other M) and false: an M that may not spin must not count itself"+kitHint(l04), setup, n, mp.spinning)
	}

	// Already spinning: the gate always lets a spinning M through, and it is
	// not counted a second time.
	sched, _ = l04sched(3, 0)
	mp = l04m(sched, 0)
	victim = l04busy(sched, 1)
	l04busy(sched, 2)
	runqputtail(victim, kitG(sched, 1))
	mp.spinning = true
	sched.nmspinning.Store(2) // this M and another
	setup = "3 busy Ps; this M is already spinning and so is another (nmspinning = 2); P1 holds G 1"
	gp, _, parked = l04find(t, mp)
	if parked || gp == nil || gp.goid != 1 {
		t.Fatalf("%s: findRunnable returned %s (parked=%v), want G 1: an M that is already spinning may keep spinning (shouldSpin is true for it)"+kitHint(l04), setup, kitID(gp), parked)
	}
	if n := sched.nmspinning.Load(); n != 2 || !mp.spinning {
		t.Fatalf("%s: after the steal nmspinning = %d, mp.spinning = %v; want 2 and true: call becomeSpinning only if the M is not spinning yet (it is counted once)"+kitHint(l04), setup, n, mp.spinning)
	}
}

// TestL04NeedSpinning: when a wakep found no idle P it set needspinning; the
// next M about to give up its P must spin instead, even past the gate.
func TestL04NeedSpinning(t *testing.T) {
	sched, _ := l04sched(3, 0)
	mp := l04m(sched, 0)
	victim := l04busy(sched, 1)
	runqputtail(victim, kitG(sched, 1))
	sched.nmspinning.Store(1) // another M: the gate is closed for this one
	sched.needspinning.Store(1)
	setup := "3 Ps: P0 (this M) and P1 busy, P2 idle; another M spins (nmspinning = 1, so shouldSpin is false for this M); sched.needspinning = 1; P1 holds G 1"
	gp, _, parked := l04find(t, mp)
	if parked {
		t.Fatalf("%s: findRunnable parked the M; want it to become spinning (needspinning = 1: a wakep found no idle P and asked the next M about to release one to spin instead), go back to the top and steal G 1"+kitHint(l04), setup)
	}
	if gp == nil || gp.goid != 1 {
		t.Fatalf("%s: findRunnable returned %s, want G 1"+kitHint(l04), setup, kitID(gp))
	}
	if !mp.spinning || sched.nmspinning.Load() != 2 || sched.needspinning.Load() != 0 {
		t.Fatalf("%s: afterwards mp.spinning = %v, nmspinning = %d, needspinning = %d; want true, 2, 0 (becomeSpinning)", setup, mp.spinning, sched.nmspinning.Load(), sched.needspinning.Load())
	}

	// An M that is already spinning (started spinning by wakep, which does
	// not clear needspinning) does not answer the request: it is already
	// what the request asks for, and counting it again leaves nmspinning one
	// too high for ever.
	sched, _ = l04sched(2, 0)
	mp = l04m(sched, 0)
	l04busy(sched, 1)
	mp.spinning = true
	sched.nmspinning.Store(1) // this M
	sched.needspinning.Store(1)
	var starts atomic.Int32
	sched.trace = func(ev Event) {
		if ev.Kind == EvSpinStart {
			starts.Add(1)
		}
	}
	setup = "2 Ps: P0 (this M) and P1 busy, every queue empty; this M is spinning (nmspinning = 1: it was started spinning by wakep) and sched.needspinning = 1 (an M that stopped spinning earlier found work but no idle P)"
	gp, _, parked = l04find(t, mp)
	if !parked {
		t.Fatalf("%s: findRunnable returned %s; want it to park: there is no work anywhere"+kitHint(l04), setup, kitID(gp))
	}
	if n := sched.nmspinning.Load(); n != 0 || mp.spinning || starts.Load() != 0 {
		t.Fatalf("%s: findRunnable parked the M with nmspinning = %d and mp.spinning = %v, and called becomeSpinning %d time(s) on the way (EvSpinStart); want 0, false and no call. "+
			"This M was already spinning, so it must not answer needspinning: becomeSpinning again counts it twice, its one stopSpinning uncounts it once, and nmspinning stays 1 with nobody spinning (every later wakep then trusts that spinner and wakes nobody). "+
			"Only an M that is not spinning answers the request: !mp.spinning && sched.needspinning.Load() == 1"+kitHint(l04),
			setup, n, mp.spinning, starts.Load())
	}
}

// TestL04RecheckAfterSpinning: work that appears just after the M stops
// spinning (so the submitter saw a spinner and woke nobody) must be found by
// the re-check of every run queue.
func TestL04RecheckAfterSpinning(t *testing.T) {
	sched, _ := l04sched(2, 0)
	mp := l04m(sched, 0)
	victim := l04busy(sched, 1)
	var injected atomic.Bool
	sched.trace = func(ev Event) {
		if ev.Kind == EvSpinStop && injected.CompareAndSwap(false, true) {
			// P1's G readies G 42 onto P1's queue; it saw nmspinning > 0 a
			// moment ago and so woke nobody.
			runqputtail(victim, kitG(sched, 42))
		}
	}
	setup := "P0 (this M) and P1 busy, every queue empty; the moment this M stops spinning (stopSpinning), P1's G puts G 42 on P1's ring"
	gp, _, parked := l04find(t, mp)
	if !injected.Load() {
		t.Fatalf("%s: the M never stopped spinning (no EvSpinStop from stopSpinning); findRunnable returned %s (parked=%v). A spinning M that found nothing must call stopSpinning after releasing its P"+kitHint(l04), setup, kitID(gp), parked)
	}
	if parked {
		t.Fatalf("%s: findRunnable parked the M and G 42 was left with nobody to run it: after stopSpinning, check every P's queue again (checkRunqsNoP); if one has work, take an idle P, become spinning again and start over. Dropping nmspinning first and re-checking second is what makes this safe"+kitHint(l04), setup)
	}
	if gp == nil || gp.goid != 42 {
		t.Fatalf("%s: findRunnable returned %s, want G 42", setup, kitID(gp))
	}
	if mp.p == nil || !mp.spinning || sched.nmspinning.Load() != 1 {
		t.Fatalf("%s: findRunnable returned G 42 with mp.p = %s, mp.spinning = %v, nmspinning = %d; want a P, true, 1: after checkRunqsNoP finds work, acquirep the P it returns and becomeSpinning",
			setup, l04PName(mp.p), mp.spinning, sched.nmspinning.Load())
	}

	// The same moment, but the G lands on the global queue: an M without a
	// P (Runtime.Go from outside, an M leaving a syscall) put it there, and
	// its wakep saw this M spinning and did nothing.
	sched, _ = l04sched(2, 0)
	mp = l04m(sched, 0)
	l04busy(sched, 1)
	g43 := kitG(sched, 43)
	injected.Store(false)
	var late atomic.Bool
	sched.trace = func(ev Event) {
		if ev.Kind != EvSpinStop || !injected.CompareAndSwap(false, true) {
			return
		}
		// sched.lock is free here unless the M called stopSpinning while
		// holding it; then the G can only land after the M lets go (and
		// a real submitter would then see no spinner and wake an M itself),
		// so what the M does next is not graded.
		for k := 0; k < 1000; k++ {
			if sched.lock.TryLock() {
				sched.runq.pushBack(g43)
				sched.lock.Unlock()
				return
			}
			time.Sleep(time.Microsecond)
		}
		late.Store(true)
		go l04globput(sched, g43)
	}
	setup = "P0 (this M) and P1 busy, every queue empty; the moment this M stops spinning (stopSpinning), G 43 lands on the global queue (put there by an M without a P, whose wakep saw this M spinning)"
	gp, _, parked = l04find(t, mp)
	if !injected.Load() {
		t.Fatalf("%s: the M never stopped spinning (no EvSpinStop from stopSpinning); findRunnable returned %s (parked=%v)"+kitHint(l04), setup, kitID(gp), parked)
	}
	if late.Load() {
		return // the M held sched.lock across stopSpinning: see above
	}
	if parked {
		t.Fatalf("%s: findRunnable parked the M and G 43 was left on the global queue with nobody to run it: after stopSpinning, look at the global queue again under sched.lock; if it has work, take an idle P (pidlegetSpinning), "+
			"a batch (globrunqgetbatch, runqputbatch onto that P), acquirep the P, becomeSpinning and return the first G"+kitHint(l04), setup)
	}
	if gp == nil || gp.goid != 43 {
		t.Fatalf("%s: findRunnable returned %s, want G 43", setup, kitID(gp))
	}
	if mp.p == nil || !mp.spinning || sched.nmspinning.Load() != 1 {
		t.Fatalf("%s: findRunnable returned G 43 with mp.p = %s, mp.spinning = %v, nmspinning = %d; want a P, true, 1: take an idle P for it (pidlegetSpinning), acquirep it and becomeSpinning, so that resetspinning wakes a successor",
			setup, l04PName(mp.p), mp.spinning, sched.nmspinning.Load())
	}
}

// TestL04RecheckGlobalUnderLock: a G put on the global queue while the M was
// stealing is found by the re-check under sched.lock before the P is
// released.
func TestL04RecheckGlobalUnderLock(t *testing.T) {
	sched, sleeps := l04sched(2, 0)
	mp := l04m(sched, 0)
	victim := l04busy(sched, 1)
	g7 := kitG(sched, 7)
	victim.runnext.Store(g7)
	sleeps.hook = func(n int) {
		if n == 1 {
			// While the thief backs off, P1 runs G 7 itself, and some G
			// puts G 50 on the global queue.
			victim.runnext.CompareAndSwap(g7, nil)
			l04globput(sched, kitG(sched, 50))
		}
	}
	setup := "running P1 has only G 7 in runnext; while this M backs off before stealing it (Usleep), P1 runs G 7 itself and G 50 lands on the global queue"
	gp, _, parked := l04find(t, mp)
	if sleeps.count() == 0 {
		t.Fatalf("%s: findRunnable returned %s (parked=%v) without ever trying P1's runnext"+kitHint(l04), setup, kitID(gp), parked)
	}
	if parked {
		t.Fatalf("%s: findRunnable parked the M with G 50 on the global queue: before releasing the P, take sched.lock and look at the global queue once more"+kitHint(l04), setup)
	}
	if gp == nil || gp.goid != 50 {
		t.Fatalf("%s: findRunnable returned %s, want G 50", setup, kitID(gp))
	}
}

// TestL04SleepAndStopTheWorld: timers and stop-the-world go through
// findRunnable. Only findRunnable runs due timers (checkTimers) and, with
// nothing else to do, waits for the next one (blockUntilTimer); only an M
// in findRunnable that sees gcwaiting stops its P (gcstopm). On 2 Ps, Gs
// sleep again and again while a G changes GOMAXPROCS (a stop-the-world
// each time): every sleep must end and every G finish.
func TestL04SleepAndStopTheWorld(t *testing.T) {
	const sleepers, naps, resizes = 6, 8, 6
	var woke, resized atomic.Int32
	var inResize atomic.Bool
	rt := New(Config{Procs: 2})
	rt.Go(func(gp *G) {
		var wg WaitGroup
		wg.Add(sleepers)
		for i := 0; i < sleepers; i++ {
			gp.Go(func(gp *G) {
				for k := 0; k < naps; k++ {
					gp.Sleep(time.Duration(100+50*((i+k)%5)) * time.Microsecond)
					woke.Add(1)
				}
				wg.Done(gp)
			})
		}
		for k := 0; k < resizes; k++ {
			inResize.Store(true)
			gp.GOMAXPROCS(1 + k%3)
			inResize.Store(false)
			resized.Add(1)
			gp.Sleep(300 * time.Microsecond)
		}
		wg.Wait(gp)
	})
	done := make(chan error, 1)
	go func() { done <- rt.Wait() }()
	err, ended, stalled, waited := kitAwait(done, func() int64 { return int64(woke.Load() + resized.Load()) }, 20*time.Second)
	if !ended {
		// Left running: a Runtime stuck like this would not close either.
		what := "A sleeping G is woken by its timer, which only findRunnable runs (checkTimers), and an M with nothing else to do must wait for the next timer (blockUntilTimer) before it parks"
		if inResize.Load() {
			what = "A GOMAXPROCS call had not returned: it stops the world, and a running P stops only when its M, in findRunnable, sees sched.gcwaiting and calls gcstopm (then starts over once the world restarts)"
		}
		t.Fatalf("%s sleeping %s each on 2 Ps while another G changed GOMAXPROCS %s: %s, %d of the %s had ended and %d of the %d GOMAXPROCS calls had returned. %s"+kitHint(l04),
			kitCount(int(sleepers), "G"), kitCount(int(naps), "time"), kitCount(int(resizes), "time"), kitStalled(stalled, waited), woke.Load(), kitCount(int(sleepers*naps), "sleep"), resized.Load(), resizes, what)
	}
	rt.Close()
	if err != nil {
		t.Fatalf("%s sleeping %s each on 2 Ps while another G changed GOMAXPROCS: the scheduler stopped with: %v (after %d of %s and %d of %s). "+
			"An M with nothing to do but a timer to wait for must wait for it (blockUntilTimer), not park for good"+kitHint(l04),
			kitCount(int(sleepers), "G"), kitCount(int(naps), "time"), err, woke.Load(), kitCount(int(sleepers*naps), "sleep"), resized.Load(), kitCount(int(resizes), "resize"))
	}
}

// l04coprimes lists the numbers in 1..count coprime with count.
func l04coprimes(count uint32) []uint32 {
	var out []uint32
	for i := uint32(1); i <= count; i++ {
		a, b := i, count
		for b != 0 {
			a, b = b, a%b
		}
		if a == 1 {
			out = append(out, i)
		}
	}
	return out
}

// TestL04StealOrder ports the runtime's RunStealOrderTest: for every count
// 1..64, each enumeration visits every P exactly once; and the start values
// reach every starting P and every coprime increment.
func TestL04StealOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 61))
	var counts []uint32
	for c := uint32(1); c <= 64; c++ {
		counts = append(counts, c)
	}
	for c := 64; c >= 1; c -= 7 {
		counts = append(counts, uint32(c))
	}
	counts = append(counts, 5, 6, 12, 4) // after a bigger count
	var ord randomOrder                  // reset again and again, as procresize does
	var prev uint32                      // the count of the reset before, 0 for none
	for k, count := range counts {
		if k > 0 {
			prev = counts[k-1]
		}
		ord.reset(count)
		coprimes := l04coprimes(count)
		var starts []uint32
		for i := uint32(0); i < count*uint32(len(coprimes))+count; i++ {
			starts = append(starts, i)
		}
		starts = append(starts, math.MaxUint32, math.MaxUint32-1, 1<<31, 1<<31-1)
		for range 40 {
			starts = append(starts, rng.Uint32())
		}
		firsts := map[uint32]bool{}
		incs := map[uint32]bool{}
		seen := make([]int, count)
		for _, i := range starts {
			clear(seen)
			var order []uint32
			for enum := ord.start(i); !enum.done(); enum.next() {
				if len(order) > int(count) {
					t.Fatalf("count %d, start(%d): not done after %s (so far %v)"+kitHint(l04), count, i, kitCount(int(len(order)), "step"), order)
				}
				pos := enum.position()
				if pos >= count {
					t.Fatalf("count %d, start(%d): position %d, want 0..%d (so far %v)"+kitHint(l04), count, i, pos, count-1, order)
				}
				order = append(order, pos)
				seen[pos]++
			}
			for pos, n := range seen {
				if n != 1 {
					times := fmt.Sprintf("visits P %d %s", pos, kitCount(int(n), "time"))
					if n == 0 {
						times = fmt.Sprintf("never visits P %d", pos)
					}
					var hint string
					if len(order) >= 2 {
						hint = fmt.Sprintf(" The step was %d: is it coprime with %d? After reset(%d) the coprimes must be exactly those of %d, none left over from an earlier reset.", (order[1]+count-order[0])%count, count, count, count)
					}
					t.Fatalf("count %d, start(%d): enumeration %v %s; every P must be visited exactly once.%s"+kitHint(l04), count, i, order, times, hint)
				}
			}
			firsts[order[0]] = true
			if count >= 2 {
				incs[(order[1]+count-order[0])%count] = true
			}
		}
		if len(firsts) != int(count) {
			t.Fatalf("count %d: over %d start values the enumerations begin at only %d different Ps; start(i) must be able to begin at any P (i %% count)"+kitHint(l04), count, len(starts), len(firsts))
		}
		// The start is i % count and the step coprimes[i/count % len]: over
		// i = 0 .. count*len(coprimes)-1 every (first P, step) pair comes
		// up exactly once, whatever order reset put the coprimes in. A step
		// drawn from the same low bits of i as the start ties each start to
		// a few steps: thieves that start at the same P then always walk
		// the same way.
		if count >= 2 {
			pairs := map[[2]uint32]uint32{}
			for i := uint32(0); i < count*uint32(len(coprimes)); i++ {
				enum := ord.start(i)
				first := enum.position()
				if first != i%count {
					t.Fatalf("count %d: start(%d) begins at P %d, want P %d = i %% count"+kitHint(l04), count, i, first, i%count)
				}
				enum.next()
				pair := [2]uint32{first, (enum.position() + count - first) % count}
				if j, ok := pairs[pair]; ok {
					if prev >= 1 && !l04RepeatsPair(count) {
						t.Fatalf("count %d: start(%d) and start(%d) both begin at P %d and step by %d, after reset(%d) that followed reset(%d); a fresh randomOrder reset to %d repeats no pair. reset must rebuild the coprimes of the new count from scratch, not add to (or keep) the list an earlier reset made"+kitHint(l04),
							count, j, i, pair[0], pair[1], count, prev, count)
					}
					t.Fatalf("count %d: start(%d) and start(%d) both begin at P %d and step by %d; over i = 0..%d every start P must come with every coprime step once: the step is coprimes[i/count %% len(coprimes)] (i/count, not i), so that it does not depend on the same bits as the start"+kitHint(l04),
						count, j, i, pair[0], pair[1], count*uint32(len(coprimes))-1)
				}
				pairs[pair] = i
			}
		}
		if count >= 2 {
			var missing []string
			for _, c := range coprimes {
				if !incs[c%count] {
					missing = append(missing, fmt.Sprint(c))
				}
			}
			if len(missing) > 0 {
				t.Fatalf("count %d: over %d start values the enumerations never step by %s; the coprimes of %d are %v, and start(i) must be able to pick any of them (coprimes[i/count %% len(coprimes)]), so that thieves starting at the same P spread out differently"+kitHint(l04),
					count, len(starts), strings.Join(missing, ", "), count, coprimes)
			}
		}
	}
}

// l04spinUntil spins the calling G, with safe points, until cond holds or
// the deadline passes; it reports whether cond held. The first G to give up
// sets abort (every spinner then stops) and runs atAbort, to record what
// it saw.
func l04spinUntil(gp *G, deadline time.Time, abort *atomic.Bool, atAbort func(), cond func() bool) bool {
	for i := 0; ; i++ {
		if cond() {
			return true
		}
		if abort.Load() {
			return false
		}
		if i%1024 == 0 && time.Now().After(deadline) {
			if abort.CompareAndSwap(false, true) {
				atAbort()
			}
			return false
		}
		gp.Safepoint()
	}
}

// TestL04Parallelism ports the runtime's TestGoroutineParallelism: P Gs
// started by one G on P Ps must all be running at the same time. Without
// sysmon nothing preempts them, so the only way for all of them to start is
// that the other Ms steal them from the starter's P.
func TestL04Parallelism(t *testing.T) {
	const procs = 4
	for try := 0; try < 3; try++ {
		var started, seen atomic.Int32
		var abort atomic.Bool
		deadline := time.Now().Add(10 * time.Second)
		err := kitRun(t, Config{Procs: procs, NoSysmon: true}, 30*time.Second, func(gp *G) {
			for i := 0; i < procs; i++ {
				gp.Go(func(gp *G) {
					started.Add(1)
					l04spinUntil(gp, deadline, &abort, func() { seen.Store(started.Load()) }, func() bool { return started.Load() == procs })
				})
			}
		})
		if err != nil {
			t.Fatalf("the scheduler stopped with: %v", err)
		}
		if abort.Load() {
			t.Fatalf("try %d: %d CPU-bound Gs started by one G on %s: after 10s only %d of them had started (each spins until all have). The others sat on the starter's P's queue: idle Ms must steal them (findRunnable → stealWork)"+kitHint(l04),
				try+1, procs, kitCount(int(procs), "P"), seen.Load())
		}
	}
}

// TestL04ProducerStolen: one G spawns many Gs and then keeps its P busy
// (no sysmon: it is never preempted). Every G must run exactly once, on the
// other Ps: stolen from the producer's ring, or taken from the global queue
// where a full ring overflows.
func TestL04ProducerStolen(t *testing.T) {
	const rounds, n = 3, 600
	var ran [rounds * n]atomic.Int32
	var finished, seen atomic.Int32
	var abort atomic.Bool
	deadline := time.Now().Add(15 * time.Second)
	err := kitRun(t, Config{Procs: 4, NoSysmon: true, RandomizeScheduler: true}, 40*time.Second, func(gp *G) {
		for r := 0; r < rounds; r++ {
			for i := 0; i < n; i++ {
				idx := r*n + i
				gp.Go(func(gp *G) {
					ran[idx].Add(1)
					finished.Add(1)
				})
			}
			want := int32((r + 1) * n)
			if !l04spinUntil(gp, deadline, &abort, func() { seen.Store(finished.Load()) }, func() bool { return finished.Load() >= want }) {
				return
			}
		}
	})
	if err != nil {
		t.Fatalf("the scheduler stopped with: %v", err)
	}
	if abort.Load() {
		t.Fatalf("a producer G spawned %s in %s of %d, and kept its P busy until each round had run; after 15s only %d of them had run. The rest were left on the producer's ring: other Ms must steal them"+kitHint(l04), kitCount(int(rounds*n), "G"), kitCount(int(rounds), "round"), n, seen.Load())
	}
	for i := range ran {
		if c := ran[i].Load(); c != 1 {
			t.Fatalf("spawned G number %d (round %d) ran %s, want exactly once"+kitHint(l04), i%n+1, i/n+1, kitCount(int(c), "time"))
		}
	}
}

// l04RepeatsPair reports whether a randomOrder fresh from one reset(count)
// has two starts among i = 0 .. count*φ(count)-1 that begin at the same P
// and take the same step (the check above, on a fresh order).
func l04RepeatsPair(count uint32) bool {
	var ord randomOrder
	ord.reset(count)
	seen := map[[2]uint32]bool{}
	for i := uint32(0); i < count*uint32(len(l04coprimes(count))); i++ {
		enum := ord.start(i)
		first := enum.position()
		enum.next()
		pair := [2]uint32{first, (enum.position() + count - first) % count}
		if seen[pair] {
			return true
		}
		seen[pair] = true
	}
	return false
}

// l04PName names pp as a message says it: "P 3", or "nil".
func l04PName(pp *p) string {
	if pp == nil {
		return "nil"
	}
	return fmt.Sprintf("P %d", pp.id)
}
