package sched

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// Tests of the global run queue (globrunq.go) and of what a destroyed P
// leaves on it (procresize.go). The runtime has no unit tests of its own for
// these. Every call is made with sched.lock held, as the functions require
// (Config.Debug makes them check).

// globPut puts gs on the tail of the global queue.
func globPut(sched *schedt, gs []*g) {
	sched.lock.Lock()
	defer sched.lock.Unlock()
	for _, gp := range gs {
		sched.globrunqput(gp)
	}
}

// TestGlobrunqFIFO: Gs come off the global queue in the order they were put;
// the unlocked emptiness hint follows.
func TestGlobrunqFIFO(t *testing.T) {
	sched := newTestSched(t, 1, Config{Debug: true})
	require.Truef(t, sched.runq.emptyHint(), "emptyHint of a new global queue = false, want true")
	globPut(sched, newTestGs(sched, 1, 10))
	require.Equalf(t, idRange(1, 10), globalIDs(t, sched), "global queue after globrunqput of G 1..10")
	require.Falsef(t, sched.runq.emptyHint(), "emptyHint after 10 puts = true, want false")

	sched.lock.Lock()
	defer sched.lock.Unlock()
	for want := int64(1); want <= 10; want++ {
		gp := sched.globrunqget()
		if gp == nil || gp.goid != want {
			t.Fatalf("globrunqget: got G %s, want G %d (FIFO)", gName(gp), want)
		}
		if gp.schedlink != nil {
			t.Fatalf("globrunqget returned G %d still linked to G %s, want schedlink cleared", want, gName(gp.schedlink))
		}
	}
	if gp := sched.globrunqget(); gp != nil {
		t.Fatalf("globrunqget on an empty queue: got G %d, want nil", gp.goid)
	}
	require.Truef(t, sched.runq.emptyHint(), "emptyHint after taking every G = false, want true")
	require.Nilf(t, sched.runq.tail, "global queue tail after taking every G: want nil")
}

// TestGlobrunqPutHead: globrunqputhead puts a G in front of everything on the
// global queue, and keeps the tail right when the queue was empty.
func TestGlobrunqPutHead(t *testing.T) {
	sched := newTestSched(t, 1, Config{Debug: true})
	sched.lock.Lock()
	sched.globrunqputhead(newTestG(sched, 5))
	sched.lock.Unlock()
	require.Equalf(t, []int64{5}, globalIDs(t, sched), "globrunqputhead(G 5) on an empty queue")

	globPut(sched, newTestGs(sched, 6, 2))
	require.Equalf(t, []int64{5, 6, 7}, globalIDs(t, sched), "globrunqput after globrunqputhead on an empty queue: want the put at the tail")

	sched.lock.Lock()
	sched.globrunqputhead(newTestG(sched, 4))
	sched.globrunqputhead(newTestG(sched, 3))
	sched.lock.Unlock()
	require.Equalf(t, []int64{3, 4, 5, 6, 7}, globalIDs(t, sched), "globrunqputhead(G 4) then globrunqputhead(G 3) onto [5 6 7]: want each in front")
	require.Falsef(t, sched.runq.emptyHint(), "emptyHint after globrunqputhead = true, want false")
}

// TestGlobrunqPutBatch: globrunqputbatch appends a whole batch, in order, to
// the tail, and leaves the batch empty.
func TestGlobrunqPutBatch(t *testing.T) {
	sched := newTestSched(t, 1, Config{Debug: true})
	batchOf := func(first int64, n int) *gQueue {
		var q gQueue
		for _, gp := range newTestGs(sched, first, n) {
			q.pushBack(gp)
		}
		return &q
	}

	b := batchOf(1, 3)
	sched.lock.Lock()
	sched.globrunqputbatch(b)
	sched.lock.Unlock()
	require.Equalf(t, []int64{1, 2, 3}, globalIDs(t, sched), "globrunqputbatch([1 2 3]) onto an empty queue")
	require.Equalf(t, gQueue{}, *b, "batch after globrunqputbatch: want it emptied (head, tail nil, size 0)")

	globPut(sched, newTestGs(sched, 4, 1))
	b = batchOf(10, 4)
	sched.lock.Lock()
	sched.globrunqputbatch(b)
	sched.globrunqputbatch(&gQueue{})
	sched.lock.Unlock()
	require.Equalf(t, []int64{1, 2, 3, 4, 10, 11, 12, 13}, globalIDs(t, sched), "globrunqputbatch([10..13]) onto [1 2 3 4], then an empty batch: want it appended at the tail")
	require.Equalf(t, gQueue{}, *b, "batch after globrunqputbatch: want it emptied")

	globPut(sched, newTestGs(sched, 20, 1))
	require.Equalf(t, []int64{1, 2, 3, 4, 10, 11, 12, 13, 20}, globalIDs(t, sched), "globrunqput after globrunqputbatch: want the put after the batch")
}

// TestGlobrunqGetBatchSize: globrunqgetbatch(n) takes min(n, size,
// size/gomaxprocs+1) Gs from the head: the first to run now, the rest in q in
// order; the global queue keeps the others in order.
func TestGlobrunqGetBatchSize(t *testing.T) {
	tests := []struct {
		size, procs, n int
		want           int
	}{
		{size: 0, procs: 1, n: 128, want: 0},
		{size: 1, procs: 1, n: 128, want: 1},
		{size: 1, procs: 8, n: 128, want: 1},
		{size: 2, procs: 1, n: 128, want: 2},   // size/1+1 = 3, capped by size
		{size: 10, procs: 1, n: 128, want: 10}, // the whole queue
		{size: 10, procs: 2, n: 128, want: 6},  // 10/2+1
		{size: 10, procs: 4, n: 128, want: 3},  // 10/4+1
		{size: 16, procs: 4, n: 128, want: 5},  // 16/4+1
		{size: 7, procs: 8, n: 128, want: 1},   // 7/8+1: a P always takes one
		{size: 3, procs: 64, n: 128, want: 1},
		{size: 129, procs: 1, n: 128, want: 128},  // capped by n (half the ring)
		{size: 300, procs: 2, n: 128, want: 128},  // 151, capped by n
		{size: 300, procs: 3, n: 128, want: 101},  // 300/3+1
		{size: 1000, procs: 8, n: 128, want: 126}, // 1000/8+1
		{size: 1000, procs: 7, n: 128, want: 128}, // 143, capped by n
		{size: 5, procs: 1, n: 2, want: 2},        // capped by a small n
		{size: 50, procs: 5, n: 1, want: 1},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("size=%d/procs=%d/n=%d", tt.size, tt.procs, tt.n), func(t *testing.T) {
			sched := newTestSched(t, tt.procs, Config{Debug: true})
			globPut(sched, newTestGs(sched, 0, tt.size))

			sched.lock.Lock()
			gp, q := sched.globrunqgetbatch(int32(tt.n))
			sched.lock.Unlock()

			got := 0
			if gp != nil {
				got = 1 + int(q.size)
			} else if !q.empty() {
				t.Fatalf("globrunqgetbatch returned no G to run but a batch %v", queueIDs(t, &q))
			}
			if got != tt.want {
				t.Fatalf("globrunqgetbatch(%d) with %d Gs queued and gomaxprocs %d took %d Gs, want %d = min(n, size, size/gomaxprocs+1)",
					tt.n, tt.size, tt.procs, got, tt.want)
			}
			if tt.want == 0 {
				return
			}
			if gp.goid != 0 {
				t.Fatalf("globrunqgetbatch returned G %d to run, want G 0 (the head)", gp.goid)
			}
			require.Equalf(t, idRange(1, tt.want-1), orEmpty(queueIDs(t, &q)), "batch from globrunqgetbatch: want the Gs after the head, in order")
			require.Equalf(t, idRange(int64(tt.want), tt.size-tt.want), orEmpty(globalIDs(t, sched)), "global queue after globrunqgetbatch: want the rest, in order")
		})
	}
}

// orEmpty turns a nil slice into an empty one, for comparison with idRange.
func orEmpty(ids []int64) []int64 {
	if ids == nil {
		return []int64{}
	}
	return ids
}

// TestGlobrunqGetOne: globrunqget takes exactly one G, the head, however
// long the queue and whatever gomaxprocs.
func TestGlobrunqGetOne(t *testing.T) {
	sched := newTestSched(t, 1, Config{Debug: true})
	globPut(sched, newTestGs(sched, 0, 300))
	sched.lock.Lock()
	gp := sched.globrunqget()
	sched.lock.Unlock()
	require.Equalf(t, int64(0), gidOf(gp), "globrunqget on [0..299]: want the head, G 0")
	require.Equalf(t, idRange(1, 299), globalIDs(t, sched), "global queue after one globrunqget: want exactly one G gone")
}

// TestDestroyMovesWorkToGlobalHead: a destroyed P puts its runnext and its
// ring on the head of the global queue, in the order they would have run
// (runnext, then the ring from head to tail), in front of what was already
// there; its free Gs go to the global free list, and it becomes _Pdead.
func TestDestroyMovesWorkToGlobalHead(t *testing.T) {
	sched := newTestSched(t, 2, Config{Debug: true})
	stopTestWorld(sched) // destroy runs with the world stopped
	pp := sched.allp[1]
	globPut(sched, []*g{newTestG(sched, 201), newTestG(sched, 202)}) // y z
	putTail(pp, newTestGs(sched, 1, 3))                              // ring: a b c
	runqput(pp, newTestG(sched, 100), true)                          // runnext: x
	free := newTestG(sched, 300)
	free.atomicstatus.Store(_Gdead)
	pp.gFree.push(free)
	pp.gFree.n++

	sched.lock.Lock()
	pp.destroy()
	sched.lock.Unlock()

	require.Equalf(t, []int64{100, 1, 2, 3, 201, 202}, globalIDs(t, sched),
		"global queue after destroying a P with runnext G 100 and ring [1 2 3] onto [201 202]: want runnext, then the ring in order, then what was there")
	require.Equalf(t, _Pdead, pp.status.Load(), "status of the destroyed P: got %s, want dead", pStatusString(pp.status.Load()))
	require.Truef(t, runqempty(pp), "destroyed P's run queue is not empty (ring %v, runnext G %s)", ringIDs(pp), gName(pp.runnext.Load()))
	require.Truef(t, pp.gFree.empty(), "destroyed P still caches free Gs")
	require.Zerof(t, pp.gFree.n, "destroyed P's gFree.n")
	require.Samef(t, free, sched.gFree.list.head, "global free list after destroy: want the P's free G 300")
	require.Equalf(t, int32(1), sched.gFree.n.Load(), "global free count after destroy")
}

// TestDestroyViaProcresize: shrinking GOMAXPROCS destroys the Ps beyond the
// new count; their work ends up at the head of the global queue, each P's
// Gs together and in run order, in front of what was queued; the P list,
// gomaxprocs and the steal order shrink.
func TestDestroyViaProcresize(t *testing.T) {
	sched := newTestSched(t, 3, Config{Debug: true})
	stopTestWorld(sched)
	p0, p1, p2 := sched.allp[0], sched.allp[1], sched.allp[2]
	globPut(sched, []*g{newTestG(sched, 900)})
	putTail(p1, newTestGs(sched, 10, 2)) // P 1 ring: 10 11
	putTail(p2, newTestGs(sched, 20, 2)) // P 2 ring: 20 21
	runqput(p2, newTestG(sched, 29), true)

	if runnable := startTestWorld(t, sched, 1); runnable != nil {
		t.Fatalf("procresize(1) returned P %d as having work, want none (P 0 was empty)", runnable.id)
	}

	// procresize destroys P 1, then P 2, each pushing onto the head.
	require.Equalf(t, []int64{29, 20, 21, 10, 11, 900}, globalIDs(t, sched),
		"global queue after shrinking 3 Ps to 1: want P 2's runnext and ring, then P 1's ring, then what was there")
	require.Lenf(t, sched.allp, 1, "allp after procresize(1)")
	require.Samef(t, p0, sched.allp[0], "allp[0] after procresize(1): want the same P")
	require.Equalf(t, int32(1), sched.gomaxprocs.Load(), "gomaxprocs after procresize(1)")
	require.Equalf(t, uint32(1), sched.stealOrder.count, "stealOrder.count after procresize(1): want it reset for 1 P")
	for _, pp := range []*p{p1, p2} {
		require.Equalf(t, _Pdead, pp.status.Load(), "status of P %d after procresize(1): got %s, want dead", pp.id, pStatusString(pp.status.Load()))
		require.Truef(t, runqempty(pp), "P %d still has Gs after being destroyed", pp.id)
	}
}
