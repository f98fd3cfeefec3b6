package sched

import (
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// Tests of the local run queue (runq.go) and runnext (runnext.go) on
// constructed states: no M runs, the test plays the owner P and the thieves.
// The first three are ports of the runtime's own tests (export_test.go
// RunSchedLocalQueueTest, RunSchedLocalQueueStealTest,
// RunSchedLocalQueueEmptyTest).

// putTail puts gs on pp's ring, in order, with runqput(next=false).
func putTail(pp *p, gs []*g) {
	for _, gp := range gs {
		runqput(pp, gp, false)
	}
}

// TestRunqFIFO: for i in 0..255, i Gs put on an empty local run queue come
// back in the order they were put, from the ring (inheritTime false), and the
// queue is empty before and after.
func TestRunqFIFO(t *testing.T) {
	sched := newTestSched(t, 1, Config{Debug: true})
	pp := sched.allp[0]
	for i := 0; i < len(pp.runq); i++ {
		require.Truef(t, runqempty(pp), "iteration %d: runqempty = false before any put, want true", i)
		if gp, _ := runqget(pp); gp != nil {
			t.Fatalf("iteration %d: runqget on an empty queue returned G %d, want nil", i, gp.goid)
		}
		gs := newTestGs(sched, int64(i)*1000, i)
		putTail(pp, gs)
		require.Equalf(t, uint32(i), runqlen(pp), "iteration %d: runqlen after %d puts", i, i)
		require.Equalf(t, i == 0, runqempty(pp), "iteration %d: runqempty after %d puts", i, i)
		for j, want := range gs {
			gp, inherit := runqget(pp)
			if gp != want {
				t.Fatalf("iteration %d: runqget #%d: got G %s, want G %d (FIFO: Gs come back in the order they were put)", i, j, gName(gp), want.goid)
			}
			if inherit {
				t.Fatalf("iteration %d: runqget of G %d from the ring returned inheritTime = true, want false (only runnext inherits the time slice)", i, want.goid)
			}
		}
		if gp, _ := runqget(pp); gp != nil {
			t.Fatalf("iteration %d: runqget after taking all %d Gs returned G %d, want nil", i, i, gp.goid)
		}
		require.Truef(t, runqempty(pp), "iteration %d: runqempty = false after taking every G, want true", i)
		require.Zerof(t, sched.runq.size, "iteration %d: %d Gs went to the global queue, want 0 (the ring never overflowed)", i, sched.runq.size)
	}
}

// TestRunqStealHalf: a P with i Gs in its ring loses i/2 or i/2+1 of them to
// runqsteal, the oldest ones, and every G is found exactly once afterwards:
// in the thief's hands, the thief's ring, or the victim's ring.
func TestRunqStealHalf(t *testing.T) {
	sched := newTestSched(t, 2, Config{Debug: true})
	victim, thief := sched.allp[0], sched.allp[1]
	for i := 0; i < len(victim.runq); i++ {
		gs := newTestGs(sched, int64(i)*1000, i)
		putTail(victim, gs)

		seen := make(map[*g]int)
		var stolen []*g
		gp := runqsteal(thief, victim, true)
		if gp != nil {
			seen[gp]++
		}
		thiefRing := ringIDs(thief)
		for {
			gp2, _ := runqget(thief)
			if gp2 == nil {
				break
			}
			seen[gp2]++
			stolen = append(stolen, gp2)
		}
		if gp != nil {
			// runqsteal returns the newest G of the batch and leaves the
			// others on the thief's ring.
			stolen = append(stolen, gp)
		}
		victimRing := ringIDs(victim)
		for {
			gp2, _ := runqget(victim)
			if gp2 == nil {
				break
			}
			seen[gp2]++
		}

		for _, want := range gs {
			if seen[want] != 1 {
				t.Fatalf("%d Gs on the victim: G %d was found %d times after the steal, want exactly once", i, want.goid, seen[want])
			}
		}
		if len(seen) != i {
			t.Fatalf("%d Gs on the victim: %d distinct Gs found after the steal, want %d", i, len(seen), i)
		}
		s := len(stolen)
		if s != i/2 && s != i/2+1 {
			t.Fatalf("%d Gs on the victim: runqsteal took %d, want %d or %d (half)", i, s, i/2, i/2+1)
		}
		if want := idRange(int64(i)*1000, s); !slices.Equal(goids(stolen), want) {
			t.Fatalf("%d Gs on the victim: stole %v (thief's ring %v, returned G %s), want the oldest %d Gs %v (thieves take from the head)",
				i, goids(stolen), thiefRing, gName(gp), s, want)
		}
		if want := idRange(int64(i)*1000+int64(s), i-s); !slices.Equal(victimRing, want) {
			t.Fatalf("%d Gs on the victim: victim kept %v, want the newest %d Gs %v in order", i, victimRing, i-s, want)
		}
	}
}

// TestRunqEmptyWhileRunnextKicked: runqempty must never report an empty queue
// while the owner moves Gs between runnext and the ring. The owner always has
// at least one G queued, but runqput(next=true) kicks the old runnext to the
// ring, and runqget then empties runnext: a runqempty that reads the ring
// before the kick and runnext after the get would see nothing. (That window
// is a few instructions wide: the race detector's instrumentation widens it
// enough for this test to catch such a runqempty in most -race runs.)
func TestRunqEmptyWhileRunnextKicked(t *testing.T) {
	iters := 20000
	if testing.Short() {
		iters = 1000
	}
	sched := newTestSched(t, 1, Config{Debug: true})
	pp := sched.allp[0]
	gs := newTestGs(sched, 1, 2)
	var ready atomic.Int32
	result := make(chan bool, 1)
	// Both sides spin until the other is ready, so that the owner's moves
	// and runqempty start together; a pure spin lines them up best, with a
	// yield after a while in case the other goroutine is not running.
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
			t.Fatalf("iteration %d (next0=%v, next1=%v): runqempty returned true while the P always held at least one G", i, next0, next1)
		}
		if gp, _ := runqget(pp); gp == nil {
			t.Fatalf("iteration %d: second runqget returned nil, want the second of the two Gs", i)
		}
		require.Truef(t, runqempty(pp), "iteration %d: queue not empty after taking both Gs", i)
	}
}

// TestRunqPutSlowMoves129: a put on a full ring moves the 128 oldest Gs and
// the new one (129 in all) to the tail of the global queue, in order, and
// leaves the 128 newest in the ring.
func TestRunqPutSlowMoves129(t *testing.T) {
	sched := newTestSched(t, 1, Config{Debug: true})
	pp := sched.allp[0]
	sched.lock.Lock()
	sched.globrunqput(newTestG(sched, 9999))
	sched.lock.Unlock()

	gs := newTestGs(sched, 0, len(pp.runq)+1)
	putTail(pp, gs[:len(pp.runq)])
	require.Equalf(t, uint32(len(pp.runq)), runqlen(pp), "runqlen after 256 puts")
	require.Equalf(t, []int64{9999}, globalIDs(t, sched), "global queue after 256 puts (the ring holds 256, nothing should move)")

	runqput(pp, gs[256], false)
	want := append([]int64{9999}, idRange(0, 128)...)
	want = append(want, 256)
	require.Equalf(t, want, globalIDs(t, sched),
		"global queue after the 257th put: want what was there, then the 128 oldest Gs and the new one, in order")
	require.Equalf(t, idRange(128, 128), ringIDs(pp), "ring after the 257th put: want the 128 newest Gs")
	require.Falsef(t, sched.runq.emptyHint(), "global queue's emptyHint after runqputslow = true, want false")
}

// TestRunqPutSlowLostRace: runqputslow moves nothing and returns false when
// its view of the head is stale (a consumer took a G since), and runqputtail
// then puts the G on the ring, which has room again.
func TestRunqPutSlowLostRace(t *testing.T) {
	sched := newTestSched(t, 1, Config{Debug: true})
	pp := sched.allp[0]
	gs := newTestGs(sched, 0, len(pp.runq))
	putTail(pp, gs)
	h, tl := pp.runqhead.Load(), pp.runqtail.Load()
	if gp := runqgethead(pp); gp != gs[0] {
		t.Fatalf("runqgethead on a full ring: got G %s, want G 0", gName(gp))
	}
	extra := newTestG(sched, 1000)
	if runqputslow(pp, extra, h, tl) {
		t.Fatalf("runqputslow with a stale head returned true, want false (its CAS of the head must fail)")
	}
	require.Emptyf(t, globalIDs(t, sched), "global queue after a failed runqputslow: want nothing moved")
	require.Equalf(t, idRange(1, 255), ringIDs(pp), "ring after a failed runqputslow: want it unchanged")

	runqputtail(pp, extra)
	require.Emptyf(t, globalIDs(t, sched), "global queue after runqputtail on a ring with a free slot: want nothing moved")
	require.Equalf(t, append(idRange(1, 255), 1000), ringIDs(pp), "ring after runqputtail: want the new G at the tail")
}

// TestRunqPutSlowRandomized: with RandomizeScheduler, the batch moved to the
// global queue is shuffled, but it is still exactly the 128 oldest Gs and
// the new one, and the ring keeps the 128 newest in order.
func TestRunqPutSlowRandomized(t *testing.T) {
	sched := newTestSched(t, 1, Config{Debug: true, RandomizeScheduler: true, Seed: 42})
	pp := sched.allp[0]
	gs := newTestGs(sched, 0, len(pp.runq)+1)
	putTail(pp, gs[:len(pp.runq)])
	runqputtail(pp, gs[256])

	got := globalIDs(t, sched)
	want := append(idRange(0, 128), 256)
	sorted := slices.Sorted(slices.Values(got))
	require.Equalf(t, want, sorted, "global queue after overflow with RandomizeScheduler (sorted): want the 128 oldest Gs and the new one")
	require.NotEqualf(t, want, got, "global queue after overflow with RandomizeScheduler: the batch was not shuffled")
	require.Equalf(t, idRange(128, 128), ringIDs(pp), "ring after overflow with RandomizeScheduler: want the 128 newest Gs, in order")
}

// TestRunqPutBatch: runqputbatch fills the ring from q in order and leaves
// what does not fit in q, in order, for the caller.
func TestRunqPutBatch(t *testing.T) {
	t.Run("overflow stays in q", func(t *testing.T) {
		sched := newTestSched(t, 1, Config{Debug: true})
		pp := sched.allp[0]
		putTail(pp, newTestGs(sched, 0, 250))
		var q gQueue
		for _, gp := range newTestGs(sched, 1000, 10) {
			q.pushBack(gp)
		}
		runqputbatch(pp, &q)
		require.Equalf(t, append(idRange(0, 250), idRange(1000, 6)...), ringIDs(pp),
			"ring after runqputbatch of 10 Gs onto 250: want the first 6 of the batch appended in order")
		require.Equalf(t, idRange(1006, 4), queueIDs(t, &q),
			"q after runqputbatch: want the 4 Gs that did not fit, in order")
		require.Emptyf(t, globalIDs(t, sched), "global queue after runqputbatch: runqputbatch must not touch it")
	})
	t.Run("empty ring, big batch", func(t *testing.T) {
		sched := newTestSched(t, 1, Config{Debug: true})
		pp := sched.allp[0]
		var q gQueue
		for _, gp := range newTestGs(sched, 0, 300) {
			q.pushBack(gp)
		}
		runqputbatch(pp, &q)
		require.Equalf(t, idRange(0, 256), ringIDs(pp), "ring after runqputbatch of 300 Gs: want the first 256")
		require.Equalf(t, idRange(256, 44), queueIDs(t, &q), "q after runqputbatch of 300 Gs: want the last 44")
	})
	t.Run("all fit", func(t *testing.T) {
		sched := newTestSched(t, 1, Config{Debug: true})
		pp := sched.allp[0]
		var q gQueue
		for _, gp := range newTestGs(sched, 0, 5) {
			q.pushBack(gp)
		}
		runqputbatch(pp, &q)
		require.Equalf(t, idRange(0, 5), ringIDs(pp), "ring after runqputbatch of 5 Gs")
		require.Truef(t, q.empty(), "q after runqputbatch that fit: want empty, still holds %v", queueIDs(t, &q))
		require.Zerof(t, q.size, "q.size after runqputbatch that fit")
	})
	t.Run("empty q", func(t *testing.T) {
		sched := newTestSched(t, 1, Config{Debug: true})
		pp := sched.allp[0]
		putTail(pp, newTestGs(sched, 0, 3))
		var q gQueue
		runqputbatch(pp, &q)
		require.Equalf(t, idRange(0, 3), ringIDs(pp), "ring after runqputbatch of an empty q: want it unchanged")
	})
	t.Run("randomized keeps the set", func(t *testing.T) {
		sched := newTestSched(t, 1, Config{Debug: true, RandomizeScheduler: true, Seed: 7})
		pp := sched.allp[0]
		putTail(pp, newTestGs(sched, 0, 100))
		var q gQueue
		for _, gp := range newTestGs(sched, 1000, 200) {
			q.pushBack(gp)
		}
		runqputbatch(pp, &q)
		ring := ringIDs(pp)
		require.Lenf(t, ring, 256, "ring after runqputbatch with RandomizeScheduler")
		require.Equalf(t, idRange(0, 100), ring[:100], "Gs already on the ring must not be shuffled by runqputbatch")
		require.Equalf(t, idRange(1000, 156), slices.Sorted(slices.Values(ring[100:])),
			"batch Gs on the ring with RandomizeScheduler (sorted): want the first 156 of the batch")
		require.Equalf(t, idRange(1156, 44), queueIDs(t, &q), "q after runqputbatch with RandomizeScheduler: want the 44 that did not fit, in order")
	})
}

// TestRunqDrain: runqdrain returns runnext first, then the ring from head to
// tail, and leaves the queue empty.
func TestRunqDrain(t *testing.T) {
	sched := newTestSched(t, 1, Config{Debug: true})
	pp := sched.allp[0]
	q := runqdrain(pp)
	require.Truef(t, q.empty(), "runqdrain of an empty queue returned %v, want nothing", queueIDs(t, &q))

	putTail(pp, newTestGs(sched, 1, 3)) // ring: 1 2 3
	runqput(pp, newTestG(sched, 100), true)
	q = runqdrain(pp)
	require.Equalf(t, []int64{100, 1, 2, 3}, queueIDs(t, &q), "runqdrain with runnext G 100 and ring [1 2 3]: want runnext first, then the ring in order")
	require.Truef(t, runqempty(pp), "runqempty after runqdrain = false, want true")
	require.Nilf(t, pp.runnext.Load(), "runnext after runqdrain: want nil")

	runqput(pp, newTestG(sched, 200), true)
	q = runqdrain(pp)
	require.Equalf(t, []int64{200}, queueIDs(t, &q), "runqdrain with only runnext set")
	require.Truef(t, runqempty(pp), "runqempty after runqdrain = false, want true")
}

// TestRunqGrabOlderHalf: runqgrab takes n - n/2 of n Gs, the oldest, from
// the head, into batch starting at batchHead (wrapping around batch), and
// leaves the rest on the victim in order. It never touches runnext while the
// ring is not empty.
func TestRunqGrabOlderHalf(t *testing.T) {
	sched := newTestSched(t, 1, Config{Debug: true})
	pp := sched.allp[0]
	next := newTestG(sched, -7)
	const batchHead = 250 // so that the batch wraps around the end of its ring
	for n := 0; n <= len(pp.runq); n++ {
		putTail(pp, newTestGs(sched, 0, n))
		pp.runnext.Store(next)
		var batch [256]atomicRingSlot
		got := runqgrab(pp, &batch, batchHead, false)
		want := n - n/2
		if int(got) != want {
			t.Fatalf("runqgrab of a ring holding %d Gs took %d, want %d (n - n/2)", n, got, want)
		}
		var taken []int64
		for i := 0; i < want; i++ {
			taken = append(taken, gidOf(batch[(batchHead+i)%len(batch)].Load()))
		}
		if !slices.Equal(taken, idRange(0, want)) {
			t.Fatalf("runqgrab of a ring holding %d Gs put %v in the batch from index %d, want %v (the oldest half, from the head)", n, taken, batchHead, idRange(0, want))
		}
		if left := ringIDs(pp); !slices.Equal(left, idRange(int64(want), n-want)) {
			t.Fatalf("runqgrab of a ring holding %d Gs left %v on the victim, want %v", n, left, idRange(int64(want), n-want))
		}
		if pp.runnext.Load() != next {
			t.Fatalf("runqgrab(stealRunNextG=false) of a ring holding %d Gs changed runnext to G %s, want it left alone", n, gName(pp.runnext.Load()))
		}
		// Empty the victim for the next round.
		pp.runnext.Store(nil)
		runqdrain(pp)
	}
}

// TestRunqGrabRunnext: runqgrab takes the victim's runnext only when asked
// (stealRunNextG) and only when the victim's ring is empty; it backs off
// (usleep(3)) before taking the runnext of a running P.
func TestRunqGrabRunnext(t *testing.T) {
	tests := []struct {
		name      string
		ring      int  // Gs 1..ring on the victim's ring
		runnext   bool // G 100 in the victim's runnext
		steal     bool // stealRunNextG
		status    uint32
		wantTaken []int64
		wantNext  bool // G 100 still in runnext afterwards
		wantSleep []int64
	}{
		{name: "empty ring, not asked", runnext: true, steal: false, status: _Pidle, wantNext: true},
		{name: "empty ring, asked, idle victim", runnext: true, steal: true, status: _Pidle, wantTaken: []int64{100}},
		{name: "empty ring, asked, running victim", runnext: true, steal: true, status: _Prunning, wantTaken: []int64{100}, wantSleep: []int64{3}},
		{name: "one G on ring, asked", ring: 1, runnext: true, steal: true, status: _Prunning, wantTaken: []int64{1}, wantNext: true},
		{name: "three Gs on ring, asked", ring: 3, runnext: true, steal: true, status: _Prunning, wantTaken: []int64{1, 2}, wantNext: true},
		{name: "nothing at all, asked", steal: true, status: _Prunning},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var slept []int64
			sched := newTestSched(t, 1, Config{Debug: true, Usleep: func(us int64) { slept = append(slept, us) }})
			pp := sched.allp[0]
			putTail(pp, newTestGs(sched, 1, tt.ring))
			next := newTestG(sched, 100)
			if tt.runnext {
				pp.runnext.Store(next)
			}
			pp.status.Store(tt.status)
			var batch [256]atomicRingSlot
			n := runqgrab(pp, &batch, 10, tt.steal)
			var taken []int64
			for i := uint32(0); i < n; i++ {
				taken = append(taken, gidOf(batch[10+i].Load()))
			}
			require.Equalf(t, tt.wantTaken, taken, "runqgrab(ring=%d Gs, runnext=%v, stealRunNextG=%v): Gs taken", tt.ring, tt.runnext, tt.steal)
			if tt.wantNext {
				require.Samef(t, next, pp.runnext.Load(), "runnext after runqgrab: want G 100 left in place")
			} else {
				require.Nilf(t, pp.runnext.Load(), "runnext after runqgrab: want nil")
			}
			require.Equalf(t, tt.wantSleep, slept, "usleep calls during runqgrab (a thief backs off 3µs before taking a running P's runnext, and only then)")
		})
	}
}

// TestRunqRunnext: runqput(next=true) puts the G in runnext and kicks the
// previous runnext to the tail of the ring; runqget returns runnext first,
// with inheritTime = true, then the ring with inheritTime = false.
func TestRunqRunnext(t *testing.T) {
	sched := newTestSched(t, 1, Config{Debug: true})
	pp := sched.allp[0]
	a, b, c, d := newTestG(sched, 1), newTestG(sched, 2), newTestG(sched, 3), newTestG(sched, 4)

	runqput(pp, a, true)
	require.Samef(t, a, pp.runnext.Load(), "runnext after runqput(G 1, next=true): got G %s, want G 1", gName(pp.runnext.Load()))
	require.Emptyf(t, ringIDs(pp), "ring after runqput(G 1, next=true) on an empty P: want empty")
	require.Falsef(t, runqempty(pp), "runqempty with G 1 in runnext = true, want false")

	runqput(pp, b, true)
	require.Samef(t, b, pp.runnext.Load(), "runnext after runqput(G 2, next=true): got G %s, want G 2", gName(pp.runnext.Load()))
	require.Equalf(t, []int64{1}, ringIDs(pp), "ring after runqput(G 2, next=true): want the old runnext G 1 kicked to the tail")

	runqput(pp, c, false)
	require.Samef(t, b, pp.runnext.Load(), "runnext after runqput(G 3, next=false): got G %s, want G 2 unchanged", gName(pp.runnext.Load()))
	runqput(pp, d, true)
	require.Equalf(t, []int64{1, 3, 2}, ringIDs(pp), "ring after runqput(G 4, next=true): want G 2 kicked to the tail, after G 1 and G 3")

	want := []struct {
		id      int64
		inherit bool
	}{{4, true}, {1, false}, {3, false}, {2, false}}
	for _, w := range want {
		gp, inherit := runqget(pp)
		if gp == nil || gp.goid != w.id {
			t.Fatalf("runqget: got G %s, want G %d (runnext first, then the ring in order)", gName(gp), w.id)
		}
		if inherit != w.inherit {
			t.Fatalf("runqget returned G %d with inheritTime = %v, want %v (true only for runnext)", w.id, inherit, w.inherit)
		}
	}
	if gp, inherit := runqget(pp); gp != nil || inherit {
		t.Fatalf("runqget on an empty queue: got (G %s, %v), want (nil, false)", gName(gp), inherit)
	}
}

// TestRunqNoSysmonNoRunnext: without sysmon nothing would preempt a runnext
// pair, so runqput(next=true) must use the ring.
func TestRunqNoSysmonNoRunnext(t *testing.T) {
	sched := newTestSched(t, 1, Config{Debug: true, NoSysmon: true})
	pp := sched.allp[0]
	runqput(pp, newTestG(sched, 1), true)
	runqput(pp, newTestG(sched, 2), true)
	require.Nilf(t, pp.runnext.Load(), "runnext with NoSysmon after runqput(next=true): got G %s, want nil (no runnext without sysmon)", gName(pp.runnext.Load()))
	require.Equalf(t, []int64{1, 2}, ringIDs(pp), "ring with NoSysmon after runqput(G 1, next=true), runqput(G 2, next=true)")
	for _, id := range []int64{1, 2} {
		gp, inherit := runqget(pp)
		require.Equalf(t, id, gidOf(gp), "runqget with NoSysmon: want FIFO order")
		require.Falsef(t, inherit, "runqget with NoSysmon returned inheritTime = true for G %d, want false", id)
	}
}

// TestRunqRandomizeSkipsRunnext: with RandomizeScheduler, runqput(next=true)
// uses runnext about half the time and the ring otherwise; the G is always
// in exactly one of them.
func TestRunqRandomizeSkipsRunnext(t *testing.T) {
	sched := newTestSched(t, 1, Config{Debug: true, RandomizeScheduler: true, Seed: 99})
	pp := sched.allp[0]
	const n = 1000
	inRunnext := 0
	for i := 0; i < n; i++ {
		gp := newTestG(sched, int64(i))
		runqput(pp, gp, true)
		switch ring := ringIDs(pp); {
		case pp.runnext.Load() == gp && len(ring) == 0:
			inRunnext++
		case pp.runnext.Load() == nil && slices.Equal(ring, []int64{int64(i)}):
		default:
			t.Fatalf("after runqput(G %d, next=true) on an empty P: runnext = G %s, ring = %v; want the G in exactly one of them", i, gName(pp.runnext.Load()), ring)
		}
		if got, _ := runqget(pp); got != gp {
			t.Fatalf("runqget after runqput(G %d): got G %s", i, gName(got))
		}
	}
	if inRunnext < n*35/100 || inRunnext > n*65/100 {
		t.Fatalf("with RandomizeScheduler, %d of %d runqput(next=true) used runnext, want about half", inRunnext, n)
	}
}

// TestRunqWrapAround: head and tail are uint32 counters that wrap; every
// operation must work across the wrap.
func TestRunqWrapAround(t *testing.T) {
	const start = math.MaxUint32 - 5
	setup := func(t *testing.T) (*schedt, *p) {
		sched := newTestSched(t, 2, Config{Debug: true})
		pp := sched.allp[0]
		pp.runqhead.Store(start)
		pp.runqtail.Store(start)
		return sched, pp
	}
	t.Run("fifo", func(t *testing.T) {
		sched, pp := setup(t)
		require.Truef(t, runqempty(pp), "runqempty with head = tail = MaxUint32-5: want true")
		putTail(pp, newTestGs(sched, 0, 20))
		require.Equalf(t, uint32(20), runqlen(pp), "runqlen after 20 puts across the wrap")
		for i := int64(0); i < 20; i++ {
			gp, _ := runqget(pp)
			require.Equalf(t, i, gidOf(gp), "runqget #%d across the wrap: want FIFO", i)
		}
		require.Truef(t, runqempty(pp), "runqempty after taking every G across the wrap: want true")
	})
	t.Run("putslow", func(t *testing.T) {
		sched, pp := setup(t)
		putTail(pp, newTestGs(sched, 0, 257))
		require.Equalf(t, append(idRange(0, 128), 256), globalIDs(t, sched), "global queue after 257 puts across the wrap: want the 128 oldest and the new G")
		require.Equalf(t, idRange(128, 128), ringIDs(pp), "ring after 257 puts across the wrap")
	})
	t.Run("grab and steal", func(t *testing.T) {
		sched, pp := setup(t)
		thief := sched.allp[1]
		thief.runqhead.Store(math.MaxUint32 - 1)
		thief.runqtail.Store(math.MaxUint32 - 1)
		putTail(pp, newTestGs(sched, 0, 10))
		gp := runqsteal(thief, pp, false)
		require.Equalf(t, int64(4), gidOf(gp), "runqsteal of 10 Gs across the wrap: want the newest stolen G (G 4) returned")
		require.Equalf(t, idRange(0, 4), ringIDs(thief), "thief's ring after runqsteal across the wrap")
		require.Equalf(t, idRange(5, 5), ringIDs(pp), "victim's ring after runqsteal across the wrap")
	})
	t.Run("drain", func(t *testing.T) {
		sched, pp := setup(t)
		putTail(pp, newTestGs(sched, 0, 12))
		q := runqdrain(pp)
		require.Equalf(t, idRange(0, 12), queueIDs(t, &q), "runqdrain across the wrap")
		require.Truef(t, runqempty(pp), "runqempty after runqdrain across the wrap: want true")
	})
	t.Run("batch", func(t *testing.T) {
		sched, pp := setup(t)
		putTail(pp, newTestGs(sched, 0, 250))
		var q gQueue
		for _, gp := range newTestGs(sched, 1000, 10) {
			q.pushBack(gp)
		}
		runqputbatch(pp, &q)
		require.Equalf(t, append(idRange(0, 250), idRange(1000, 6)...), ringIDs(pp), "ring after runqputbatch across the wrap")
		require.Equalf(t, idRange(1006, 4), queueIDs(t, &q), "q after runqputbatch across the wrap")
	})
}

// TestRunqStealConcurrent: an owner putting and getting (runnext included)
// while thieves steal (runnext included on every other try): every G is
// taken exactly once, whoever takes it.
func TestRunqStealConcurrent(t *testing.T) {
	total := 100000
	if testing.Short() {
		total = 10000
	}
	// One thief per spare host P, so that the owner and the thieves really
	// run at the same time.
	thieves := min(max(runtime.GOMAXPROCS(0)-1, 1), 3)
	// A thief backs off before taking a running P's runnext: half the time
	// by yielding (the owner usually gets there first), half the time not
	// at all (the thief and the owner race for it).
	var backoffs atomic.Int64
	usleep := func(int64) {
		if backoffs.Add(1)%2 == 0 {
			runtime.Gosched()
		}
	}
	sched := newTestSched(t, 1+thieves, Config{Debug: true, Usleep: usleep})
	owner := sched.allp[0]
	owner.status.Store(_Prunning)
	gs := newTestGs(sched, 0, total)
	counts := make([]atomic.Int32, total)
	take := func(gp *g) {
		if gp != nil {
			counts[gp.goid].Add(1)
		}
	}
	drain := func(pp *p) {
		for {
			gp, _ := runqget(pp)
			if gp == nil {
				return
			}
			take(gp)
		}
	}

	var started atomic.Int32
	var ownerDone atomic.Bool
	var stolen atomic.Int64
	var wg sync.WaitGroup
	for _, thief := range sched.allp[1:] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			started.Add(1)
			for i := 0; !ownerDone.Load(); i++ {
				if gp := runqsteal(thief, owner, i%2 == 1); gp != nil {
					stolen.Add(1)
					take(gp)
				}
				drain(thief)
			}
		}()
	}
	for started.Load() != int32(thieves) {
		runtime.Gosched()
	}
	for i, gp := range gs {
		// The owner works in blocks of 256 Gs, in three modes in turn.
		switch (i / 256) % 3 {
		case 0:
			// Ping-pong: the ring stays empty and runnext full, so
			// thieves go for runnext while the owner takes and replaces it.
			gp2, _ := runqget(owner)
			take(gp2)
			runqput(owner, gp, true)
		case 1:
			// One G out per G in: Gs pass through runnext and a short ring.
			runqput(owner, gp, i%3 != 2)
			gp2, _ := runqget(owner)
			take(gp2)
		case 2:
			// One G out per two in: the ring fills up and overflows to the
			// global queue.
			runqput(owner, gp, i%3 != 2)
			if i%2 == 1 {
				gp2, _ := runqget(owner)
				take(gp2)
			}
		}
	}
	drain(owner)
	ownerDone.Store(true)
	wg.Wait()

	for _, pp := range sched.allp {
		drain(pp)
	}
	sched.lock.Lock()
	for gp := sched.globrunqget(); gp != nil; gp = sched.globrunqget() {
		take(gp)
	}
	sched.lock.Unlock()
	for i := range counts {
		if c := counts[i].Load(); c != 1 {
			t.Fatalf("G %d was taken %d times by the owner, the thieves and the final drain, want exactly once", i, c)
		}
	}
	t.Logf("%d thieves stole %d times (%d runnext back-offs) from %d Gs", thieves, stolen.Load(), backoffs.Load(), total)
}
