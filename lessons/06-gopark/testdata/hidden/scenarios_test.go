package sched

// More hidden tests of lesson 06-gopark: the trace events of a park, a
// declined park and a ready; unlockf run by the M, not by the G; nothing
// of a finished park kept alive by the M; ready's wakep after the G is
// queued; and a park with no unlockf. Messages are written for a learner
// who cannot see this file.

import (
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"
	"weak"
)

// l06evString shows an event's fields (not its time) for a message.
func l06evString(ev Event) string {
	arg := fmt.Sprint(ev.Arg)
	if ev.Kind == EvGoPark {
		arg = fmt.Sprintf("%d (%q)", ev.Arg, waitReason(ev.Arg).String())
	}
	return fmt.Sprintf("{%s G %d P %d M %d Arg %s}", ev.Kind, ev.G, ev.P, ev.M, arg)
}

// TestL06TraceEvents: with Config.Trace set, a declined park emits GoPark
// (Arg: the wait reason) then GoUnpark (Arg 0), and the G starts again
// with its time slice (GoStart Arg 1); a real park emits GoPark, and the
// ready that wakes it GoUnpark on the readier's M and P.
func TestL06TraceEvents(t *testing.T) {
	var probs l06problems
	var rec Recorder
	var clock atomic.Int64 // every event its own time, so they sort in the order emitted
	cfg := Config{Procs: 1, Trace: rec.Record, Nanotime: func() int64 { return clock.Add(1) }}
	var goid int64
	var parkM, parkP [2]int64
	var readyM, readyP int64
	l06run(t, cfg, &probs, func(gp *G) {
		goid = gp.goid
		var parked atomic.Pointer[g]
		gp.Go(func(w *G) {
			for parked.Load() == nil {
				w.Gosched()
			}
			readyM, readyP = w.m.id, int64(w.m.p.id)
			w.Ready(parked.Swap(nil))
		})
		parkM[0], parkP[0] = gp.m.id, int64(gp.m.p.id)
		gopark(gp, func(*g, unsafe.Pointer) bool { return false }, nil, waitReasonChanReceive)
		parkM[1], parkP[1] = gp.m.id, int64(gp.m.p.id)
		gopark(gp, func(pg *g, _ unsafe.Pointer) bool { parked.Store(pg); return true }, nil, waitReasonSyncMutexLock)
	})

	var got []Event
	for _, ev := range rec.Events() {
		if ev.G == goid && (ev.Kind == EvGoPark || ev.Kind == EvGoUnpark || ev.Kind == EvGoStart) {
			got = append(got, ev)
		}
	}
	type want struct {
		kind    EventKind
		p, m    int64 // -2: any
		arg     int64
		anyArg  bool
		what    string
		mistake string
	}
	steps := []want{
		{kind: EvGoStart, p: parkP[0], m: parkM[0], anyArg: true, what: "G 1 starts"},
		{EvGoPark, parkP[0], parkM[0], int64(waitReasonChanReceive), false, "G 1 parks with reason chan receive (its unlockf will return false)",
			"park_m emits EvGoPark: G the parking G, P and M its M's, Arg its wait reason (int64(gp.waitreason))"},
		{EvGoUnpark, parkP[0], parkM[0], 0, false, "its unlockf returned false",
			"park_m, when unlockf returns false, emits EvGoUnpark for the G on its own M and P, Arg 0, before it hands the G back"},
		{EvGoStart, parkP[0], parkM[0], 1, false, "G 1 runs again at once",
			"park_m returns gp, true: true means the G inherits its time slice (GoStart Arg 1), as if it had never stopped; with false it starts a new one, and a G that keeps declining never gives up its P"},
		{EvGoPark, parkP[1], parkM[1], int64(waitReasonSyncMutexLock), false, "G 1 parks with reason sync.Mutex.Lock",
			"park_m emits EvGoPark: G the parking G, P and M its M's, Arg its wait reason (int64(gp.waitreason))"},
		{EvGoUnpark, readyP, readyM, 0, false, "G 2 readies G 1",
			"ready emits EvGoUnpark: G the readied G, P and M those of the M that readies it (mp), Arg 0"},
		{kind: EvGoStart, p: -2, m: -2, anyArg: true, what: "G 1 runs again"},
	}
	var gotS []string
	for _, ev := range got {
		gotS = append(gotS, l06evString(ev))
	}
	for i, w := range steps {
		wantEv := Event{Kind: w.kind, G: goid, P: int32(w.p), M: w.m, Arg: w.arg}
		if i >= len(got) {
			after := "at first"
			if i > 0 {
				after = fmt.Sprintf("after %q", steps[i-1].what)
			}
			t.Fatalf("with Config.Trace set, one P: G 1 parked (unlockf declined), then parked again and G 2 readied it. G 1's GoStart, GoPark and GoUnpark events were %s; %s want %s: %s%s",
				gotS, after, l06evString(wantEv), w.mistake, kitHint(l06))
		}
		ev := got[i]
		if w.p == -2 {
			wantEv.P, wantEv.M = ev.P, ev.M
		}
		if w.anyArg {
			wantEv.Arg = ev.Arg
		}
		if ev.Kind != wantEv.Kind || ev.P != wantEv.P || ev.M != wantEv.M || ev.Arg != wantEv.Arg {
			t.Fatalf("with Config.Trace set, one P: G 1 parked (unlockf declined), then parked again and G 2 readied it. G 1's GoStart, GoPark and GoUnpark events were %s; event %d (%s) is %s, want %s: %s%s",
				gotS, i+1, w.what, l06evString(ev), l06evString(wantEv), w.mistake, kitHint(l06))
		}
	}
	if len(got) > len(steps) {
		t.Fatalf("with Config.Trace set, one P: G 1 parked (unlockf declined), then parked again and G 2 readied it. G 1's GoStart, GoPark and GoUnpark events were %s; want %d: one GoPark per park, one GoUnpark per ready or declined park%s",
			gotS, len(steps), kitHint(l06))
	}
}

// TestL06UnlockfRunsOnTheM: unlockf is called by the M, after the G's
// coroutine has stopped, never by the G itself inside gopark: while the G
// is still running its own code, a waker that takes the lock unlockf
// released could ready it and another M resume it, twice at once.
func TestL06UnlockfRunsOnTheM(t *testing.T) {
	for _, procs := range []int{1, 2} {
		var probs l06problems
		l06run(t, Config{Procs: procs}, &probs, func(gp *G) {
			self := kitGoid() // the goroutine that runs G 1's code
			var parked atomic.Pointer[g]
			var quit atomic.Bool
			defer quit.Store(true)
			gp.Go(func(w *G) {
				for parked.Load() == nil {
					if quit.Load() {
						return
					}
					w.Gosched()
				}
				w.Ready(parked.Swap(nil))
			})
			for _, declined := range []bool{true, false} {
				var in uint64
				gopark(gp, func(pg *g, _ unsafe.Pointer) bool {
					in = kitGoid()
					if !declined {
						parked.Store(pg)
					}
					return !declined
				}, nil, waitReasonPark)
				if in == self {
					how := "that then returned true"
					if declined {
						how = "that returned false"
					}
					probs.addf("on %s: G %d parked with an unlockf %s, and the unlockf ran on G %d's own goroutine, inside gopark: the G had not stopped, so a waker could ready it and another M resume it while it still runs. gopark only records unlockf and lock on the M (mp.waitunlockf, mp.waitlock) and calls mcall(gp, park_m); park_m, which the M runs once the G has stopped, calls unlockf",
						l06procs(procs), gp.goid, how, gp.goid)
					return
				}
			}
		})
	}
}

// l06procs says "1 P" or "N Ps".
func l06procs(n int) string {
	if n == 1 {
		return "1 P"
	}
	return fmt.Sprintf("%s", kitCount(int(n), "P"))
}

// l06payload is something a park refers to: the lock passed to gopark,
// or what its unlockf captures. Big enough not to share a tiny block.
type l06payload struct {
	next *l06payload
	pad  [64]byte
}

// l06parkAndForget parks gp with a lock and an unlockf that refers to a
// payload of its own, and returns weak pointers to both: nothing else
// refers to them once it returns. With declined, unlockf returns false;
// else it publishes the G for a waker and returns true.
//
//go:noinline
func l06parkAndForget(gp *g, declined bool, parked *atomic.Pointer[g]) (lock, captured weak.Pointer[l06payload]) {
	l, c := &l06payload{}, &l06payload{}
	lock, captured = weak.Make(l), weak.Make(c)
	gopark(gp, func(pg *g, _ unsafe.Pointer) bool {
		c.pad[0]++
		if declined {
			return false
		}
		parked.Store(pg)
		return true
	}, unsafe.Pointer(l), waitReasonPark)
	return lock, captured
}

// TestL06ParkForgetsItsLock: once unlockf has run, the M forgets gopark's
// arguments (mp.waitunlockf, mp.waitlock): the lock and whatever unlockf
// refers to are not kept alive by the M until its next park.
func TestL06ParkForgetsItsLock(t *testing.T) {
	var probs l06problems
	l06run(t, Config{Procs: 1}, &probs, func(gp *G) {
		var parked atomic.Pointer[g]
		var quit atomic.Bool
		defer quit.Store(true)
		gp.Go(func(w *G) {
			for parked.Load() == nil {
				if quit.Load() {
					return
				}
				w.Gosched()
			}
			w.Ready(parked.Swap(nil))
		})
		for _, declined := range []bool{true, false} {
			lock, captured := l06parkAndForget(gp, declined, &parked)
			runtime.GC()
			runtime.GC()
			var kept []string
			if lock.Value() != nil {
				kept = append(kept, "the lock passed to gopark (mp.waitlock)")
			}
			if captured.Value() != nil {
				kept = append(kept, "what its unlockf refers to (mp.waitunlockf)")
			}
			if len(kept) > 0 {
				how := "returned true and G 2 readied it"
				if declined {
					how = "returned false"
				}
				probs.addf("G %d parked, its unlockf %s, and once it ran again nothing referred to %s any more, but a garbage collection found it still reachable: the M keeps it. Once unlockf has run, park_m clears mp.waitunlockf and mp.waitlock (set them to nil), on both paths: they were this park's",
					gp.goid, how, strings.Join(kept, " nor "))
				return
			}
		}
	})
}

// TestL06ReadyQueuesBeforeWake: ready's wakep may wake an M that looks for
// work at once; by then the G must be on the run queue, or the M finds
// nothing and sleeps again while the G waits with a P idle.
func TestL06ReadyQueuesBeforeWake(t *testing.T) {
	for _, next := range []bool{true, false} {
		sched := kitSched(2, Config{})
		pp := kitTakeP(sched, 0)
		mp := &m{sched: sched}
		mp.park.init()
		idle := &m{sched: sched}
		idle.park.init()
		sched.lock.Lock()
		mp.id = sched.mReserveID()
		idle.id = sched.mReserveID()
		sched.allm = append(sched.allm, mp, idle)
		sched.mput(idle)
		sched.lock.Unlock()
		acquirep(mp, pp)
		gp := l06waitingG(sched, 7)

		// queued reads P 0's queues without a scheduling point (it runs
		// inside the hook).
		queued := func() bool {
			if (*atomic.Pointer[g])(&pp.runnext).Load() == gp {
				return true
			}
			for i, tl := (*atomic.Uint32)(&pp.runqhead).Load(), (*atomic.Uint32)(&pp.runqtail).Load(); i != tl; i++ {
				if kitRawSlot(&pp.runq[i%uint32(len(pp.runq))]).Load() == gp {
					return true
				}
			}
			return false
		}
		// At every atomic operation of the queues, nmspinning and the
		// statuses, an M woken by wakep could be looking.
		var early atomic.Bool
		old := setInterleaveHook(func() {
			if len(idle.park.c) == 1 && !queued() {
				early.Store(true)
			}
		})
		what := fmt.Sprintf("ready(G 7, next=%v) on an M holding P 0, with P 1 idle and an idle M", next)
		func() {
			defer setInterleaveHook(old)
			l06call(t, what, func() { ready(mp, gp, next) })
		}()
		if len(idle.park.c) != 1 || idle.nextp == nil {
			t.Fatalf("%s: the idle M was not started on P 1: ready must call wakep%s", what, kitHint(l06))
		}
		if early.Load() {
			t.Fatalf("%s: the idle M was woken (wakep) while G 7 was on no run queue yet: the woken M may look at once, find nothing and go back to sleep, and G 7 then waits in P 0's queue with P 1 idle. Queue the G first (runqput), then call wakep%s", what, kitHint(l06))
		}
		if !queued() {
			t.Fatalf("%s: afterwards G 7 is not on P 0's queues (runnext %s, ring %v)%s", what, kitID(pp.runnext.Load()), l06ring(pp), kitHint(l06))
		}
	}
}

// TestL06ParkWithoutUnlockf: gopark with no unlockf (nil) just parks: the
// G stays _Gwaiting until someone readies it. One P, so the waker runs
// only once the M has finished parking the G.
func TestL06ParkWithoutUnlockf(t *testing.T) {
	var probs l06problems
	var resumed atomic.Int32
	l06run(t, Config{Procs: 1}, &probs, func(gp *G) {
		gp.Go(func(w *G) {
			for i := 0; readgstatus(gp) != _Gwaiting; i++ {
				if i == 1000 {
					probs.addf("G %d called gopark with a nil unlockf, and G %d, which ran 1000 times meanwhile, never saw it waiting (it is %s): with no unlockf, the G simply parks", gp.goid, w.goid, gStatusString(readgstatus(gp)))
					return
				}
				w.Gosched()
			}
			if resumed.Load() != 0 {
				probs.addf("G %d called gopark with a nil unlockf and ran on before anyone readied it", gp.goid)
			}
			w.Ready(gp)
		})
		gopark(gp, nil, nil, waitReasonPark)
		resumed.Add(1)
	})
	if resumed.Load() != 1 {
		t.Fatalf("G 1 parked with a nil unlockf and was readied: it resumed %s, want once%s", kitCount(int(resumed.Load()), "time"), kitHint(l06))
	}
}
