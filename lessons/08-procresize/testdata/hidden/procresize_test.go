package sched

// Hidden tests of lesson 08-procresize. Messages are written for a learner
// who cannot see this file.

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const l08 = "08-procresize"

// l08stopWorld does by hand, on a constructed scheduler where no M runs,
// what stopTheWorld does: with every P idle, each is taken off the idle
// list and made _Pgcstop, counting stopwait down to zero.
func l08stopWorld(t *testing.T, sched *schedt) {
	t.Helper()
	sched.lock.Lock()
	defer sched.lock.Unlock()
	sched.stopwait = sched.gomaxprocs.Load()
	sched.gcwaiting.Store(true)
	for pp := sched.pidleget(); pp != nil; pp = sched.pidleget() {
		pp.status.Store(_Pgcstop)
		sched.stopwait--
	}
	if sched.stopwait != 0 {
		t.Fatalf("setup: stopping the world left stopwait = %d: not every P was idle", sched.stopwait)
	}
}

// l08resize is the procresize half of startTheWorld: procresize(nprocs)
// under sched.lock. It turns a panic into a failure and returns the Ps
// procresize handed back as having work.
func l08resize(t *testing.T, sched *schedt, nprocs int32) []*p {
	t.Helper()
	var head *p
	var perr any
	func() {
		sched.lock.Lock()
		defer sched.lock.Unlock()
		defer func() { perr = recover() }()
		head = procresize(sched, nprocs)
	}()
	if perr != nil {
		t.Fatalf("procresize(%d), with the world stopped, panicked: %v%s", nprocs, perr, kitHint(l08))
	}
	if int32(len(sched.allp)) != nprocs {
		t.Fatalf("after procresize(%d), allp has %s, want exactly %d: trim it when shrinking%s", nprocs, kitCount(int(len(sched.allp)), "entry", "entries"), nprocs, kitHint(l08))
	}
	var list []*p
	for pp := head; pp != nil; pp = pp.link {
		if len(list) > len(sched.allp) {
			t.Fatalf("procresize(%d) returned a list of Ps with work that does not end (a cycle through p.link?)", nprocs)
		}
		list = append(list, pp)
	}
	sched.gcwaiting.Store(false)
	return list
}

// l08invariants fails the test if the scheduler's invariants do not hold.
func l08invariants(t *testing.T, sched *schedt, what string) {
	t.Helper()
	sched.lock.Lock()
	err := sched.checkInvariants()
	sched.lock.Unlock()
	if err != nil {
		t.Fatalf("%s, the scheduler's invariants do not hold:\n%v%s", what, err, kitHint(l08))
	}
}

// l08fill puts Gs with IDs first.. on pp's ring, starting with the ring's
// counters at start (to test wrap-around), and next in runnext (if not 0).
// It returns the IDs in the order pp would run them.
func l08fill(sched *schedt, pp *p, start uint32, first int64, n int, next int64) []int64 {
	pp.runqhead.Store(start)
	pp.runqtail.Store(start)
	var order []int64
	if next != 0 {
		pp.runnext.Store(kitG(sched, next))
		order = append(order, next)
	}
	for _, gp := range kitGs(sched, first, n) {
		runqputtail(pp, gp)
		order = append(order, gp.goid)
	}
	return order
}

// l08work puts n Gs on pp's ring (and one in runnext if next), numbered
// as a long-lived program's are (kitSpreadGoid), not 1, 2, 3: the tests of
// which M a P gets need only that the P has work, and a thirtieth red
// team's procresize preferred a P's old M only while every queued G was
// numbered below 64.
func l08work(sched *schedt, pp *p, n int, next bool) {
	salt := uint64(500 + 10*pp.id)
	if next {
		pp.runnext.Store(kitG(sched, kitSpreadGoid(kitMix(sched.cfg.seed, salt))))
	}
	for i := range n {
		runqputtail(pp, kitG(sched, kitSpreadGoid(kitMix(sched.cfg.seed, salt+1+uint64(i)))))
	}
}

// l08global lists the goids on the global run queue, head first.
func l08global(t *testing.T, sched *schedt) []int64 {
	t.Helper()
	sched.lock.Lock()
	defer sched.lock.Unlock()
	var ids []int64
	var last *g
	for gp := sched.runq.head; gp != nil; gp = gp.schedlink {
		ids = append(ids, gp.goid)
		last = gp
		if len(ids) > 100000 {
			t.Fatalf("the global run queue has a cycle")
		}
	}
	if int(sched.runq.size) != len(ids) || last != sched.runq.tail || sched.runq.sizeHint.Load() != sched.runq.size {
		t.Fatalf("the global run queue is inconsistent: size %d, hint %d, %s linked, tail ok = %v: push onto it with globrunqputhead / globrunqput, under sched.lock",
			sched.runq.size, sched.runq.sizeHint.Load(), kitCount(int(len(ids)), "G"), last == sched.runq.tail)
	}
	return ids
}

// l08ids formats goids compactly: runs of consecutive IDs as a..b, and
// descending runs as "a down to b".
func l08ids(ids []int64) string {
	var parts []string
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		k := i
		for k+1 < len(ids) && ids[k+1] == ids[k]-1 {
			k++
		}
		if j-i >= 2 {
			parts = append(parts, fmt.Sprintf("%d..%d", ids[i], ids[j]))
		} else if k-i >= 2 {
			parts = append(parts, fmt.Sprintf("%d down to %d", ids[i], ids[k]))
			j = k
		} else {
			for k := i; k <= j; k++ {
				parts = append(parts, fmt.Sprint(ids[k]))
			}
		}
		i = j + 1
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// l08perms returns every order of segs, each concatenated, then tail.
func l08perms(segs [][]int64, tail []int64) [][]int64 {
	if len(segs) == 0 {
		return [][]int64{slices.Clone(tail)}
	}
	var out [][]int64
	for i := range segs {
		rest := append(append([][]int64{}, segs[:i]...), segs[i+1:]...)
		for _, p := range l08perms(rest, tail) {
			out = append(out, append(slices.Clone(segs[i]), p...))
		}
	}
	return out
}

// TestL08ShrinkMovesWorkToGlobalHead: shrinking destroys the Ps beyond the
// new count; each pushes its runnext and ring onto the head of the global
// queue, in the order it would have run them, before what was there.
func TestL08ShrinkMovesWorkToGlobalHead(t *testing.T) {
	// One P destroyed: its Gs, exactly.
	sched := kitSched(2, Config{Debug: true})
	l08stopWorld(t, sched)
	sched.lock.Lock()
	sched.globrunqput(kitG(sched, 901))
	sched.globrunqput(kitG(sched, 902))
	sched.lock.Unlock()
	l08fill(sched, sched.allp[1], 0, 201, 3, 200)
	l08resize(t, sched, 1)
	if got := l08global(t, sched); !slices.Equal(got, []int64{200, 201, 202, 203, 901, 902}) {
		t.Fatalf("procresize(1) destroyed P 1 (runnext G 200, ring [201 202 203]) while the global queue held [901 902]; the global queue is now %s, want [200 201 202 203 901 902]: "+
			"the destroyed P's Gs go onto the HEAD of the global queue, in front of what was there, in the order the P would have run them (runnext first, then the ring from head to tail)%s",
			l08ids(got), kitHint(l08))
	}

	// Two Ps destroyed, one ring wrapping around, one full.
	sched = kitSched(4, Config{Debug: true})
	p0, p1, p2, p3 := sched.allp[0], sched.allp[1], sched.allp[2], sched.allp[3]
	l08stopWorld(t, sched)
	sched.lock.Lock()
	sched.globrunqput(kitG(sched, 901))
	sched.globrunqput(kitG(sched, 902))
	sched.lock.Unlock()
	l08fill(sched, p1, 0, 101, 5, 100)                           // survivor with work
	p2order := l08fill(sched, p2, math.MaxUint32-1, 201, 3, 200) // ring wrapping around
	p3order := l08fill(sched, p3, 7, 3001, 256, 0)               // a full ring, no runnext

	runnable := l08resize(t, sched, 2)

	if len(sched.allp) != 2 || sched.allp[0] != p0 || sched.allp[1] != p1 {
		t.Fatalf("after procresize(2) from 4 Ps, allp has %s; want exactly 2, P 0 and P 1 as they were%s", kitCount(int(len(sched.allp)), "entry", "entries"), kitHint(l08))
	}
	if n := sched.gomaxprocs.Load(); n != 2 {
		t.Fatalf("after procresize(2), gomaxprocs = %d, want 2", n)
	}
	got := l08global(t, sched)
	old := []int64{901, 902}
	perms := l08perms([][]int64{p2order, p3order}, old)
	if !slices.ContainsFunc(perms, func(w []int64) bool { return slices.Equal(w, got) }) {
		t.Fatalf("procresize(2) destroyed P 2 (runnext 200, ring [201 202 203], its counters wrapping around) and P 3 (a full ring, 3001..3256) while the global queue held [901 902].\n"+
			"The global queue is now %s\nwant each destroyed P's Gs in the order it would have run them (runnext first, then the ring from head to tail), "+
			"pushed onto the HEAD of the global queue, in front of 901 902: %s (or P 2's before P 3's)%s",
			l08ids(got), l08ids(perms[1]), kitHint(l08))
	}
	for _, pp := range []*p{p2, p3} {
		if s := pp.status.Load(); s != _Pdead {
			t.Fatalf("after procresize(2), destroyed P %d is %s, want dead%s", pp.id, pStatusString(s), kitHint(l08))
		}
		if pp.runqhead.Load() != pp.runqtail.Load() || pp.runnext.Load() != nil {
			t.Fatalf("after procresize(2), destroyed P %d still has Gs (%d on its ring, runnext %s): take them off as you move them", pp.id, pp.runqtail.Load()-pp.runqhead.Load(), kitID(pp.runnext.Load()))
		}
	}
	if len(runnable) != 1 || runnable[0] != p1 {
		t.Fatalf("procresize(2) returned %s with work, want exactly P 1 (P 0 has none; P 2 and P 3 are gone)", kitCount(int(len(runnable)), "P"))
	}
	if ring := l08ring(p1); l08ids(ring) != "[101..105]" || l08gid(p1.runnext.Load()) != 100 {
		t.Fatalf("procresize(2) changed the run queue of P 1, which survives: ring %s, runnext %s; want ring [101..105], runnext G 100", l08ids(ring), kitID(p1.runnext.Load()))
	}
	l08invariants(t, sched, "after procresize(2)")
}

func l08ring(pp *p) []int64 {
	var ids []int64
	for i, t := pp.runqhead.Load(), pp.runqtail.Load(); i != t; i++ {
		ids = append(ids, kitRawSlot(&pp.runq[i%uint32(len(pp.runq))]).Load().goid)
	}
	return ids
}

func l08gid(gp *g) int64 {
	if gp == nil {
		return 0
	}
	return gp.goid
}

// l08freeIDs lists the goids on a gList.
func l08freeIDs(l *gList) []int64 {
	var ids []int64
	for gp := l.head; gp != nil && len(ids) < 1000; gp = gp.schedlink {
		ids = append(ids, gp.goid)
	}
	slices.Sort(ids)
	return ids
}

// TestL08ShrinkFreesGs: a destroyed P's free Gs go to the global free list;
// a surviving P keeps its own.
func TestL08ShrinkFreesGs(t *testing.T) {
	sched := kitSched(4, Config{Debug: true})
	p1, p2, p3 := sched.allp[1], sched.allp[2], sched.allp[3]
	l08stopWorld(t, sched)
	add := func(pp *p, ids ...int64) {
		for _, id := range ids {
			pp.gFree.push(kitDeadG(sched, id))
			pp.gFree.n++
		}
	}
	add(p1, 11, 12)
	add(p2, 21, 22, 23)
	add(p3, 31, 32)
	sched.gFree.list.push(kitDeadG(sched, 1))
	sched.gFree.n.Add(1)
	// The world came with free Gs of its own (kitLivedFree): they move
	// as these do.
	wantGlobal := slices.Sorted(slices.Values(slices.Concat(l08freeIDs(&sched.gFree.list), l08freeIDs(&p2.gFree.gList), l08freeIDs(&p3.gFree.gList))))
	wantP1 := l08freeIDs(&p1.gFree.gList)

	l08resize(t, sched, 2)

	for _, pp := range []*p{p2, p3} {
		if !pp.gFree.empty() || pp.gFree.n != 0 {
			t.Fatalf("after procresize(2), destroyed P %d still caches free Gs %v (n = %d): destroy must move them to the global free list (gfpurge)%s", pp.id, l08freeIDs(&pp.gFree.gList), pp.gFree.n, kitHint(l08))
		}
	}
	if got := l08freeIDs(&sched.gFree.list); !slices.Equal(got, wantGlobal) || sched.gFree.n.Load() != int32(len(wantGlobal)) {
		t.Fatalf("after procresize(2), the global free list holds %v (n = %d); want %v (n = %d): the free Gs of P 2 and P 3 join it", got, sched.gFree.n.Load(), wantGlobal, len(wantGlobal))
	}
	if got := l08freeIDs(&p1.gFree.gList); !slices.Equal(got, wantP1) || p1.gFree.n != int32(len(wantP1)) {
		t.Fatalf("after procresize(2), surviving P 1 caches free Gs %v (n = %d); want %v (n = %d), untouched", got, p1.gFree.n, wantP1, len(wantP1))
	}
}

// l08idleM makes an M and parks it on the idle M list (no goroutine runs
// it: procresize only hands Ms out, startTheWorld wakes them).
func l08idleM(sched *schedt) *m {
	sched.lock.Lock()
	defer sched.lock.Unlock()
	mp := &m{sched: sched, id: sched.mReserveID()}
	mp.park.init()
	sched.mput(mp)
	return mp
}

// l08busyM makes an M that is not idle (say, blocked in a system call).
func l08busyM(sched *schedt) *m {
	sched.lock.Lock()
	defer sched.lock.Unlock()
	mp := &m{sched: sched, id: sched.mReserveID()}
	mp.park.init()
	return mp
}

func l08mName(mp *m, names map[*m]string) string {
	if mp == nil {
		return "none"
	}
	if n, ok := names[mp]; ok {
		return n
	}
	return fmt.Sprintf("M %d", mp.id)
}

// l08midle lists the idle Ms.
func l08midle(sched *schedt) []*m {
	sched.lock.Lock()
	defer sched.lock.Unlock()
	var ms []*m
	for mp := sched.midle; mp != nil && len(ms) < 100; mp = mp.schedlink {
		ms = append(ms, mp)
	}
	return ms
}

// l08idleList lists the P IDs on the idle P list.
func l08idleList(sched *schedt) []int32 {
	sched.lock.Lock()
	defer sched.lock.Unlock()
	var ids []int32
	for pp := sched.pidle; pp != nil && len(ids) < 2000; pp = pp.link {
		ids = append(ids, pp.id)
	}
	slices.Sort(ids)
	return ids
}

// l08checkIdle checks that exactly the Ps in want are on the idle list,
// _Pidle, counted in npidle and set in idlepMask, and the others are not
// on it and clear in idlepMask.
func l08checkIdle(t *testing.T, sched *schedt, want []int32, what string) {
	t.Helper()
	got := l08idleList(sched)
	if !slices.Equal(got, want) {
		t.Fatalf("%s, the idle P list holds Ps %v; want %v: every surviving P with an empty run queue goes idle (pidleput), and only those%s", what, got, want, kitHint(l08))
	}
	if n := sched.npidle.Load(); int(n) != len(want) {
		t.Fatalf("%s, npidle = %d, want %d: put idle Ps with pidleput, which counts them", what, n, len(want))
	}
	for _, pp := range sched.allp {
		in := slices.Contains(want, pp.id)
		if sched.idlepMask.read(pp.id) != in {
			t.Fatalf("%s, P %d: idlepMask says idle = %v, want %v (on the idle list = %v)", what, pp.id, !in, in, in)
		}
		if s := pp.status.Load(); s != _Pidle {
			t.Fatalf("%s, P %d is %s; want every surviving P _Pidle (idle, or about to be taken by the M procresize gives it)", what, pp.id, pStatusString(s))
		}
	}
}

// TestL08SurvivorsGetAnM: after a resize, every surviving P with an empty
// run queue is idle; every one with work is returned, with an M in p.m:
// the M that ran it last (pp.oldm) if that M is idle, else any idle M, or
// none if none is left.
func TestL08SurvivorsGetAnM(t *testing.T) {
	sched := kitSched(5, Config{Debug: true})
	p0, p1, p2, p3, p4 := sched.allp[0], sched.allp[1], sched.allp[2], sched.allp[3], sched.allp[4]
	ma := l08idleM(sched)
	mc := l08idleM(sched)
	mb := l08idleM(sched) // the idle list is now mb, mc, ma
	mx := l08busyM(sched)
	names := map[*m]string{ma: "Ma", mb: "Mb", mc: "Mc", mx: "Mx"}
	l08stopWorld(t, sched)
	p0.oldm = ma // P 0: no work; its old M stays idle
	p1.oldm = mb // P 1: work, its old M is idle: it must get Mb
	l08work(sched, p1, 1, false)
	p2.oldm = mx // P 2: work, its old M is busy: any idle M
	l08work(sched, p2, 0, true)
	l08work(sched, p3, 2, false) // P 3: work, never ran
	l08work(sched, p4, 1, false) // P 4: destroyed

	runnable := l08resize(t, sched, 4)

	what := "after procresize(4) from 5 Ps"
	l08checkIdle(t, sched, []int32{0}, what)
	var ids []int32
	for _, pp := range runnable {
		ids = append(ids, pp.id)
	}
	slices.Sort(ids)
	if !slices.Equal(ids, []int32{1, 2, 3}) {
		t.Fatalf("%s, the Ps returned as having work are %v; want P 1, P 2 and P 3, each once (P 0 is empty, P 4 is gone)%s", what, ids, kitHint(l08))
	}
	if p1.m.Load() != mb {
		t.Fatalf("%s, P 1 (with work, last run by Mb, which is idle) got M %s; want Mb: prefer the P's old M (pp.oldm, mgetSpecific). Hand out other idle Ms (mget) only once every P whose old M is idle has taken it, or a P with no old M may take another P's%s",
			what, l08mName(p1.m.Load(), names), kitHint(l08))
	}
	m2, m3 := p2.m.Load(), p3.m.Load()
	if m2 == nil || m3 == nil || m2 == m3 || (m2 != ma && m2 != mc) || (m3 != ma && m3 != mc) {
		t.Fatalf("%s with Ma and Mc idle besides P 1's Mb, P 2 (old M busy) got %s and P 3 (no old M) got %s; want Ma and Mc, one each: a P with work whose old M is not idle takes any idle M (mget)%s",
			what, l08mName(m2, names), l08mName(m3, names), kitHint(l08))
	}
	if left := l08midle(sched); len(left) != 0 {
		t.Fatalf("%s, %s are still on the idle M list after all three were handed out: take them off it (mget, mgetSpecific)", what, kitCount(int(len(left)), "M"))
	}
	if p0.m.Load() != nil {
		t.Fatalf("%s, idle P 0 was given an M", what)
	}
	l08invariants(t, sched, what)

	// Fewer idle Ms than Ps with work: the rest get none (startTheWorld
	// starts new Ms for them).
	sched = kitSched(3, Config{Debug: true})
	q0, q1 := sched.allp[0], sched.allp[1]
	ma = l08idleM(sched)
	l08stopWorld(t, sched)
	l08work(sched, q0, 1, false)
	l08work(sched, q1, 1, false)
	runnable = l08resize(t, sched, 3)
	what = "after procresize(3) of 3 Ps, P 0 and P 1 with work, one idle M, no old Ms"
	l08checkIdle(t, sched, []int32{2}, what)
	if len(runnable) != 2 {
		t.Fatalf("%s: %s returned as having work, want 2", what, kitCount(int(len(runnable)), "P"))
	}
	if got := []*m{q0.m.Load(), q1.m.Load()}; !(got[0] == ma && got[1] == nil) && !(got[0] == nil && got[1] == ma) {
		t.Fatalf("%s: P 0 got %s and P 1 got %s; want the idle M for one of them and none for the other%s", what, l08mName(got[0], map[*m]string{ma: "the idle M"}), l08mName(got[1], map[*m]string{ma: "the idle M"}), kitHint(l08))
	}
	l08invariants(t, sched, what)
}

// l08coprimes is what stealOrder.reset(n) must produce.
func l08coprimes(n uint32) []uint32 {
	var c []uint32
	for i := uint32(1); i <= n; i++ {
		a, b := i, n
		for b != 0 {
			a, b = b, a%b
		}
		if a == 1 {
			c = append(c, i)
		}
	}
	return c
}

// TestL08GrowAndStealOrder: growing makes new Ps (or revives dead ones),
// idle and ready; allp always has exactly nprocs entries; the steal order
// is reset for the new count; gomaxprocs is stored.
func TestL08GrowAndStealOrder(t *testing.T) {
	sched := kitSched(2, Config{Debug: true})
	orig := slices.Clone(sched.allp)
	var everyP []*p // every P ever made, by ID
	for _, n := range []int32{40, 6, 9, 1, 33, 3} {
		l08stopWorld(t, sched)
		before := sched.gomaxprocs.Load()
		l08resize(t, sched, n)
		what := fmt.Sprintf("after procresize(%d) from %s", n, kitCount(int(before), "P"))
		if int32(len(sched.allp)) != n {
			t.Fatalf("%s, allp has %s, want exactly %d%s", what, kitCount(int(len(sched.allp)), "entry", "entries"), n, kitHint(l08))
		}
		if got := sched.gomaxprocs.Load(); got != n {
			t.Fatalf("%s, gomaxprocs = %d, want %d: store the new count%s", what, got, n, kitHint(l08))
		}
		// The coprimes in any order: lesson 04's contract asks for the set
		// (start picks among them with a random number), not an order.
		coprimes := slices.Sorted(slices.Values(sched.stealOrder.coprimes))
		if sched.stealOrder.count != uint32(n) || !slices.Equal(coprimes, l08coprimes(uint32(n))) {
			t.Fatalf("%s, stealOrder has count %d and coprimes %v; want %d and %v (in any order): reset it for the new number of Ps (stealOrder.reset)%s",
				what, sched.stealOrder.count, sched.stealOrder.coprimes, n, l08coprimes(uint32(n)), kitHint(l08))
		}
		for i, pp := range sched.allp {
			if pp == nil {
				t.Fatalf("%s, allp[%d] is nil", what, i)
			}
			if pp.id != int32(i) || pp.sched != sched {
				t.Fatalf("%s, allp[%d] has id %d (sched set: %v); want id %d: (*p).init gives a new or revived P its id and scheduler", what, i, pp.id, pp.sched == sched, i)
			}
			if i < len(orig) && pp != orig[i] {
				t.Fatalf("%s, allp[%d] is a different P than before: Ps below the old count must be kept as they are", what, i)
			}
			if i < len(everyP) && pp != everyP[i] {
				t.Fatalf("%s, allp[%d] is a new P, but P %d existed before (dead): revive it, as the runtime does (an M may still look at it)", what, i, i)
			}
			if i >= len(everyP) {
				everyP = append(everyP, pp)
			}
		}
		all := make([]int32, n)
		for i := range all {
			all[i] = int32(i)
		}
		l08checkIdle(t, sched, all, what)
		for _, pp := range everyP[n:] {
			if s := pp.status.Load(); s != _Pdead {
				t.Fatalf("%s, P %d (beyond the new count) is %s, want dead", what, pp.id, pStatusString(s))
			}
		}
		l08invariants(t, sched, what)
	}
}

// TestL08ResizeUnderLoad changes GOMAXPROCS many times, from outside the
// Runtime and from inside a G, while Gs spawn, yield, ping-pong on
// channels and make system calls. Every G must run exactly once; Debug
// checks the invariants at every stop-the-world.
func TestL08ResizeUnderLoad(t *testing.T) {
	const (
		maxWaves, minWaves = 200, 25
		perWave            = 64
		outsideCalls       = 120
	)
	rt := New(Config{Procs: 4, Debug: true, RandomizeScheduler: true})
	var ran [maxWaves * perWave]atomic.Int32
	var created, insideCalls atomic.Int64
	var outsideDone, started atomic.Bool
	var probMu sync.Mutex
	var probs []string
	failed := make(chan struct{}) // closed at the first problem
	problem := func(format string, args ...any) {
		probMu.Lock()
		if len(probs) == 0 {
			close(failed)
		}
		probs = append(probs, fmt.Sprintf(format, args...))
		probMu.Unlock()
	}
	report := func() {
		probMu.Lock()
		defer probMu.Unlock()
		if len(probs) > 0 {
			t.Fatalf("%s%s", strings.Join(probs[:min(3, len(probs))], "\n"), kitHint(l08))
		}
	}

	// From outside: the way a program calls runtime.GOMAXPROCS.
	outside := make(chan struct{})
	go func() {
		defer close(outside)
		defer outsideDone.Store(true)
		defer func() {
			if r := recover(); r != nil {
				problem("Runtime.GOMAXPROCS from outside panicked: %v", r)
			}
		}()
		for !started.Load() {
			time.Sleep(100 * time.Microsecond)
		}
		for i := 0; i < outsideCalls; i++ {
			rt.GOMAXPROCS(1 + (i*5)%7)
			time.Sleep(200 * time.Microsecond)
		}
	}()

	rt.Go(func(gp *G) {
		started.Store(true)
		for w := 0; w < maxWaves && (w < minWaves || !outsideDone.Load()); w++ {
			var wg WaitGroup
			wg.Add(perWave)
			for i := 0; i < perWave; i++ {
				idx := w*perWave + i
				created.Add(1)
				var ch *Chan[int]
				if i%8 == 1 {
					ch = NewChan[int](0)
				}
				gp.Go(func(g *G) {
					ran[idx].Add(1)
					switch {
					case i == 0 && w%3 == 0:
						g.GOMAXPROCS(1 + (w/3)%6)
						insideCalls.Add(1)
					case i%8 == 1:
						// A pair: this G and the next ping-pong.
						g.Go(func(g2 *G) {
							for k := 0; k < 10; k++ {
								ch.Send(g2, k)
							}
						})
						for k := 0; k < 10; k++ {
							if v, _ := ch.Recv(g); v != k {
								problem("a ping-pong across resizes received %d, want %d", v, k)
							}
						}
					case i%8 == 2:
						g.Syscall(func() {})
					default:
						g.Gosched()
					}
					wg.Done(g)
				})
			}
			wg.Wait(gp)
		}
	})

	errc := make(chan error, 1)
	go func() { errc <- rt.Wait() }()
	var err error
	select {
	case err = <-errc:
	case <-failed:
		report() // the Runtime may be stuck with the world stopped: leave it
	case <-time.After(60 * time.Second):
		report()
		t.Fatalf("the Runtime did not finish within 60s while GOMAXPROCS changed under load: a G lost when a P was destroyed, or a P never restarted?%s", kitHint(l08))
	}
	if err != nil {
		// A G that panicked may have left the world stopped: leave the
		// Runtime to close in the background.
		go func() { <-outside; rt.Close() }()
		report()
		var pe *PanicError
		if errors.As(err, &pe) {
			t.Fatalf("while GOMAXPROCS changed under load, G %d panicked: %v%s", pe.G, pe.Value, kitHint(l08))
		}
		t.Fatalf("while GOMAXPROCS changed under load, Wait returned: %v%s", err, kitHint(l08))
	}
	var invErr error
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		<-outside
		invErr = rt.CheckInvariants()
		rt.Close()
	}()
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		report()
		t.Fatalf("every G finished, but stopping the world to check the invariants, or closing the Runtime, did not finish within 30s%s", kitHint(l08))
	}
	report()
	t.Logf("%s in waves of %d, %s from outside, %d from inside", kitCount(int(created.Load()), "G"), perWave, kitCount(int(outsideCalls), "resize"), insideCalls.Load())
	n := int(created.Load())
	for i := 0; i < n; i++ {
		if c := ran[i].Load(); c != 1 {
			t.Fatalf("while GOMAXPROCS changed under load (%s from outside, %d from inside), G number %d of %d ran %s, want exactly once%s", kitCount(int(outsideCalls), "time"), insideCalls.Load(), i, n, kitCount(int(c), "time"), kitHint(l08))
		}
	}
	if invErr != nil {
		t.Fatalf("after the run, the scheduler's invariants do not hold: %v%s", invErr, kitHint(l08))
	}
}
