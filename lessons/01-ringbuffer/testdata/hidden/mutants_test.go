package sched

// More hidden tests of lesson 01-ringbuffer: the mistakes that mutation
// testing (kata verify --mutate) found the other tests let through. Each
// test names the mistakes it catches; messages are written for a learner
// who cannot see this file.

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// l01mBudget is the panic that stops a function that ran too long.
type l01mBudget struct{}

// l01mBounded runs fn on the calling goroutine and stops it after limit
// operations on runqhead, runqtail or runnext (each is a scheduling point,
// see atomics.go): an endless retry loop fails the test instead of hanging
// it. It reports whether fn was stopped, and what else it panicked with.
func l01mBounded(limit int, fn func()) (looped bool, panicked any) {
	id := kitGoid()
	ops := 0
	old := setInterleaveHook(func() {
		if kitGoid() != id {
			return
		}
		if ops++; ops > limit {
			panic(l01mBudget{})
		}
	})
	defer setInterleaveHook(old)
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(l01mBudget); ok {
				looped = true
				return
			}
			panicked = r
		}
	}()
	fn()
	return false, nil
}

// l01mCatch runs fn and returns what it panicked with, or nil.
func l01mCatch(fn func()) (panicked any) {
	defer func() { panicked = recover() }()
	fn()
	return nil
}

// l01mRing lists the Gs on pp's ring, head to tail, without taking them.
func l01mRing(pp *p) []*g {
	var out []*g
	for i := pp.runqhead.Load(); i != pp.runqtail.Load(); i++ {
		out = append(out, kitRawSlot(&pp.runq[i%uint32(len(pp.runq))]).Load())
	}
	return out
}

// l01mIDs formats Gs for messages, shortening long lists.
func l01mIDs(gs []*g) string {
	s := make([]string, 0, len(gs))
	for i, gp := range gs {
		if len(gs) > 12 && i == 5 {
			s = append(s, fmt.Sprintf("... %d more ...", len(gs)-10))
		}
		if len(gs) > 12 && i >= 5 && i < len(gs)-5 {
			continue
		}
		s = append(s, kitID(gp))
	}
	return "[" + strings.Join(s, " ") + "]"
}

// l01mPop empties q into a slice.
func l01mPop(q *gQueue) []*g {
	var out []*g
	for gp := q.pop(); gp != nil; gp = q.pop() {
		out = append(out, gp)
	}
	return out
}

// l01mSameSet reports whether a and b hold the same Gs, each once.
func l01mSameSet(a, b []*g) bool {
	if len(a) != len(b) {
		return false
	}
	count := map[*g]int{}
	for _, gp := range a {
		count[gp]++
	}
	for _, gp := range b {
		if count[gp]--; count[gp] < 0 {
			return false
		}
	}
	return true
}

// TestL01DrainEdges: runqdrain of rings the other tests do not build: a
// head that is not 0, exactly one G, a full ring. Catches qn computed as
// t+h, an early return on one G, and a full ring taken for an
// inconsistent read (an endless retry).
func TestL01DrainEdges(t *testing.T) {
	drain := func(what string, pp *p, want []*g) {
		t.Helper()
		var q gQueue
		looped, panicked := l01mBounded(100000, func() { q = runqdrain(pp) })
		switch {
		case looped:
			t.Fatalf("runqdrain of %s never returned (100000 loads and CASes of the head and tail): does it mistake a full ring for an inconsistent read of h and t? A ring holds up to 256 = len(pp.runq) Gs; only more than that means h and t were read at different moments"+kitHint(l01), what)
		case panicked != nil:
			t.Fatalf("runqdrain of %s panicked: %v", what, panicked)
		}
		if got := l01mPop(&q); !slices.Equal(got, want) {
			t.Fatalf("runqdrain of %s returned %s, want %s: take the tail - head Gs from slot head %% 256 on, in order"+kitHint(l01), what, l01mIDs(got), l01mIDs(want))
		}
		if n := pp.runqtail.Load() - pp.runqhead.Load(); n != 0 {
			t.Fatalf("after runqdrain of %s, runqtail - runqhead = %d, want 0 (the head moves to the tail)", what, n)
		}
	}

	sched := kitSched(1, Config{})
	pp := sched.allp[0]
	gs := kitGs(sched, 1, 5)
	for _, gp := range gs {
		runqputtail(pp, gp)
	}
	runqgethead(pp)
	runqgethead(pp)
	drain("a ring holding G 3, G 4, G 5 (runqhead = 2, runqtail = 5)", pp, gs[2:])

	one := kitG(sched, 9)
	runqputtail(pp, one)
	drain("a ring holding only G 9", pp, []*g{one})

	pp.runnext.Store(gs[0])
	runqputtail(pp, one)
	drain("runnext G 1 and a ring holding only G 9", pp, []*g{gs[0], one})

	full := kitGs(sched, 100, 256)
	for _, gp := range full {
		runqputtail(pp, gp)
	}
	drain("a full ring (256 Gs)", pp, full)
}

// TestL01SlowPathLocks: the global queue is guarded by sched.lock, so the
// batch runqputslow moves goes there under it. With Config{Debug: true}
// the global queue's functions check that the lock is held.
func TestL01SlowPathLocks(t *testing.T) {
	sched := kitSched(1, Config{Debug: true})
	pp := sched.allp[0]
	for _, gp := range kitGs(sched, 1, 256) {
		runqputtail(pp, gp)
	}
	if _, panicked := l01mBounded(100000, func() { runqputtail(pp, kitG(sched, 257)) }); panicked != nil {
		t.Fatalf("a put on a full ring, with Config{Debug: true}, panicked: %v: hold pp.sched.lock (Lock, globrunqputbatch, Unlock) while runqputslow puts its batch on the global queue, which every P reads"+kitHint(l01), panicked)
	}
	if got := sched.runq.size; got != 129 {
		t.Fatalf("a put on a full ring moved %s to the global queue, want 129", kitCount(int(got), "G"))
	}
}

// TestL01StealIntoBusyThief: a thief whose own ring is not empty. The grab
// writes only the slots after the thief's tail that the stolen Gs take:
// one more overwrites the oldest G the thief holds (i <= n). And when the
// stolen Gs cannot fit, runqsteal panics rather than overwrite (t-h+n >
// 256 instead of >=).
func TestL01StealIntoBusyThief(t *testing.T) {
	sched := kitSched(2, Config{})
	victim, thief := sched.allp[0], sched.allp[1]
	vgs, own := kitGs(sched, 1, 256), kitGs(sched, 1001, 128)
	for _, gp := range vgs {
		runqputtail(victim, gp)
	}
	for _, gp := range own {
		runqputtail(thief, gp)
	}
	gp := runqsteal(thief, victim, false)
	if gp != vgs[127] {
		t.Fatalf("a thief holding G 1001..G 1128 stole from a full ring (G 1..G 256); runqsteal returned %s, want G 128, the last of the 128 taken", kitID(gp))
	}
	if got, want := l01mRing(thief), append(slices.Clone(own), vgs[:127]...); !slices.Equal(got, want) {
		t.Fatalf("a thief holding 128 Gs (G 1001..G 1128) stole 128 from a full ring: its ring is now %s, want %s (its own Gs first, untouched, then G 1..G 127): does runqgrab write more than the n slots it takes into batch? The slot after them may hold the thief's oldest G"+kitHint(l01), l01mIDs(got), l01mIDs(want))
	}
	if got := l01mRing(victim); !slices.Equal(got, vgs[128:]) {
		t.Fatalf("after the steal the victim's ring is %s, want G 129..G 256", l01mIDs(got))
	}

	// No room: 129 Gs of its own, 128 stolen (127 to queue, 1 to run).
	sched = kitSched(2, Config{})
	victim, thief = sched.allp[0], sched.allp[1]
	vgs, own = kitGs(sched, 1, 256), kitGs(sched, 1001, 129)
	for _, gp := range vgs {
		runqputtail(victim, gp)
	}
	for _, gp := range own {
		runqputtail(thief, gp)
	}
	looped, panicked := l01mBounded(100000, func() { gp = runqsteal(thief, victim, false) })
	if looped {
		t.Fatalf("runqsteal by a thief holding 129 Gs from a full ring never returned")
	}
	// A panic is right here: the runtime throws "runqsteal: runq overflow".
	if all := append(append(l01mRing(thief), l01mRing(victim)...), gp); panicked == nil && !l01mSameSet(all, append(slices.Clone(vgs), own...)) {
		t.Fatalf("a thief holding 129 Gs stole from a full ring: 128 Gs do not fit after its 129 (the grab's last slot is its own oldest G's); runqsteal returned %s and left its ring %s, losing or repeating Gs. When the stolen Gs would not fit (t - h + n >= 256, n the number queued), panic as the runtime does (\"runqsteal: runq overflow\")"+kitHint(l01), kitID(gp), l01mIDs(l01mRing(thief)))
	}

	// The same, but room is made meanwhile: the moment the grab has taken
	// the victim's Gs (its CAS of the victim's head), another thief steals
	// half of this thief's own 129. The fit is judged by the head as it is
	// after the grab (read there, as the runtime's load-acquire does): 64
	// + 127 fit, and nothing panics.
	sched = kitSched(3, Config{})
	victim, thief, other := sched.allp[0], sched.allp[1], sched.allp[2]
	vgs, own = kitGs(sched, 1, 256), kitGs(sched, 1001, 129)
	for _, gp := range vgs {
		runqputtail(victim, gp)
	}
	for _, gp := range own {
		runqputtail(thief, gp)
	}
	id, ops, inHook, stole := kitGoid(), 0, false, false
	defer setInterleaveHook(setInterleaveHook(func() {
		if kitGoid() != id || inHook {
			return
		}
		inHook = true
		defer func() { inHook = false }()
		if ops++; ops > 100000 {
			panic(l01mBudget{})
		}
		if !stole && victim.runqhead.Load() != 0 {
			stole = true
			ref_runqsteal(other, thief, false) // another thief, the reference's
		}
	}))
	panicked = l01mCatch(func() { gp = runqsteal(thief, victim, false) })
	setInterleaveHook(nil)
	if _, ok := panicked.(l01mBudget); ok {
		t.Fatalf("runqsteal by a thief holding 129 Gs from a full ring, another thief stealing from it meanwhile, never returned")
	}
	if panicked != nil || !stole {
		t.Fatalf("a thief holding 129 Gs (G 1001..G 1129) stole from a full ring, and the moment its grab took the victim's Gs, another thief stole 65 of its own: 64 + 127 fit in its ring, but runqsteal %s. "+
			"Judge the fit by the head as it is after the grab: load pp.runqhead there, not before runqgrab (only the owner moves the tail; thieves move the head at any time)"+kitHint(l01),
			map[bool]string{true: fmt.Sprintf("panicked: %v", panicked), false: "returned before the grab took anything"}[panicked != nil])
	}
	if got, want := l01mRing(thief), append(slices.Clone(own[65:]), vgs[:127]...); gp != vgs[127] || !slices.Equal(got, want) {
		t.Fatalf("a thief holding 129 Gs stole from a full ring while another thief took 65 of its own: runqsteal returned %s and left its ring %s; want G 128, and %s"+kitHint(l01), kitID(gp), l01mIDs(got), l01mIDs(want))
	}
}

// TestL01GrabRetry: runqgrabnext says retry when its CAS of runnext lost,
// that is when the owner moved on during the thief's back-off; by then the
// owner may have queued Gs on its ring, which runqgrab must read again
// rather than return 0.
func TestL01GrabRetry(t *testing.T) {
	next, woken := kitG(nil, 77), kitG(nil, 5)
	var victim *p
	sched := kitSched(2, Config{Usleep: func(int64) {
		// The owner runs G 77, which readies G 5 onto the ring.
		if victim.runnext.CompareAndSwap(next, nil) {
			runqputtail(victim, woken)
		}
	}})
	victim, thief := sched.allp[0], sched.allp[1]
	mp := &m{sched: sched, id: 1}
	acquirep(mp, victim) // running: the thief backs off before taking runnext
	cur := kitG(sched, 500)
	cur.atomicstatus.Store(_Grunning)
	cur.m = mp
	mp.curg.Store(cur)
	victim.runnext.Store(next)
	var n uint32
	if looped, panicked := l01mBounded(100000, func() { n = runqgrab(victim, &thief.runq, 0, true) }); looped || panicked != nil {
		t.Fatalf("runqgrab(stealRunNextG=true) of a running P whose runnext ran during the thief's back-off did not return (looped: %v, panic: %v)", looped, panicked)
	}
	if n != 1 || kitRawSlot(&thief.runq[0]).Load() != woken {
		t.Fatalf("runqgrab(stealRunNextG=true) of a running P with runnext G 77 and an empty ring, while during the thief's back-off the owner ran G 77 and queued G 5 on its ring, took %s (first %s), want 1: G 5. When runqgrabnext returns retry = true, the ring may have changed: read it again"+kitHint(l01), kitCount(int(n), "G"), kitID(kitRawSlot(&thief.runq[0]).Load()))
	}
}

// TestL01Randomized: with Config{RandomizeScheduler: true}, the batches
// runqputslow and runqputbatch move are shuffled, as the runtime does under
// the race detector: a uniform shuffle (Fisher-Yates with pp.rand) of
// exactly the Gs moved. The statistics below fail a uniform shuffle with
// probability about 4e-9 (whatever order it draws its random numbers in:
// the reference passes for its fixed seeds); they catch a loop that skips the first or the
// last element, draws j from [0, i) (Sattolo's algorithm: only cycles) or
// beyond i, or does not shuffle.
func TestL01Randomized(t *testing.T) {
	// runqputslow: 2500 puts of G 257 on a ring full of G 1..G 256 (the
	// head moves by 256 each time, so the slots stay as they are).
	// The puts take turns on three Ps, and each P must shuffle (a
	// thirtieth red team's shuffled only on P 0, where a one-P test put).
	const trials = 2500
	sched := kitSched(3, Config{RandomizeScheduler: true, Seed: 7})
	// P 1 and P 2 are owned by Ms running Gs, as a P that puts is in a
	// running scheduler; P 0 is idle (a thirty-second red team's shuffle
	// ran only on Ps whose M ran no G).
	kitRunningP(sched, 1)
	kitRunningP(sched, 2)
	gs := kitGs(sched, 1, 257)
	for _, pp := range sched.allp {
		for i, gp := range gs[:256] {
			kitRawSlot(&pp.runq[i]).Store(gp)
		}
	}
	var inOrderOn [3]int
	want := append(slices.Clone(gs[:128]), gs[256])
	seen := make([]int, len(gs)+1) // by goid: the last trial that moved it
	inOrder, newLast, fixed, secondFirst := 0, 0, 0, 0
	// drift counts the Gs that moved one place later, less those that
	// moved one place earlier: 0 on average for a uniform shuffle (sd
	// about 1.5 a trial), about +0.37 a trial for the shuffle that swaps
	// each entry with any entry of the batch (j from 0..n-1 every time,
	// not 0..i), and -0.36 for the same loop run backwards.
	drift := 0
	for trial := 1; trial <= trials; trial++ {
		pp := sched.allp[trial%3]
		base := uint32(trial) * 256
		pp.runqhead.Store(base)
		pp.runqtail.Store(base + 256)
		if panicked := l01mCatch(func() { runqputtail(pp, gs[256]) }); panicked != nil {
			t.Fatalf("with RandomizeScheduler, put #%d of G 257 on a ring full of G 1..G 256 panicked: %v: does the shuffle index past the batch? j is drawn from 0..i"+kitHint(l01), trial, panicked)
		}
		var got []*g
		ok := true
		for gp := sched.runq.pop(); gp != nil; gp = sched.runq.pop() {
			got = append(got, gp)
			if i := gp.goid; i < 1 || (i > 128 && i != 257) || seen[i] == trial {
				ok = false
			} else {
				seen[i] = trial
			}
		}
		if !ok || len(got) != 129 {
			t.Fatalf("with RandomizeScheduler, a put of G 257 on a ring full of G 1..G 256 moved %s to the global queue; want G 1..G 128 and G 257, each exactly once, in any order: shuffle by swapping entries of the batch"+kitHint(l01), l01mIDs(got))
		}
		if left := pp.runqtail.Load() - pp.runqhead.Load(); left != 128 || kitRawSlot(&pp.runq[(base+128)%256]).Load() != gs[128] {
			t.Fatalf("with RandomizeScheduler, after a put on a full ring the ring holds %s, want G 129..G 256: only the batch moved to the global queue is shuffled", l01mIDs(l01mRing(pp)))
		}
		if slices.Equal(got, want) {
			inOrder++
			inOrderOn[pp.id]++
		}
		if got[128] == gs[256] {
			newLast++
		}
		for i := range got {
			if got[i] == want[i] {
				fixed++
			}
		}
		if got[0] == want[1] {
			secondFirst++
		}
		for i := range want {
			if i+1 < len(got) && got[i+1] == want[i] {
				drift++
			}
			if i > 0 && got[i-1] == want[i] {
				drift--
			}
		}
	}
	const where = "with RandomizeScheduler, in %d puts on a full ring, "
	switch {
	case inOrder == trials:
		t.Fatalf(where+"the batch moved to the global queue was always in order: shuffle it first, as the runtime does under the race detector (Fisher-Yates: for i from 1 to n, swap batch[i] with batch[pp.rand.n(i+1)])"+kitHint(l01), trials)
	case slices.Contains(inOrderOn[:], trials/3) || slices.Contains(inOrderOn[:], trials/3+1):
		t.Fatalf(where+"taking turns on P 0 (idle), P 1 and P 2 (each owned by an M running a G), the batch was always in order on one of them (in order on each: %v): shuffle on every P, whoever owns it, as the runtime does under the race detector (**new**: since December 2026 the puts take turns on three Ps)"+kitHint(l01), trials, inOrderOn)
	case newLast == trials:
		t.Fatalf(where+"the new G was always the last of the batch: shuffle all 129 Gs, the new one included"+kitHint(l01), trials)
	case fixed == 0:
		t.Fatalf(where+"no G ever kept its place in the shuffled batch, where a uniform shuffle keeps one on average: draw j from 0..i inclusive (pp.rand.n(i+1)); from 0..i-1 the shuffle only makes cycles"+kitHint(l01), trials)
	case secondFirst == 0:
		t.Fatalf(where+"the second-oldest G never came first in the shuffled batch, where a uniform shuffle puts it first once in 129: does the shuffle start at i = 1?"+kitHint(l01), trials)
	case drift > 520 || drift < -520: // 7 sd of a uniform shuffle's drift over 2500 trials
		t.Fatalf(where+"the Gs moved one place later %d times more often than one place earlier (a uniform shuffle: about as often, give or take 75): the shuffle is not uniform. Swapping each batch[i] with any batch[j] (j drawn from 0..n-1 every time) is the classic biased shuffle: draw j from 0..i (pp.rand.n(i+1))"+kitHint(l01), trials, drift)
	}

	// runqputbatch, batches of 3 onto an empty ring: each of the 6 orders
	// must come up about as often as the others. A chi-square of 52 or
	// more (5 degrees of freedom) has odds of 5e-10 for a uniform shuffle;
	// the biased j-from-0..n-1 shuffle makes it about 190 in 15000
	// batches, and a shuffle that misses an order makes it thousands.
	{
		const trials = 15000
		sched := kitSched(3, Config{RandomizeScheduler: true, Seed: 9})
		kitRunningP(sched, 1) // as above: P 1 and P 2 owned by Ms running Gs
		kitRunningP(sched, 2)
		batch := kitGs(sched, 1, 3)
		counts := map[string]int{}
		var inOrderOn [3]int
		for trial := range trials {
			pp := sched.allp[trial%3]
			var q gQueue
			for _, gp := range batch {
				q.pushBack(gp)
			}
			runqputbatch(pp, &q)
			got := l01mRing(pp)
			if len(got) != 3 || !l01mSameSet(got, batch) {
				t.Fatalf("with RandomizeScheduler, runqputbatch of G 1, G 2, G 3 onto an empty ring left it %s; want the three Gs, each exactly once, in any order"+kitHint(l01), l01mIDs(got))
			}
			counts[l01mIDs(got)]++
			if slices.Equal(got, batch) {
				inOrderOn[pp.id]++
			}
			for gp := runqgethead(pp); gp != nil; gp = runqgethead(pp) {
			}
		}
		if slices.Contains(inOrderOn[:], trials/3) {
			t.Fatalf("with RandomizeScheduler, %d runqputbatch of G 1, G 2, G 3, taking turns on P 0 (idle), P 1 and P 2 (owned by Ms running Gs), always left them in order on one of the Ps (in order on each: %v): shuffle on every P, whoever owns it (**new**: since December 2026 the batches take turns on three Ps)"+kitHint(l01), trials, inOrderOn)
		}
		const expect = trials / 6.0
		chi2 := 0.0
		for _, order := range []string{"[G 1 G 2 G 3]", "[G 1 G 3 G 2]", "[G 2 G 1 G 3]", "[G 2 G 3 G 1]", "[G 3 G 1 G 2]", "[G 3 G 2 G 1]"} {
			d := float64(counts[order]) - expect
			chi2 += d * d / expect
		}
		if chi2 >= 52 {
			t.Fatalf("with RandomizeScheduler, %d runqputbatch of G 1, G 2, G 3 gave the six orders %v times (want about %.0f each): the shuffle is not uniform. Fisher-Yates swaps batch[i] with batch[j], j drawn from 0..i (pp.rand.n(i+1)); drawing j from 0..n-1 every time favours some orders"+kitHint(l01), trials, counts, expect)
		}
	}

	// runqputbatch: 200 batches of 2 Gs onto a ring holding 1 G (across
	// the wrap-around of the slots), and 100 of 5 onto an empty ring, on P 1.
	sched = kitSched(2, Config{RandomizeScheduler: true, Seed: 8})
	pp := sched.allp[1]
	id := int64(1)
	pp.runqhead.Store(200)
	pp.runqtail.Store(200)
	for _, size := range []int{2, 5} {
		const trials = 100
		swapped, secondFirst := 0, 0
		for trial := 0; trial < trials; trial++ {
			var pre []*g
			if size == 2 {
				pre = kitGs(sched, id, 1)
				runqputtail(pp, pre[0])
				id++
			}
			batch := kitGs(sched, id, size)
			id += int64(size)
			var q gQueue
			for _, gp := range batch {
				q.pushBack(gp)
			}
			if panicked := l01mCatch(func() { runqputbatch(pp, &q) }); panicked != nil {
				t.Fatalf("with RandomizeScheduler, runqputbatch of %s panicked: %v", kitCount(int(size), "G"), panicked)
			}
			got := l01mRing(pp)
			if len(got) != len(pre)+size || !slices.Equal(got[:len(pre)], pre) || !l01mSameSet(got[len(pre):], batch) || !q.empty() {
				t.Fatalf("with RandomizeScheduler, runqputbatch of %s onto a ring holding %s left the ring %s (and %s in q); want what was queued, then the %s of the batch each exactly once, in any order: shuffle only the Gs just put, by swapping their slots"+kitHint(l01), l01mIDs(batch), l01mIDs(pre), l01mIDs(got), kitCount(int(q.size), "G"), kitCount(int(size), "G"))
			}
			if !slices.Equal(got[len(pre):], batch) {
				swapped++
			}
			if got[len(pre)] == batch[1] {
				secondFirst++
			}
			for gp := runqgethead(pp); gp != nil; gp = runqgethead(pp) {
			}
		}
		switch {
		case swapped == 0:
			t.Fatalf("with RandomizeScheduler, %d runqputbatch of %s always put them in order: shuffle the Gs put, as the runtime does under the race detector (Fisher-Yates over the n Gs put, with pp.rand)"+kitHint(l01), trials, kitCount(int(size), "G"))
		case size == 2 && swapped == trials:
			t.Fatalf("with RandomizeScheduler, %d runqputbatch of 2 Gs always swapped them, where a uniform shuffle leaves them in order half the time: draw j from 0..i inclusive (pp.rand.n(i+1))"+kitHint(l01), trials)
		case secondFirst == 0:
			t.Fatalf("with RandomizeScheduler, in %d runqputbatch of %s the second G never came first, where a uniform shuffle puts it first once in %d: does the shuffle start at i = 1?"+kitHint(l01), trials, kitCount(int(size), "G"), size)
		}
	}
}

// l01mScenario is an owner and a thief, each with Gs of its own, run
// under the controlled scheduler; check, if set, looks at who took what.
type l01mScenario struct {
	name    string
	gs, own int // the owner's Gs (G 1...) and the thief's (G 1001...)
	steps   int
	setup   func(owner, thief *p, gs, own []*g)
	owner   func(owner *p, gs []*g, took func(*g, string))
	thief   func(owner, thief *p, took func(*g, string))
	check   func(gs []*g, who map[*g][]string) string
}

var l01mScenarios = []l01mScenario{
	{
		// The ring is never empty while the thief runs (the owner puts
		// before it takes), so the thief must not take runnext: a thief
		// that reads the head again after the tail can see h == t.
		name:  "a thief steals (runnext too) while the owner, who always keeps a G on its ring, puts and takes",
		gs:    3,
		steps: 8,
		setup: func(owner, thief *p, gs, own []*g) {
			runqputtail(owner, gs[0])
			owner.runnext.Store(gs[1])
		},
		owner: func(owner *p, gs []*g, took func(*g, string)) {
			for _, gp := range gs[2:] {
				runqputtail(owner, gp)
				took(runqgethead(owner), "the owner's runqgethead")
			}
		},
		thief: func(owner, thief *p, took func(*g, string)) {
			took(runqsteal(thief, owner, true), "the thief's runqsteal")
		},
		check: func(gs []*g, who map[*g][]string) string {
			if slices.Contains(who[gs[1]], "the thief's runqsteal") {
				return "the thief took runnext (G 2) though the ring was never empty: runqgrab may fall back to runnext only when the ring is empty, judged from the h and t of one attempt, read in that order (head first: a head read after the tail can have caught up with a tail that has moved on)"
			}
			return ""
		},
	},
	{
		// The owner takes and puts on a full ring while the thief reads
		// its head and tail: t - h can exceed 256. A thief that goes on
		// with such a read writes more than 128 slots of its own ring,
		// which here holds 128 Gs.
		name:  "a thief holding 128 Gs steals from a full ring while the owner takes and puts",
		gs:    258,
		own:   128,
		steps: 8,
		setup: func(owner, thief *p, gs, own []*g) {
			for _, gp := range gs[:256] {
				runqputtail(owner, gp)
			}
			for _, gp := range own {
				runqputtail(thief, gp)
			}
		},
		owner: func(owner *p, gs []*g, took func(*g, string)) {
			for _, gp := range gs[256:] {
				took(runqgethead(owner), "the owner's runqgethead")
				runqputtail(owner, gp)
			}
		},
		thief: func(owner, thief *p, took func(*g, string)) {
			took(runqsteal(thief, owner, false), "the thief's runqsteal")
		},
	},
}

// TestL01StealInterleavings: more owner-and-thief races under the
// controlled scheduler (see TestL01Interleavings): the thief's judgement
// that a ring is empty, and its reads of h and t far apart.
func TestL01StealInterleavings(t *testing.T) {
	seeds := uint64(50)
	if testing.Short() {
		seeds = 25
	}
	for _, sc := range l01mScenarios {
		// The same Gs serve every run: the rings only move pointers.
		gs, own := kitScenarioGs(nil, 1, sc.gs), kitScenarioGs(nil, 1001, sc.own)
		for depth := 1; depth <= 3; depth++ {
			for seed := uint64(1); seed <= seeds; seed++ {
				if msg := l01mRunScenario(sc, gs, own, seed, depth); msg != "" {
					t.Fatalf("%s, in the interleaving of seed %d (depth %d): %s%s", sc.name, seed, depth, msg, kitHint(l01))
				}
			}
		}
	}
}

// l01mRunScenario runs sc once and says what went wrong, or "".
func l01mRunScenario(sc l01mScenario, gs, own []*g, seed uint64, depth int) string {
	sched := kitSched(2, Config{})
	kitRingsAt(sched, kitRingBase)
	owner, thief := sched.allp[0], sched.allp[1]
	sc.setup(owner, thief, gs, own)
	who := make(map[*g][]string, len(gs)+len(own))
	var log []string // what the threads took, in order
	took := func(gp *g, by string) {
		if gp != nil {
			who[gp] = append(who[gp], by)
			if len(log) < 20 {
				log = append(log, by+" took "+kitID(gp))
			}
		}
	}
	err := kitInterleave(seed, depth, sc.steps,
		"the owner", func() { sc.owner(owner, gs, took) },
		"the thief", func() { sc.thief(owner, thief, took) })
	if err != nil {
		return err.Error()
	}
	for _, pp := range []*p{owner, thief} {
		where := "the owner's"
		if pp == thief {
			where = "the thief's"
		}
		took(pp.runnext.Swap(nil), where+" runnext afterwards")
		for _, gp := range l01mRing(pp) {
			took(gp, where+" ring afterwards")
		}
	}
	for gp := sched.runq.pop(); gp != nil; gp = sched.runq.pop() {
		took(gp, "the global queue afterwards")
	}
	for _, gp := range append(slices.Clone(gs), own...) {
		switch by := who[gp]; {
		case len(by) == 0:
			return fmt.Sprintf("%s was lost: it came out of no run queue (%s): does the thief write into its own ring beyond the slots the stolen Gs take? An inconsistent read of h and t (more than half the ring) must be read again before anything is copied", kitID(gp), strings.Join(log, "; "))
		case len(by) > 1:
			return fmt.Sprintf("%s came out %s (%s): two takers got the same slot, or a slot was overwritten", kitID(gp), kitCount(int(len(by)), "time"), strings.Join(by, ", "))
		}
	}
	if sc.check != nil {
		return sc.check(gs, who)
	}
	return ""
}
