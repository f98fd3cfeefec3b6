package sched

// More hidden tests of lesson 05-spinning: wakep's claim raced one atomic
// operation at a time (the controlled scheduler of the kit), the trace
// events' fields, and sched.lock released on every path. Messages are
// written for a learner who cannot see this file.

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// l05Race is a race between callers of wakep (or resetspinning) on a
// constructed scheduler: idle Ms wait on the idle list, and setup makes P0
// busy (the other Ps stay idle) and returns the threads to run.
type l05Race struct {
	name   string
	procs  int
	idleMs int
	steps  int
	setup  func(sched *schedt) []any
	// spinning is how many spinning Ms there must be once every thread
	// has returned: the Ms started, plus any that still spin.
	spinning int32
	// started is how many idle Ms must have been woken, and npidle how
	// many Ps must be left idle.
	started int
	npidle  int32
	// mistake says what a wrong count of spinning Ms most likely comes
	// from.
	mistake string
}

var l05Races = []l05Race{
	{
		name:  "two Gs call wakep at once (P1 and P2 idle, two idle Ms, nobody spinning)",
		procs: 3, idleMs: 2, steps: 14, spinning: 1, started: 1, npidle: 1,
		setup: func(sched *schedt) []any {
			l05take(sched, 0)
			return []any{"wakep A", func() { wakep(sched) }, "wakep B", func() { wakep(sched) }}
		},
	},
	{
		name:  "three Gs call wakep at once (P1 to P3 idle, three idle Ms, nobody spinning)",
		procs: 4, idleMs: 3, steps: 21, spinning: 1, started: 1, npidle: 2,
		setup: func(sched *schedt) []any {
			l05take(sched, 0)
			return []any{"wakep A", func() { wakep(sched) }, "wakep B", func() { wakep(sched) }, "wakep C", func() { wakep(sched) }}
		},
	},
	{
		name:  "a spinning M on P0 found a G and calls resetspinning while another G calls wakep (P1 and P2 idle, two idle Ms)",
		procs: 3, idleMs: 2, steps: 16, spinning: 1, started: 1, npidle: 1,
		setup: func(sched *schedt) []any {
			mp := l05m(sched, 0)
			mp.spinning = true
			sched.nmspinning.Store(1)
			return []any{"resetspinning", func() { resetspinning(mp) }, "wakep", func() { wakep(sched) }}
		},
	},
	{
		name:  "a G calls wakep with no idle P (P0 busy, P1's M busy) while P1's M becomes spinning",
		procs: 2, idleMs: 1, steps: 10, spinning: 1, started: 0, npidle: 0,
		mistake: "wakep, when it finds no idle P, gives back only its own claim, with nmspinning.Add(-1): a Store(0) erases the count of an M that became spinning meanwhile, a CompareAndSwap(1, 0) fails and leaves the claim counted; and becomeSpinning counts with one Add(1), not a load then a store",
		setup: func(sched *schedt) []any {
			l05take(sched, 0)
			mp := l05m(sched, 1)
			return []any{"wakep", func() { wakep(sched) }, "becomeSpinning", mp.becomeSpinning}
		},
	},
	{
		name:  "two spinning Ms (on P1 and P2) stop spinning at once",
		procs: 3, idleMs: 1, steps: 8, spinning: 0, started: 0, npidle: 0,
		mistake: "stopSpinning uncounts its M with one atomic nmspinning.Add(-1) (or a CompareAndSwap retried until it succeeds): a load then a store lets two Ms stopping at once both store the same count",
		setup: func(sched *schedt) []any {
			l05take(sched, 0)
			a, b := l05m(sched, 1), l05m(sched, 2)
			a.spinning, b.spinning = true, true
			sched.nmspinning.Store(2)
			return []any{"stopSpinning(M b)", func() { stopSpinning(a) }, "stopSpinning(M c)", func() { stopSpinning(b) }}
		},
	},
}

// TestL05WakepInterleavings runs callers of wakep (and of resetspinning,
// becomeSpinning, stopSpinning) one atomic operation at a time, in orders
// the controlled scheduler picks (many seeds), and checks that the right
// number of Ms was started and nmspinning counts exactly the spinning Ms:
// only the caller whose CompareAndSwap of nmspinning from 0 to 1 succeeds
// may start one, and every change of the count is one atomic operation. A
// load then a store (or a CAS whose result is ignored) goes wrong in a
// window a few instructions wide that real threads rarely hit.
func TestL05WakepInterleavings(t *testing.T) {
	seeds := uint64(120)
	if testing.Short() {
		seeds = 30
	}
	for _, race := range l05Races {
		for depth := 1; depth <= 3; depth++ {
			for _, seed := range kitSeeds(seeds) {
				if msg := l05RunRace(race, seed, depth); msg != "" {
					t.Fatalf("%s, in the interleaving of seed %d (depth %d): %s%s%s", race.name, seed, depth, msg, kitReplay(t, l05, seed), kitHint(l05))
				}
			}
		}
	}
}

// l05RunRace runs race once and says what went wrong, or "".
func l05RunRace(race l05Race, seed uint64, depth int) string {
	sched := kitSched(race.procs, Config{})
	var ms []*m
	for i := 0; i < race.idleMs; i++ {
		ms = append(ms, l05idleM(sched))
	}
	threads := race.setup(sched)
	if err := kitInterleave(seed, depth, race.steps, threads...); err != nil {
		if strings.Contains(err.Error(), "did not finish") {
			return err.Error() + ". Here that is most likely sched.lock: locked and never unlocked on some path, or still held when startm (which takes it itself) is called"
		}
		return err.Error()
	}
	var woken []string
	for _, mp := range ms {
		if l05woken(mp) {
			woken = append(woken, fmt.Sprintf("M %d (P%d, spinning %v)", mp.id, pidOf(mp.nextp), mp.spinning))
		}
	}
	switch {
	case len(woken) > race.started:
		return fmt.Sprintf("%d idle Ms were started (%s), want %d; afterwards %s. Only the caller that wins the CompareAndSwap of nmspinning from 0 to 1 may go on to start an M: a load then a store, or a CAS whose result is not checked, lets two callers both see 0",
			len(woken), strings.Join(woken, ", "), race.started, l05state(sched))
	case len(woken) < race.started:
		return fmt.Sprintf("%d idle Ms were started, want %d; afterwards %s. Once nobody spins (nmspinning back at 0) and a P is idle, the next wakep must start a spinning M, and resetspinning calls wakep only after stopSpinning",
			len(woken), race.started, l05state(sched))
	case sched.nmspinning.Load() != race.spinning || sched.npidle.Load() != race.npidle:
		msg := fmt.Sprintf("afterwards %s; want nmspinning %d, the Ms still spinning or started to spin, and npidle %d", l05state(sched), race.spinning, race.npidle)
		if race.mistake != "" {
			msg += ": " + race.mistake
		}
		return msg
	}
	return ""
}

// TestL05SpinTraceEvents: becomeSpinning and stopSpinning emit one event
// each, with every field as the trace defines it: no G (0), the M's P (or
// -1), the M, and no argument (0).
func TestL05SpinTraceEvents(t *testing.T) {
	sched := kitSched(2, Config{})
	var mu sync.Mutex
	var events []Event
	sched.trace = func(ev Event) {
		mu.Lock()
		events = append(events, ev)
		mu.Unlock()
	}
	took := func() []Event {
		mu.Lock()
		defer mu.Unlock()
		evs := events
		events = nil
		return evs
	}
	show := func(evs []Event) string {
		var s []string
		for _, ev := range evs {
			s = append(s, fmt.Sprintf("{%s G %d P %d M %d Arg %d}", ev.Kind, ev.G, ev.P, ev.M, ev.Arg))
		}
		return "[" + strings.Join(s, ", ") + "]"
	}
	for _, withP := range []bool{true, false} {
		mp := &m{sched: sched, id: 7}
		pid := int32(-1)
		if withP {
			mp = l05m(sched, 1)
			pid = 1
		}
		took() // acquirep's ProcStart
		where := fmt.Sprintf("M %d holding P%d", mp.id, pid)
		if !withP {
			where = fmt.Sprintf("M %d, which holds no P", mp.id)
		}
		for _, step := range []struct {
			kind EventKind
			do   func()
			name string
		}{
			{EvSpinStart, mp.becomeSpinning, "becomeSpinning"},
			{EvSpinStop, func() { stopSpinning(mp) }, "stopSpinning"},
		} {
			step.do()
			evs := took()
			want := Event{Kind: step.kind, G: 0, P: pid, M: mp.id, Arg: 0}
			if len(evs) != 1 {
				t.Fatalf("%s with sched.trace set, on %s, emitted %s; want exactly one %s event%s", step.name, where, show(evs), step.kind, kitHint(l05))
			}
			if ev := evs[0]; ev.Kind != want.Kind || ev.G != want.G || ev.P != want.P || ev.M != want.M || ev.Arg != want.Arg || ev.N != 0 {
				t.Fatalf("%s with sched.trace set, on %s, emitted %s; want %s: G 0 (no G is concerned), P the M's P (pidOf(mp.p), -1 if none), M the M's id, Arg 0 (%s has no argument)%s",
					step.name, where, show(evs), show([]Event{want}), step.kind, kitHint(l05))
			}
		}
	}
}

// TestL05SchedLockReleased: wakep and checkRunqsNoP take an idle P under
// sched.lock, and return with it released, on every path. Config.Debug
// makes pidlegetSpinning panic when sched.lock is not held.
func TestL05SchedLockReleased(t *testing.T) {
	call := func(what string, fn func()) {
		t.Helper()
		var r any
		func() {
			defer func() { r = recover() }()
			fn()
		}()
		if r != nil {
			hint := ""
			if strings.Contains(fmt.Sprint(r), "lock not held") {
				hint = ": take sched.lock around pidlegetSpinning (sched.lock.Lock() before, Unlock() after)"
			}
			t.Fatalf("%s panicked: %v%s%s", what, r, hint, kitHint(l05))
		}
	}
	released := func(sched *schedt, what string) {
		t.Helper()
		if !sched.lock.TryLock() {
			t.Fatalf("%s returned with sched.lock still held: every later Lock of it (startm, stopm, the next wakep) would block for ever. Unlock it on every path, including the early returns%s", what, kitHint(l05))
		}
		sched.lock.Unlock()
	}
	debug := Config{Debug: true}

	sched := kitSched(2, debug)
	l05take(sched, 0)
	l05idleM(sched)
	what := "wakep with P1 idle and an idle M (Config.Debug: pidlegetSpinning checks that sched.lock is held)"
	call(what, func() { wakep(sched) })
	released(sched, what)

	sched = kitSched(2, debug)
	l05take(sched, 0)
	l05take(sched, 1)
	what = "wakep with no idle P (Config.Debug)"
	call(what, func() { wakep(sched) })
	released(sched, what)

	for _, c := range []struct {
		what      string
		work, idl bool
	}{
		{"checkRunqsNoP with G 1 on busy P1's ring and P2 idle (Config.Debug: pidlegetSpinning checks that sched.lock is held)", true, true},
		{"checkRunqsNoP with G 1 on busy P1's ring and no idle P (Config.Debug)", true, false},
		{"checkRunqsNoP with every queue empty (Config.Debug)", false, true},
	} {
		sched := kitSched(3, debug)
		l05take(sched, 0)
		l05take(sched, 1)
		if !c.idl {
			l05take(sched, 2)
		}
		if c.work {
			runqputtail(sched.allp[1], kitG(sched, 1))
		}
		var pp *p
		call(c.what, func() { pp = checkRunqsNoP(sched, sched.allp, sched.idlepMask) })
		released(sched, c.what)
		switch {
		case c.work && c.idl && pp == nil:
			t.Fatalf("%s returned nil, want P2, the idle P%s", c.what, kitHint(l05))
		case !(c.work && c.idl) && pp != nil:
			t.Fatalf("%s returned P%d, want nil%s", c.what, pp.id, kitHint(l05))
		}
	}
}
