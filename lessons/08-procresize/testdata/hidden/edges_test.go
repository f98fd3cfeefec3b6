package sched

// Hidden tests of lesson 08-procresize: the edges of the contract that the
// main tests do not reach. Each was written against machine-made mutants
// of the reference (kata verify --mutate 08) that passed every other test.

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// l08call runs f and returns what it panicked with, or nil.
func l08call(f func()) (r any) {
	defer func() { r = recover() }()
	f()
	return nil
}

// l08snapshot is what a call that must panic at once must leave as it was.
type l08snapshot struct {
	allp     []*p
	status   []uint32
	gmp      int32
	ring     [][]int64
	runnext  []int64
	global   []int64
	maskLen  int
	stealCnt uint32
}

func l08snap(sched *schedt) l08snapshot {
	s := l08snapshot{allp: slices.Clone(sched.allp), gmp: sched.gomaxprocs.Load(), maskLen: len(sched.idlepMask), stealCnt: sched.stealOrder.count}
	for _, pp := range sched.allp {
		s.status = append(s.status, pp.status.Load())
		s.ring = append(s.ring, l08ring(pp))
		s.runnext = append(s.runnext, l08gid(pp.runnext.Load()))
	}
	for gp := sched.runq.head; gp != nil && len(s.global) < 1000; gp = gp.schedlink {
		s.global = append(s.global, gp.goid)
	}
	return s
}

func (s l08snapshot) diff(o l08snapshot) string {
	switch {
	case !slices.Equal(s.allp, o.allp):
		return fmt.Sprintf("allp went from %s to %d", kitCount(int(len(s.allp)), "P"), len(o.allp))
	case s.gmp != o.gmp:
		return fmt.Sprintf("gomaxprocs went from %d to %d", s.gmp, o.gmp)
	case !slices.Equal(s.status, o.status):
		return "the status of a P changed"
	case !slices.EqualFunc(s.ring, o.ring, slices.Equal[[]int64]) || !slices.Equal(s.runnext, o.runnext):
		return fmt.Sprintf("the Ps' run queues went from %v (runnext %v) to %v (runnext %v)", s.ring, s.runnext, o.ring, o.runnext)
	case !slices.Equal(s.global, o.global):
		return fmt.Sprintf("the global queue went from %v to %v", s.global, o.global)
	case s.maskLen != o.maskLen || s.stealCnt != o.stealCnt:
		return "idlepMask or stealOrder changed"
	}
	return ""
}

// TestL08Preconditions: procresize and destroy require sched.lock (with
// Config.Debug, sched.assertLockHeld says so before anything is touched),
// and procresize refuses a count of Ps that is not positive.
func TestL08Preconditions(t *testing.T) {
	newSched := func() *schedt {
		sched := kitSched(3, Config{Debug: true})
		l08stopWorld(t, sched)
		l08fill(sched, sched.allp[2], 0, 21, 3, 0)
		return sched
	}

	cases := []struct {
		call, fn string
		locked   bool
		do       func(sched *schedt)
		want     string
	}{
		{"procresize(sched, 5) without sched.lock", "procresize", false, func(sched *schedt) { procresize(sched, 5) }, "sched.lock not held"},
		{"procresize(sched, 1) without sched.lock", "procresize", false, func(sched *schedt) { procresize(sched, 1) }, "sched.lock not held"},
		{"allp[2].destroy() without sched.lock (P 2 holds G 21, G 22, G 23)", "destroy", false, func(sched *schedt) { sched.allp[2].destroy() }, "sched.lock not held"},
		{"procresize(sched, 0) with sched.lock held", "procresize", true, func(sched *schedt) { procresize(sched, 0) }, "invalid arg"},
		{"procresize(sched, -2) with sched.lock held", "procresize", true, func(sched *schedt) { procresize(sched, -2) }, "invalid arg"},
	}
	for _, c := range cases {
		sched := newSched()
		before := l08snap(sched)
		r := l08call(func() {
			if c.locked {
				sched.lock.Lock()
				defer sched.lock.Unlock()
			}
			c.do(sched)
		})
		setup := fmt.Sprintf("with Config.Debug, 3 Ps stopped (P 2 holding G 21, G 22, G 23), %s", c.call)
		if r == nil || !strings.Contains(fmt.Sprint(r), c.want) {
			what := "returned normally"
			if r != nil {
				what = fmt.Sprintf("panicked with %q", fmt.Sprint(r))
			}
			if c.locked {
				t.Fatalf("%s: it %s; want a panic (the runtime throws \"procresize: invalid arg\"): a scheduler needs at least one P, and a count of 0 would destroy them all%s",
					setup, what, kitHint(l08))
			}
			t.Fatalf("%s: it %s; want the panic of sched.assertLockHeld(%q) (\"%s: sched.lock not held\"). Begin %s with sched.assertLockHeld: in debug mode it stops a caller that forgot the lock%s",
				setup, what, c.fn, c.fn, c.fn, kitHint(l08))
		}
		sched.lock.Lock()
		after := l08snap(sched)
		sched.lock.Unlock()
		if d := before.diff(after); d != "" {
			t.Fatalf("%s: it panicked (good), but only after changing the scheduler: %s. Check first (sched.assertLockHeld, then the argument), before anything is read or changed, so that a bad call changes nothing%s",
				setup, d, kitHint(l08))
		}
	}
}

// TestL08InitFresh calls (*p).init directly: on a new P, and on a dead one
// left with a stale idle bit. Each must come out as P number id of sched,
// _Pgcstop, with the random source of the contract and its idle bit clear.
func TestL08InitFresh(t *testing.T) {
	const seed = 0xfeed
	sched := kitSched(4, Config{Seed: seed})
	l08stopWorld(t, sched)
	other := kitSched(1, Config{})
	for _, c := range []struct {
		what string
		pp   *p
		id   int32
	}{
		{"a new P (new(p))", new(p), 3},
		{"a dead P (once P 0 of another scheduler, its random source used, and P 2's idle bit left set)", other.allp[0], 2},
		{"P 0 revived", sched.allp[0], 0},
	} {
		pp := c.pp
		pp.status.Store(_Pdead)
		pp.rand.state = 12345
		pp.id = 77
		sched.idlepMask.set(c.id)
		pp.init(sched, c.id)
		what := fmt.Sprintf("(*p).init(sched, %d) on %s", c.id, c.what)
		if pp.id != c.id || pp.sched != sched {
			t.Fatalf("after %s, the P has id %d (its scheduler set: %v); want id %d and pp.sched = sched%s", what, pp.id, pp.sched == sched, c.id, kitHint(l08))
		}
		if s := pp.status.Load(); s != _Pgcstop {
			t.Fatalf("after %s, the P is %s; want _Pgcstop: init leaves a P stopped, as stopTheWorld leaves the others, for procresize to make it idle or give it an M%s", what, pStatusString(s), kitHint(l08))
		}
		want := uint64(seed) ^ (uint64(c.id)+1)*0x9e3779b97f4a7c15
		if pp.rand.state != want {
			t.Fatalf("after %s with Config.Seed %#x, pp.rand.state = %#x; want %#x, exactly cheaprand{state: cfg.seed ^ (uint64(id)+1)*0x9e3779b97f4a7c15}: "+
				"each P its own random sequence, the same for a given seed as with the reference, so that a seed replays the same scheduling decisions%s",
				what, seed, pp.rand.state, want, kitHint(l08))
		}
		if sched.idlepMask.read(c.id) {
			t.Fatalf("after %s, P %d's bit in sched.idlepMask is still set (it was set before); want it clear: the P is not idle until pidleput puts it on the idle list (sched.idlepMask.clear(id))%s",
				what, c.id, kitHint(l08))
		}
	}
}

// TestL08OldMNotFirstIdle: a P with work gets its old M back even when
// that M is not the first on the idle list (where mget would not find it).
//
// It runs twice: on a fresh scheduler, and on one that has run Gs (dead Gs
// cached on a P's free list), as every real one has: a twenty-sixth red
// team's file skipped the old M only when dead Gs were cached.
func TestL08OldMNotFirstIdle(t *testing.T) {
	for _, lived := range []bool{false, true} {
		l08OldMNotFirstIdle(t, lived)
	}
}

func l08OldMNotFirstIdle(t *testing.T, lived bool) {
	t.Helper()
	sched := kitSched(3, Config{Debug: true})
	p0, p1, p2 := sched.allp[0], sched.allp[1], sched.allp[2]
	ma := l08idleM(sched)
	mb := l08idleM(sched)
	mc := l08idleM(sched) // the idle list is now mc, mb, ma
	names := map[*m]string{ma: "Ma", mb: "Mb", mc: "Mc"}
	l08stopWorld(t, sched)
	p0.oldm = ma // last on the idle list
	l08work(sched, p0, 1, false)
	p1.oldm = mb
	l08work(sched, p1, 1, false)
	l08work(sched, p2, 1, false) // no old M
	what := "after procresize(3) of 3 Ps with work, the idle M list being Mc, Mb, Ma, P 0 last run by Ma and P 1 by Mb, P 2 never run"
	if lived {
		for _, gp := range kitGs(sched, 900, 3) {
			gp.atomicstatus.Store(_Gdead)
			gfput(p1, gp)
		}
		what += ", 3 dead Gs cached on P 1's free list"
	}
	l08resize(t, sched, 3)
	if p0.m.Load() != ma || p1.m.Load() != mb || p2.m.Load() != mc {
		t.Fatalf("%s: P 0 got %s, P 1 got %s, P 2 got %s; want Ma, Mb, Mc. A P whose old M (pp.oldm) is idle takes that M, wherever it is on the idle list (sched.mgetSpecific(pp.oldm)); "+
			"the Ps left over take the remaining idle Ms (mget)%s",
			what, l08mName(p0.m.Load(), names), l08mName(p1.m.Load(), names), l08mName(p2.m.Load(), names), kitHint(l08))
	}
	l08invariants(t, sched, what)
}

// TestL08GrowMaskAndTrace grows from 2 Ps to 32, 33, 65, back to 5, and
// then past allp's capacity: idlepMask has one bit per P in whole 32-bit
// words, grown to (nprocs+31)/32 words when it is too short; a P that ever
// existed is revived, never replaced, even when allp must be copied into a
// bigger array; and each call emits one EvResize event with the new count
// when a trace is set.
func TestL08GrowMaskAndTrace(t *testing.T) {
	sched := kitSched(2, Config{Debug: true})
	var rec Recorder
	sched.trace = rec.Record
	maxWords := 1
	everyP := slices.Clone(sched.allp) // every P ever made, by ID
	for _, n := range []int32{32, 33, 65, 5, 64, 100} {
		l08stopWorld(t, sched)
		before := sched.gomaxprocs.Load()
		seen := len(rec.Events())
		l08resize(t, sched, n)
		what := fmt.Sprintf("after procresize(%d) from %s", n, kitCount(int(before), "P"))
		maxWords = max(maxWords, int((n+31)/32))
		if got := len(sched.idlepMask); got != maxWords {
			t.Fatalf("%s, sched.idlepMask has %d words; want %d: one bit per P in 32-bit words, so (nprocs+31)/32 words, grown (copying the old bits) only when it is shorter than that, never shrunk%s",
				what, got, maxWords, kitHint(l08))
		}
		for i, pp := range sched.allp {
			if i < len(everyP) && pp != everyP[i] {
				t.Fatalf("%s, allp[%d] is a new P, but P %d existed before (dead, beyond the old count): revive it. "+
					"When allp must grow past its capacity, copy its whole backing array (sched.allp[:cap(sched.allp)]), dead Ps included, into the new one%s",
					what, i, i, kitHint(l08))
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
		var resizes []Event
		for _, ev := range rec.Events()[seen:] {
			if ev.Kind == EvResize {
				resizes = append(resizes, ev)
			}
		}
		want := Event{Kind: EvResize, G: 0, P: -1, M: -1, Arg: int64(n)}
		if len(resizes) != 1 || resizes[0].G != want.G || resizes[0].P != want.P || resizes[0].M != want.M || resizes[0].Arg != want.Arg || resizes[0].N != 0 {
			t.Fatalf("%s with a trace set (sched.trace), procresize emitted %d EvResize events %v; want exactly one, with no G, P or M and the new count: sched.traceEvent(EvResize, 0, -1, -1, int64(nprocs))%s",
				what, len(resizes), resizes, kitHint(l08))
		}
	}
}

// TestL08AllpWritesUnderLock: sysmon does not stop with the world; its
// retake may be reading allp under sched.allpLock while procresize runs.
// A reader that holds allpLock here must see allp (the slice and its
// slots) stay exactly as it is while it holds the lock.
func TestL08AllpWritesUnderLock(t *testing.T) {
	const cycles = 24
	var cur atomic.Pointer[schedt]
	var stop atomic.Bool
	var mu sync.Mutex
	var problem string
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the reader: what retake does, holding the lock a while
		defer wg.Done()
		for !stop.Load() {
			sched := cur.Load()
			if sched == nil {
				time.Sleep(10 * time.Microsecond)
				continue
			}
			sched.allpLock.Lock()
			hdr := sched.allp
			slots := slices.Clone(hdr)
			deadline := time.Now().Add(30 * time.Microsecond)
			for time.Now().Before(deadline) {
			}
			now := sched.allp
			changed := ""
			switch {
			case len(now) != len(hdr) || cap(now) != cap(hdr) || (len(now) > 0 && &now[0] != &hdr[0]):
				changed = fmt.Sprintf("sched.allp itself (from %s to %d)", kitCount(int(len(hdr)), "P"), len(now))
			case !slices.Equal(slots, now):
				i := 0
				for i < len(now) && slots[i] == now[i] {
					i++
				}
				changed = fmt.Sprintf("slot allp[%d] (it was nil: a new P was stored)", i)
			}
			for _, pp := range now {
				if pp != nil {
					pp.status.Load()
				}
			}
			sched.allpLock.Unlock()
			if changed != "" {
				mu.Lock()
				if problem == "" {
					problem = changed
				}
				mu.Unlock()
			}
			runtime.Gosched()
		}
	}()
	for c := 0; c < cycles; c++ {
		sched := kitSched(1, Config{Debug: true})
		cur.Store(sched)
		for _, n := range []int32{64, 1, 40} {
			l08stopWorld(t, sched)
			l08resize(t, sched, n)
			// Let the reader look between two resizes, too.
			time.Sleep(100 * time.Microsecond)
		}
	}
	stop.Store(true)
	wg.Wait()
	if problem != "" {
		t.Fatalf("while procresize grew and shrank allp (1 P to 64, to 1, to 40), a reader holding sched.allpLock, as sysmon's retake does, saw %s change under it. "+
			"sysmon keeps running while the world is stopped: change sched.allp, and store new Ps in its slots, only while holding sched.allpLock%s", problem, kitHint(l08))
	}
}
