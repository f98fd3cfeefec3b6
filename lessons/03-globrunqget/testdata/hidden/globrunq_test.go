package sched

// Hidden tests of lesson 03-globrunqget. Messages are written for a learner
// who cannot see this file. Every call is made with sched.lock held, as the
// functions require, and with Config.Debug so that assertLockHeld checks it.

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const l03 = "03-globrunqget"

// l03linked follows the global queue's links from its head and returns the
// IDs it finds (at most limit of them, in case the links loop).
func l03linked(head *g, limit int) []int64 {
	var ids []int64
	for gp := head; gp != nil && len(ids) <= limit; gp = gp.schedlink {
		ids = append(ids, gp.goid)
	}
	return ids
}

// l03fmt formats IDs for messages: "[1 2 3]", shortened when long.
func l03fmt(ids []int64) string {
	if len(ids) > 24 {
		return fmt.Sprint(ids[:12]) + fmt.Sprintf("... (%d in all) ...", len(ids)) + fmt.Sprint(ids[len(ids)-4:])
	}
	return fmt.Sprint(ids)
}

// l03global returns the IDs on the global queue, head to tail, after
// checking that the queue is well formed: its size is the number of Gs
// linked from its head, its tail is the last of them. With hint, it also
// checks the size hint that findRunnable reads without the lock.
func l03global(t *testing.T, sched *schedt, after string, hint bool) []int64 {
	t.Helper()
	q := &sched.runq
	ids := l03linked(q.head, int(q.size)+1)
	if len(ids) != int(q.size) {
		t.Fatalf("after %s: sched.runq.size = %d but %s are linked from its head (%s): keep size right (use sched.runq's methods: push, pushBack, pushBackAll, pop)"+kitHint(l03), after, q.size, kitCount(int(len(ids)), "G"), l03fmt(ids))
	}
	var last *g
	for gp := q.head; gp != nil; gp = gp.schedlink {
		last = gp
	}
	if q.tail != last {
		t.Fatalf("after %s: sched.runq.tail = %s but the last G linked from the head is %s: a put at the tail would be lost"+kitHint(l03), after, kitID(q.tail), kitID(last))
	}
	if hint {
		if h := q.sizeHint.Load(); h != q.size {
			t.Fatalf("after %s: the global queue holds %s but sched.runq.sizeHint = %d, so emptyHint() = %v: findRunnable reads the hint without the lock to decide whether to look at the queue. Go through sched.runq's own methods (push, pushBack, pushBackAll, pop), which keep the hint, not the embedded gQueue's"+kitHint(l03), after, kitCount(int(q.size), "G"), h, q.emptyHint())
		}
	}
	return ids
}

// l03ids returns first, first+1, ..., n of them.
func l03ids(first int64, n int) []int64 {
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = first + int64(i)
	}
	return ids
}

// l03qids returns the IDs in q, checking that q is well formed.
func l03qids(t *testing.T, q *gQueue, what string) []int64 {
	t.Helper()
	ids := l03linked(q.head, int(q.size)+1)
	if len(ids) != int(q.size) {
		t.Fatalf("%s: q.size = %d but %s are linked from q.head (%s)", what, q.size, kitCount(int(len(ids)), "G"), l03fmt(ids))
	}
	var last *g
	for gp := q.head; gp != nil; gp = gp.schedlink {
		last = gp
	}
	if q.tail != last {
		t.Fatalf("%s: q.tail = %s but the last G linked from q.head is %s", what, kitID(q.tail), kitID(last))
	}
	return ids
}

// l03put puts gs on the global queue's tail with globrunqput.
func l03put(sched *schedt, gs []*g) {
	sched.lock.Lock()
	defer sched.lock.Unlock()
	for _, gp := range gs {
		sched.globrunqput(gp)
	}
}

// l03batch makes a gQueue of n new Gs with IDs from first.
func l03batch(sched *schedt, first int64, n int) *gQueue {
	var q gQueue
	for _, gp := range kitGs(sched, first, n) {
		q.pushBack(gp)
	}
	return &q
}

func TestL03FIFO(t *testing.T) {
	sched := kitSched(1, Config{Debug: true})
	l03put(sched, kitGs(sched, 1, 10))
	if got := l03global(t, sched, "globrunqput of G 1..G 10", false); !slices.Equal(got, l03ids(1, 10)) {
		t.Fatalf("after globrunqput of G 1, G 2, ..., G 10, the global queue holds %v, want [1 ... 10]: globrunqput adds at the tail"+kitHint(l03), got)
	}
	sched.lock.Lock()
	defer sched.lock.Unlock()
	for want := int64(1); want <= 10; want++ {
		gp := sched.globrunqget()
		if gp == nil || gp.goid != want {
			t.Fatalf("globrunqget #%d on the queue of G 1..G 10 returned %s, want G %d (first in, first out)"+kitHint(l03), want, kitID(gp), want)
		}
		l03global(t, sched, fmt.Sprintf("globrunqget #%d", want), false)
	}
	if gp := sched.globrunqget(); gp != nil {
		t.Fatalf("globrunqget on an empty global queue returned %s, want nil", kitID(gp))
	}
	if sched.runq.head != nil || sched.runq.tail != nil || sched.runq.size != 0 {
		t.Fatalf("after taking every G, the global queue has head %s, tail %s, size %d; want nil, nil, 0", kitID(sched.runq.head), kitID(sched.runq.tail), sched.runq.size)
	}
	// The queue works again once emptied.
	for _, gp := range kitGs(sched, 20, 2) {
		sched.globrunqput(gp)
	}
	if got := l03global(t, sched, "emptying the queue, then globrunqput of G 20 and G 21", false); !slices.Equal(got, []int64{20, 21}) {
		t.Fatalf("after emptying the queue, then globrunqput of G 20 and G 21, the global queue holds %v, want [20 21]", got)
	}
}

func TestL03PutHead(t *testing.T) {
	sched := kitSched(1, Config{Debug: true})
	sched.lock.Lock()
	sched.globrunqputhead(kitG(sched, 5))
	sched.lock.Unlock()
	if got := l03global(t, sched, "globrunqputhead(G 5) on an empty queue", false); !slices.Equal(got, []int64{5}) {
		t.Fatalf("after globrunqputhead(G 5) on an empty queue, the global queue holds %v, want [5]", got)
	}
	l03put(sched, kitGs(sched, 6, 2))
	if got := l03global(t, sched, "globrunqputhead(G 5) on an empty queue, then globrunqput(G 6), globrunqput(G 7)", false); !slices.Equal(got, []int64{5, 6, 7}) {
		t.Fatalf("after globrunqputhead(G 5) on an empty queue, then globrunqput(G 6) and (G 7), the global queue holds %v, want [5 6 7]", got)
	}
	sched.lock.Lock()
	sched.globrunqputhead(kitG(sched, 4))
	sched.globrunqputhead(kitG(sched, 3))
	sched.lock.Unlock()
	if got := l03global(t, sched, "globrunqputhead(G 4), globrunqputhead(G 3) onto [5 6 7]", false); !slices.Equal(got, []int64{3, 4, 5, 6, 7}) {
		t.Fatalf("after globrunqputhead(G 4), then globrunqputhead(G 3) onto [5 6 7], the global queue holds %v, want [3 4 5 6 7]: each goes in FRONT of everything queued"+kitHint(l03), got)
	}
	sched.lock.Lock()
	defer sched.lock.Unlock()
	for want := int64(3); want <= 7; want++ {
		if gp := sched.globrunqget(); gp == nil || gp.goid != want {
			t.Fatalf("globrunqget on [3 4 5 6 7] returned %s, want G %d", kitID(gp), want)
		}
	}
}

func TestL03PutBatch(t *testing.T) {
	sched := kitSched(1, Config{Debug: true})
	b := l03batch(sched, 1, 3)
	sched.lock.Lock()
	sched.globrunqputbatch(b)
	sched.lock.Unlock()
	if got := l03global(t, sched, "globrunqputbatch([1 2 3]) onto an empty queue", false); !slices.Equal(got, []int64{1, 2, 3}) {
		t.Fatalf("after globrunqputbatch([1 2 3]) onto an empty queue, the global queue holds %v, want [1 2 3]", got)
	}
	if *b != (gQueue{}) {
		t.Fatalf("after globrunqputbatch, the batch still has head %s, tail %s, size %d: empty it (*batch = gQueue{}); its Gs now belong to the global queue"+kitHint(l03), kitID(b.head), kitID(b.tail), b.size)
	}

	l03put(sched, kitGs(sched, 4, 1))
	b = l03batch(sched, 10, 4)
	sched.lock.Lock()
	sched.globrunqputbatch(b)
	sched.globrunqputbatch(&gQueue{})
	sched.lock.Unlock()
	if got := l03global(t, sched, "globrunqputbatch([10 11 12 13]) onto [1 2 3 4], then an empty batch", false); !slices.Equal(got, []int64{1, 2, 3, 4, 10, 11, 12, 13}) {
		t.Fatalf("after globrunqputbatch([10 11 12 13]) onto [1 2 3 4], then globrunqputbatch of an empty batch, the global queue holds %v, want [1 2 3 4 10 11 12 13]: the batch goes on the TAIL, in order"+kitHint(l03), got)
	}
	if *b != (gQueue{}) {
		t.Fatalf("after globrunqputbatch, the batch still has head %s, tail %s, size %d: empty it (*batch = gQueue{})", kitID(b.head), kitID(b.tail), b.size)
	}
	l03put(sched, kitGs(sched, 20, 1))
	sched.lock.Lock()
	sched.globrunqputhead(kitG(sched, 0))
	sched.lock.Unlock()
	if got := l03global(t, sched, "globrunqput(G 20), then globrunqputhead(G 0)", false); !slices.Equal(got, []int64{0, 1, 2, 3, 4, 10, 11, 12, 13, 20}) {
		t.Fatalf("after globrunqput(G 20) and globrunqputhead(G 0) onto [1 2 3 4 10 11 12 13], the global queue holds %v, want [0 1 2 3 4 10 11 12 13 20]", got)
	}

	// A batch as big as runqputslow's, onto a long queue.
	b = l03batch(sched, 1000, 129)
	sched.lock.Lock()
	sched.globrunqputbatch(b)
	sched.lock.Unlock()
	got := l03global(t, sched, "globrunqputbatch of 129 Gs", false)
	if want := append([]int64{0, 1, 2, 3, 4, 10, 11, 12, 13, 20}, l03ids(1000, 129)...); !slices.Equal(got, want) {
		t.Fatalf("after globrunqputbatch of G 1000..G 1128 onto 10 Gs, the global queue holds %s, want %s", l03fmt(got), l03fmt(want))
	}
}

func TestL03GetOne(t *testing.T) {
	for _, procs := range []int{1, 8} {
		sched := kitSched(procs, Config{Debug: true})
		l03put(sched, kitGs(sched, 0, 300))
		sched.lock.Lock()
		gp := sched.globrunqget()
		sched.lock.Unlock()
		if gp == nil || gp.goid != 0 {
			t.Fatalf("globrunqget on [0 ... 299] with gomaxprocs %d returned %s, want G 0 (the head)", procs, kitID(gp))
		}
		if got := l03global(t, sched, "one globrunqget", false); !slices.Equal(got, l03ids(1, 299)) {
			t.Fatalf("after one globrunqget on [0 ... 299] with gomaxprocs %d, the global queue holds %s, want [1 ... 299]: globrunqget takes exactly one G (the batch is globrunqgetbatch's job)"+kitHint(l03), procs, l03fmt(got))
		}
	}
}

// l03getbatch checks one globrunqgetbatch(n) on a queue of size Gs
// (G 0 .. G size-1, the first of gs) with the given gomaxprocs.
func l03getbatch(t *testing.T, sched *schedt, gs []*g, size, n int) {
	t.Helper()
	procs := int(sched.gomaxprocs.Load())
	sched.lock.Lock()
	sched.runq.gQueue = gQueue{}
	sched.runq.sizeHint.Store(0)
	for _, gp := range gs[:size] {
		sched.globrunqput(gp)
	}
	gp, q := sched.globrunqgetbatch(int32(n))
	sched.lock.Unlock()

	want := min(n, size, size/procs+1)
	call := fmt.Sprintf("globrunqgetbatch(%d) with %s queued and gomaxprocs %d", n, kitCount(int(size), "G"), procs)
	if int(sched.cfg.procs) != procs {
		call += fmt.Sprintf(" (the scheduler was made with %s, and GOMAXPROCS changed that since: the number of Ps now is sched.gomaxprocs)", kitCount(int(sched.cfg.procs), "P"))
	}
	batch := l03qids(t, &q, "the batch q returned by "+call)
	got := len(batch)
	if gp != nil {
		got++
	}
	if gp == nil && len(batch) > 0 {
		t.Fatalf("%s returned no G to run but a batch %s: the first G taken is returned as gp", call, l03fmt(batch))
	}
	if got != want {
		t.Fatalf("%s took %s (gp and %d in q), want %d = min(n, size, size/gomaxprocs+1)"+kitHint(l03), call, kitCount(int(got), "G"), len(batch), want)
	}
	if want == 0 {
		return
	}
	if gp.goid != 0 {
		t.Fatalf("%s returned G %d to run, want G 0: take from the head", call, gp.goid)
	}
	if !slices.Equal(batch, l03ids(1, want-1)) {
		t.Fatalf("%s returned gp = G 0 and the batch %s, want %s: the next Gs from the head, in order"+kitHint(l03), call, l03fmt(batch), l03fmt(l03ids(1, want-1)))
	}
	if rest := l03global(t, sched, call, true); !slices.Equal(rest, l03ids(int64(want), size-want)) {
		t.Fatalf("after %s, the global queue holds %s, want the %s not taken, in order: %s", call, l03fmt(rest), kitCount(int(size-want), "G"), l03fmt(l03ids(int64(want), size-want)))
	}
}

func TestL03GetBatch(t *testing.T) {
	// The cases of the formula, one by one.
	for _, tt := range []struct{ size, procs, n int }{
		{0, 1, 128},
		{1, 1, 128},
		{1, 8, 128},
		{2, 1, 128},
		{10, 1, 128},  // the whole queue
		{10, 2, 128},  // 10/2+1 = 6
		{10, 4, 128},  // 10/4+1 = 3
		{16, 4, 128},  // 16/4+1 = 5
		{7, 8, 128},   // 7/8+1 = 1: a P always takes one
		{129, 1, 128}, // capped by n
		{300, 3, 128}, // 300/3+1 = 101
		{1000, 8, 128},
		{1000, 7, 128}, // 143, capped by n
		{5, 1, 2},
		{50, 5, 1},
	} {
		sched := kitSched(tt.procs, Config{Debug: true})
		l03getbatch(t, sched, kitGs(sched, 0, tt.size), tt.size, tt.n)
	}
	// After GOMAXPROCS changed: gomaxprocs is the number of Ps now, not
	// the Procs the scheduler was built with.
	for _, to := range []int32{3, 16} {
		sched := kitSched(8, Config{Debug: true})
		sched.lock.Lock()
		procresize(sched, to)
		sched.lock.Unlock()
		gs := kitGs(sched, 0, 300)
		for size := 0; size <= 300; size += 7 {
			l03getbatch(t, sched, gs, size, 128)
		}
	}
	// Every size up to 300, for several gomaxprocs and n.
	for _, procs := range []int{1, 2, 3, 4, 7, 16} {
		sched := kitSched(procs, Config{Debug: true})
		gs := kitGs(sched, 0, 300)
		for _, n := range []int{128, 5} {
			for size := 0; size <= 300; size++ {
				l03getbatch(t, sched, gs, size, n)
			}
		}
	}
	// The same questions while another thread pushes a G onto the back of
	// the global queue and takes it off again, whenever it can take
	// sched.lock: never during the call, whose caller holds the lock.
	l03stirredBatch(t)
}

// l03stirredBatch is TestL03GetBatch's stirred question: globrunqgetbatch,
// again and again, with sched.lock held around the call as its callers
// hold it, while another thread pushes G 900000 onto the back of the
// global queue and takes it off again, under sched.lock, whenever the lock
// is free. A file that keeps the lock, as it must, never lets the other
// thread in during the call; one that lets go of it midway (a
// twenty-eighth red team's dropped the lock between looks at the queue's
// size, and took the whole queue when the size moved) is caught letting
// go, whatever it then takes.
func l03stirredBatch(t *testing.T) {
	t.Helper()
	sched := kitSched(4, Config{})
	gs := kitGs(sched, 1, 120)
	st := kitNewGlobalStir(sched, 900000)
	kitStirred(t, l03, "another thread pushed G 900000 onto the back of the global queue and took it off again, over and over, whenever sched.lock was free", 100, st.step, func(i int) string {
		size, n := 1+(i*37)%120, 128
		if i%3 == 1 {
			n = 1 + i%7
		}
		sched.lock.Lock()
		defer sched.lock.Unlock()
		st.settle()
		sched.runq.gQueue = gQueue{}
		sched.runq.sizeHint.Store(0)
		for _, gp := range gs[:size] {
			sched.runq.pushBack(gp)
		}
		call := fmt.Sprintf("globrunqgetbatch(%d) with %s queued and gomaxprocs 4", n, kitCount(size, "G"))
		st.held = call
		gp, q := sched.globrunqgetbatch(int32(n))
		st.held = ""
		if st.broke != "" {
			return fmt.Sprintf("another thread took sched.lock while %s ran: its caller holds sched.lock for the whole call, and it must keep it (nothing else may touch the queue between the size it reads and the Gs it takes)", st.broke)
		}
		got := int(q.size)
		if gp != nil {
			got++
		}
		if want := min(n, size, size/4+1); got != want || (gp != nil && gp != gs[0]) {
			return fmt.Sprintf("%s returned %s to run and a batch of %d, want G %d and %d more (min(n, size, size/gomaxprocs+1) from the head)", call, kitID(gp), q.size, gs[0].goid, want-1)
		}
		return ""
	})
}

// TestL03SizeHint: findRunnable reads sched.runq.emptyHint() without the
// lock; every operation must keep the hint equal to the size.
func TestL03SizeHint(t *testing.T) {
	sched := kitSched(4, Config{Debug: true})
	if !sched.runq.emptyHint() {
		t.Fatalf("emptyHint of a new global queue = false")
	}
	step := func(what string, f func()) {
		t.Helper()
		sched.lock.Lock()
		f()
		sched.lock.Unlock()
		l03global(t, sched, what, true)
	}
	step("globrunqput(G 1)", func() { sched.globrunqput(kitG(sched, 1)) })
	step("globrunqget() of the only G", func() { sched.globrunqget() })
	step("globrunqputhead(G 2) on an empty queue", func() { sched.globrunqputhead(kitG(sched, 2)) })
	step("globrunqputhead(G 3)", func() { sched.globrunqputhead(kitG(sched, 3)) })
	step("globrunqputbatch of 20 Gs", func() { sched.globrunqputbatch(l03batch(sched, 10, 20)) })
	step("globrunqput(G 4)", func() { sched.globrunqput(kitG(sched, 4)) })
	step("globrunqget()", func() { sched.globrunqget() })
	step("globrunqgetbatch(128) of 22 Gs with gomaxprocs 4", func() { sched.globrunqgetbatch(128) })
	step("globrunqgetbatch(2)", func() { sched.globrunqgetbatch(2) })
	for sched.runq.size > 0 {
		step("globrunqgetbatch(128)", func() { sched.globrunqgetbatch(128) })
	}
	step("globrunqgetbatch(128) on an empty queue", func() { sched.globrunqgetbatch(128) })
	step("globrunqget() on an empty queue", func() { sched.globrunqget() })
	step("globrunqputbatch of 3 Gs onto an empty queue", func() { sched.globrunqputbatch(l03batch(sched, 50, 3)) })
	step("globrunqget()", func() { sched.globrunqget() })
	step("globrunqget()", func() { sched.globrunqget() })
	step("globrunqget() of the last G", func() { sched.globrunqget() })
	if !sched.runq.emptyHint() {
		t.Fatalf("emptyHint after taking every G = false")
	}
}

// TestL03GoschedAllRun: Gosched puts the G on the global queue; on 1 P and
// on 4, every G yields 20 times and runs to its end exactly once.
func TestL03GoschedAllRun(t *testing.T) {
	const n, yields = 300, 20
	for _, procs := range []int{1, 4} {
		var started, finished [n]atomic.Int32
		var resumed atomic.Int64
		err := kitRun(t, Config{Procs: procs, RandomizeScheduler: true, Seed: 3}, 20*time.Second, func(gp *G) {
			var wg WaitGroup
			wg.Add(n)
			for i := 0; i < n; i++ {
				gp.Go(func(gp *G) {
					started[i].Add(1)
					for j := 0; j < yields; j++ {
						gp.Gosched()
						resumed.Add(1)
					}
					finished[i].Add(1)
					wg.Done(gp)
				})
			}
			wg.Wait(gp)
		})
		if err != nil {
			t.Fatalf("on %d P(s), %s yielding %s each: the scheduler stopped with: %v", procs, kitCount(int(n), "G"), kitCount(int(yields), "time"), err)
		}
		for i := 0; i < n; i++ {
			if s, f := started[i].Load(), finished[i].Load(); s != 1 || f != 1 {
				t.Fatalf("on %d P(s), G number %d of %d, each yielding %s (Gosched puts it on the global queue), started %s and finished %s, want exactly once each"+kitHint(l03), procs, i, n, kitCount(int(yields), "time"), kitCount(int(s), "time"), kitCount(int(f), "time"))
			}
		}
		if got := resumed.Load(); got != n*yields {
			t.Fatalf("on %d P(s), %s called Gosched %s each, but %s returned, want %d", procs, kitCount(int(n), "G"), kitCount(int(yields), "time"), kitCount(int(got), "call"), n*yields)
		}
	}
}

// TestL03DrainFair: Gs started from outside the Runtime all go on the
// global queue; several Ps drain it in batches. Every G runs exactly once,
// and starts exactly once.
func TestL03DrainFair(t *testing.T) {
	const n = 1000
	var rec Recorder
	rt := New(Config{Procs: 4, Seed: 5, Trace: rec.Record})
	var ran [n]atomic.Int32
	var ids sync.Map // goid -> index
	for i := 0; i < n; i++ {
		rt.Go(func(gp *G) {
			ids.Store(gp.ID(), i)
			ran[i].Add(1)
			if i%10 == 0 {
				gp.Gosched()
			}
		})
	}
	done := make(chan error, 1)
	go func() { done <- rt.Wait() }()
	started := func() int64 {
		var sum int64
		for i := range ran {
			sum += int64(ran[i].Load())
		}
		return sum
	}
	err, ended, stalled, waited := kitAwait(done, started, 20*time.Second)
	if !ended {
		t.Fatalf("%s started from outside (all on the global queue) had not finished %s (%d had started): some were lost from the global queue"+kitHint(l03), kitCount(int(n), "G"), kitStalled(stalled, waited), started())
	}
	rt.Close()
	if err != nil {
		t.Fatalf("the scheduler stopped with: %v", err)
	}
	for i := 0; i < n; i++ {
		if c := ran[i].Load(); c != 1 {
			t.Fatalf("of %s started from outside the Runtime (all on the global queue, drained by 4 Ps), number %d ran %s, want exactly once"+kitHint(l03), kitCount(int(n), "G"), i, kitCount(int(c), "time"))
		}
	}
	starts := map[int64]int{}
	for _, ev := range rec.Events() {
		if ev.Kind == EvGoStart {
			starts[ev.G]++
		}
	}
	var bad []string
	ids.Range(func(k, v any) bool {
		goid, i := k.(int64), v.(int)
		want := 1
		if i%10 == 0 {
			want = 2 // it yields once
		}
		if starts[goid] != want && len(bad) < 5 {
			bad = append(bad, fmt.Sprintf("G %d started %s, want %d", goid, kitCount(int(starts[goid]), "time"), want))
		}
		return true
	})
	if len(bad) > 0 {
		t.Fatalf("in the trace of %s drained from the global queue by 4 Ps: %s: a G was handed out twice (or never)"+kitHint(l03), kitCount(int(n), "G"), strings.Join(bad, "; "))
	}
}
