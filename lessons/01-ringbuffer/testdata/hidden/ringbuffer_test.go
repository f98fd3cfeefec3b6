package sched

// Hidden tests of lesson 01-ringbuffer. Messages are written for a learner
// who cannot see this file.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const l01 = "01-ringbuffer"

func TestL01FIFO(t *testing.T) {
	sched := kitSched(1, Config{})
	pp := sched.allp[0]
	for n := 0; n <= 256; n++ {
		if gp := runqgethead(pp); gp != nil {
			t.Fatalf("runqgethead on an empty ring returned %s, want nil"+kitHint(l01), kitID(gp))
		}
		gs := kitGs(sched, 1, n)
		for _, gp := range gs {
			runqputtail(pp, gp)
		}
		if got := pp.runqtail.Load() - pp.runqhead.Load(); got != uint32(n) {
			t.Fatalf("after %s, runqtail - runqhead = %d, want %d", kitCount(int(n), "put"), got, n)
		}
		for i, want := range gs {
			if got := runqgethead(pp); got != want {
				t.Fatalf("with %s queued, get #%d returned %s, want %s (the ring must be first in, first out)"+kitHint(l01), kitCount(int(n), "G"), i+1, kitID(got), kitID(want))
			}
		}
		if gp := runqgethead(pp); gp != nil {
			t.Fatalf("after taking back all %s, runqgethead returned %s, want nil", kitCount(int(n), "G"), kitID(gp))
		}
		if !sched.runq.empty() {
			t.Fatalf("%s (at most 256) sent Gs to the global queue; only a put on a full ring may", kitCount(int(n), "put"))
		}
	}
}

func TestL01WrapAround(t *testing.T) {
	sched := kitSched(1, Config{})
	pp := sched.allp[0]
	start := uint32(math.MaxUint32 - 40)
	pp.runqhead.Store(start)
	pp.runqtail.Store(start)
	gs := kitGs(sched, 1, 200)
	for _, gp := range gs {
		runqputtail(pp, gp)
	}
	if !sched.runq.empty() {
		t.Fatalf("200 puts with runqhead = runqtail = MaxUint32-40 sent Gs to the global queue: is the count tail-head computed in uint32, so that it survives wrap-around?")
	}
	for i, want := range gs {
		if got := runqgethead(pp); got != want {
			t.Fatalf("across the uint32 wrap-around, get #%d returned %s, want %s: index slots with counter %% 256"+kitHint(l01), i+1, kitID(got), kitID(want))
		}
	}
}

func TestL01FullRingGoesGlobal(t *testing.T) {
	sched := kitSched(1, Config{})
	pp := sched.allp[0]
	sched.runq.pushBack(kitG(sched, 9999)) // something already on the global queue
	gs := kitGs(sched, 1, 257)
	for _, gp := range gs[:256] {
		runqputtail(pp, gp)
	}
	if sched.runq.size != 1 {
		t.Fatalf("256 puts fill the ring exactly; the global queue changed size to %d", sched.runq.size)
	}
	runqputtail(pp, gs[256]) // the 257th: the ring is full
	if got := sched.runq.size; got != 1+129 {
		t.Fatalf("a put on a full ring must move 128 Gs plus the new one (129) to the global queue; it holds %d new Gs"+kitHint(l01), got-1)
	}
	if got := pp.runqtail.Load() - pp.runqhead.Load(); got != 128 {
		t.Fatalf("after runqputslow, %s are left on the ring, want 128", kitCount(int(got), "G"))
	}
	if old := sched.runq.pop(); old.goid != 9999 {
		t.Fatalf("the global queue's old head is now %s: the batch must go on the tail", kitID(old))
	}
	want := append(append([]*g{}, gs[:128]...), gs[256])
	for i, w := range want {
		if got := sched.runq.pop(); got != w {
			t.Fatalf("global queue position %d holds %s, want %s: the batch is the 128 oldest Gs (from the head) in order, then the new G", i, kitID(got), kitID(w))
		}
	}
	for i, w := range gs[128:256] {
		if got := runqgethead(pp); got != w {
			t.Fatalf("ring position %d after the move holds %s, want %s", i, kitID(got), kitID(w))
		}
	}

	// runqputslow's CAS loses: between the owner's read of the full ring
	// and its CAS, a thief took the 128 oldest Gs. The owner must move
	// nothing (they are the thief's now) and return false; runqputtail then
	// finds room and puts the G on the ring.
	sched = kitSched(2, Config{})
	pp, thief := sched.allp[0], sched.allp[1]
	gs = kitGs(sched, 1, 257)
	for _, gp := range gs[:256] {
		runqputtail(pp, gp)
	}
	h, tl := pp.runqhead.Load(), pp.runqtail.Load()
	if n := runqgrab(pp, &thief.runq, 0, false); n != 128 {
		t.Fatalf("setup: a thief's runqgrab of a full ring took %s, want 128", kitCount(int(n), "G"))
	}
	if runqputslow(pp, gs[256], h, tl) {
		t.Fatal("runqputslow(pp, G 257, h, t) with h and t read from a full ring, after a thief took G 1..G 128 (so the CAS of the head from h must fail), returned true, want false: " +
			"move the Gs to the global queue only if the CAS of the head from h succeeds; if it fails, they are someone else's" + kitHint(l01))
	}
	if !sched.runq.empty() {
		t.Fatalf("runqputslow whose CAS of the head failed (a thief had taken G 1..G 128) put %s on the global queue, first %s, want none: those Gs are the thief's now, and would run twice"+kitHint(l01),
			kitCount(int(sched.runq.size), "G"), kitID(sched.runq.head))
	}
	if got, want := pp.runqhead.Load(), h+128; got != want {
		t.Fatalf("runqputslow whose CAS failed moved the head from %d to %d: when the CAS fails, change nothing", want, got)
	}
}

func TestL01PutBatch(t *testing.T) {
	sched := kitSched(1, Config{})
	pp := sched.allp[0]
	pre := kitGs(sched, 1000, 100)
	for _, gp := range pre {
		runqputtail(pp, gp)
	}
	var q gQueue
	batch := kitGs(sched, 1, 200)
	for _, gp := range batch {
		q.pushBack(gp)
	}
	runqputbatch(pp, &q)
	if got := pp.runqtail.Load() - pp.runqhead.Load(); got != 256 {
		t.Fatalf("runqputbatch of 200 Gs onto a ring holding 100 left %d queued, want 256 (fill it)"+kitHint(l01), got)
	}
	if q.size != 44 {
		t.Fatalf("runqputbatch must leave what does not fit in q: want 44 left, q.size = %d", q.size)
	}
	for i, w := range append(pre, batch[:156]...) {
		if got := runqgethead(pp); got != w {
			t.Fatalf("after runqputbatch, ring position %d holds %s, want %s (the batch goes after what was queued, in order)", i, kitID(got), kitID(w))
		}
	}
	for i, w := range batch[156:] {
		if got := q.pop(); got != w {
			t.Fatalf("overflow left in q, position %d: %s, want %s", i, kitID(got), kitID(w))
		}
	}
}

func TestL01GrabOlderHalf(t *testing.T) {
	// One pair of Ps for every size: each round leaves the victim's ring
	// empty, with its head and tail wherever the last round left them.
	// On two Ps, then on the last two of maxProcs: a thirty-third red
	// team's runqgrab took the smaller half from a P numbered 64 or more,
	// which no world of the tests had.
	for _, procs := range []int{2, maxProcs} {
		sched := kitSched(procs, Config{})
		victim, thief := sched.allp[0], sched.allp[1]
		if procs > 2 {
			victim, thief = sched.allp[procs-1], sched.allp[procs-2]
		}
		l01GrabEverySize(t, sched, thief, victim)
	}

	// batchHead and wrap-around in the batch ring.
	sched := kitSched(2, Config{})
	victim, thief := sched.allp[0], sched.allp[1]

	gs := kitGs(sched, 1, 10)
	for _, gp := range gs {
		runqputtail(victim, gp)
	}
	if n := runqgrab(victim, &thief.runq, 254, false); n != 5 {
		t.Fatalf("runqgrab of 10 took %d, want 5", n)
	}
	for i, slot := range []int{254, 255, 0, 1, 2} {
		if g := kitRawSlot(&thief.runq[slot]).Load(); g != gs[i] {
			t.Fatalf("runqgrab with batchHead 254: slot %d holds %s, want %s: write batch[(batchHead+i) %% 256]", slot, kitID(g), kitID(gs[i]))
		}
	}

	// runnext is taken only when asked, and only when the ring is empty.
	sched = kitSched(2, Config{})
	victim, thief = sched.allp[0], sched.allp[1]
	next := kitG(sched, 77)
	victim.runnext.Store(next)
	if n := runqgrab(victim, &thief.runq, 0, false); n != 0 {
		t.Fatalf("runqgrab(stealRunNextG=false) of an empty ring took %s: runnext is off limits unless asked", kitCount(int(n), "G"))
	}
	runqputtail(victim, kitG(sched, 1))
	if n := runqgrab(victim, &thief.runq, 0, true); n != 1 || kitRawSlot(&thief.runq[0]).Load().goid != 1 {
		t.Fatalf("runqgrab(stealRunNextG=true) of a ring holding G 1 with runnext G 77 must take G 1 from the ring and leave runnext")
	}
	if n := runqgrab(victim, &thief.runq, 0, true); n != 1 || kitRawSlot(&thief.runq[0]).Load() != next {
		t.Fatalf("runqgrab(stealRunNextG=true) of an empty ring with runnext G 77 took %s, want runnext (1): call runqgrabnext when n == 0"+kitHint(l01), kitCount(int(n), "G"))
	}
	if victim.runnext.Load() != nil {
		t.Fatalf("runqgrab took runnext but the victim's runnext is still set")
	}

	// runqgrabnext says retry: while the thief backed off (the victim is
	// running), the victim's G readied G 78, which kicked G 77 from
	// runnext to the ring. The grab must read the ring again and take G 77.
	var victimP *p
	kicked := false
	sched = kitSched(2, Config{Usleep: func(int64) {
		if !kicked {
			kicked = true
			runqput(victimP, kitG(nil, 78), true)
		}
	}})
	victimP = kitRunningP(sched, 0)
	thief = sched.allp[1]
	victimP.runnext.Store(kitG(sched, 77))
	if n := runqgrab(victimP, &thief.runq, 0, true); n != 1 || kitRawSlot(&thief.runq[0]).Load() == nil || kitRawSlot(&thief.runq[0]).Load().goid != 77 {
		t.Fatalf("runqgrab(stealRunNextG=true) of a running P with an empty ring and runnext G 77, while (during the thief's back-off) its owner put G 78 in runnext and so kicked G 77 to the ring: took %s (first %s), want 1, G 77 from the ring. "+
			"When runqgrabnext returns retry = true, the runnext changed under you: read the ring again"+kitHint(l01), kitCount(int(n), "G"), kitID(kitRawSlot(&thief.runq[0]).Load()))
	}
	if next := victimP.runnext.Load(); next == nil || next.goid != 78 {
		t.Fatalf("runqgrab took G 77 from the ring but the victim's runnext is %s, want G 78 untouched", kitID(next))
	}

	l01grabInconsistentRead(t)
}

// l01grabInconsistentRead: a thief may read the victim's head, be held up
// while the owner takes and puts many Gs, and read the tail long after:
// tail - head then counts more Gs than a ring can hold. runqgrab must take
// nothing on such a read and read again. The test shows a thief that view
// and keeps it for 200ms, or until the thief has made 2000 atomic
// operations on it (head 0, tail 300: n - n/2 = 150 > 128; then
// head 0, tail 257: n - n/2 = 129), then moves the head to where the owner
// really is (100: 200 Gs queued) and expects the grab of those.
func l01grabInconsistentRead(t *testing.T) {
	// l01spinOps atomic operations on one view is reading again: a grab
	// that takes from that view returns after a few dozen.
	const l01spinOps = 2000
	t.Helper()
	for _, tail := range []uint32{300, 257} {
		sched := kitSched(2, Config{})
		victim, thief := sched.allp[0], sched.allp[1]
		// The ring as the owner left it, its counters anywhere (at), as a
		// busy P's are: positions at+head..at+tail-1 are queued (G gb+p+1
		// at position at+p); the slots before head hold Gs already taken.
		const head = 100
		at, gb := rand.Uint32(), rand.Int64N(3000)
		for pos := uint32(0); pos < tail; pos++ {
			kitRawSlot(&victim.runq[(at+pos)%256]).Store(kitG(sched, gb+int64(pos+1)))
		}
		victim.runqtail.Store(at + tail)
		victim.runqhead.Store(at) // the head as a slow thief read it
		type result struct {
			n     uint32
			panic any
		}
		// The thief's atomic operations, counted: a runqgrab that reads
		// again and again on this view is known to by its count, without
		// waiting out the whole 200ms.
		var ops atomic.Int64
		old := setInterleaveHook(func() { ops.Add(1) })
		done := make(chan result, 1)
		go func() {
			defer func() {
				if r := recover(); r != nil {
					done <- result{panic: r}
				}
			}()
			done <- result{n: runqgrab(victim, &thief.runq, 0, false)}
		}()
		view := fmt.Sprintf("runqhead = %d and runqtail = %d (tail - head = %d, so n - n/2 = %d: more than half a ring, which no ring ever holds)", at, at+tail, tail, tail-tail/2)
		var r result
		returned := false
		for deadline := time.Now().Add(200 * time.Millisecond); !returned && time.Now().Before(deadline) && ops.Load() < l01spinOps; {
			select {
			case r = <-done:
				returned = true
			case <-time.After(time.Millisecond):
			}
		}
		if returned && (r.panic != nil || r.n != 0 || victim.runqhead.Load() != at) {
			if r.panic != nil {
				t.Fatalf("runqgrab on a victim with %s panicked: %v. That is what a thief sees when it reads the head, is held up, and reads the tail after the owner moved on: read head and tail again"+kitHint(l01), view, r.panic)
			}
			t.Fatalf("runqgrab on a victim with %s took %s and moved its head to %d. A thief sees that when it reads the head, is held up, and reads the tail after the owner has moved both on: "+
				"the count is not real. If n - n/2 > len(runq)/2 (128), take nothing and read both again"+kitHint(l01), view, kitCount(int(r.n), "G"), victim.runqhead.Load())
		}
		if returned {
			setInterleaveHook(old)
			continue // it took nothing: harmless (the runtime reads again)
		}
		victim.runqhead.Store(at + head) // where the owner really is: 200 - 100 Gs queued
		select {
		case r = <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("runqgrab did not return within 5s after the victim's head moved to %d (%s queued, a consistent view): read the head and the tail again each time round"+kitHint(l01), at+head, kitCount(int(tail-head), "G"))
		}
		setInterleaveHook(old)
		want := (tail - head) - (tail-head)/2
		if r.panic != nil || r.n != want {
			t.Fatalf("runqgrab, first shown %s and then runqhead = %d, returned (%d, panic %v), want %d: n - n/2 of the %s really queued", view, at+head, r.n, r.panic, want, kitCount(int(tail-head), "G"))
		}
		for i := uint32(0); i < want; i++ {
			if got := kitRawSlot(&thief.runq[i]).Load(); got == nil || got.goid != gb+int64(head+i+1) {
				t.Fatalf("runqgrab, after its inconsistent view was put right (head %d, tail %d), put %s in batch[%d], want G %d: take the Gs from the head you read last", at+head, at+tail, kitID(got), i, gb+int64(head+i+1))
			}
		}
		if got := victim.runqhead.Load(); got != at+head+want {
			t.Fatalf("after runqgrab took %s from head %d, the victim's head is %d, want %d", kitCount(int(want), "G"), at+head, got, at+head+want)
		}
	}
}

// l01GrabEverySize fills victim's ring with 0 to 256 Gs, one size after
// another, and has thief grab from it: each time the oldest half, rounded
// up, in order, the rest left on the victim.
func l01GrabEverySize(t *testing.T, sched *schedt, thief, victim *p) {
	t.Helper()
	for n := 0; n <= 256; n++ {
		gs := kitGs(sched, 1, n)
		for _, gp := range gs {
			runqputtail(victim, gp)
		}
		want := n - n/2
		got := runqgrab(victim, &thief.runq, 0, false)
		if int(got) != want {
			t.Fatalf("runqgrab from a ring of %s (P%d, %s in all) took %d, want %d (n - n/2: half, rounded up)"+kitHint(l01), kitCount(int(n), "G"), victim.id, kitCount(len(sched.allp), "P"), got, want)
		}
		for i := 0; i < want; i++ {
			if g := kitRawSlot(&thief.runq[i]).Load(); g != gs[i] {
				t.Fatalf("runqgrab from a ring of %d: batch[%d] = %s, want %s: thieves take the oldest Gs, from the head", n, i, kitID(g), kitID(gs[i]))
			}
		}
		if left := victim.runqtail.Load() - victim.runqhead.Load(); int(left) != n-want {
			t.Fatalf("after runqgrab of %d from %d, the victim holds %d, want %d: advance the head by exactly what you took", want, n, left, n-want)
		}
		for i := want; i < n; i++ {
			if g := runqgethead(victim); g != gs[i] {
				t.Fatalf("after a grab, the victim's next G is %s, want %s", kitID(g), kitID(gs[i]))
			}
		}
	}
}

func TestL01StealAndDrain(t *testing.T) {
	sched := kitSched(2, Config{})
	victim, thief := sched.allp[0], sched.allp[1]
	if gp := runqsteal(thief, victim, true); gp != nil {
		t.Fatalf("runqsteal from an empty P returned %s, want nil", kitID(gp))
	}
	gs := kitGs(sched, 1, 9)
	for _, gp := range gs {
		runqputtail(victim, gp)
	}
	gp := runqsteal(thief, victim, false)
	if gp != gs[4] {
		t.Fatalf("runqsteal of 9 Gs (takes 5: G 1..G 5) returned %s, want G 5, the last one taken", kitID(gp))
	}
	for i := 0; i < 4; i++ {
		if got := runqgethead(thief); got != gs[i] {
			t.Fatalf("after runqsteal, the thief's ring position %d holds %s, want %s: publish the rest with the new tail"+kitHint(l01), i, kitID(got), kitID(gs[i]))
		}
	}
	if got := runqgethead(thief); got != nil {
		t.Fatalf("the thief's ring holds %s beyond the 4 stolen Gs it should queue", kitID(got))
	}

	// runqdrain: runnext first, then the ring in order.
	sched = kitSched(1, Config{})
	pp := sched.allp[0]
	gs = kitGs(sched, 1, 5)
	for _, gp := range gs[1:] {
		runqputtail(pp, gp)
	}
	pp.runnext.Store(gs[0])
	q := runqdrain(pp)
	if q.size != 5 {
		t.Fatalf("runqdrain of runnext + 4 Gs returned %s, want 5", kitCount(int(q.size), "G"))
	}
	for i, w := range gs {
		if got := q.pop(); got != w {
			t.Fatalf("runqdrain position %d: %s, want %s (runnext first, then the ring from the head)", i, kitID(got), kitID(w))
		}
	}
	if !runqempty(pp) {
		t.Fatalf("after runqdrain the P's queue is not empty")
	}
}

// TestL01ConcurrentSteal: one owner puts and gets while three thieves
// steal, on real threads. Every G must come out exactly once.
func TestL01ConcurrentSteal(t *testing.T) {
	kitPreempted(t)
	w := newL01StealWorld(50, 300, 0, rand.Uint32())
	w.sched.cfg.randomizeScheduler = true // and the refill race without: a file cannot take its mistake only in one
	var wg sync.WaitGroup
	for i := 1; i <= 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.thief(i)()
		}()
	}
	w.owner()
	wg.Wait()
	if msg := w.verdict(); msg != "" {
		t.Fatal(msg)
	}
	l01refillRace(t)
}

// TestL01ControlledSteal: TestL01ConcurrentSteal's worlds, their Gs and
// their rings, run one atomic operation at a time by a controlled
// scheduler that switches threads at random (kitInterleaveWalk), at one
// operation in 10 to one in 300 by seed. A
// file cannot tell this run from the real one by what it sees (the Gs'
// IDs, how full the ring is, how often its head moves), and here a
// mistake meets thousands of switches.
func TestL01ControlledSteal(t *testing.T) {
	kitEachSeed(t, uint64(len(l01Walks)), func(seed uint64) string { return l01ControlledSteal(t, seed) })
}

// l01ControlledSteal runs TestL01ControlledSteal's worlds with one seed
// and says what went wrong, or "".
func l01ControlledSteal(t *testing.T, seed uint64) string {
	walk := l01Walks[(seed-1)%uint64(len(l01Walks))]
	// 600 of the real test's 15,000 Gs, numbered from anywhere in
	// its range: no G's ID tells the two apart.
	rng := rand.New(rand.NewPCG(seed, 0))
	base := int64(rng.IntN(50*300 - 600))
	ringAt := rng.Uint32() // a ring's counters are anywhere, as on a busy P
	w := newL01StealWorld(2, 300, base, ringAt)
	w.sched.cfg.randomizeScheduler = seed%2 == 0 // and the refill world the other way
	w.watched = true
	err := kitInterleaveWalkWatched(seed, walk, w.watch, "the owner", w.owner, "thief 1", w.thief(1), "thief 2", w.thief(2), "thief 3", w.thief(3))
	var msg string
	if err == nil { // else a thread may still run: read nothing
		msg = w.verdict()
	}
	if err == nil && msg == "" {
		r := newL01RefillWorld(300, base, ringAt, false)
		r.sched.cfg.randomizeScheduler = seed%2 == 1
		err = kitInterleaveWalk(seed, walk, "the owner", r.owner, "the thief", r.thief)
		if err == nil {
			msg = r.verdict()
		}
	}
	if err != nil {
		msg = err.Error()
	}
	if msg != "" {
		return fmt.Sprintf("%s (switched at random at one in %.0f atomic operations)%s", msg, 1/walk, kitReplay(t, l01, seed))
	}
	return ""
}

// l01Walks are the chances of a switch at each point, by seed: often,
// which shows a thread others' steps between its own; rarely, which lets
// the owner fill its ring between the thieves' turns, as on real threads.
// Not more often than one in 10: each switch is a hand-over between two
// OS threads, which on a loaded machine waits for the OS's scheduler (at
// one in 3, equivalent mutants ran past the 10 s of a controlled run in
// a clean-clone CI).
var l01Walks = []float64{1.0 / 30, 1.0 / 100, 1.0 / 10, 1.0 / 300}

// l01StealWorld is an owner that puts rounds×perRound Gs on its ring,
// taking one in three back, and drains it, while three thieves steal from
// it until it is done; who took which G is recorded.
type l01StealWorld struct {
	sched            *schedt
	rounds, perRound int
	seen             sync.Map
	total            atomic.Int64
	dup              chan string
	stop             atomic.Bool
	base, put        int64 // the Gs are G base+1 to G base+put
	// Under kitInterleaveWalkWatched (watched), watch keeps, for each
	// thief, whether the owner's ring was empty at some moment of its steal
	// under way; foundNothing is the first steal that found nothing
	// though it never was.
	watched      bool
	sawEmpty     [4]bool
	foundNothing string
	badSize      atomic.Pointer[string] // the first steal judged wrong (l01JudgeSteal)
}

// watch is l01ControlledSteal's watch: the owner's ring is empty now.
func (w *l01StealWorld) watch() {
	if w.ownerEmpty() {
		w.sawEmpty = [4]bool{true, true, true, true}
	}
}

// ownerEmpty says whether the owner's ring is empty, with plain loads:
// no scheduling point.
func (w *l01StealWorld) ownerEmpty() bool {
	owner := w.sched.allp[0]
	return kitRawRing(&owner.runqtail).Load() == kitRawRing(&owner.runqhead).Load()
}

// newL01StealWorld's rings start at ringAt (kitRingsAt): a ring's counters
// only grow, so on a real scheduler they are anywhere.
func newL01StealWorld(rounds, perRound int, base int64, ringAt uint32) *l01StealWorld {
	sched := kitSched(4, Config{})
	kitRingsAt(sched, ringAt)
	return &l01StealWorld{sched: sched, rounds: rounds, perRound: perRound, dup: make(chan string, 1), base: base}
}

func (w *l01StealWorld) take(gp *g, who string) {
	if gp == nil {
		return
	}
	if prev, loaded := w.seen.LoadOrStore(gp, who); loaded {
		select {
		case w.dup <- kitID(gp) + " came out twice: first " + prev.(string) + ", then " + who:
		default:
		}
	}
	w.total.Add(1)
}

// thief is thief i's loop: steal from the owner, then take its own ring.
func (w *l01StealWorld) thief(i int) func() {
	return func() {
		thief, owner := w.sched.allp[i], w.sched.allp[0]
		log, stop := kitRecordRings()
		defer stop()
		for !w.stop.Load() {
			if w.watched {
				w.sawEmpty[i] = w.ownerEmpty()
			}
			log.ops = log.ops[:0]
			gp := runqsteal(thief, owner, false)
			rest := l01Drain(thief, gp)
			if msg := l01JudgeSteal(log.ops, owner, gp, rest, w.watched); msg != "" {
				w.badSize.CompareAndSwap(nil, &msg)
			}
			if w.watched && gp == nil && !w.sawEmpty[i] && w.foundNothing == "" {
				w.foundNothing = fmt.Sprintf("thief %d's runqsteal returned nothing, but the owner's ring held Gs at every moment of the call", i)
			}
			w.take(gp, "a thief's runqsteal")
			for _, gp := range rest {
				w.take(gp, "a thief's own ring")
			}
		}
	}
}

// owner puts, takes and drains, then stops the thieves.
func (w *l01StealWorld) owner() {
	owner := w.sched.allp[0]
	for range w.rounds {
		for i := range w.perRound {
			w.put++
			runqputtail(owner, kitG(w.sched, w.base+w.put))
			if i%3 == 0 {
				w.take(runqgethead(owner), "the owner's runqgethead")
			}
		}
	}
	for gp := runqgethead(owner); gp != nil; gp = runqgethead(owner) {
		w.take(gp, "the owner's runqgethead")
	}
	w.stop.Store(true)
}

// verdict, once every thread is done, is what went wrong, or "".
func (w *l01StealWorld) verdict() string {
	for gp := w.sched.runq.pop(); gp != nil; gp = w.sched.runq.pop() {
		w.take(gp, "the global queue")
	}
	select {
	case msg := <-w.dup:
		return fmt.Sprintf("%s: two takers got the same slot; is the head advanced only by CompareAndSwap, after reading the slots?"+kitHint(l01), msg)
	default:
	}
	if got := w.total.Load(); got != w.put {
		return fmt.Sprintf("%s were put and %d came out: some were lost (a thief's batch not published, or the head moved past unread slots)"+kitHint(l01), kitCount(int(w.put), "G"), got)
	}
	if msg := w.badSize.Load(); msg != nil {
		return *msg
	}
	if w.foundNothing != "" {
		return w.foundNothing + " (every operation of every thread was the controlled scheduler's, so the test saw each state the ring was in). " +
			"A runqgrab that reads the head, then the tail, finds nothing only when they were equal at its second read: the ring was empty then. " +
			"After a lost CompareAndSwap of runqhead, read both again; never give up while the ring holds Gs (**new**: this test checks it since late November 2026; read the head first, as the task says)" + kitHint(l01)
	}
	return ""
}

// l01Drain takes every G from pp's ring, head first, after a steal that
// returned gp: none if it returned nil (the thief's ring stays as it was,
// and l01JudgeSteal judges that by the CompareAndSwap).
func l01Drain(pp *p, gp *g) []*g {
	if gp == nil {
		return nil
	}
	var gs []*g
	for gp := runqgethead(pp); gp != nil; gp = runqgethead(pp) {
		gs = append(gs, gp)
	}
	return gs
}

// l01JudgeSteal judges a runqsteal from victim by a thief whose ring was
// empty: its size by what the thief read (l01StealSize), and what it gave
// back: the newest G it took (gp), the others queued on the thief's ring
// (rest) in the victim's order. The worlds' Gs are numbered in the order
// they were put, so that is the order of their IDs. It says what is
// wrong, or "". Under a controlled scheduler (controlled) the message
// gives the numbers, the same for the same seed; on real threads, where
// they change from run to run, it says what went wrong without them, so
// that a file graded twice gets the same report.
func l01JudgeSteal(ops []kitRingOp, victim *p, gp *g, rest []*g, controlled bool) string {
	h, took, tails, committed := kitStealRead(ops, victim)
	if committed {
		if msg := l01StealSize(h, took, tails, controlled); msg != "" {
			return msg
		}
	}
	if gp == nil {
		if committed {
			return "runqsteal took Gs from the victim's ring (its CompareAndSwap of runqhead) but returned nil: return the last G it took" + kitHint(l01)
		}
		return ""
	}
	if committed && int(took) != len(rest)+1 {
		if !controlled {
			return "runqsteal took Gs from the victim's ring (its CompareAndSwap of runqhead) but did not give back as many (one returned, the others queued on the thief's ring): publish the others with one store of the tail" + kitHint(l01)
		}
		return fmt.Sprintf("runqsteal took %s from the victim's ring (its CompareAndSwap of runqhead) but returned one and queued %d on the thief's ring: publish the others with one store of the tail"+kitHint(l01), kitCount(int(took), "G"), len(rest))
	}
	for i, g2 := range rest {
		if g2.goid >= gp.goid || i > 0 && g2.goid <= rest[i-1].goid {
			if !controlled {
				return "runqsteal returned a G older than one it queued on the thief's ring, or queued them out of order: it returns the last G it took, the newest, and leaves the others in the victim's order, oldest first" + kitHint(l01)
			}
			ids := make([]int64, len(rest))
			for i, g2 := range rest {
				ids[i] = g2.goid
			}
			return fmt.Sprintf("runqsteal returned G %d and queued %v on the thief's ring: it returns the last G it took, the newest, and leaves the others in the victim's order, oldest first"+kitHint(l01), gp.goid, ids)
		}
	}
	return ""
}

// l01StealSize judges a steal a thief committed by what it read
// (kitStealRead): from head h it took took Gs, having read tails after
// that head; it must take half of the Gs it read, rounded up. Any of
// those tails will do (a tail only grows: a later one never allows the
// smaller half of an earlier one). It says what is wrong, or "", with the
// numbers only if controlled (see l01JudgeSteal). On real threads, where
// the ring moves while the thief computes, this is the only way to judge
// a steal's size: the state before or after the call tells nothing of
// what the thief saw.
func l01StealSize(h, took uint32, tails []uint32, controlled bool) string {
	const news = " (**new**: since late November 2026 the steal tests judge the size of each steal by the head and tail the thief read, on real threads too)"
	if len(tails) == 0 {
		return "a thief's runqgrab took Gs (its CompareAndSwap of runqhead) without reading runqtail after it read that head: read the head, then the tail, and take half of what they hold, rounded up" + news + kitHint(l01)
	}
	for _, t := range tails {
		if n := t - h; took == n-n/2 {
			return ""
		}
	}
	t := tails[0]
	n := t - h
	if !controlled {
		more := "more"
		if took < n-n/2 {
			more = "fewer"
		}
		return fmt.Sprintf("a thief's runqgrab took %s Gs than half, rounded up, of those the head and the tail it read said the ring held: a steal takes n - n/2 of the n Gs it read, whatever other threads do meanwhile (on real threads the numbers change from run to run; TestL01ControlledSteal gives them when it fails too)"+news+kitHint(l01), more)
	}
	return fmt.Sprintf("a thief's runqgrab read runqhead %d and runqtail %d, a ring of %s, and took %d of them (runqhead %d → %d): a steal takes half, rounded up, n - n/2 = %d, of the n Gs it read, whatever other threads do meanwhile"+news+kitHint(l01),
		h, t, kitCount(int(n), "G"), took, h, h+took, n-n/2)
}

// l01refillRace: the owner keeps its ring full with runqputtail, a G at a
// time, the moment a steal frees a slot, and the thief steals from a full
// ring. A runqputtail that publishes its tail before it stores the G, or a
// thief that reads the slots it takes after its CompareAndSwap of the head
// (not before), hands the thief a G that is not its own, now and then. It
// is a race of real threads, so it is likely, not certain; TestL01Explore
// finds both mistakes every time, in the order of operations that shows
// them (the ring's head and tail are scheduling points after each write
// too). No correct file has failed either.
func l01refillRace(t *testing.T) {
	t.Helper()
	w := newL01RefillWorld(l01RefillSteals, 0, rand.Uint32(), true)
	go w.thief()
	w.owner()
	if msg := w.verdict(); msg != "" {
		t.Fatal(msg)
	}
}

// l01RefillSteals is how many steals l01refillRace makes. Each is from a
// full ring, so each is a chance for the owner's next put to land in a
// slot the steal has just taken: a thief that copies after its
// CompareAndSwap was caught within its first 80 steals in each of 5 runs,
// and red team 24's thief that does so only when it saw the ring move
// failed the test in 18 runs of 20 (19 with 200 steals, 10 of 10 with
// 500, which cost a warm kata check 0.4 s more).
const l01RefillSteals = 300

// l01RefillWorld is l01refillRace's: a full ring whose owner refills it
// the moment a steal makes room, while a thief steals from it.
//
// On real threads (onRealThreads) the thief steals when the owner says its
// ring is full again; while it is full, the owner runs a G from its head
// and puts another, so the ring moves under the thief as a busy P's does;
// and the owner looks at its ring without a scheduling point, so it sees
// room the moment a steal commits. Under a controlled scheduler every look
// must be a scheduling point (a thread that waits without one is never
// switched out), and the thief does not wait.
type l01RefillWorld struct {
	sched         *schedt
	steals        int
	onRealThreads bool
	refilled      chan struct{} // on real threads: the ring is full again
	first         int64         // the first G's ID
	next          int64
	done          atomic.Bool
	stolen, ran   []bool // by G ID - first: the thief's and the owner's, read after done
	dup           atomic.Pointer[string]
	badSize       string // the thief's first steal judged wrong (l01JudgeSteal), read after done
}

// l01RefillRuns is how many Gs the owner runs from a full ring, at most,
// between two steals.
const l01RefillRuns = 64

func newL01RefillWorld(steals int, base int64, ringAt uint32, onRealThreads bool) *l01RefillWorld {
	w := &l01RefillWorld{sched: kitSched(2, Config{}), steals: steals, onRealThreads: onRealThreads,
		refilled: make(chan struct{}, 1), first: base + 1, next: base + 1}
	kitRingsAt(w.sched, ringAt)
	// The owner puts a G only into room that a steal, or a G it ran, made;
	// a steal takes at most a whole ring: no G's ID is past this.
	ring := len(w.sched.allp[0].runq)
	w.stolen = make([]bool, (ring+l01RefillRuns)*(steals+1))
	w.ran = make([]bool, len(w.stolen))
	for range ring {
		runqputtail(w.sched.allp[0], w.newG())
	}
	w.refilled <- struct{}{}
	return w
}

func (w *l01RefillWorld) newG() *g {
	gp := kitG(w.sched, w.next)
	w.next++
	return gp
}

// thief steals from the owner, on real threads once its ring is full again
// (or after a while: a wrong file's ring may never fill), and takes every G
// the steal gave it.
func (w *l01RefillWorld) thief() {
	defer w.done.Store(true)
	owner, thief := w.sched.allp[0], w.sched.allp[1]
	log, stop := kitRecordRings()
	defer stop()
	wait := time.NewTimer(time.Hour)
	for range w.steals {
		if w.onRealThreads {
			wait.Reset(5 * time.Millisecond)
			select {
			case <-w.refilled:
			case <-wait.C:
			}
		}
		log.ops = log.ops[:0]
		gp := runqsteal(thief, owner, false)
		rest := l01Drain(thief, gp)
		if msg := l01JudgeSteal(log.ops, owner, gp, rest, !w.onRealThreads); msg != "" && w.badSize == "" {
			w.badSize = msg
		}
		for _, gp := range append(rest, gp) {
			if gp != nil {
				w.took(w.stolen, gp, "from a steal")
			}
		}
	}
}

// owner holds its next G ready and puts it the moment there is room. On
// real threads it tells the thief when its ring is full again (or when it
// has put a ring's worth since it last did: a wrong file's may never
// fill), and runs Gs from a full ring, a few at most, until a steal.
func (w *l01RefillWorld) owner() {
	owner := w.sched.allp[0]
	gp := w.newG()
	sinceTold, runs := 0, 0
	for !w.done.Load() {
		if w.next-w.first >= int64(len(w.stolen)) {
			w.idle() // only a wrong file's counters get here: stop putting
			continue
		}
		if w.queued(owner) >= uint32(len(owner.runq)) {
			if !w.onRealThreads || runs == l01RefillRuns {
				w.idle()
				continue
			}
			if ran := runqgethead(owner); ran != nil {
				w.took(w.ran, ran, "run by the owner")
				runs++
			}
		}
		runqputtail(owner, gp)
		gp = w.newG()
		sinceTold++
		if w.onRealThreads && (w.queued(owner) >= uint32(len(owner.runq)) || sinceTold >= len(owner.runq)) {
			select {
			case w.refilled <- struct{}{}:
				runs = 0
			default:
			}
			sinceTold = 0
		}
	}
	w.next-- // the G held ready was never put
}

// idle is a turn of the owner's loop that does nothing. On real threads it
// yields its thread: the thief may be waiting for one (with GOMAXPROCS=1
// an owner that spins without yielding left the thief waiting for the
// runtime to preempt it, and the test took 51 s, not half a second).
// Under a controlled scheduler its looks are scheduling points already.
func (w *l01RefillWorld) idle() {
	if w.onRealThreads {
		runtime.Gosched()
	}
}

// queued is how many Gs pp's ring holds. On real threads it looks with plain
// atomics, which are no scheduling points.
func (w *l01RefillWorld) queued(pp *p) uint32 {
	if w.onRealThreads {
		return kitRawRing(&pp.runqtail).Load() - kitRawRing(&pp.runqhead).Load()
	}
	return pp.runqtail.Load() - pp.runqhead.Load()
}

// took records in seen that gp came out, and a G that came out twice.
func (w *l01RefillWorld) took(seen []bool, gp *g, where string) {
	i := gp.goid - w.first
	if i < 0 || i >= int64(len(seen)) {
		return // not this world's: the verdict counts this world's Gs
	}
	if seen[i] && w.dup.Load() == nil {
		msg := fmt.Sprintf("%s came out twice, the second time %s", kitID(gp), where)
		w.dup.Store(&msg)
	}
	seen[i] = true
}

// verdict, once both are done, is what went wrong, or "".
func (w *l01RefillWorld) verdict() string {
	owner := w.sched.allp[0]
	for gp := runqgethead(owner); gp != nil; gp = runqgethead(owner) {
		w.took(w.ran, gp, "from the owner's ring after the steals")
	}
	for gp := w.sched.runq.pop(); gp != nil; gp = w.sched.runq.pop() {
		w.took(w.ran, gp, "from the global queue")
	}
	var lost []int64
	for id := w.first; id < w.next; id++ {
		switch i := id - w.first; {
		case w.stolen[i] && w.ran[i]:
			if w.dup.Load() == nil {
				msg := fmt.Sprintf("G %d came out twice: stolen, and also run by the owner", id)
				w.dup.Store(&msg)
			}
		case !w.stolen[i] && !w.ran[i]:
			lost = append(lost, id)
		}
	}
	msg := w.dup.Load()
	if msg == nil && len(lost) == 0 {
		return w.badSize
	}
	what := fmt.Sprintf("%s lost (G %v...)", kitCount(int(len(lost)), "G"), lost[:min(len(lost), 5)])
	if msg != nil {
		what = *msg + ", and " + what
	}
	return fmt.Sprintf("an owner kept its ring full, putting a G with runqputtail the moment a steal made room, while a thief stole from it: %s. "+
		"runqputtail must store the G in its slot before it publishes the new runqtail; and once the CompareAndSwap of runqhead commits a steal, the slots it took are the owner's again, and its next puts land in them: read every G you take from the victim's ring before that CompareAndSwap, never after"+kitHint(l01), what)
}

// TestL01InScheduler runs the real scheduler on the learner's ring.
func TestL01InScheduler(t *testing.T) {
	kitPreempted(t)
	const n = 3000
	var ran [n + 1]atomic.Int32
	err := kitRun(t, Config{Procs: 4, RandomizeScheduler: true}, 20*time.Second, func(gp *G) {
		var wg WaitGroup
		wg.Add(n)
		for i := 1; i <= n; i++ {
			gp.Go(func(gp *G) {
				ran[i].Add(1)
				if i%7 == 0 {
					gp.Gosched()
				}
				wg.Done(gp)
			})
		}
		wg.Wait(gp)
	})
	if err != nil {
		t.Fatalf("the scheduler stopped with: %v", err)
	}
	for i := 1; i <= n; i++ {
		if c := ran[i].Load(); c != 1 {
			t.Fatalf("in the scheduler on 4 Ps, G number %d ran %s, want exactly once"+kitHint(l01), i, kitCount(int(c), "time"))
		}
	}
}
