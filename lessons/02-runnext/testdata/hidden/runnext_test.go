package sched

// Hidden tests of lesson 02-runnext. Messages are written for a learner
// who cannot see this file.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const l02 = "02-runnext"

// l02ring lists the Gs on pp's ring, head to tail, without taking them.
func l02ring(pp *p) []*g {
	var out []*g
	for i := pp.runqhead.Load(); i != pp.runqtail.Load(); i++ {
		out = append(out, kitRawSlot(&pp.runq[i%uint32(len(pp.runq))]).Load())
	}
	return out
}

// l02ids formats Gs for messages: "[G 1 G 3]".
func l02ids(gs []*g) string {
	s := make([]string, len(gs))
	for i, gp := range gs {
		s[i] = kitID(gp)
	}
	return "[" + strings.Join(s, " ") + "]"
}

// l02state describes pp's run queue for messages.
func l02state(pp *p) string {
	return fmt.Sprintf("runnext = %s, ring = %s", kitID(pp.runnext.Load()), l02ids(l02ring(pp)))
}

// l02expect fails unless pp holds exactly runnext and ring.
func l02expect(t *testing.T, pp *p, what, why string, next *g, ring []*g) {
	t.Helper()
	if pp.runnext.Load() != next || !slices.Equal(l02ring(pp), ring) {
		t.Fatalf("after %s: %s; want runnext = %s, ring = %s (%s)"+kitHint(l02), what, l02state(pp), kitID(next), l02ids(ring), why)
	}
}

func TestL02PutNext(t *testing.T) {
	sched := kitSched(1, Config{})
	pp := sched.allp[0]
	gs := kitGs(sched, 1, 5)
	a, b, c, d := gs[0], gs[1], gs[2], gs[3]

	runqput(pp, a, true)
	l02expect(t, pp, "runqput(G 1, next=true) on an empty P", "next=true puts the G in runnext", a, nil)
	runqput(pp, b, true)
	l02expect(t, pp, "runqput(G 1, next=true), runqput(G 2, next=true)", "the new G takes runnext and the old one is kicked to the ring's tail", b, []*g{a})
	runqput(pp, c, false)
	l02expect(t, pp, "then runqput(G 3, next=false)", "next=false goes to the ring's tail and leaves runnext alone", b, []*g{a, c})
	runqput(pp, d, true)
	l02expect(t, pp, "then runqput(G 4, next=true)", "G 2 is kicked to the TAIL of the ring, behind G 1 and G 3", d, []*g{a, c, b})
	if !sched.runq.empty() {
		t.Fatalf("four puts on an empty P sent Gs to the global queue")
	}

	// next=false on a P with an empty runnext uses the ring only.
	sched = kitSched(1, Config{})
	pp = sched.allp[0]
	x := kitG(sched, 9)
	runqput(pp, x, false)
	l02expect(t, pp, "runqput(G 9, next=false) on an empty P", "next=false never uses runnext", nil, []*g{x})

	// The kicked G goes through runqputtail: onto a full ring, that sends
	// half the ring plus the kicked G to the global queue.
	sched = kitSched(1, Config{})
	pp = sched.allp[0]
	ring := kitGs(sched, 1, 256)
	for _, gp := range ring {
		runqputtail(pp, gp)
	}
	old, nw := kitG(sched, 1000), kitG(sched, 1001)
	runqput(pp, old, true)
	runqput(pp, nw, true)
	if pp.runnext.Load() != nw {
		t.Fatalf("with a full ring, runqput(G 1000, next=true) then runqput(G 1001, next=true): runnext = %s, want G 1001", kitID(pp.runnext.Load()))
	}
	if got := sched.runq.size; got != 129 {
		t.Fatalf("with a full ring, the kicked runnext G 1000 must be put with runqputtail, which moves 128 Gs plus G 1000 to the global queue; the global queue holds %s, want 129"+kitHint(l02), kitCount(int(got), "G"))
	}
	if tail := sched.runq.tail; tail != old {
		t.Fatalf("with a full ring, kicking G 1000 out of runnext: the global queue's last G is %s, want G 1000 (runqputtail moves the 128 oldest and then the G being put)", kitID(tail))
	}
}

func TestL02GetOrder(t *testing.T) {
	sched := kitSched(1, Config{})
	pp := sched.allp[0]
	gs := kitGs(sched, 1, 4)
	runqput(pp, gs[0], true)  // runnext 1
	runqput(pp, gs[1], true)  // runnext 2, ring [1]
	runqput(pp, gs[2], false) // ring [1 3]
	runqput(pp, gs[3], true)  // runnext 4, ring [1 3 2]
	want := []struct {
		gp      *g
		inherit bool
	}{{gs[3], true}, {gs[0], false}, {gs[2], false}, {gs[1], false}}
	for i, w := range want {
		before := l02state(pp)
		gp, inherit := runqget(pp)
		if gp != w.gp {
			t.Fatalf("runqget #%d with %s returned %s, want %s (runnext first, then the ring from its head)"+kitHint(l02), i+1, before, kitID(gp), kitID(w.gp))
		}
		if inherit != w.inherit {
			t.Fatalf("runqget #%d returned %s with inheritTime = %v, want %v: only a G taken from runnext inherits the time slice"+kitHint(l02), i+1, kitID(gp), inherit, w.inherit)
		}
		if i == 0 && pp.runnext.Load() != nil {
			t.Fatalf("runqget took G 4 from runnext but left runnext = %s: it must be emptied (CompareAndSwap it to nil)", kitID(pp.runnext.Load()))
		}
	}
	if gp, inherit := runqget(pp); gp != nil || inherit {
		t.Fatalf("runqget on an empty P returned (%s, %v), want (nil, false)", kitID(gp), inherit)
	}

	// runnext only.
	x := kitG(sched, 7)
	pp.runnext.Store(x)
	if gp, inherit := runqget(pp); gp != x || !inherit {
		t.Fatalf("runqget with only runnext = G 7 set returned (%s, %v), want (G 7, true)", kitID(gp), inherit)
	}
	if gp, _ := runqget(pp); gp != nil {
		t.Fatalf("runqget after taking runnext G 7 returned %s, want nil: runnext must be emptied when taken", kitID(gp))
	}

	// A runnext set after the ring filled still runs first.
	for _, gp := range kitGs(sched, 20, 3) {
		runqput(pp, gp, false)
	}
	y := kitG(sched, 30)
	runqput(pp, y, true)
	if gp, inherit := runqget(pp); gp != y || !inherit {
		t.Fatalf("runqget with ring [G 20 G 21 G 22] and runnext G 30 returned (%s, %v), want (G 30, true): runnext runs before the ring"+kitHint(l02), kitID(gp), inherit)
	}
}

func TestL02NoSysmon(t *testing.T) {
	for i, randomize := range []bool{false, true, false, true} {
		sched := kitSched(1, Config{NoSysmon: true, RandomizeScheduler: randomize})
		pp := sched.allp[0]
		if i >= 2 {
			// The P's owner, as runqput's caller always is in a running
			// scheduler: an M running a G (a thirty-second red team's
			// runqput ignored NoSysmon on a P with an M).
			pp = kitRunningP(sched, 0)
		}
		gs := kitGs(sched, 1, 40)
		for i, gp := range gs {
			runqput(pp, gp, i%4 != 3)
			if next := pp.runnext.Load(); next != nil {
				t.Fatalf("Config{NoSysmon: true, RandomizeScheduler: %v}: after runqput(%s, next=%v), runnext = %s; without sysmon runnext must never be used (nothing would preempt a pair sharing a time slice), next=true goes to the ring's tail"+kitHint(l02), randomize, kitID(gp), i%4 != 3, kitID(next))
			}
		}
		if ring := l02ring(pp); !slices.Equal(ring, gs) {
			t.Fatalf("Config{NoSysmon: true}: after runqput of G 1..G 40 (mostly next=true), ring = %s, want G 1..G 40 in order", l02ids(ring))
		}
		for _, want := range gs {
			gp, inherit := runqget(pp)
			if gp != want || inherit {
				t.Fatalf("Config{NoSysmon: true}: runqget returned (%s, %v), want (%s, false)", kitID(gp), inherit, kitID(want))
			}
		}
	}
}

func TestL02Randomize(t *testing.T) {
	l02randomize(t, false)
	// Again on a P owned by an M running a G, as runqput's caller always
	// is in a running scheduler (a thirty-second red team's runqput flipped
	// the coin only on a P with no M: **new** in December 2026).
	l02randomize(t, true)
}

func l02randomize(t *testing.T, owned bool) {
	t.Helper()
	const n = 1000
	sched := kitSched(1, Config{RandomizeScheduler: true, Seed: 4242})
	pp := sched.allp[0]
	if owned {
		pp = kitRunningP(sched, 0)
	}
	inRunnext := 0
	for i := 0; i < n; i++ {
		gp := kitG(sched, int64(i+1))
		runqput(pp, gp, true)
		next, ring := pp.runnext.Load(), l02ring(pp)
		switch {
		case next == gp && len(ring) == 0:
			inRunnext++
		case next == nil && len(ring) == 1 && ring[0] == gp:
		default:
			t.Fatalf("RandomizeScheduler: runqput(%s, next=true) on an empty P left %s; want the G in runnext or on the ring, exactly once", kitID(gp), l02state(pp))
		}
		if got, inherit := runqget(pp); got != gp || inherit != (next == gp) {
			t.Fatalf("RandomizeScheduler: runqget after runqput(%s, next=true) returned (%s, %v), want (%s, %v)", kitID(gp), kitID(got), inherit, kitID(gp), next == gp)
		}
	}
	// A fair coin lands between 350 and 650 times in 1000 throws except
	// with probability about 1e-21.
	if inRunnext < 350 || inRunnext > 650 {
		t.Fatalf("RandomizeScheduler: %d of %d runqput(next=true) used runnext%s, want about half: with RandomizeScheduler, skip runnext when pp.rand.n(2) == 0 (and only then), whoever owns the P"+kitHint(l02), inRunnext, n, l02owner(owned))
	}

	// next=false never uses runnext, randomized or not.
	for i := 0; i < 100; i++ {
		gp := kitG(sched, int64(5000+i))
		runqput(pp, gp, false)
		if pp.runnext.Load() != nil {
			t.Fatalf("RandomizeScheduler: runqput(%s, next=false) put a G in runnext; randomization may only turn next=true into false", kitID(gp))
		}
		runqget(pp)
	}

	// Many puts in a row: every G ends up queued exactly once.
	gs := kitGs(sched, 10000, 200)
	for _, gp := range gs {
		runqput(pp, gp, true)
	}
	all := l02ring(pp)
	if next := pp.runnext.Load(); next != nil {
		all = append(all, next)
	}
	slices.SortFunc(all, func(x, y *g) int { return int(x.goid - y.goid) })
	if !slices.Equal(all, gs) {
		t.Fatalf("RandomizeScheduler: after 200 runqput(next=true) in a row, runnext and the ring hold %s, want each of the 200 exactly once (%s)", kitCount(int(len(all)), "G"), l02state(pp))
	}
}

func TestL02Empty(t *testing.T) {
	sched := kitSched(1, Config{})
	pp := sched.allp[0]
	if !runqempty(pp) {
		t.Fatalf("runqempty of a new P = false, want true")
	}
	a, b := kitG(sched, 1), kitG(sched, 2)
	pp.runnext.Store(a)
	if runqempty(pp) {
		t.Fatal("runqempty with an empty ring but G 1 in runnext = true, want false: runnext counts" + kitHint(l02))
	}
	if pp.runnext.Load() != a {
		t.Fatalf("runqempty changed runnext from G 1 to %s: it must only look", kitID(pp.runnext.Load()))
	}
	runqputtail(pp, b)
	if runqempty(pp) {
		t.Fatalf("runqempty with G 1 in runnext and G 2 on the ring = true, want false")
	}
	pp.runnext.Store(nil)
	if runqempty(pp) {
		t.Fatalf("runqempty with G 2 on the ring (runnext nil) = true, want false")
	}
	runqgethead(pp)
	if !runqempty(pp) {
		t.Fatalf("runqempty after taking the only G = false, want true")
	}

	// Across the uint32 wrap-around of head and tail.
	pp.runqhead.Store(math.MaxUint32)
	pp.runqtail.Store(math.MaxUint32)
	if !runqempty(pp) {
		t.Fatalf("runqempty with runqhead = runqtail = MaxUint32 = false, want true")
	}
	runqputtail(pp, a)
	runqputtail(pp, b)
	if runqempty(pp) {
		t.Fatalf("runqempty with 2 Gs on a ring whose tail wrapped to 1 = true, want false")
	}
}

// TestL02EmptyWhileKicked ports the runtime's RunSchedLocalQueueEmptyTest
// (export_test.go:169): the owner always has at least one G queued, but
// moves Gs between runnext and the ring while another thread asks
// runqempty.
func TestL02EmptyWhileKicked(t *testing.T) {
	iters := 4000
	if testing.Short() {
		iters = 500
	}
	sched := kitSched(1, Config{})
	pp := sched.allp[0]
	gs := kitGs(sched, 1, 2)
	var ready atomic.Int32
	result := make(chan bool, 1)
	spin := func() {
		ready.Add(1)
		for k := 0; ready.Load() != 2; k++ {
			if k > 1000 {
				runtime.Gosched()
			}
		}
	}
	for i := 0; i < iters; i++ {
		ready.Store(0)
		next0 := i&1 == 0
		next1 := i&2 == 0
		runqput(pp, gs[0], next0)
		go func() {
			spin()
			result <- runqempty(pp)
		}()
		spin()
		runqput(pp, gs[1], next1)
		runqget(pp)
		if <-result {
			t.Fatalf("iteration %d: runqempty returned true while the P always held at least one G (runqput(G 1, next=%v), then concurrently runqput(G 2, next=%v) and runqget); a G kicked from runnext to the ring can be missed by reading the ring, then runnext: re-read runqtail after runnext and retry if it moved"+kitHint(l02), i, next0, next1)
		}
		if gp, _ := runqget(pp); gp == nil {
			t.Fatalf("iteration %d: after runqput(G 1, next=%v), runqput(G 2, next=%v) and one runqget, the second runqget returned nil, want the other G", i, next0, next1)
		}
		if !runqempty(pp) {
			t.Fatalf("iteration %d: runqempty after taking both Gs = false (%s)", i, l02state(pp))
		}
	}

	// The same race without the pause between rounds, for half a second
	// (every order of it, with at most one preemption, is a scenario of
	// TestL02Explore: this is the same race on real threads): one
	// thread asks runqempty over and over while the owner, on another,
	// moves its G from runnext to the ring and runs the new runnext, round
	// after round, with the fewest steps between its store of the tail and
	// its emptying of runnext (the runqput and runqget of the runtime's test,
	// written out on the fields). The P always holds a G. A runqempty that
	// reads head and tail, then runnext, and trusts them answers "empty"
	// when both moves fall between its two reads: in 60 runs of 2s on a
	// loaded 2-CPU machine, under -race or not, that happened every time.
	l02emptyNeverLies(t, 500*time.Millisecond)
}

// l02emptyNeverLies runs the owner's rounds on the test's goroutine and
// runqempty on another until d has passed or runqempty said "empty".
func l02emptyNeverLies(t *testing.T, d time.Duration) {
	t.Helper()
	sched := kitSched(1, Config{})
	pp := sched.allp[0]
	cur, other := kitG(sched, 1), kitG(sched, 2)
	pp.runnext.Store(cur)
	var stop atomic.Bool
	var lie atomic.Pointer[string]
	var ready atomic.Int32
	done := make(chan struct{})
	go func() {
		defer close(done)
		ready.Add(1)
		for k := 0; ready.Load() != 2; k++ {
			if k > 1000 {
				runtime.Gosched()
			}
		}
		for !stop.Load() {
			if runqempty(pp) {
				msg := l02state(pp)
				lie.Store(&msg)
				stop.Store(true)
			}
		}
	}()
	ready.Add(1)
	for k := 0; ready.Load() != 2; k++ {
		if k > 1000 {
			runtime.Gosched()
		}
	}
	deadline := time.Now().Add(d)
	for rounds := 1; !stop.Load(); rounds++ {
		// cur in runnext, the ring empty at position k.
		k := pp.runqtail.Load()
		pp.runnext.CompareAndSwap(cur, other) // a G readies other: cur is kicked...
		kitRawSlot(&pp.runq[k%uint32(len(pp.runq))]).Store(cur)
		pp.runqtail.Store(k + 1)              // ...to the ring's tail
		pp.runnext.CompareAndSwap(other, nil) // the P runs other (runqget)
		pp.runnext.CompareAndSwap(nil, other) // other readies itself again
		pp.runqhead.CompareAndSwap(k, k+1)    // the P runs cur: other is alone, in runnext
		cur, other = other, cur
		if rounds%256 == 0 && time.Now().After(deadline) {
			stop.Store(true)
		}
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("runqempty did not return within 10s while the owner moved Gs between runnext and the ring: does it loop for as long as the tail keeps moving? Start over only when the tail moved during this call" + kitHint(l02))
	}
	if msg := lie.Load(); msg != nil {
		t.Fatalf("runqempty returned true while the P always held a G: the owner, on another thread, kept kicking its runnext G to the ring's tail (runqput(next=true)) and then running the new runnext (runqget). "+
			"Reading head and tail, then runnext, sees the ring before the kick and runnext after the run: neither G. Read head, tail and runnext, then read the tail again, and start over if it moved (just after: %s)"+kitHint(l02), *msg)
	}
}

// l02victim builds a P whose runnext holds next, in the given status; a
// running P is held by an M whose current G is running, as in a real
// scheduler. sleeps records the Usleep calls.
func l02victim(t *testing.T, status uint32, next *g, sleeps *[]int64, onSleep func(pp *p)) (*schedt, *p) {
	t.Helper()
	return l02victimOf(t, 2, status, next, sleeps, onSleep)
}

// l02victimOf is l02victim on procs Ps: the victim is P0 of two, else the
// last P (numbered procs-1).
func l02victimOf(t *testing.T, procs int, status uint32, next *g, sleeps *[]int64, onSleep func(pp *p)) (*schedt, *p) {
	t.Helper()
	var victim *p
	sched := kitSched(procs, Config{Usleep: func(usec int64) {
		*sleeps = append(*sleeps, usec)
		if onSleep != nil {
			onSleep(victim)
		}
	}})
	victim = sched.allp[0]
	if procs > 2 {
		victim = sched.allp[procs-1]
	}
	if status == _Prunning {
		mp := &m{sched: sched, id: 1}
		acquirep(mp, victim)
		cur := kitG(sched, kitSpreadGoid(kitMix(sched.cfg.seed, 300)))
		cur.atomicstatus.Store(_Grunning)
		cur.m = mp
		mp.curg.Store(cur)
	} else {
		victim.status.Store(status)
	}
	if next != nil {
		victim.runnext.Store(next)
	}
	return sched, victim
}

func TestL02GrabNext(t *testing.T) {
	// On two Ps, and from P 1,023 of maxProcs: a thirty-third red team's
	// runqgrab went wrong only for a victim numbered 64 or more, which no
	// world of the tests had.
	for _, tt := range []struct {
		status    uint32
		wantSleep []int64
		procs     int
	}{
		{_Prunning, []int64{3}, 2},
		{_Pidle, nil, 2},
		{_Psyscall, nil, 2},
		{_Pgcstop, nil, 2},
		{_Prunning, []int64{3}, maxProcs},
		{_Psyscall, nil, maxProcs},
	} {
		var sleeps []int64
		next := kitG(nil, 77)
		_, victim := l02victimOf(t, tt.procs, tt.status, next, &sleeps, nil)
		gp, retry := runqgrabnext(victim)
		if gp != next || retry {
			t.Fatalf("runqgrabnext of P%d of %d, in status %s with runnext G 77, returned (%s, retry=%v), want (G 77, false)", victim.id, tt.procs, pStatusString(tt.status), kitID(gp), retry)
		}
		if victim.runnext.Load() != nil {
			t.Fatalf("runqgrabnext took G 77 from a P in status %s but its runnext is still %s", pStatusString(tt.status), kitID(victim.runnext.Load()))
		}
		if !slices.Equal(sleeps, tt.wantSleep) {
			if tt.wantSleep != nil {
				t.Fatalf("runqgrabnext of a running P's runnext made Usleep calls %v, want exactly [3]: back off 3µs (pp.sched.cfg.usleep(3)) first, so that the G that readied it can block and its P run it itself"+kitHint(l02), sleeps)
			}
			t.Fatalf("runqgrabnext of the runnext of a P in status %s made Usleep calls %v, want none: back off only when the victim P is _Prunning (its G may be about to block and let the P run its runnext; a P in status %s runs nothing)"+kitHint(l02), pStatusString(tt.status), sleeps, pStatusString(tt.status))
		}
	}

	// Nothing in runnext: nothing to take, no reason to wait.
	var sleeps []int64
	_, victim := l02victim(t, _Prunning, nil, &sleeps, nil)
	if gp, retry := runqgrabnext(victim); gp != nil || retry {
		t.Fatalf("runqgrabnext of a running P with runnext nil returned (%s, retry=%v), want (nil, false)", kitID(gp), retry)
	}
	if len(sleeps) != 0 {
		t.Fatalf("runqgrabnext of a running P with runnext nil made Usleep calls %v, want none: load runnext first, back off only if there is a G to take", sleeps)
	}

	// A running P's runnext, again and again, while its owner puts a G on
	// its ring and takes it back: the back-off every time.
	for _, randomize := range []bool{false, true} {
		l02stirredBackoff(t, randomize)
	}

	// The owner runs its runnext while the thief backs off: the CAS loses.
	sleeps = nil
	next := kitG(nil, 77)
	_, victim = l02victim(t, _Prunning, next, &sleeps, func(pp *p) {
		runqget(pp) // the owner takes G 77
	})
	if gp, retry := runqgrabnext(victim); gp != nil || !retry {
		t.Fatalf("runqgrabnext of a running P's runnext G 77, while the owner ran G 77 during the 3µs back-off: returned (%s, retry=%v), want (nil, true): take runnext only with CompareAndSwap(next, nil), and report retry when it fails"+kitHint(l02), kitID(gp), retry)
	}

	// The owner readies another G while the thief backs off: G 77 is kicked
	// to the ring, G 78 takes runnext. The thief must not take either from
	// runnext; runqgrab's retry then finds G 77 on the ring.
	sleeps = nil
	next, newer := kitG(nil, 77), kitG(nil, 78)
	sched, victim := l02victim(t, _Prunning, next, &sleeps, func(pp *p) {
		runqput(pp, newer, true)
	})
	thief := sched.allp[1]
	gp, retry := runqgrabnext(victim)
	if gp != nil || !retry {
		t.Fatalf("runqgrabnext of a running P's runnext G 77, while the owner put G 78 in runnext (kicking G 77 to its ring) during the back-off: returned (%s, retry=%v), want (nil, true): the CAS from G 77 must fail"+kitHint(l02), kitID(gp), retry)
	}
	if victim.runnext.Load() != newer || !slices.Equal(l02ring(victim), []*g{next}) {
		t.Fatalf("after a runqgrabnext whose CAS lost, the victim holds %s, want runnext = G 78, ring = [G 77] (a thief that lost the race must change nothing)", l02state(victim))
	}
	if n := runqgrab(victim, &thief.runq, 0, true); n != 1 || kitRawSlot(&thief.runq[0]).Load() != next {
		t.Fatalf("runqgrab(stealRunNextG=true) of a P with ring [G 77] and runnext G 78 took %s (first %s), want 1: G 77 from the ring", kitCount(int(n), "G"), kitID(kitRawSlot(&thief.runq[0]).Load()))
	}

	// Through runqgrab: the owner kicks runnext G 77 to the ring during the
	// back-off; with retry, runqgrab re-reads the ring and takes G 77.
	sleeps = nil
	next, newer = kitG(nil, 77), kitG(nil, 78)
	kicked := false
	sched, victim = l02victim(t, _Prunning, next, &sleeps, func(pp *p) {
		if !kicked {
			kicked = true
			runqput(pp, newer, true)
		}
	})
	thief = sched.allp[1]
	if n := runqgrab(victim, &thief.runq, 0, true); n != 1 || kitRawSlot(&thief.runq[0]).Load() != next {
		t.Fatalf("runqgrab(stealRunNextG=true) of a running P with runnext G 77, while the owner kicked G 77 to the ring during the back-off, took %s (first %s), want 1: G 77 from the ring (runqgrabnext must return retry = true when its CAS loses, so that runqgrab reads the ring again)"+kitHint(l02), kitCount(int(n), "G"), kitID(kitRawSlot(&thief.runq[0]).Load()))
	}
	if victim.runnext.Load() != newer {
		t.Fatalf("runqgrab took the kicked G 77 but the victim's runnext is %s, want G 78 untouched", kitID(victim.runnext.Load()))
	}
}

// TestL02PingPong: on one P, two Gs ping-pong over unbuffered channels
// while five other Gs wait on the ring. Each readied G must run next, in
// the time slice of the G that readied it (EvGoStart with Arg 1), before
// any of the five.
func TestL02PingPong(t *testing.T) {
	const rounds, fillers = 200, 5
	var rec Recorder
	var mainID, partnerID atomic.Int64
	var early atomic.Int32
	var badValue atomic.Value
	err := kitRun(t, Config{Procs: 1, ForcePreempt: time.Hour, Trace: rec.Record}, 20*time.Second, func(gp *G) {
		mainID.Store(gp.ID())
		var done atomic.Bool
		var wg WaitGroup
		wg.Add(fillers)
		for i := 0; i < fillers; i++ {
			gp.Go(func(gp *G) {
				if !done.Load() {
					early.Add(1)
				}
				wg.Done(gp)
			})
		}
		ping, pong := NewChan[int](0), NewChan[int](0)
		gp.Go(func(gp *G) {
			partnerID.Store(gp.ID())
			for i := 0; i < rounds; i++ {
				v, _ := ping.Recv(gp)
				pong.Send(gp, v+1)
			}
		})
		for i := 0; i < rounds; i++ {
			ping.Send(gp, i)
			if v, _ := pong.Recv(gp); v != i+1 {
				badValue.Store(fmt.Sprintf("round %d: got %d back, want %d", i, v, i+1))
			}
		}
		done.Store(true)
		wg.Wait(gp)
	})
	if err != nil {
		t.Fatalf("the scheduler stopped with: %v", err)
	}
	if v := badValue.Load(); v != nil {
		t.Fatalf("ping-pong on 1 P: %s", v)
	}
	if n := early.Load(); n != 0 {
		t.Fatalf("ping-pong on 1 P with 5 other Gs waiting on the ring: %d of them ran before the %s ended; each G readied by a channel operation goes to runnext and must run before the ring"+kitHint(l02), n, kitCount(int(rounds), "round"))
	}
	main, partner := mainID.Load(), partnerID.Load()
	starts, inherited := 0, 0
	first := true
	for _, ev := range rec.Events() {
		if ev.Kind != EvGoStart || (ev.G != main && ev.G != partner) {
			continue
		}
		if first && ev.G == main {
			first = false // the main G's first start begins a new slice
			continue
		}
		starts++
		if ev.Arg == 1 {
			inherited++
		}
	}
	if starts < 2*rounds {
		t.Fatalf("ping-pong of %s on 1 P: the trace shows only %s of the two Gs, want at least %d", kitCount(int(rounds), "round"), kitCount(int(starts), "start"), 2*rounds)
	}
	if inherited != starts {
		t.Fatalf("ping-pong on 1 P: %d of %s of the readied G inherited the time slice (EvGoStart Arg 1), want all: runqget must return inheritTime = true for a G taken from runnext"+kitHint(l02), inherited, kitCount(int(starts), "start"))
	}
}

// TestL02RunnextStolen: a G readies another into its P's runnext and then
// never yields. Only another P stealing the runnext can run it.
func TestL02RunnextStolen(t *testing.T) {
	var failed atomic.Value
	err := kitRun(t, Config{Procs: 2}, 30*time.Second, func(gp *G) {
		var ran atomic.Bool
		gp.Go(func(gp *G) { ran.Store(true) })
		deadline := time.Now().Add(15 * time.Second)
		for !ran.Load() {
			if time.Now().After(deadline) {
				failed.Store(true)
				return
			}
			runtime.Gosched() // the host's, not the G's: no safe point
		}
	})
	if err != nil {
		t.Fatalf("the scheduler stopped with: %v", err)
	}
	if failed.Load() != nil {
		t.Fatal("on 2 Ps, a G put in runnext by a G that then never yields did not run within 15s: another P must steal it (runqgrab falls back to runqgrabnext when the ring is empty)" + kitHint(l02))
	}
}

// TestL02Stress: ping-pong pairs and chains of Gs spawning Gs (newproc puts
// each new G in runnext, kicking the last) on 4 Ps with a randomized
// scheduler. Every message arrives and every G runs exactly once.
func TestL02Stress(t *testing.T) {
	kitPreempted(t)
	const pairs, rounds = 40, 100
	const chains, depth = 20, 20
	var received [pairs]atomic.Int32
	var ran [chains][depth]atomic.Int32
	var mu sync.Mutex
	var problems []string
	report := func(s string) {
		mu.Lock()
		if len(problems) < 5 {
			problems = append(problems, s)
		}
		mu.Unlock()
	}
	err := kitRun(t, Config{Procs: 4, RandomizeScheduler: true, Seed: 2}, 30*time.Second, func(gp *G) {
		var wg WaitGroup
		wg.Add(pairs + chains)
		for i := 0; i < pairs; i++ {
			ch := NewChan[int](0)
			gp.Go(func(gp *G) {
				for j := 0; j < rounds; j++ {
					ch.Send(gp, j)
				}
				ch.Close(gp)
			})
			gp.Go(func(gp *G) {
				want := 0
				for {
					v, ok := ch.Recv(gp)
					if !ok {
						break
					}
					if v != want {
						report(fmt.Sprintf("pair %d received %d, want %d", i, v, want))
					}
					want++
					received[i].Add(1)
				}
				wg.Done(gp)
			})
		}
		for c := 0; c < chains; c++ {
			var step func(d int) func(*G)
			step = func(d int) func(*G) {
				return func(gp *G) {
					ran[c][d].Add(1)
					if d+1 < depth {
						gp.Go(step(d + 1))
						if d%3 == 0 {
							gp.Gosched()
						}
						return
					}
					wg.Done(gp)
				}
			}
			gp.Go(step(0))
		}
		wg.Wait(gp)
	})
	if err != nil {
		t.Fatalf("the scheduler stopped with: %v", err)
	}
	if len(problems) > 0 {
		t.Fatalf("on 4 Ps: %s", strings.Join(problems, "; "))
	}
	for i := range received {
		if n := received[i].Load(); n != rounds {
			t.Fatalf("on 4 Ps, ping-pong pair %d received %d messages, want %d", i, n, rounds)
		}
	}
	for c := range ran {
		for d := range ran[c] {
			if n := ran[c][d].Load(); n != 1 {
				t.Fatalf("on 4 Ps, G %d of spawn chain %d ran %s, want exactly once: each new G goes in runnext and kicks the previous one to the ring; is any G lost or queued twice?"+kitHint(l02), d, c, kitCount(int(n), "time"))
			}
		}
	}
}

// l02stirredBackoff is TestL02GrabNext's stirred question: a running P's
// runnext, again and again, while its owner puts a G on its ring and takes
// it back, swaps the G in runnext for another and back, counts ticks, and
// changes the G its M runs; with RandomizeScheduler or without. A thief
// that backs off, as it must, then finds runnext as its owner left it: it
// takes either G, or, if the swap came between its look and its take,
// none, and says to retry. A twenty-eighth red team's skipped the back-off
// only when it saw runnext change; a twenty-ninth's only when the victim's
// running G was not numbered as the tests numbered theirs.
func l02stirredBackoff(t *testing.T, randomize bool) {
	t.Helper()
	var sleeps []int64
	sched, victim := l02victim(t, _Prunning, nil, &sleeps, nil)
	victim.sched.cfg.randomizeScheduler = randomize
	g600 := kitG(nil, 600)
	var pair atomic.Pointer[[2]*g] // the two Gs runnext is swapped between
	next := kitRawG(&victim.runnext)
	swap := func() {
		if pr := pair.Load(); pr != nil && !next.CompareAndSwap(pr[0], pr[1]) {
			next.CompareAndSwap(pr[1], pr[0])
		}
	}
	ring := func() {
		runqputtail(victim, g600)
		runqgethead(victim)
	}
	ticks := kitStirTicks(sched.allp...)
	// The victim's M runs one G, then another: its curg changes.
	mp := victim.m.Load()
	running := [2]*g{mp.curg.Load(), kitG(sched, kitSpreadGoid(rand.Uint64()))}
	running[1].atomicstatus.Store(_Grunning)
	running[1].m = mp
	curg := func() {
		if mp.curg.Load() == running[0] {
			mp.curg.Store(running[1])
		} else {
			mp.curg.Store(running[0])
		}
	}
	stir := kitStirCycle(ring, swap, ticks[0], curg, swap, ticks[1], curg)
	kitStirred(t, l02, fmt.Sprintf("the victim's owner put G 600 on its ring and took it back, swapped the G in its runnext for another and back, counted ticks and changed the G it runs, over and over (RandomizeScheduler %v)", randomize), 100, stir, func(i int) string {
		pr := &[2]*g{kitG(nil, int64(1000+i)), kitG(nil, int64(2000+i))}
		victim.runnext.Store(pr[0])
		pair.Store(pr)
		sleeps = sleeps[:0]
		gp, retry := runqgrabnext(victim)
		pair.Store(nil)
		right := (gp == pr[0] || gp == pr[1]) && !retry || gp == nil && retry
		if !right || !slices.Equal(sleeps, []int64{3}) {
			return fmt.Sprintf("runqgrabnext of a running P's runnext (G %d, or G %d after its owner swapped them) returned (%s, retry=%v) after Usleep calls %v, want one of them (or nil and retry=true, if runnext changed before the take) after exactly [3]: back off 3µs before taking a running P's runnext", pr[0].goid, pr[1].goid, kitID(gp), retry, sleeps)
		}
		victim.runnext.Store(nil)
		return ""
	})
}

// l02owner says, for a message, who owned the P.
func l02owner(owned bool) string {
	if owned {
		return " on a P whose M runs a G"
	}
	return " on an idle P"
}
