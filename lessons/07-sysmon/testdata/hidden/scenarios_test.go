package sched

// Hidden tests of lesson 07-sysmon: retake's bookkeeping and its locks, on
// constructed states. Each was written against machine-made mutants of the
// reference (kata verify --mutate 07) that passed every other test.

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// l07call runs f and returns what it panicked with, or nil.
func l07call(f func()) (r any) {
	defer func() { r = recover() }()
	f()
	return nil
}

// l07events returns the recorded events of kind k.
func l07events(rec *Recorder, k EventKind) []Event {
	var evs []Event
	for _, ev := range rec.Events() {
		if ev.Kind == k {
			evs = append(evs, ev)
		}
	}
	return evs
}

// TestL07RetakeBookkeeping: when retake takes a P, everything around the
// take is put back as it was or moved exactly: a nil slot in allp is
// skipped, sched.nmidlelocked is back to 0, the P's syscalltick moves by
// one, and (with a trace) one EvSysmonRetake names the P. preemptone's
// EvSysmonPreempt names the G, the P and the M.
func TestL07RetakeBookkeeping(t *testing.T) {
	sched := kitSched(2, Config{NoSysmon: true, ForcePreempt: time.Hour})
	var rec Recorder
	sched.trace = rec.Record
	pp := l07syscallP(t, sched)
	runqput(pp, kitG(sched, 1), false)
	ms := l07idleMs(sched)
	// procresize grows allp under allpLock before it stores the new Ps: for
	// a moment a slot is nil, and retake may look then.
	sched.allpLock.Lock()
	sched.allp = append(sched.allp[:len(sched.allp):len(sched.allp)], nil)
	sched.allpLock.Unlock()

	for i, now := range []int64{l07t0, l07t0 + l07tick} {
		var n uint32
		if r := l07call(func() { n = retake(sched, now) }); r != nil {
			t.Fatalf("retake(now = %s) panicked: %v. allp was [P 0, P 1, nil]: procresize grows allp and only then stores the new Ps, so retake may find a nil slot; skip it%s",
				l07at(now), r, kitHint(l07))
		}
		if want := uint32(i); n != want {
			t.Fatalf("retake(now = %s) returned %d, want %d (P %d in a syscall with G 1 queued, sighting #%d; allp ends with a nil slot, to be skipped)%s",
				l07at(now), n, want, pp.id, i+1, kitHint(l07))
		}
	}
	if ms.handed(pp) == nil {
		t.Fatalf("retake returned 1 but did not hand P %d to an M (handoffp)%s", pp.id, kitHint(l07))
	}
	sched.lock.Lock()
	nml := sched.nmidlelocked
	sched.lock.Unlock()
	if nml != 0 {
		t.Fatalf("after retake took P %d, sched.nmidlelocked = %d, want 0: call sched.incidlelocked(-1) before the CAS and sched.incidlelocked(1) after it, whatever the CAS did (checkdead counts running Ms with it)%s",
			pp.id, nml, kitHint(l07))
	}
	if tick := pp.syscalltick.Load(); tick != 2 {
		t.Fatalf("after retake took P %d from its syscall (syscalltick 1), pp.syscalltick = %d, want 2: bump it by one (pp.syscalltick.Add(1)), as the runtime's pp.syscalltick++%s",
			pp.id, tick, kitHint(l07))
	}
	evs := l07events(&rec, EvSysmonRetake)
	if len(evs) != 1 || evs[0].G != 0 || evs[0].P != pp.id || evs[0].M != -1 || evs[0].Arg != 0 {
		t.Fatalf("with a trace set (sched.trace), retake took P %d and emitted %d EvSysmonRetake events %v; want exactly one, for P %d with no G and no M: sched.traceEvent(EvSysmonRetake, 0, pp.id, -1, 0) once the CAS is won%s",
			pp.id, len(evs), evs, pp.id, kitHint(l07))
	}

	l07idlelockedAtCAS(t)

	rp, mp, gp := l07runningP(t, sched)
	if !preemptone(rp) {
		t.Fatalf("preemptone on P %d running G %d returned false%s", rp.id, gp.goid, kitHint(l07))
	}
	evs = l07events(&rec, EvSysmonPreempt)
	if len(evs) != 1 || evs[0].G != gp.goid || evs[0].P != rp.id || evs[0].M != mp.id || evs[0].Arg != 0 {
		t.Fatalf("with a trace set, preemptone on P %d (M %d running G %d) emitted %d EvSysmonPreempt events %v; want exactly one naming that G, P and M: sched.traceEvent(EvSysmonPreempt, gp.goid, pp.id, mp.id, 0)%s",
			rp.id, mp.id, gp.goid, len(evs), evs, kitHint(l07))
	}
}

// l07idlelockedAtCAS: the moment retake's CompareAndSwap has taken a P
// from its syscall (at retake's next scheduling point), the M leaving that
// syscall may find its P gone and no other, go idle (mput) and run
// checkdead, which counts running Ms as mcount - nmidle - nmidlelocked -
// nmsys. retake must count itself as running by then: incidlelocked(-1)
// before the CAS, or checkdead sees no M left and reports a deadlock while
// retake is handing the P off. An incidlelocked(-1) after the CAS (on the
// won path), even undone later, leaves that window open.
func l07idlelockedAtCAS(t *testing.T) {
	t.Helper()
	sched := kitSched(2, Config{NoSysmon: true, ForcePreempt: time.Hour})
	pp := l07syscallP(t, sched)
	runqput(pp, kitG(sched, 1), false)
	l07idleMs(sched)
	if r := l07call(func() { retake(sched, l07t0) }); r != nil { // the first sighting
		t.Fatalf("retake panicked: %v%s", r, kitHint(l07))
	}
	sched.lock.Lock()
	before := sched.nmidlelocked
	sched.lock.Unlock()
	var (
		inHook, looked bool
		atCAS          int32
	)
	id := kitGoid()
	old := setInterleaveHook(func() {
		if looked || inHook || kitGoid() != id || kitRaw32(&pp.status).Load() != _Pidle {
			return
		}
		inHook = true // the lock's own scheduling points pass through
		defer func() { inHook = false }()
		if sched.lock.TryLock() { // free: retake takes it only inside incidlelocked
			looked, atCAS = true, sched.nmidlelocked
			sched.lock.Unlock()
		}
	})
	r := l07call(func() { retake(sched, l07t0+l07tick) })
	setInterleaveHook(old)
	if r != nil {
		t.Fatalf("retake panicked: %v%s", r, kitHint(l07))
	}
	if looked && atCAS != before-1 {
		t.Fatalf("when retake's CAS had just taken P %d from its syscall, sched.nmidlelocked was %d, want %d (one less than before: retake counted as a running M). "+
			"The M leaving that syscall may lose its P to the CAS, find no other, go idle and run checkdead, which must still see one M running, or it reports a deadlock: "+
			"call sched.incidlelocked(-1) before the CAS, and sched.incidlelocked(1) after it, whatever the CAS did%s", pp.id, atCAS, before-1, kitHint(l07))
	}
}

// TestL07RetakeLockOrder: sched.lock ranks before allpLock (procresize
// holds sched.lock and then takes allpLock), so retake must never wait for
// sched.lock while it holds allpLock. retake takes a P from a syscall over
// and over; each time, at one more of its atomic operations, another
// thread takes sched.lock, as procresize would, and holds it until allpLock
// is free: if retake ends up waiting for sched.lock with allpLock held,
// allpLock never comes free, and the two would deadlock.
func TestL07RetakeLockOrder(t *testing.T) {
	const fp = time.Millisecond
	sched := kitSched(1, Config{NoSysmon: true, ForcePreempt: fp})
	pp, _, _ := l07runningP(t, sched)
	ms := l07idleMs(sched)
	l07retake(t, sched, nil, l07t0, 0, "the first look at a running P's time slice")
	// Its G enters a syscall; from now on its slice is over at every look,
	// and nobody is idle or spinning, so retake takes the P every time
	// (handoffp gives it to a spinning M).
	pp.m.Store(nil)
	pp.status.Store(_Psyscall)

	var (
		me      atomic.Uint64 // the goroutine calling retake
		at      atomic.Int64  // the operation of retake at which to act
		ops     atomic.Int64  // retake's operations so far in this call
		problem atomic.Pointer[string]
		helpers sync.WaitGroup
	)
	hook := func() {
		if kitGoid() != me.Load() || ops.Add(1) != at.Load() {
			return
		}
		if !sched.lock.TryLock() {
			return // retake holds sched.lock here
		}
		helpers.Add(1)
		go func() { // as procresize: hold sched.lock, then want allpLock
			defer helpers.Done()
			defer sched.lock.Unlock()
			time.Sleep(5 * time.Millisecond) // let retake run on until it needs sched.lock
			for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(100 * time.Microsecond) {
				if sched.allpLock.TryLock() {
					sched.allpLock.Unlock()
					return
				}
				if time.Now().After(deadline) {
					s := fmt.Sprintf("at operation %d of retake, another thread took sched.lock (as procresize does before it takes allpLock); "+
						"retake then held allpLock for over 2s, waiting for sched.lock: with procresize, a deadlock. "+
						"retake must never wait for sched.lock while it holds allpLock: drop allpLock before sched.incidlelocked(-1), "+
						"and take it back only after sched.incidlelocked(1)", at.Load())
					problem.CompareAndSwap(nil, &s)
					return
				}
			}
		}()
	}
	old := setInterleaveHook(hook)
	defer setInterleaveHook(old)
	me.Store(kitGoid())
	total := int64(-1)
	for k := int64(1); total < 0 || k <= total; k++ {
		at.Store(k)
		ops.Store(0)
		n := retake(sched, l07t0+int64(fp)+k)
		helpers.Wait()
		if total < 0 {
			total = ops.Load()
		}
		if p := problem.Load(); p != nil {
			t.Fatalf("%s%s", *p, kitHint(l07))
		}
		mp := ms.handed(pp)
		if n != 1 || mp == nil {
			t.Fatalf("retake returned %d and handed the P to %s, on a P in a syscall whose time slice was over, nobody idle or spinning; want 1, and handoffp giving it to an M%s",
				n, l07mName(mp), kitHint(l07))
		}
		// Put the M back on the idle list and the P back in its syscall.
		sched.lock.Lock()
		mp.nextp, mp.spinning = nil, false
		noteclear(&mp.park)
		sched.mput(mp)
		sched.nmspinning.Store(0)
		sched.lock.Unlock()
		pp.status.Store(_Psyscall)
	}
}
