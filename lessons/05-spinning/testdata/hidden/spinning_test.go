package sched

// Hidden tests of lesson 05-spinning. Messages are written for a learner who
// cannot see this file.
//
// The constructed tests never let a real M run: where wakep must start an
// M, a hand-made M waits on the idle M list (sched.midle), so startm hands
// the P to it and wakes its note, and the test looks at what it was given.

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const l05 = "05-spinning"

// l05take takes P id off the idle list and makes it busy: running, owned
// by a hand-made M that runs a G (kitRunningP).
func l05take(sched *schedt, id int32) *p {
	return kitRunningP(sched, id)
}

// l05m returns an M holding P id, made as the scheduler makes its own
// (kitNewM).
func l05m(sched *schedt, id int32) *m {
	mp := kitNewM(sched)
	acquirep(mp, kitTakeP(sched, id))
	return mp
}

// l05idleM puts a hand-made M on the idle M list, as stopm would; no
// goroutine runs it.
func l05idleM(sched *schedt) *m {
	mp := &m{sched: sched}
	mp.park.init()
	sched.lock.Lock()
	mp.id = sched.mReserveID()
	sched.allm = append(sched.allm, mp)
	sched.mput(mp)
	sched.lock.Unlock()
	return mp
}

// l05woken reports whether someone called notewakeup on mp's park note.
func l05woken(mp *m) bool {
	return len(mp.park.c) == 1
}

// l05state is what wakep and friends may change, for messages.
func l05state(sched *schedt) string {
	sched.lock.Lock()
	defer sched.lock.Unlock()
	return fmt.Sprintf("nmspinning = %d, needspinning = %d, npidle = %d, idle Ms = %d, Ms created = %d",
		sched.nmspinning.Load(), sched.needspinning.Load(), sched.npidle.Load(), sched.nmidle, sched.mnext)
}

func TestL05ShouldSpin(t *testing.T) {
	for _, c := range []struct {
		procs, npidle, nmspinning int32
		spinning, want            bool
	}{
		{1, 0, 0, false, true},  // GOMAXPROCS=1: one spinner is allowed
		{1, 0, 1, false, false}, //
		{4, 0, 0, false, true},  //
		{4, 0, 1, false, true},  // 2 < 4
		{4, 0, 2, false, false}, // 4 < 4 is false: strictly less
		{4, 1, 1, false, true},  // 2 < 3
		{4, 2, 1, false, false}, // 2 < 2
		{4, 4, 0, false, false}, // no busy P: 0 < 0
		{3, 0, 1, false, true},  // 2 < 3
		{3, 0, 2, false, false}, // 4 < 3
		{7, 0, 3, false, true},  // 6 < 7
		{8, 3, 2, false, true},  // 4 < 5
		{8, 3, 3, false, false}, // 6 < 5
		{4, 4, 5, true, true},   // already spinning: always
		{2, 0, 1, true, true},   //
		{1, 1, 1, true, true},   //
	} {
		sched := kitSched(int(c.procs), Config{})
		sched.npidle.Store(c.npidle)
		sched.nmspinning.Store(c.nmspinning)
		mp := &m{sched: sched, spinning: c.spinning}
		got := shouldSpin(mp)
		if got != c.want {
			busy := c.procs - c.npidle
			why := fmt.Sprintf("2*nmspinning < GOMAXPROCS - npidle is %d < %d, %v", 2*c.nmspinning, busy, 2*c.nmspinning < busy)
			if c.spinning {
				why = "an M that is already spinning may always go on"
			}
			t.Fatalf("shouldSpin with GOMAXPROCS %d, npidle %d, nmspinning %d, mp.spinning %v returned %v, want %v: %s"+kitHint(l05),
				c.procs, c.npidle, c.nmspinning, c.spinning, got, c.want, why)
		}
		if sched.nmspinning.Load() != c.nmspinning || mp.spinning != c.spinning {
			t.Fatalf("shouldSpin changed state (nmspinning %d → %d, mp.spinning %v → %v): it only answers the question", c.nmspinning, sched.nmspinning.Load(), c.spinning, mp.spinning)
		}
	}

	// The same question while another thread moves nmspinning and npidle,
	// each between two values for which the answer is the same, asked by
	// an M as the scheduler makes them (kitRealM), with and without
	// RandomizeScheduler.
	for _, c := range []struct {
		procs, npidle, nmspinning int32
		want                      bool
		randomize                 bool
	}{
		{8, 2, 3, false, false}, // 6 < 6, 8 < 6, 6 < 5, 8 < 5: false whatever the M reads
		{8, 2, 1, true, false},  // 2 < 6, 4 < 6, 2 < 5, 4 < 5: true whatever it reads
		{8, 2, 3, false, true},
		{8, 2, 1, true, true},
	} {
		sched := kitSched(int(c.procs), Config{RandomizeScheduler: c.randomize})
		mp := kitRealM(sched, 0)
		sched.npidle.Store(c.npidle)
		sched.nmspinning.Store(c.nmspinning)
		what := fmt.Sprintf("another thread moved nmspinning between %d and %d and npidle between %d and %d, flipped P 7's bit of the idle mask and back, and moved the other Ps' ticks, with GOMAXPROCS %d (RandomizeScheduler %v)", c.nmspinning, c.nmspinning+1, c.npidle, c.npidle+1, c.procs, c.randomize)
		kitStirred(t, l05, what, 200, l05stir(sched), func(int) string {
			if got := shouldSpin(mp); got != c.want {
				return fmt.Sprintf("shouldSpin returned %v, want %v: 2*nmspinning < GOMAXPROCS - npidle is %v for every value the counters held", got, c.want, c.want)
			}
			return ""
		})
	}
}

// l05stir is the stir of shouldSpin's stirred question: nmspinning and
// npidle round their square, P 7's bit of the idle mask flipped and back,
// and every P's ticks, one step at a time. shouldSpin's answer depends
// only on nmspinning, npidle and GOMAXPROCS, and the first two stay
// between values that give the same answer; a twenty-eighth red team's
// took one spinner too many only when the idle mask moved.
func l05stir(sched *schedt) func() {
	nmUp, nmDown := kitStirUpDown(&sched.nmspinning)
	npUp, npDown := kitStirUpDown(&sched.npidle)
	mask := kitStirMask(sched.idlepMask, 7)
	ticks := kitStirTicks(sched.allp...)
	return kitStirCycle(
		nmUp, mask[0], ticks[0],
		npUp, mask[1], ticks[1%len(ticks)],
		nmDown, mask[0], ticks[2%len(ticks)],
		npDown, mask[1], ticks[3%len(ticks)],
	)
}

func TestL05BecomeAndStopSpinning(t *testing.T) {
	sched := kitSched(2, Config{})
	var mu sync.Mutex
	var events []Event
	sched.trace = func(ev Event) {
		mu.Lock()
		events = append(events, ev)
		mu.Unlock()
	}
	lastEvent := func() string {
		mu.Lock()
		defer mu.Unlock()
		if len(events) == 0 {
			return "none"
		}
		ev := events[len(events)-1]
		events = events[:0]
		return fmt.Sprintf("%s by M %d", ev.Kind, ev.M)
	}
	a := &m{sched: sched, id: 7}
	b := &m{sched: sched, id: 8}
	sched.needspinning.Store(1)

	a.becomeSpinning()
	if !a.spinning || sched.nmspinning.Load() != 1 {
		t.Fatalf("M 7 becomeSpinning: mp.spinning = %v, nmspinning = %d; want true, 1"+kitHint(l05), a.spinning, sched.nmspinning.Load())
	}
	if sched.needspinning.Load() != 0 {
		t.Fatalf("M 7 becomeSpinning with needspinning = 1 left needspinning = %d, want 0: a new spinner is what needspinning asked for, so clear it"+kitHint(l05), sched.needspinning.Load())
	}
	if ev := lastEvent(); ev != "SpinStart by M 7" {
		t.Fatalf("M 7 becomeSpinning with sched.trace set emitted %s as its last event, want SpinStart by M 7 (sched.traceEvent(EvSpinStart, ...))", ev)
	}
	b.becomeSpinning()
	if sched.nmspinning.Load() != 2 {
		t.Fatalf("two Ms became spinning; nmspinning = %d, want 2", sched.nmspinning.Load())
	}
	lastEvent()

	stopSpinning(a)
	if a.spinning || sched.nmspinning.Load() != 1 {
		t.Fatalf("stopSpinning(M 7) with two spinners: mp.spinning = %v, nmspinning = %d; want false, 1"+kitHint(l05), a.spinning, sched.nmspinning.Load())
	}
	if ev := lastEvent(); ev != "SpinStop by M 7" {
		t.Fatalf("stopSpinning(M 7) with sched.trace set emitted %s as its last event, want SpinStop by M 7 (sched.traceEvent(EvSpinStop, ...))", ev)
	}
	stopSpinning(b)
	if sched.nmspinning.Load() != 0 {
		t.Fatalf("both spinners stopped; nmspinning = %d, want 0", sched.nmspinning.Load())
	}

	// An M uncounted twice: nmspinning would go negative. That is a broken
	// scheduler, and stopSpinning must say so at once.
	c := &m{sched: sched, id: 9, spinning: true}
	panicked := func() (p bool) {
		defer func() { p = recover() != nil }()
		stopSpinning(c)
		return false
	}()
	if !panicked {
		t.Fatalf("stopSpinning with nmspinning already 0 returned normally (nmspinning is now %d); it must panic: a negative count means some M was uncounted twice, and every later wakep would go wrong"+kitHint(l05), sched.nmspinning.Load())
	}
}

func TestL05WakepNoIdleP(t *testing.T) {
	// Every P busy: wakep can start nobody.
	sched := kitSched(2, Config{})
	l05take(sched, 0)
	l05take(sched, 1)
	idle := l05idleM(sched)
	wakep(sched)
	if n := sched.nmspinning.Load(); n != 0 {
		t.Fatalf("wakep with no idle P (both Ps busy) left nmspinning = %d, want 0: it claimed a spinner with the CAS 0→1, found no P, and must give the claim back (%s)"+kitHint(l05), n, l05state(sched))
	}
	if sched.needspinning.Load() != 1 {
		t.Fatalf("wakep with no idle P left needspinning = 0, want 1: take the P with pidlegetSpinning, which asks the next M that releases a P to spin instead (%s)"+kitHint(l05), l05state(sched))
	}
	if l05woken(idle) || idle.nextp != nil {
		t.Fatalf("wakep with no idle P woke an idle M (nextp %v): there is no P for it", idle.nextp != nil)
	}

	// Someone already spinning: wakep leaves it to them.
	sched = kitSched(3, Config{})
	l05take(sched, 0)
	l05take(sched, 1)
	idle = l05idleM(sched)
	sched.nmspinning.Store(1)
	wakep(sched)
	if sched.nmspinning.Load() != 1 || sched.npidle.Load() != 1 || l05woken(idle) || sched.needspinning.Load() != 0 {
		t.Fatalf("wakep while another M spins (nmspinning = 1) with P2 idle must do nothing: that spinner will find the work. Afterwards: %s, idle M woken = %v"+kitHint(l05), l05state(sched), l05woken(idle))
	}
}

func TestL05WakepStartsOneM(t *testing.T) {
	sched := kitSched(3, Config{})
	l05take(sched, 0)
	m1 := l05idleM(sched)
	m2 := l05idleM(sched)
	created := sched.mnext
	setup := "P0 busy, P1 and P2 idle, two idle Ms, nobody spinning"

	wakep(sched)
	var started, other *m
	switch {
	case l05woken(m1) && !l05woken(m2):
		started, other = m1, m2
	case l05woken(m2) && !l05woken(m1):
		started, other = m2, m1
	default:
		t.Fatalf("%s: after wakep, idle M woken: %v and %v; want exactly one woken (startm with an idle P). Now %s"+kitHint(l05), setup, l05woken(m1), l05woken(m2), l05state(sched))
	}
	if n := sched.nmspinning.Load(); n != 1 {
		t.Fatalf("%s: after wakep, nmspinning = %d, want 1: the CAS 0→1 counts the new M as spinning before it starts"+kitHint(l05), setup, n)
	}
	pp := started.nextp
	if pp == nil || pp.id == 0 {
		t.Fatalf("%s: wakep woke an M with nextp = %v, want P1 or P2, an idle P"+kitHint(l05), setup, pidOf(pp))
	}
	if !started.spinning {
		t.Fatalf("%s: wakep woke an M with mp.spinning = false, but nmspinning counts it: start it spinning (startm(sched, pp, true, false))"+kitHint(l05), setup)
	}
	if sched.npidle.Load() != 1 || sched.idlepMask.read(pp.id) {
		t.Fatalf("%s: wakep handed P%d to an M but %s, P%d in idlepMask = %v: take the P off the idle list (pidlegetSpinning)", setup, pp.id, l05state(sched), pp.id, sched.idlepMask.read(pp.id))
	}
	if sched.mnext != created {
		t.Fatalf("%s: wakep created %d new Ms although an idle one was there", setup, sched.mnext-created)
	}

	// A second wakep: the new M will spin; nobody else is needed.
	wakep(sched)
	if l05woken(other) || sched.nmspinning.Load() != 1 || sched.npidle.Load() != 1 {
		t.Fatalf("%s: a second wakep, while the first M is still counted as spinning, woke another M = %v; %s. wakep acts only if it wins the CAS of nmspinning from 0 to 1"+kitHint(l05),
			setup, l05woken(other), l05state(sched))
	}

	// Many wakeps at once: still exactly one M starts.
	for try := 0; try < 20; try++ {
		sched := kitSched(5, Config{})
		l05take(sched, 0)
		var ms []*m
		for i := 0; i < 4; i++ {
			ms = append(ms, l05idleM(sched))
		}
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := 0; i < 16; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				wakep(sched)
			}()
		}
		close(start)
		wg.Wait()
		woken := 0
		for _, mp := range ms {
			if l05woken(mp) {
				woken++
			}
		}
		if woken != 1 || sched.nmspinning.Load() != 1 || sched.npidle.Load() != 3 {
			t.Fatalf("16 goroutines called wakep at once (4 idle Ps, 4 idle Ms, nobody spinning): %s were started and %s; want exactly 1 M, nmspinning 1, npidle 3. Only the winner of the CAS of nmspinning 0→1 may start an M"+kitHint(l05),
				kitCount(int(woken), "M"), l05state(sched))
		}
	}

	l05stirredWakep(t)
}

func TestL05ResetSpinning(t *testing.T) {
	sched := kitSched(3, Config{})
	mp := l05m(sched, 0)
	mp.spinning = true
	sched.nmspinning.Store(1)
	idle := l05idleM(sched)
	setup := "a spinning M (nmspinning = 1) on P0 found a G; P1, P2 idle; one idle M"
	resetspinning(mp)
	if mp.spinning {
		t.Fatalf("%s: after resetspinning, mp.spinning is still true"+kitHint(l05), setup)
	}
	if !l05woken(idle) || sched.nmspinning.Load() != 1 || !idle.spinning {
		t.Fatalf("%s: after resetspinning, the idle M was woken = %v (spinning = %v) and %s; want it woken, spinning, nmspinning 1. resetspinning stops spinning first, then calls wakep: there may be more work where this G came from, and with nmspinning back at 0 wakep can start the next spinner"+kitHint(l05),
			setup, l05woken(idle), idle.spinning, l05state(sched))
	}

	sched = kitSched(1, Config{})
	mp = l05m(sched, 0)
	mp.spinning = true
	sched.nmspinning.Store(1)
	resetspinning(mp)
	if mp.spinning || sched.nmspinning.Load() != 0 || sched.needspinning.Load() != 1 {
		t.Fatalf("a spinning M on the only P found a G; after resetspinning mp.spinning = %v and %s; want false, nmspinning 0, needspinning 1 (its wakep found no idle P)"+kitHint(l05),
			mp.spinning, l05state(sched))
	}
}

func TestL05CheckRunqsNoP(t *testing.T) {
	// 3 Ps: P0 and P1 busy, P2 idle.
	build := func() *schedt {
		sched := kitSched(3, Config{})
		l05take(sched, 0)
		l05take(sched, 1)
		return sched
	}
	setup := "P0 and P1 busy, P2 idle"

	sched := build()
	if pp := checkRunqsNoP(sched, sched.allp, sched.idlepMask); pp != nil {
		t.Fatalf("%s, every queue empty: checkRunqsNoP returned P%d, want nil"+kitHint(l05), setup, pp.id)
	}
	if sched.npidle.Load() != 1 || sched.needspinning.Load() != 0 {
		t.Fatalf("%s, every queue empty: checkRunqsNoP changed the scheduler: %s", setup, l05state(sched))
	}

	for _, where := range []string{"P1's ring", "P1's runnext", "P0's ring"} {
		sched := build()
		gp := kitG(sched, 1)
		switch where {
		case "P1's ring":
			runqputtail(sched.allp[1], gp)
		case "P1's runnext":
			sched.allp[1].runnext.Store(gp)
		case "P0's ring":
			runqputtail(sched.allp[0], gp)
		}
		pp := checkRunqsNoP(sched, sched.allp, sched.idlepMask)
		if pp == nil {
			t.Fatalf("%s, G 1 in %s: checkRunqsNoP returned nil; want the idle P2, so that the M can go back to spinning and fetch G 1 (runqempty counts runnext too)"+kitHint(l05), setup, where)
		}
		if pp.id != 2 {
			t.Fatalf("%s, G 1 in %s: checkRunqsNoP returned P%d; want P2, an idle P taken off the idle list (pidlegetSpinning), not the P that has the work"+kitHint(l05), setup, where, pp.id)
		}
		if sched.npidle.Load() != 0 || sched.pidle != nil || sched.idlepMask.read(2) {
			t.Fatalf("%s, G 1 in %s: checkRunqsNoP returned P2 but left it on the idle list (%s, P2 in idlepMask = %v): take it with pidlegetSpinning under sched.lock", setup, where, l05state(sched), sched.idlepMask.read(2))
		}
	}

	// Work, but no idle P: nothing to run it with.
	sched = build()
	l05take(sched, 2)
	runqputtail(sched.allp[1], kitG(sched, 1))
	if pp := checkRunqsNoP(sched, sched.allp, sched.idlepMask); pp != nil {
		t.Fatalf("all 3 Ps busy, G 1 on P1's ring: checkRunqsNoP returned P%d, want nil (no idle P to take)"+kitHint(l05), pp.id)
	}
	if sched.needspinning.Load() != 1 {
		t.Fatal("all 3 Ps busy, G 1 on P1's ring: checkRunqsNoP found no idle P and left needspinning = 0, want 1 (pidlegetSpinning): the next M to release a P must spin" + kitHint(l05))
	}

	// Only the snapshots count: the caller took them before releasing its
	// P, and allp may have changed since.
	sched = build()
	runqputtail(sched.allp[1], kitG(sched, 1))
	if pp := checkRunqsNoP(sched, sched.allp[:1], sched.idlepMask); pp != nil {
		t.Fatalf("G 1 on P1's ring, but allpSnapshot holds only P0: checkRunqsNoP returned P%d, want nil: look only at the Ps in allpSnapshot"+kitHint(l05), pp.id)
	}
	snap := make(pMask, 1)
	snap.set(1)
	snap.set(2)
	if pp := checkRunqsNoP(sched, sched.allp, snap); pp != nil {
		t.Fatalf("G 1 on P1's ring, but idlepMaskSnapshot says P1 was idle: checkRunqsNoP returned P%d, want nil: skip the Ps idle in idlepMaskSnapshot (not the live sched.idlepMask)"+kitHint(l05), pp.id)
	}
	if sched.npidle.Load() != 1 {
		t.Fatalf("checkRunqsNoP returned nil but took an idle P anyway: %s", l05state(sched))
	}

	l05stirredNoP(t)
}

// l05quiet waits until every M but sysmon is parked on the idle list, and
// returns what it saw then.
func l05quiet(t *testing.T, sched *schedt) (nmspinning, npidle, gomaxprocs int32, ok bool) {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		sched.lock.Lock()
		idle := sched.nmidle == int32(sched.mnext)-sched.nmsys
		nmspinning, npidle, gomaxprocs = sched.nmspinning.Load(), sched.npidle.Load(), sched.gomaxprocs.Load()
		sched.lock.Unlock()
		if idle {
			return nmspinning, npidle, gomaxprocs, true
		}
		time.Sleep(time.Millisecond)
	}
	return nmspinning, npidle, gomaxprocs, false
}

// TestL05NoLeakedSpinners: after a burst of work, when every M has gone
// idle, no M can be spinning, so nmspinning must be 0. A leaked count makes
// every later wakep think someone is already looking for work.
func TestL05NoLeakedSpinners(t *testing.T) {
	kitPreempted(t)
	for round := 0; round < 4; round++ {
		cfg := Config{Procs: 4, RandomizeScheduler: round%2 == 1}
		rt := New(cfg)
		const n = 300
		var ran atomic.Int32
		rt.Go(func(gp *G) {
			var wg WaitGroup
			wg.Add(2 * n)
			for i := 0; i < n; i++ {
				gp.Go(func(gp *G) {
					ran.Add(1)
					if i%5 == 0 {
						gp.Gosched()
					}
					gp.Go(func(gp *G) {
						ran.Add(1)
						wg.Done(gp)
					})
					wg.Done(gp)
				})
			}
			wg.Wait(gp)
		})
		done := make(chan error, 1)
		go func() { done <- rt.Wait() }()
		err, ended, stalled, waited := kitAwait(done, func() int64 { return int64(ran.Load()) }, 30*time.Second)
		if !ended {
			t.Fatalf("round %d: %s spawning %d more had not finished %s (%d ran): did a wakep never start an M (nmspinning stuck above 0?)"+kitHint(l05), round+1, kitCount(int(n), "G"), n, kitStalled(stalled, waited), ran.Load())
		}
		if err != nil {
			rt.Close()
			t.Fatalf("round %d: the scheduler stopped with: %v", round+1, err)
		}
		nmspinning, npidle, gomaxprocs, quiet := l05quiet(t, rt.sched)
		rt.Close()
		if !quiet {
			t.Fatalf("round %d: all Gs finished, but 10s later some M had still not gone idle (nmspinning = %d): a spinning M that never stops?"+kitHint(l05), round+1, nmspinning)
		}
		if nmspinning != 0 {
			t.Fatalf("round %d: all Gs finished and every M is parked, but sched.nmspinning = %d, want 0: some path counted a spinning M and never uncounted it (wakep that found no idle P? stopSpinning?)"+kitHint(l05), round+1, nmspinning)
		}
		if npidle != gomaxprocs {
			t.Fatalf("round %d: every M is parked but only %d of %s are idle", round+1, npidle, kitCount(int(gomaxprocs), "P"))
		}
	}
}

// TestL05Parallelism: P CPU-bound Gs on P Ps all run at once. Without
// sysmon nothing preempts them: each new G must get its own M, started by
// wakep when it is created, or by resetspinning when a spinner finds work.
func TestL05Parallelism(t *testing.T) {
	const procs = 4
	for _, shape := range []string{"fan-out", "chain"} {
		for try := 0; try < 2; try++ {
			var started, seen atomic.Int32
			var abort atomic.Bool
			deadline := time.Now().Add(10 * time.Second)
			spin := func(gp *G) {
				for i := 0; started.Load() != procs; i++ {
					if abort.Load() {
						return
					}
					if i%1024 == 0 && time.Now().After(deadline) {
						if abort.CompareAndSwap(false, true) {
							seen.Store(started.Load())
						}
						return
					}
					gp.Safepoint()
				}
			}
			var chain func(k int) func(*G)
			chain = func(k int) func(*G) {
				return func(gp *G) {
					started.Add(1)
					if k < procs {
						gp.Go(chain(k + 1))
					}
					spin(gp)
				}
			}
			err := kitRun(t, Config{Procs: procs, NoSysmon: true}, 30*time.Second, func(gp *G) {
				if shape == "chain" {
					gp.Go(chain(1))
					return
				}
				for i := 0; i < procs; i++ {
					gp.Go(func(gp *G) {
						started.Add(1)
						spin(gp)
					})
				}
			})
			if err != nil {
				t.Fatalf("the scheduler stopped with: %v", err)
			}
			if abort.Load() {
				how := "one G started all 4"
				if shape == "chain" {
					how = "each G started the next, then spun"
				}
				t.Fatalf("%d CPU-bound Gs on %s (%s): after 10s only %d of them had started (each spins until all have). Each new G calls wakep, which must start a spinning M when a P is idle and nobody spins; a spinner that finds work calls wakep again (resetspinning)"+kitHint(l05),
					procs, kitCount(int(procs), "P"), how, seen.Load())
			}
		}
	}
}
