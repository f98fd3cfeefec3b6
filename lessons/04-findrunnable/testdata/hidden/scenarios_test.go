package sched

// More hidden tests of lesson 04-findrunnable: the scenarios of the give-up
// path (what happens between "nothing to steal" and "park the M"), stop the
// world, timers, and the steal passes. Messages are written for a learner
// who cannot see this file.
//
// Like the tests of findrunnable_test.go, they build a scheduler by hand,
// give P0 to a hand-made M and call findRunnable on it directly. Some slip
// in work at a chosen moment: from the injected Usleep or Nanotime of
// Config, from the trace, or from the hook of the scheduling points (every
// operation of nmspinning, runqhead, runqtail, runnext, the P statuses and
// sched.pollUntil), which runs on the M's own goroutine just before the
// operation.

import (
	"container/heap"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// l04sT0 is where the injected clocks start: far from any real clock, so
// that code reading the real one (time.Now, a clock of its own) instead of
// sched.cfg.nanotime goes wrong at once.
const l04sT0 = int64(1) << 50

// l04sSched is kitSched; P0 is given to an M with l04sM.
func l04sSched(procs int, cfg Config) *schedt {
	return kitSched(procs, cfg)
}

// l04sM returns an M holding P id, made as the scheduler makes its own,
// with schedtick 1 (no fairness check).
func l04sM(sched *schedt, id int32) *m {
	mp := kitNewM(sched)
	acquirep(mp, kitTakeP(sched, id))
	mp.p.schedtick.Store(1)
	return mp
}

// l04sBusy makes P id busy: off the idle list, held (_Prunning) by a
// an M that the test plays. It runs nothing.
func l04sBusy(sched *schedt, id int32) *p {
	owner := kitNewM(sched)
	pp := kitTakeP(sched, id)
	acquirep(owner, pp)
	return pp
}

func l04sGlobput(sched *schedt, gs ...*g) {
	sched.lock.Lock()
	for _, gp := range gs {
		sched.runq.pushBack(gp)
	}
	sched.lock.Unlock()
}

// l04sSleeper makes G id asleep on a timer due at when (injected clock).
func l04sSleeper(sched *schedt, id int64, when int64) *g {
	gp := kitG(sched, id)
	gp.atomicstatus.Store(_Gwaiting)
	gp.waitreason = waitReasonSleep
	gp.timer.when, gp.timer.gp = when, gp
	sched.timersLock.Lock()
	heap.Push(&sched.timers, &gp.timer)
	sched.updateTimer0When()
	sched.timersLock.Unlock()
	return gp
}

// l04sSleeps is an injected Config.Usleep that sleeps not at all, counts
// its calls and runs hook (if set) on each, on the M that calls it.
type l04sSleeps struct {
	n    atomic.Int32
	hook func(n int)
}

func (s *l04sSleeps) usleep(int64) {
	n := int(s.n.Add(1))
	if s.hook != nil {
		s.hook(n)
	}
}

func (s *l04sSleeps) count() int { return int(s.n.Load()) }

// l04sTrace records the events of sched.trace; hook, if set, runs on each
// (on the M that emits it, without the recorder's lock).
type l04sTrace struct {
	mu   sync.Mutex
	evs  []Event
	hook func(Event)
}

func (r *l04sTrace) record(ev Event) {
	r.mu.Lock()
	r.evs = append(r.evs, ev)
	hook := r.hook
	r.mu.Unlock()
	if hook != nil {
		hook(ev)
	}
}

func (r *l04sTrace) events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.evs...)
}

// procStartAfterSpinStop reports whether the trace shows a P started
// (acquirep's EvProcStart) after the first EvSpinStop.
func (r *l04sTrace) procStartAfterSpinStop() bool {
	stopped := false
	for _, ev := range r.events() {
		switch {
		case ev.Kind == EvSpinStop:
			stopped = true
		case ev.Kind == EvProcStart && stopped:
			return true
		}
	}
	return false
}

// spinStartAfterStop returns the first EvSpinStart after the first
// EvSpinStop, and whether there is one.
func (r *l04sTrace) spinStartAfterStop() (Event, bool) {
	stopped := false
	for _, ev := range r.events() {
		switch {
		case ev.Kind == EvSpinStop:
			stopped = true
		case ev.Kind == EvSpinStart && stopped:
			return ev, true
		}
	}
	return Event{}, false
}

// l04sDraws returns how many times a cheaprand went from state from to
// state to (each uint32 adds the same odd constant), or -1.
func l04sDraws(from, to uint64) int {
	for k := 0; k <= 1000; k++ {
		if from+uint64(k)*0xa0761d6478bd642f == to {
			return k
		}
	}
	return -1
}

// l04sOpts drives l04sFind.
type l04sOpts struct {
	setup string // the scenario, for messages
	stuck string // appended to the message if findRunnable neither returns nor parks
	// onPark, if set, is called on the test's goroutine (sched.lock not
	// held) each time the M has parked in stopm. It returns true if it
	// woke the M with a P (the run goes on), false to end the run: the M
	// is then woken as Close does, and findRunnable must return nil.
	onPark func() bool
	// watch, if set, is called on the test's goroutine at every poll.
	watch func()
	// onPoint, if set, is called on the M's goroutine at each of its
	// scheduling points (just before the atomic operation), but not
	// inside itself.
	onPoint func()
	// onUnlock, if set, is called on the M's goroutine just after each of
	// its releases of sched.lock (the lock free again, before the M goes
	// on), but not inside itself: the moment another thread could take
	// the lock.
	onUnlock func()
	// others, if set, counts what the test's own threads still have to do
	// under sched.lock: once the M has returned, it is waited for before
	// the lock is checked free.
	others *sync.WaitGroup
}

// l04sRun is what l04sFind saw.
type l04sRun struct {
	gp      *g
	inherit bool
	parked  bool // the run ended with the M parked (and woken as Close would)
}

// l04sFind calls findRunnable(mp) on its own goroutine and watches it,
// taking sched.lock only for an instant and only while the M makes no
// progress (so that, with Config.Debug, a function that requires the lock
// finds it free unless the M holds it). A panic in findRunnable, a return with sched.lock held, or a
// run that neither returns nor parks within 5 s fails the test.
func l04sFind(t *testing.T, mp *m, o l04sOpts) l04sRun {
	t.Helper()
	sched := mp.sched
	var (
		res      l04sRun
		panicked any
		mgoid    atomic.Uint64
	)
	// The hook counts the M's scheduling points: sched.lock is looked at
	// (to see whether the M parked) only when the M has made none since
	// the last look, so that the test does not hold the lock at the moment
	// a running M asserts that it is free.
	var points atomic.Int64
	inPoint := false // only ever touched on the M's goroutine
	old := setInterleaveHook(func() {
		if id := mgoid.Load(); id == 0 || kitGoid() != id {
			return
		}
		points.Add(1)
		if o.onPoint == nil || inPoint {
			return
		}
		inPoint = true
		defer func() { inPoint = false }()
		o.onPoint()
	})
	defer setInterleaveHook(old)
	if o.onUnlock != nil {
		inUnlock := false // only ever touched on the M's goroutine
		defer setLockHooks(setLockHooks(&lockHooks{
			wait: func(*mutex) bool { return false }, // no controlled thread: sync.Mutex's wait
			released: func(l *mutex) {
				if id := mgoid.Load(); l != &sched.lock || id == 0 || kitGoid() != id || inUnlock {
					return
				}
				inUnlock = true
				defer func() { inUnlock = false }()
				o.onUnlock()
			},
		}))
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { panicked = recover() }()
		mgoid.Store(kitGoid())
		res.gp, res.inherit = findRunnable(mp)
	}()
	finish := func() l04sRun {
		t.Helper()
		if panicked != nil {
			t.Fatalf("%s: findRunnable panicked: %v"+kitHint(l04), o.setup, panicked)
		}
		if o.others != nil {
			o.others.Wait()
		}
		if !sched.lock.TryLock() {
			t.Fatalf("%s: findRunnable returned %s with sched.lock still held: every path that takes the lock must release it, including those that start over or return early"+kitHint(l04), o.setup, kitID(res.gp))
		}
		sched.lock.Unlock()
		return res
	}
	deadline := time.Now().Add(3 * time.Second)
	seen := int64(-1)
	for {
		select {
		case <-done:
			return finish()
		case <-time.After(300 * time.Microsecond):
		}
		if o.watch != nil {
			o.watch()
		}
		idle := false
		if n := points.Load(); n != seen {
			seen = n // the M is busy: leave the lock alone
		} else if sched.lock.TryLock() {
			idle = sched.nmidle > 0
			sched.lock.Unlock()
		}
		if idle && o.onPark != nil && o.onPark() {
			deadline = time.Now().Add(3 * time.Second)
			continue
		}
		if idle || time.Now().After(deadline) {
			// Wake the M the way Close does: closing set, no P handed over.
			sched.closing.Store(true)
			netpollBreak(sched)
			locked := false
			for i := 0; i < 1000 && !locked; i++ {
				if locked = sched.lock.TryLock(); !locked {
					time.Sleep(time.Millisecond)
				}
			}
			if locked {
				for x := sched.mget(); x != nil; x = sched.mget() {
					notewakeup(&x.park)
				}
				sched.lock.Unlock()
			}
			select {
			case <-done:
			case <-time.After(5 * time.Second):
			}
			select {
			case <-done:
			default:
				if !locked {
					t.Fatalf("%s: findRunnable neither returned nor parked within 3s, and sched.lock stayed held all along: is the M stuck on a lock it holds itself (sync.Mutex is not re-entrant)?%s"+kitHint(l04), o.setup, o.stuck)
				}
				t.Fatalf("%s: findRunnable neither returned a G nor parked the M within 3s, nor returned after a Close-style wake-up (closing set)%s"+kitHint(l04), o.setup, o.stuck)
			}
			if !idle {
				if panicked == nil {
					t.Fatalf("%s: findRunnable did not return within 3s and did not park the M either (it returned %s only once the Runtime was closing)%s"+kitHint(l04), o.setup, kitID(res.gp), o.stuck)
				}
				finish()
			}
			finish()
			if res.gp != nil {
				t.Fatalf("%s: once the Runtime was closing (closing set, the parked M woken with no P), findRunnable returned %s; want nil"+kitHint(l04), o.setup, kitID(res.gp))
			}
			res.parked = true
			return res
		}
	}
}

// TestL04GlobalBeforeSteal: with work both on the global queue and on
// another P, the global queue comes first; every 61st tick, even before the
// local queue. With Config.Debug: the global queue only under sched.lock.
func TestL04GlobalBeforeSteal(t *testing.T) {
	sched := l04sSched(2, Config{Debug: true})
	mp := l04sM(sched, 0)
	victim := l04sBusy(sched, 1)
	for _, gp := range kitGs(sched, 1, 4) {
		runqputtail(victim, gp)
	}
	l04sGlobput(sched, kitG(sched, 100), kitG(sched, 101))
	setup := "Config.Debug; P0's queues are empty; the global queue holds G 100, G 101; busy P1 has G 1..G 4 on its ring"
	r := l04sFind(t, mp, l04sOpts{setup: setup})
	if r.parked {
		t.Fatalf("%s: findRunnable parked the M; want G 100 from the global queue"+kitHint(l04), setup)
	}
	if r.gp == nil || r.gp.goid != 100 {
		t.Fatalf("%s: findRunnable returned %s, want G 100: the global queue (step 4) comes before stealing (step 5). Look at it when sched.runq.emptyHint() says it is NOT empty, and take a batch"+kitHint(l04), setup, kitID(r.gp))
	}
	if got := l04ring(victim); !l04same(got, l04ids(1, 4)) {
		t.Fatalf("%s: findRunnable returned G 100 but P1's ring went from [1 2 3 4] to %v: with work on the global queue, nothing is stolen"+kitHint(l04), setup, got)
	}
	if got := l04ring(mp.p); !l04same(got, []int64{101}) {
		t.Fatalf("%s: after taking the batch G 100, G 101 (min(128, 2, 2/2+1) = 2), P0's ring holds %v, want [101]", setup, got)
	}

	// The fairness check, with Config.Debug.
	sched = l04sSched(2, Config{Debug: true})
	mp = l04sM(sched, 0)
	mp.p.schedtick.Store(61)
	runqputtail(mp.p, kitG(sched, 1))
	victim = l04sBusy(sched, 1)
	runqputtail(victim, kitG(sched, 50))
	l04sGlobput(sched, kitG(sched, 100), kitG(sched, 101))
	setup = "Config.Debug; P0's schedtick = 61 and its ring holds G 1; the global queue holds G 100, G 101; busy P1 has G 50"
	r = l04sFind(t, mp, l04sOpts{setup: setup})
	if r.parked || r.gp == nil || r.gp.goid != 100 {
		t.Fatalf("%s: findRunnable returned %s (parked=%v), want G 100: on every 61st tick, one G from the global queue (globrunqget under sched.lock) before the local queue"+kitHint(l04), setup, kitID(r.gp), r.parked)
	}
}

// TestL04ParkAndWake: the M stops for stop-the-world (gcwaiting seen at
// the top, or only under the lock before releasing the P) and goes on when
// the world restarts; a parked M woken with a P looks for work again.
func TestL04ParkAndWake(t *testing.T) {
	// restart plays startTheWorld for one M stopped in gcstopm: the world
	// is stopped (P0 _Pgcstop, stopwait 0, stopnote woken); it restarts it
	// and hands P0 back to the M, with G id on P0's ring. It returns what
	// was wrong, if anything.
	restart := func(sched *schedt, mp *m, pp *p, id int64) string {
		sched.lock.Lock()
		defer sched.lock.Unlock()
		if s := pp.status.Load(); s != _Pgcstop || sched.stopwait != 0 {
			return fmt.Sprintf("the M parked, but P0 is %s and sched.stopwait = %d; want _Pgcstop and 0: gcstopm(mp) stops the P and counts it", pStatusString(s), sched.stopwait)
		}
		select {
		case <-sched.stopnote.c:
		default:
			return "the M parked, but nobody woke the stopper (sched.stopnote): gcstopm does"
		}
		if sched.mgetSpecific(mp) == nil {
			return "P0 stopped, but the M is not on the idle M list"
		}
		sched.gcwaiting.Store(false)
		runqputtail(pp, kitG(sched, id))
		pp.status.Store(_Pidle)
		mp.nextp = pp
		notewakeup(&mp.park)
		return ""
	}
	for _, late := range []bool{false, true} {
		var sched *schedt
		var armed atomic.Bool
		clock := func() int64 {
			if armed.CompareAndSwap(true, false) {
				sched.gcwaiting.Store(true)
			}
			return l04sT0
		}
		sched = l04sSched(2, Config{Nanotime: clock, Debug: true})
		mp := l04sM(sched, 0)
		pp := mp.p
		l04sBusy(sched, 1)
		sched.nmspinning.Store(1) // another M: shouldSpin says no to this one
		sched.lock.Lock()
		sched.stopwait = 1 // P0 is the one P left to stop
		sched.lock.Unlock()
		setup := "2 Ps, P1 busy, another M spinning; stop-the-world is pending (sched.gcwaiting set, sched.stopwait = 1: P0 is the last P to stop); P0 has G 7 on its ring"
		if late {
			// gcwaiting is set while the M runs timers, after its first
			// look: only the look under sched.lock before releasing the P
			// can see it.
			l04sSleeper(sched, 5, l04sT0+int64(time.Hour))
			armed.Store(true)
			setup = "2 Ps, P1 busy, another M spinning (so no stealing); P0's queues and the global queue are empty; G 5 sleeps on a timer due in an hour; stop-the-world starts (sched.gcwaiting set, sched.stopwait = 1) while this M runs timers, just after it looked at gcwaiting"
		} else {
			runqputtail(pp, kitG(sched, 7))
			sched.gcwaiting.Store(true)
		}
		var problem string
		stopped := false
		r := l04sFind(t, mp, l04sOpts{
			setup: setup,
			stuck: ". While sched.gcwaiting is set, the M must stop: gcstopm(mp) (at the top, and after the look under sched.lock before releasing the P: unlock, start over)",
			onPark: func() bool {
				if stopped {
					return false
				}
				stopped = true
				problem = restart(sched, mp, pp, 8)
				return problem == ""
			},
		})
		if problem != "" {
			t.Fatalf("%s: %s"+kitHint(l04), setup, problem)
		}
		if !stopped {
			t.Fatalf("%s: findRunnable returned %s (parked=%v) without stopping for stop-the-world: when sched.gcwaiting is set, call gcstopm(mp), which parks the M until the world restarts"+kitHint(l04), setup, kitID(r.gp), r.parked)
		}
		want, ring := int64(7), "G 7, G 8"
		if late {
			want, ring = 8, "G 8"
		}
		if r.parked || r.gp == nil || r.gp.goid != want {
			t.Fatalf("%s: the world restarted and P0 came back to this M with %s on its ring; findRunnable returned %s (parked=%v), want G %d: after gcstopm returns with a P, start over (nil only if it left you without a P: closing)"+kitHint(l04),
				setup, ring, kitID(r.gp), r.parked, want)
		}
	}

	// A parked M woken with a P.
	sched := l04sSched(2, Config{Debug: true})
	mp := l04sM(sched, 0)
	setup := "2 Ps, every queue empty, so the M parks; then P0 is handed back to it with G 9 on its ring (startm, as handoffp does for a P with work)"
	woken := false
	r := l04sFind(t, mp, l04sOpts{setup: setup, onPark: func() bool {
		if woken {
			return false
		}
		woken = true
		sched.lock.Lock()
		pp := sched.pidleget()
		sched.lock.Unlock()
		runqputtail(pp, kitG(sched, 9))
		startm(sched, pp, false, false)
		return true
	}})
	if !woken {
		t.Fatalf("%s: findRunnable returned %s without parking; want it to park (every queue is empty)"+kitHint(l04), setup, kitID(r.gp))
	}
	if r.parked || r.gp == nil || r.gp.goid != 9 || mp.p == nil {
		t.Fatalf("%s: findRunnable returned %s (parked=%v); want G 9, holding the P: stopm returned with a P, so start over (nil means closing, only when stopm returns without a P)"+kitHint(l04), setup, kitID(r.gp), r.parked)
	}
}

// TestL04GiveUpGlobal: the global queue is looked at again while giving
// up, under sched.lock before releasing the P and after stopping spinning,
// and a batch is taken each time, as in step 4.
func TestL04GiveUpGlobal(t *testing.T) {
	// Work arrives while the M steals (it backs off before a runnext).
	sleeps := &l04sSleeps{}
	sched := l04sSched(2, Config{Usleep: sleeps.usleep, Debug: true})
	mp := l04sM(sched, 0)
	victim := l04sBusy(sched, 1)
	g7 := kitG(sched, 7)
	victim.runnext.Store(g7)
	sleeps.hook = func(n int) {
		if n == 1 {
			victim.runnext.CompareAndSwap(g7, nil) // P1 runs G 7 itself
			l04sGlobput(sched, kitGs(sched, 1, 300)...)
		}
	}
	setup := "2 Ps; running P1 has only G 7 in runnext; while this M backs off before stealing it (Usleep), P1 runs G 7 itself and G 1..G 300 land on the global queue"
	r := l04sFind(t, mp, l04sOpts{setup: setup})
	if sleeps.count() == 0 {
		t.Fatalf("%s: findRunnable returned %s (parked=%v) without ever trying P1's runnext"+kitHint(l04), setup, kitID(r.gp), r.parked)
	}
	if r.parked || r.gp == nil || r.gp.goid != 1 {
		t.Fatalf("%s: findRunnable returned %s (parked=%v), want G 1: before releasing the P, look at the global queue again under sched.lock"+kitHint(l04), setup, kitID(r.gp), r.parked)
	}
	if got, want := l04ring(mp.p), l04ids(2, 127); !l04same(got, want) {
		t.Fatalf("%s: findRunnable returned G 1, and P%d's ring holds %s; want %s: a batch of min(len(pp.runq)/2 = 128, size 300, 300/GOMAXPROCS + 1 = 151) = 128 Gs, globrunqgetbatch(len(pp.runq)/2) as in step 4"+kitHint(l04),
			setup, mp.p.id, l04list(got), l04list(want))
	}

	// The same back-off, but a stop-the-world begins while the M backs off,
	// and its Gs land on the global queue too. Whether this M's steal
	// order lets it see gcwaiting before it gives up depends on the seed
	// (and stealWork's newWork shortcut is optional); the give-up's last
	// look sees it whatever came before, and gcwaiting comes first there:
	// the M must stop for the world, not take the Gs. Eight seeds: in six
	// of them (with the reference's steal order) P1 is the last P of the
	// last pass, and only the give-up's look can see the stop.
	for seed := uint64(1); seed <= 8; seed++ {
		sleeps := &l04sSleeps{}
		sched := l04sSched(2, Config{Seed: seed, Usleep: sleeps.usleep, Debug: true})
		mp := l04sM(sched, 0)
		victim := l04sBusy(sched, 1)
		g7 := kitG(sched, 7)
		victim.runnext.Store(g7)
		sleeps.hook = func(n int) {
			if n == 1 {
				victim.runnext.CompareAndSwap(g7, nil) // P1 runs G 7 itself
				sched.lock.Lock()
				sched.gcwaiting.Store(true)
				sched.stopwait = 1 // P0 is the last P to stop
				for _, gp := range kitGs(sched, 1, 300) {
					sched.runq.pushBack(gp)
				}
				sched.lock.Unlock()
			}
		}
		setup := fmt.Sprintf("2 Ps (Config.Seed %d); running P1 has only G 7 in runnext; while this M backs off before stealing it (Usleep), P1 runs G 7 itself, a stop-the-world begins (sched.gcwaiting set, P0 the last P to stop) and G 1..G 300 land on the global queue", seed)
		r := l04sFind(t, mp, l04sOpts{setup: setup})
		if sleeps.count() == 0 {
			t.Fatalf("%s: findRunnable returned %s (parked=%v) without ever trying P1's runnext"+kitHint(l04), setup, kitID(r.gp), r.parked)
		}
		if r.gp != nil || !r.parked {
			t.Fatalf("%s: findRunnable returned %s (parked=%v), want it to stop for the world (gcstopm: P0 _Pgcstop, the M parked): "+
				"in the critical section before giving up the P, gcwaiting comes first, before the global queue: unlock and start over, and the top of the loop stops the M. "+
				"A G taken now runs while the world waits for P0"+kitHint(l04), setup, kitID(r.gp), r.parked)
		}
		if st := sched.allp[0].status.Load(); st != _Pgcstop || sched.stopwait != 0 {
			t.Fatalf("%s: the M parked with P0 %s and stopwait %d, want _Pgcstop and 0: stop for the world with gcstopm"+kitHint(l04), setup, pStatusString(st), sched.stopwait)
		}
		if n := sched.runq.size; n != 300 {
			t.Fatalf("%s: the M stopped for the world, and the global queue holds %s, want all 300: nothing is taken once a stop-the-world is pending"+kitHint(l04), setup, kitCount(int(n), "G"))
		}
	}

	// Work arrives on the global queue just before the M stops spinning:
	// its submitter saw a spinning M and woke nobody.
	for _, debug := range []bool{true, false} {
		sched := l04sSched(2, Config{Debug: debug})
		tr := &l04sTrace{}
		sched.trace = tr.record
		mp := l04sM(sched, 0)
		injected := false
		r := l04sFind(t, mp, l04sOpts{
			setup: "2 Ps, P1 idle, every queue empty",
			onPoint: func() {
				// The first moment with the P released, nmspinning not yet
				// dropped and sched.lock free.
				if injected || mp.p != nil || (*atomic.Int32)(&sched.nmspinning).Load() != 1 || !sched.lock.TryLock() {
					return
				}
				for _, gp := range kitGs(sched, 1, 300) {
					sched.runq.pushBack(gp)
				}
				sched.lock.Unlock()
				injected = true
			},
		})
		if !injected {
			// sched.lock was held from before the M stopped spinning until
			// after its look at the global queue: no G could slip in.
			continue
		}
		setup := fmt.Sprintf("2 Ps, P1 idle, every queue empty (Config.Debug = %v); this M spins, finds nothing and releases P0; just before it stops spinning (nmspinning still counts it, sched.lock free), G 1..G 300 land on the global queue: their submitter saw a spinning M and woke nobody", debug)
		if r.parked {
			t.Fatalf("%s: findRunnable parked the M and left 300 Gs on the global queue: after stopSpinning, take sched.lock and look at the global queue again; if it has Gs, take an idle P (pidlegetSpinning), a batch onto its ring, acquirep it, becomeSpinning, and run the first"+kitHint(l04), setup)
		}
		if r.gp == nil || r.gp.goid != 1 {
			t.Fatalf("%s: findRunnable returned %s, want G 1 (the head of the global queue)"+kitHint(l04), setup, kitID(r.gp))
		}
		if mp.p == nil {
			t.Fatalf("%s: findRunnable returned G 1 holding no P: acquirep the idle P you took for the batch"+kitHint(l04), setup)
		}
		if got, want := l04ring(mp.p), l04ids(2, 127); !l04same(got, want) {
			t.Fatalf("%s: findRunnable returned G 1, and P%d's ring holds %s; want %s: a batch of min(len(pp.runq)/2 = 128, size 300, 300/GOMAXPROCS + 1 = 151) = 128 Gs (globrunqgetbatch(len(pp.runq)/2) with the new P), the rest onto that P's ring"+kitHint(l04),
				setup, mp.p.id, l04list(got), l04list(want))
		}
		if n := sched.nmspinning.Load(); mp.spinning && n > 1 {
			t.Fatalf("%s: findRunnable returned G 1 with mp.spinning = true and nmspinning = %d, want 1: this M is the only spinner, counted %s. Before its last looks the M stops spinning (stopSpinning: nmspinning - 1); with the new P it becomes spinning again (+1)"+kitHint(l04),
				setup, n, kitCount(int(n), "time"))
		}
		if !mp.spinning || sched.nmspinning.Load() != 1 {
			t.Fatalf("%s: findRunnable returned G 1 with mp.spinning = %v, nmspinning = %d; want true, 1: with the new P, becomeSpinning again (schedule's resetspinning then wakes another M for the 299 Gs left)"+kitHint(l04),
				setup, mp.spinning, sched.nmspinning.Load())
		}
		if ev, ok := tr.spinStartAfterStop(); !ok || ev.P != mp.p.id {
			t.Fatalf("%s: after stopping spinning, the M became spinning again on P %d (the trace's EvSpinStart), want P %d: acquirep the new P first, then becomeSpinning"+kitHint(l04), setup, ev.P, mp.p.id)
		}
	}

	// The same look, but the P this M has just released is gone: the
	// moment it stops spinning, an M leaving a system call takes P0 (the
	// top of the idle list) and Gs land on the global queue. The idle P the
	// M takes for them is P1, and the batch goes onto P1's ring.
	sched = l04sSched(2, Config{Debug: true})
	mp = l04sM(sched, 0)
	p0, p1 := mp.p, sched.allp[1]
	leaving := kitNewM(sched)
	injected, late := false, false // only touched on the M's goroutine until it returns
	sched.trace = func(ev Event) {
		if ev.Kind != EvSpinStop || injected || late {
			return
		}
		// As in TestL04RecheckAfterSpinning: if the M stopped spinning
		// while holding sched.lock, nothing can happen until it lets go.
		locked := false
		for k := 0; k < 1000 && !locked; k++ {
			if locked = sched.lock.TryLock(); !locked {
				time.Sleep(time.Microsecond)
			}
		}
		if !locked {
			late = true
			return
		}
		defer sched.lock.Unlock()
		if sched.pidle != p0 {
			late = true // P0 is not the last P released: not this scenario
			return
		}
		sched.pidleget()
		acquirep(leaving, p0)
		for _, gp := range kitGs(sched, 1, 300) {
			sched.runq.pushBack(gp)
		}
		injected = true
	}
	setup = "2 Ps, P1 idle, every queue empty (Config.Debug); this M spins, finds nothing and releases P0; the moment it stops spinning, an M leaving a system call takes P0 (the top of the idle list) and G 1..G 300 land on the global queue"
	r = l04sFind(t, mp, l04sOpts{setup: setup})
	if !injected {
		return // P0 was not released yet, or sched.lock was held: not graded here
	}
	if r.parked || r.gp == nil || r.gp.goid != 1 || mp.p != p1 {
		t.Fatalf("%s: findRunnable returned %s (parked=%v) holding P %d; want G 1, holding P1: after stopSpinning, with Gs on the global queue, take an idle P (pidlegetSpinning gives P1), a batch onto its ring, and acquirep it"+kitHint(l04),
			setup, kitID(r.gp), r.parked, pidOf(mp.p))
	}
	if got, want := l04ring(p1), l04ids(2, 127); !l04same(got, want) || len(l04ring(p0)) != 0 {
		t.Fatalf("%s: findRunnable returned G 1 holding P1, whose ring holds %s, and P0's ring holds %s; want %s on P1's and P0's empty: "+
			"the batch goes onto the ring of the P you took for it (pidlegetSpinning), the one you then acquirep. P0 stopped being yours when you released it: another M owns it now, and only a P's owner may put Gs on its ring"+kitHint(l04),
			setup, l04list(got), l04list(l04ring(p0)), l04list(want))
	}
}

// TestL04GiveUpSpinning: the two ways an M about to park spins instead:
// needspinning, answered under sched.lock; and work found by checkRunqsNoP
// while another M spins.
func TestL04GiveUpSpinning(t *testing.T) {
	// needspinning: the M becomes spinning under the lock that guards the
	// request, so that only one M answers it.
	sched := l04sSched(3, Config{})
	mp := l04sM(sched, 0)
	victim := l04sBusy(sched, 1)
	runqputtail(victim, kitG(sched, 1))
	sched.nmspinning.Store(1)
	sched.needspinning.Store(1)
	setup := "3 Ps: P0 (this M) and P1 busy, P2 idle; another M spins (nmspinning = 1: shouldSpin says no to this one); sched.needspinning = 1; P1 holds G 1"
	checked, raced := false, false
	r := l04sFind(t, mp, l04sOpts{setup: setup, onPoint: func() {
		if checked || !mp.spinning {
			return
		}
		// The M has just set mp.spinning (becomeSpinning). Another M
		// about to release its P takes sched.lock now and reads
		// needspinning.
		checked = true
		if sched.lock.TryLock() {
			raced = sched.needspinning.Load() == 1
			sched.lock.Unlock()
		}
	}})
	if raced {
		t.Fatalf("%s: this M answered needspinning with sched.lock released: at the moment it became spinning, another M releasing its P could take the lock and still read needspinning = 1, and spin too (two spinners for one request). Call becomeSpinning (which clears needspinning) before unlocking"+kitHint(l04), setup)
	}
	if r.parked || r.gp == nil || r.gp.goid != 1 {
		t.Fatalf("%s: findRunnable returned %s (parked=%v), want G 1: with needspinning = 1, becomeSpinning, unlock, start over and steal"+kitHint(l04), setup, kitID(r.gp), r.parked)
	}

	// checkRunqsNoP finds work while another M spins: the gate is closed
	// unless this M counts itself as spinning again.
	sched = l04sSched(3, Config{})
	tr := &l04sTrace{}
	mp = l04sM(sched, 0)
	victim = l04sBusy(sched, 1)
	mp.spinning = true
	sched.nmspinning.Store(2) // this M and another
	var injected atomic.Bool
	tr.hook = func(ev Event) {
		if ev.Kind == EvSpinStop && injected.CompareAndSwap(false, true) {
			runqputtail(victim, kitG(sched, 42))
		}
	}
	sched.trace = tr.record
	setup = "3 Ps: P0 (this M) and P1 busy, P2 idle; this M and another spin (nmspinning = 2); every queue empty; the moment this M stops spinning, P1's G puts G 42 on P1's ring"
	r = l04sFind(t, mp, l04sOpts{setup: setup})
	if !injected.Load() {
		t.Fatalf("%s: the M never stopped spinning (no EvSpinStop); findRunnable returned %s (parked=%v)"+kitHint(l04), setup, kitID(r.gp), r.parked)
	}
	if r.parked || r.gp == nil || r.gp.goid != 42 {
		if !tr.procStartAfterSpinStop() {
			// No P taken after the stop: the M never saw G 42.
			t.Fatalf("%s: findRunnable returned %s (parked=%v), want G 42, and this M took no P after it stopped spinning: it never saw G 42. "+
				"The last look at every P's queue (checkRunqsNoP, on the snapshots) must come after stopSpinning: work queued before the stop was left to this spinner by whoever queued it"+kitHint(l04),
				setup, kitID(r.gp), r.parked)
		}
		t.Fatalf("%s: findRunnable returned %s (parked=%v), want G 42: checkRunqsNoP found it and handed this M a P; acquirep it, becomeSpinning and start over. Without becomeSpinning, shouldSpin says no (2*1 < 3-1 is false: the other M spins) and G 42 is never stolen"+kitHint(l04),
			setup, kitID(r.gp), r.parked)
	}
	if !mp.spinning || sched.nmspinning.Load() != 2 {
		t.Fatalf("%s: findRunnable returned G 42 with mp.spinning = %v, nmspinning = %d; want true, 2"+kitHint(l04), setup, mp.spinning, sched.nmspinning.Load())
	}
	if ev, ok := tr.spinStartAfterStop(); !ok || mp.p == nil || ev.P != mp.p.id {
		t.Fatalf("%s: after stopping spinning, the M became spinning again on P %d (the trace's EvSpinStart), want the P checkRunqsNoP gave it: acquirep it first, then becomeSpinning"+kitHint(l04), setup, ev.P)
	}
}

// l04sResize changes the number of Ps to n as GOMAXPROCS does while no M
// holds a P: under sched.lock, the idle Ps are stopped (stopTheWorld's
// part for them) and procresize replaces sched.allp and, past a multiple
// of 32 Ps, sched.idlepMask. locked, if set, is called as soon as the
// lock is held, before anything changes.
func l04sResize(sched *schedt, n int32, locked func()) {
	sched.lock.Lock()
	defer sched.lock.Unlock()
	if locked != nil {
		locked()
	}
	for pp := sched.pidleget(); pp != nil; pp = sched.pidleget() {
		pp.status.Store(_Pgcstop)
	}
	procresize(sched, n)
}

// l04sResizer writes sched.allp and sched.idlepMask, each with its own
// value, as soon as TestL04Snapshots's resizer holds sched.lock and has
// let the M go on: a racy read of the M's is then next to a write, with
// little between them, and the race report names this function. With
// all of procresize's work between the two (procresize writes them again
// after), the race detector lost the pair twice under load, in a CI run
// and in a go test ./...
func l04sResizer(sched *schedt) {
	allp, mask := sched.allp, sched.idlepMask
	sched.allp, sched.idlepMask = allp[:len(allp):cap(allp)], mask[:len(mask):cap(mask)]
}

// l04sSnapshotRule is what to do, for the messages of TestL04Snapshots.
const l04sSnapshotRule = "Copy sched.allp and sched.idlepMask into snapshots before you release the P, and after that read only the snapshots (or the fields again under sched.lock): checkRunqsNoP(sched, allpSnapshot, idlepMaskSnapshot)"

// TestL04Snapshots: once the M has released its P, nothing holds up a
// stop-the-world, and procresize may replace sched.allp and
// sched.idlepMask (under sched.lock) at any moment. The M must give
// checkRunqsNoP the snapshots it took before releasing the P, or read the
// fields again under sched.lock (race-free, and not wrong: it sees the Ps
// a resize added). The world is resized on another thread each time the
// M, without a P, lets go of sched.lock: the only moments another thread
// can take the lock, so a read of either field without the lock anywhere
// after the release races with a resize, and the race detector reports
// it (a read of idlepMask alone too).
func TestL04Snapshots(t *testing.T) {
	// Three times over: one round let a racy snapshot through once, in a
	// CI run under load (the race detector keeps only a few of the last
	// accesses to each word, and forgets one at random when more come).
	for range 3 {
		l04snapshots(t)
	}
}

func l04snapshots(t *testing.T) {
	t.Helper()
	// A resize under way on another thread while the M goes on: the M
	// waits only until the resizer holds sched.lock. Each resize grows
	// past a multiple of 32 Ps, so that procresize writes both fields; a
	// read of either after the release races with that write, and the
	// race detector reports it. One resizer makes every resize: the race
	// detector remembers the last few threads to touch a word, and one
	// more might push out the M's read.
	sched := l04sSched(2, Config{})
	mp := l04sM(sched, 0)
	var pending sync.WaitGroup
	sizes, held := make(chan int32), make(chan struct{})
	go func() {
		for n := range sizes {
			l04sResize(sched, n, func() {
				held <- struct{}{}
				l04sResizer(sched)
			})
			pending.Done()
		}
	}()
	defer close(sizes)
	resizes := 0 // only touched on the M's goroutine, then after it ends
	setup := "GOMAXPROCS 2, P1 idle, every queue empty: this M spins on P0, steals nothing and gives up. Each time it let go of sched.lock after releasing P0, another thread took the lock, wrote sched.allp and sched.idlepMask (l04sResizer) and grew GOMAXPROCS past a multiple of 32 (procresize writes them again)"
	t.Logf("%s. A data race reported between findRunnable and l04sResizer or procresize means findRunnable read sched.allp or sched.idlepMask without sched.lock after releasing its P. %s", setup, l04sSnapshotRule)
	r := l04sFind(t, mp, l04sOpts{setup: setup, others: &pending, onUnlock: func() {
		if mp.p != nil || resizes == 4 || sched.closing.Load() {
			return
		}
		resizes++
		pending.Add(1)
		sizes <- int32(2 + 32*resizes)
		<-held
	}})
	pending.Wait()
	if resizes == 0 || !r.parked {
		t.Fatalf("%s: findRunnable returned %s (parked=%v) after %s; want it parked after at least one: with nothing to run anywhere, release P0 and park"+kitHint(l04), setup, kitID(r.gp), r.parked, kitCount(int(resizes), "resize"))
	}
}

// TestL04Timers: a G asleep on a timer when findRunnable gives up. The M
// waits for the timer if no other M does (sched.lastpoll), or wakes the one
// that does if it would sleep past the timer.
func TestL04Timers(t *testing.T) {
	when := l04sT0 + int64(time.Hour)

	// The timer is already due: run it.
	var clock atomic.Int64
	clock.Store(when)
	sched := l04sSched(1, Config{Nanotime: clock.Load, Debug: true})
	mp := l04sM(sched, 0)
	l04sSleeper(sched, 5, when)
	setup := "1 P, every queue empty; G 5 sleeps on a timer that is due (sched.cfg.nanotime() has reached it)"
	r := l04sFind(t, mp, l04sOpts{setup: setup})
	if r.parked || r.gp == nil || r.gp.goid != 5 {
		t.Fatalf("%s: findRunnable returned %s (parked=%v), want G 5: run the due timers first (checkTimers(mp) puts their Gs on the local queue)"+kitHint(l04), setup, kitID(r.gp), r.parked)
	}

	// The timer is due in an hour and no M waits for timers: this one
	// waits, then runs it.
	clock.Store(l04sT0)
	sched = l04sSched(1, Config{Nanotime: clock.Load, Debug: true})
	mp = l04sM(sched, 0)
	l04sSleeper(sched, 5, when)
	setup = "1 P, every queue empty, no M waiting for timers (sched.lastpoll != 0); G 5 sleeps on a timer due in an hour (injected clock); this M spins (nobody else does) and finds nothing to steal"
	waited, lastpoll := false, int64(0)
	r = l04sFind(t, mp, l04sOpts{
		setup: setup,
		stuck: ". It should wait for the timer (blockUntilTimer), which the test ends by moving the clock to the deadline and breaking the wait (netpollBreak)",
		watch: func() {
			if !waited && sched.pollUntil.Load() == when {
				// The M waits for the timer: time passes.
				waited, lastpoll = true, sched.lastpoll.Load()
				clock.Store(when)
				netpollBreak(sched)
			}
		},
	})
	if r.parked {
		t.Fatalf("%s: findRunnable parked the M for good (stopm) and nobody is left to run G 5 when its timer is due: when a timer is pending (min0(pollUntil, sched.timer0When)) and no other M waits for timers (sched.lastpoll.Swap(0) != 0), wait for it with blockUntilTimer"+kitHint(l04), setup)
	}
	if !waited {
		t.Fatalf("%s: findRunnable returned %s without waiting for the timer (blockUntilTimer sets sched.pollUntil to the deadline)"+kitHint(l04), setup, kitID(r.gp))
	}
	if lastpoll != 0 {
		t.Fatalf("%s: while this M waited for the timer, sched.lastpoll was %d; want 0, which tells the others that an M waits for timers: take the role with sched.lastpoll.Swap(0)"+kitHint(l04), setup, lastpoll)
	}
	if r.gp == nil || r.gp.goid != 5 || mp.p == nil {
		t.Fatalf("%s: the timer came due and the wait ended; findRunnable returned %s, want G 5: when blockUntilTimer returns true (it took a P), start over"+kitHint(l04), setup, kitID(r.gp))
	}
	if !mp.spinning || sched.nmspinning.Load() != 1 {
		t.Fatalf("%s: this M was spinning when it gave up, waited for the timer and got a P back; findRunnable returned G 5 with mp.spinning = %v, nmspinning = %d; want true, 1: "+
			"pass blockUntilTimer the wasSpinning you saved before stopSpinning (mp.spinning is always false by then), so that the M spins again on its new P, as after the other last looks, and resetspinning wakes a successor if G 5 was not alone"+kitHint(l04),
			setup, mp.spinning, sched.nmspinning.Load())
	}

	// As above, but while this M waits for the timer another M takes the P
	// it released: the wait ends (the timer is due) with no P idle, and
	// blockUntilTimer says false. That is not the Runtime closing: the M
	// parks (stopm), as when the last looks find nothing, and is there to
	// be woken for the next work; only a closing Runtime makes findRunnable
	// return nil.
	{
		clock.Store(l04sT0)
		sched := l04sSched(1, Config{Nanotime: clock.Load, Debug: true})
		mp := l04sM(sched, 0)
		l04sSleeper(sched, 5, when)
		setup := "1 P, every queue empty, no M waiting for timers; G 5 sleeps on a timer due in an hour (injected clock); while this M waits for it, another M takes the P this M released, then the timer comes due"
		taken := false
		r := l04sFind(t, mp, l04sOpts{
			setup: setup,
			stuck: ". It should wait for the timer (blockUntilTimer), which the test ends by taking the idle P, moving the clock to the deadline and breaking the wait (netpollBreak)",
			watch: func() {
				if !taken && sched.pollUntil.Load() == when {
					sched.lock.Lock()
					taken = sched.pidleget() != nil // as another M's acquirep would
					sched.lock.Unlock()
					clock.Store(when)
					netpollBreak(sched)
				}
			},
		})
		if !taken {
			t.Fatalf("%s: findRunnable returned %s (parked=%v) without waiting for the timer with its P released"+kitHint(l04), setup, kitID(r.gp), r.parked)
		}
		if !r.parked {
			t.Fatalf("%s: the timer wait ended with no idle P left (blockUntilTimer returned false), and findRunnable returned %s with the Runtime still running: "+
				"false says only that no P was left for this M, not that the Runtime is closing; park the M then (stopm) and start over when it is woken, as after the last looks. "+
				"Returned, the M leaves the scheduler for good"+kitHint(l04), setup, kitID(r.gp))
		}
	}

	// No timer when the M looked (checkTimers found none); another M arms
	// one while this M gives up its P. Nobody waits for timers, so
	// addtimer woke nobody: this M, about to sleep, must see the new
	// timer0When and wait for it.
	for _, spinning := range []bool{true, false} {
		clock.Store(l04sT0)
		sched := l04sSched(1, Config{Nanotime: clock.Load, Debug: true})
		mp := l04sM(sched, 0)
		armed := false
		sched.trace = func(ev Event) {
			if ev.Kind == EvProcStop && !armed {
				armed = true
				l04sSleeper(sched, 5, when)
			}
		}
		if !spinning {
			sched.nmspinning.Store(2) // two other Ms spin: the gate keeps this one from spinning
			mp.spinning = false
		}
		setup := fmt.Sprintf("1 P, every queue empty, no timer and no M waiting for timers; this M (spinning: %v) looks, finds nothing, and the moment it releases its P (EvProcStop) another M arms G 5's timer, due in an hour (its addtimer woke nobody: nobody waited)", spinning)
		waited := false
		r := l04sFind(t, mp, l04sOpts{
			setup: setup,
			stuck: ". It should wait for the new timer (blockUntilTimer), which the test ends by moving the clock to the deadline and breaking the wait (netpollBreak)",
			watch: func() {
				if !waited && sched.pollUntil.Load() == when {
					waited = true
					clock.Store(when)
					netpollBreak(sched)
				}
			},
		})
		if !armed {
			t.Fatalf("%s: the M never released its P (no EvProcStop); findRunnable returned %s (parked=%v)"+kitHint(l04), setup, kitID(r.gp), r.parked)
		}
		if r.parked || !waited {
			t.Fatalf("%s: findRunnable %s and nobody waits for G 5's timer: the deadline to wait for is the earlier of what checkTimers returned at the start and sched.timer0When read again once the P is released (min0(pollUntil, sched.timer0When.Load())), "+
				"because a timer armed meanwhile woke nobody"+kitHint(l04), setup, map[bool]string{true: "parked the M for good (stopm)", false: "returned " + kitID(r.gp) + " without waiting"}[r.parked])
		}
	}

	// A timer is pending, and a G lands on another P's ring the moment this
	// spinning M stops spinning (its submitter saw the spinner and woke
	// nobody): the last looks come first, and find it; the timer is waited
	// for only when they find nothing. Waiting first, the G would sit on
	// P1's ring until the timer is due, an hour here.
	{
		clock.Store(l04sT0)
		sched := l04sSched(2, Config{Nanotime: clock.Load, Debug: true})
		mp := l04sM(sched, 0)
		victim := l04sBusy(sched, 1)
		l04sSleeper(sched, 5, when)
		var injected atomic.Bool
		sched.trace = func(ev Event) {
			if ev.Kind == EvSpinStop && injected.CompareAndSwap(false, true) {
				runqputtail(victim, kitG(sched, 42))
			}
		}
		setup := "P0 (this M) and P1 busy, every queue empty, no M waiting for timers; G 5 sleeps on a timer due in an hour (injected clock); the moment this M stops spinning (stopSpinning), P1's G puts G 42 on P1's ring"
		waited := false
		r := l04sFind(t, mp, l04sOpts{
			setup: setup,
			watch: func() {
				if !waited && sched.pollUntil.Load() == when {
					waited = true // ends a wrong wait: the run goes on
					clock.Store(when)
					netpollBreak(sched)
				}
			},
		})
		if !injected.Load() {
			t.Fatalf("%s: the M never stopped spinning (no EvSpinStop from stopSpinning); findRunnable returned %s (parked=%v)"+kitHint(l04), setup, kitID(r.gp), r.parked)
		}
		if waited {
			t.Fatalf("%s: the M waited for G 5's timer (blockUntilTimer) before its last looks at the queues, and G 42 waited with it, an hour: after stopSpinning, look at the global queue and every P's ring again first (checkRunqsNoP), and wait for a timer only when those looks found nothing"+kitHint(l04), setup)
		}
		if r.parked || r.gp == nil || r.gp.goid != 42 {
			t.Fatalf("%s: findRunnable returned %s (parked=%v), want G 42: the last look after stopSpinning (checkRunqsNoP) finds it on P1's ring"+kitHint(l04), setup, kitID(r.gp), r.parked)
		}
	}

	// Another M waits for timers (sched.lastpoll == 0) until sched.pollUntil:
	// wake it (netpollBreak) if it would sleep past this timer.
	type pollCase struct {
		until  int64 // the other M's sched.pollUntil; -1, -2: it changes at every step
		wake   bool
		reason string
	}
	cases := []pollCase{
		{0, true, "its deadline is 0 (not set yet: it will compute it without this timer, or sleep for ever)"},
		{when + int64(time.Millisecond), true, "it would sleep 1ms past this timer"},
		{when, false, "it will wake exactly when this timer is due"},
		{when - int64(time.Millisecond), false, "it will wake 1ms before this timer is due"},
		{-1, true, "its deadline keeps changing between 0 and 1ms past this timer (it wakes and sleeps again): either value means wake it; read sched.pollUntil once and decide on that one value"},
		{-2, true, "its deadline keeps changing between 1ms past this timer and 0 (it wakes and sleeps again): either value means wake it; read sched.pollUntil once and decide on that one value"},
	}
	for _, c := range cases {
		clock.Store(l04sT0)
		sched := l04sSched(1, Config{Nanotime: clock.Load, Debug: true})
		mp := l04sM(sched, 0)
		l04sSleeper(sched, 5, when)
		sched.lastpoll.Store(0)
		var onPoint func()
		if c.until >= 0 {
			sched.pollUntil.Store(c.until)
		} else {
			late := when + int64(time.Millisecond)
			first, second := int64(0), late
			if c.until == -2 {
				first, second = late, 0
			}
			(*atomic.Int64)(&sched.pollUntil).Store(first)
			onPoint = func() {
				if (*atomic.Int64)(&sched.pollUntil).Load() == first {
					(*atomic.Int64)(&sched.pollUntil).Store(second)
				} else {
					(*atomic.Int64)(&sched.pollUntil).Store(first)
				}
			}
		}
		setup := fmt.Sprintf("1 P, every queue empty; G 5 sleeps on a timer due in an hour; another M already waits for timers (sched.lastpoll = 0) and %s", c.reason)
		broke := false
		r := l04sFind(t, mp, l04sOpts{setup: setup, onPoint: onPoint, onPark: func() bool {
			broke = len(sched.pollnote.c) == 1
			return false
		}})
		if !r.parked {
			t.Fatalf("%s: findRunnable returned %s; want it to park (stopm): the other M waits for the timers"+kitHint(l04), setup, kitID(r.gp))
		}
		switch {
		case c.wake && !broke:
			t.Fatalf("%s: this M parked without waking the other (netpollBreak); want it woken: if pollerPollUntil := sched.pollUntil.Load() is 0 or later than this timer (pollerPollUntil == 0 || pollerPollUntil > pollUntil), netpollBreak, or G 5 runs late"+kitHint(l04), setup)
		case !c.wake && broke:
			t.Fatalf("%s: this M woke the other (netpollBreak) before parking; want it left asleep: it will wake in time for G 5 (wake it only if pollerPollUntil == 0 || pollerPollUntil > pollUntil)"+kitHint(l04), setup)
		}
	}
}

// TestL04OneTimerWaiter: at most one M waits for timers. Another M without
// a P, at the end of its own findRunnable, may claim the wait at any moment
// of this M's give-up: the test makes its claim at each of this M's
// scheduling points in turn (every atomic operation it makes once it has
// released its P, sched.lastpoll's included), one run per point. Claimed
// with one sched.lastpoll.Swap(0), the wait goes to exactly one of the two;
// looked at with Load and then taken with Store(0), a claim that lands
// between the two leaves both Ms waiting, each believing it is the only one.
func TestL04OneTimerWaiter(t *testing.T) {
	when := l04sT0 + int64(time.Hour)
	later := when + int64(time.Hour)
	const setup = "2 Ps, P1 busy, every queue empty, no M waiting for timers (sched.lastpoll != 0); G 5 sleeps until T+1h and G 6 until T+2h (injected clock); " +
		"another M, without a P, saw only G 6's timer and is about to wait for it: at one moment while this M gives up, its sched.lastpoll.Swap(0) claims the wait (if lastpoll is not 0 yet), and it sleeps until T+2h"
	for k := 1; k <= 200; k++ {
		var clock atomic.Int64
		clock.Store(l04sT0)
		sched := l04sSched(2, Config{Nanotime: clock.Load, Debug: true})
		mp := l04sM(sched, 0)
		l04sBusy(sched, 1) // no idle P: a wakep (from goready) starts no real M
		l04sSleeper(sched, 5, when)
		l04sSleeper(sched, 6, later)
		at := 0 // only ever touched on the M's goroutine
		var injected, otherWaits atomic.Bool
		both := false
		waited := false
		l04sFind(t, mp, l04sOpts{
			setup: fmt.Sprintf("%s (the claim comes at this M's scheduling point %d after it released its P)", setup, k),
			onPoint: func() {
				if injected.Load() || mp.p != nil || (*atomic.Int64)(&sched.lastpoll).Load() == 0 {
					return
				}
				if at++; at != k {
					return
				}
				injected.Store(true)
				if (*atomic.Int64)(&sched.lastpoll).Swap(0) != 0 {
					// The other M won the wait: it sleeps until G 6's timer.
					otherWaits.Store(true)
					(*atomic.Int64)(&sched.pollUntil).Store(later)
				}
			},
			watch: func() {
				if !waited && (*atomic.Int64)(&sched.pollUntil).Load() == when {
					// This M waits for G 5's timer: time passes.
					waited, both = true, otherWaits.Load()
					clock.Store(when)
					netpollBreak(sched)
				}
			},
		})
		if both {
			t.Fatalf("%s: at this M's scheduling point %d after it released its P, the other M claimed the wait (its sched.lastpoll.Swap(0) returned non-zero); this M then waited for G 5's timer too (blockUntilTimer): "+
				"two Ms waiting for timers, each believing it is the only one (a later timer wakes only one of them, and sched.pollUntil speaks for one). "+
				"Claim the wait in one atomic step, sched.lastpoll.Swap(0) != 0, so that exactly one M wins it: a Load, then a Store(0), lets a claim land in between"+kitHint(l04), setup, k)
		}
		if !injected.Load() {
			return // every scheduling point has had its turn
		}
	}
}

// TestL04StealPasses: stealWork makes exactly stealTries passes, each in a
// fresh random order (one pp.rand.uint32() per pass), runnext only on the
// last; a steal is traced (EvSteal) with what was taken.
func TestL04StealPasses(t *testing.T) {
	sleeps := &l04sSleeps{}
	sched := l04sSched(2, Config{Usleep: sleeps.usleep})
	mp := l04sM(sched, 0)
	pp := mp.p
	s0 := pp.rand.state
	victim := l04sBusy(sched, 1)
	g7 := kitG(sched, 7)
	victim.runnext.Store(g7)
	drawsAtSleep := -1
	sleeps.hook = func(n int) {
		if n == 1 {
			drawsAtSleep = l04sDraws(s0, pp.rand.state) // on the M's goroutine
			victim.runnext.CompareAndSwap(g7, nil)      // P1 runs G 7 itself
		}
	}
	setup := "2 Ps; running P1 has only G 7 in runnext; when this M backs off to steal it (Usleep), P1 runs G 7 itself, so there is nothing to steal"
	drawsAtPark := -1
	r := l04sFind(t, mp, l04sOpts{setup: setup, onPark: func() bool {
		drawsAtPark = l04sDraws(s0, pp.rand.state)
		return false
	}})
	if !r.parked {
		t.Fatalf("%s: findRunnable returned %s; want it to park"+kitHint(l04), setup, kitID(r.gp))
	}
	if drawsAtSleep != 4 {
		t.Fatalf("%s: the M tried P1's runnext after %s (draws of pp.rand.uint32() for sched.stealOrder.start, one per pass); want on the 4th: runnext only on the last of stealTries = 4 passes (stealRunNextG = i == stealTries-1)"+kitHint(l04), setup, kitCount(int(drawsAtSleep), "pass", "passes"))
	}
	if drawsAtPark != 4 {
		t.Fatalf("%s: the M made %s (draws of pp.rand.uint32(), one per sched.stealOrder.start) before giving up; want exactly stealTries = 4, each in a fresh random order"+kitHint(l04), setup, kitCount(int(drawsAtPark), "pass", "passes"))
	}

	// A victim that is not running: P1 is in a system call (_Psyscall, no
	// M). It is not idle, so its Gs are stolen like any other's, its
	// runnext on the last pass.
	for _, ring := range []int{4, 0} {
		sched := l04sSched(2, Config{Usleep: func(int64) {}})
		mp := l04sM(sched, 0)
		victim := kitTakeP(sched, 1)
		victim.status.Store(_Psyscall)
		for _, gp := range kitGs(sched, 1, ring) {
			runqputtail(victim, gp)
		}
		victim.runnext.Store(kitG(sched, 7))
		want, what := int64(2), "G 1..G 4 on its ring and G 7 in runnext"
		if ring == 0 {
			want, what = 7, "only G 7, in runnext"
		}
		setup := fmt.Sprintf("P0's queues and the global queue are empty; P1 is in a system call (_Psyscall, no M, not idle) with %s", what)
		r := l04sFind(t, mp, l04sOpts{setup: setup})
		if r.parked || r.gp == nil || r.gp.goid != want {
			t.Fatalf("%s: findRunnable returned %s (parked=%v), want G %d stolen: a P in a system call is not in idlepMask and its Gs wait for someone to run them; steal from every P but yourself and the idle ones, whatever its status"+kitHint(l04),
				setup, kitID(r.gp), r.parked, want)
		}
	}

	// The trace of a steal: EvSteal, with the number of Gs taken. P0's
	// ring starts empty at position 37 (it has been used before).
	// N is what the steal took, not what is on the ring afterwards: in
	// the third case another thief takes from P0's ring the moment the
	// steal puts its batch there.
	for _, c := range []struct {
		ring        int
		gid, n      int64
		description string
		thief       bool
	}{
		{8, 4, 4, "busy P1 has G 1..G 8 on its ring", false},
		{0, 7, 1, "running P1 has only G 7, in runnext", false},
		{8, 4, 4, "busy P1 has G 1..G 8 on its ring; the moment this M's steal puts its batch on P0's ring (stores P0's runqtail), another thief takes half of it", true},
	} {
		sched := l04sSched(2, Config{Usleep: func(int64) {}})
		mp := l04sM(sched, 0)
		mp.p.runqhead.Store(37)
		mp.p.runqtail.Store(37)
		victim := l04sBusy(sched, 1)
		for _, gp := range kitGs(sched, 1, c.ring) {
			runqputtail(victim, gp)
		}
		if c.ring == 0 {
			victim.runnext.Store(kitG(sched, 7))
		}
		tr := &l04sTrace{}
		sched.trace = tr.record
		setup := fmt.Sprintf("P0's queues (its ring at position 37) and the global queue are empty; %s; a trace is on (sched.trace)", c.description)
		o := l04sOpts{setup: setup}
		if c.thief {
			stolen := false
			o.onPoint = func() { // on the M's goroutine: its own points are not hooked meanwhile
				if !stolen && mp.p.runqtail.Load() != 37 {
					stolen = true
					var batch [256]atomicRingSlot
					runqgrab(mp.p, &batch, 0, false)
				}
			}
		}
		r := l04sFind(t, mp, o)
		if r.parked || r.gp == nil || r.gp.goid != c.gid {
			t.Fatalf("%s: findRunnable returned %s (parked=%v), want G %d stolen"+kitHint(l04), setup, kitID(r.gp), r.parked, c.gid)
		}
		var steals []string
		var got Event
		for _, ev := range tr.events() {
			if ev.Kind == EvSteal {
				got = ev
				steals = append(steals, fmt.Sprintf("{G %d, P %d, M %d, Arg %d, N %d}", ev.G, ev.P, ev.M, ev.Arg, ev.N))
			}
		}
		want := Event{Kind: EvSteal, G: c.gid, P: 0, M: mp.id, Arg: 1, N: c.n}
		got.When = 0
		if len(steals) != 1 || got != want {
			t.Fatalf("%s: the trace has the steal events %s; want exactly one, {G %d, P 0, M %d, Arg 1, N %d}: after a successful runqsteal, with sched.trace set, emit EvSteal with G the G returned, P and M the thief's, Arg the victim's P, and N the number of Gs taken (those now on your ring, pp.runqtail after - before, plus the one returned)"+kitHint(l04),
				setup, "["+strings.Join(steals, " ")+"]", c.gid, mp.id, c.n)
		}
	}

	// The passes again while other threads are at work.
	l04stirredStealPasses(t)
}

// l04stirredStealPasses is TestL04StealPasses's stirred question, asked
// by an M as the scheduler makes them (kitRealM) on 4 Ps: P1 running with
// only a G in runnext, P2 running with nothing queued, P3 idle. Each time,
// the M steals P1's runnext G on its 4th pass, after 4 draws of
// pp.rand.uint32(), one per pass. Another thread meanwhile puts a G on idle
// P3's ring and takes it back (stealWork skips the Ps idle in the mask),
// moves P1's and P2's ticks, and takes P2 into a system call and back
// (its queues are empty): none of it changes the number of passes.
func l04stirredStealPasses(t *testing.T) {
	t.Helper()
	var sleeps atomic.Int32
	sched := kitSched(4, Config{Usleep: func(int64) { sleeps.Add(1) }})
	mp := kitRealM(sched, 0)
	pp := mp.p
	p1, p2, p3 := kitRunningP(sched, 1), kitRunningP(sched, 2), sched.allp[3]
	g500 := kitG(sched, 500)
	ring := []func(){func() { runqputtail(p3, g500) }, func() { runqgethead(p3) }}
	syscall := []func(){func() { p2.status.Store(_Psyscall) }, func() { p2.status.Store(_Prunning) }}
	ticks := kitStirTicks(p1, p2)
	stir := kitStirCycle(ring[0], ticks[0], syscall[0], ticks[1], ring[1], ticks[0], syscall[1], ticks[1])
	what := "another thread put G 500 on idle P3's ring and took it back, moved P1's and P2's ticks, and took P2 (nothing queued) into a system call and back, over and over"
	kitStirred(t, l04, what, 60, stir, func(i int) string {
		gp := kitG(sched, int64(1000+i))
		p1.runnext.Store(gp)
		mp.spinning = false
		sched.nmspinning.Store(0)
		s0, slept := pp.rand.state, sleeps.Load()
		got, _ := findRunnable(mp)
		draws := l04sDraws(s0, pp.rand.state)
		if got != gp || draws != 4 || sleeps.Load()-slept != 1 {
			return fmt.Sprintf("4 Ps, P0's queues and the global queue empty, running P1 with only G %d in runnext, running P2 with nothing queued, P3 idle: findRunnable returned %s after %s (draws of pp.rand.uint32(), one per sched.stealOrder.start) and %s of Config.Usleep, want G %d stolen from P1's runnext on the 4th pass, after its 3µs back-off: stealTries = 4 passes, runnext only on the last (stealRunNextG = i == stealTries-1)",
				gp.goid, kitID(got), kitCount(draws, "pass", "passes"), kitCount(int(sleeps.Load()-slept), "call"), gp.goid)
		}
		return ""
	})
}
