package sched

// Hidden tests of lesson 07-sysmon: sysmon's deep sleep with timers, and
// what it does when it wakes, on a Runtime whose clock is injected. Each
// was written against machine-made mutants of the reference (kata verify
// --mutate 07) that passed every other test.

import (
	"bytes"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// l07dclock is an injected clock: sysmon's sleeps (Config.Usleep, from the
// goroutine that calls it first: sysmon, which starts before any G) are
// recorded and move the fake Config.Nanotime forward; then hook, if set,
// runs on sysmon's goroutine, with sysmon inside that sleep. Each sleep
// also sleeps for real (at most 200µs), so that sysmon never spins.
type l07dclock struct {
	now    atomic.Int64
	mu     sync.Mutex
	sysmon uint64
	sleeps []int64
	hook   func(n int, usec int64)
}

func l07newDclock(hook func(n int, usec int64)) *l07dclock {
	c := &l07dclock{hook: hook}
	c.now.Store(int64(time.Second))
	return c
}

func (c *l07dclock) usleep(usec int64) {
	id := kitGoid()
	c.mu.Lock()
	if c.sysmon == 0 {
		c.sysmon = id
	}
	mine := c.sysmon == id
	n := 0
	if mine {
		c.sleeps = append(c.sleeps, usec)
		n = len(c.sleeps)
	}
	c.mu.Unlock()
	if mine {
		c.now.Add(usec * 1000)
		if c.hook != nil {
			c.hook(n, usec)
		}
	}
	time.Sleep(time.Duration(min(max(usec, 1), 200)) * time.Microsecond)
}

func (c *l07dclock) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.sleeps)
}

func (c *l07dclock) all() []int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]int64(nil), c.sleeps...)
}

// l07await polls cond every 100µs for up to limit.
func l07await(limit time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(100 * time.Microsecond)
	}
	return true
}

// l07problems collects what a hook on sysmon's goroutine found wrong.
type l07problems struct {
	mu   sync.Mutex
	list []string
}

func (p *l07problems) add(format string, args ...any) {
	p.mu.Lock()
	p.list = append(p.list, fmt.Sprintf(format, args...))
	p.mu.Unlock()
}

func (p *l07problems) first() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.list) == 0 {
		return ""
	}
	return p.list[0]
}

// l07close closes rt in the background, failing the test if that takes
// over 10s.
func l07close(t *testing.T, rt *Runtime) {
	t.Helper()
	done := make(chan struct{})
	go func() { rt.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Errorf("Runtime.Close did not return within 10s: is sysmon asleep where Close cannot wake it?%s", kitHint(l07))
	}
}

// TestL07SysmonDeepSleepTimer: with every P idle, sysmon sleeps deeply for
// at most forcegcPeriodNS/2 (60s), or until the next timer; when a timer
// is already due, it does not sleep deeply at all. Each deep sleep emits
// EvSysmonSleep with its length, and after one that ends on its own,
// sysmonwait is clear again.
func TestL07SysmonDeepSleepTimer(t *testing.T) {
	const half = int64(forcegcPeriodNS / 2)

	t.Run("no_timer", func(t *testing.T) {
		c := l07newDclock(nil)
		var rec Recorder
		rt := New(Config{Procs: 1, ForcePreempt: time.Hour, Usleep: c.usleep, Nanotime: c.now.Load, Trace: rec.Record})
		defer l07close(t, rt)
		if !l07await(10*time.Second, func() bool { return len(l07events(&rec, EvSysmonSleep)) > 0 }) {
			t.Fatalf("with no G at all (every P idle) and a trace set, sysmon emitted no EvSysmonSleep in 10s (it asked for %s; sysmonwait = %v). "+
				"Before its deep sleep, sysmon emits sched.traceEvent(EvSysmonSleep, 0, -1, mp.id, sleep), sleep being the longest it will sleep (ns)%s",
				kitCount(int(c.count()), "sleep"), rt.sched.sysmonwait.Load(), kitHint(l07))
		}
		ev := l07events(&rec, EvSysmonSleep)[0]
		if ev.G != 0 || ev.P != -1 || ev.M < 0 || ev.Arg != half {
			t.Fatalf("with every P idle and no timer, sysmon's deep sleep emitted %v (G %d, P %d, M %d, Arg %d); want no G, no P, sysmon's M and Arg %d: "+
				"the deep sleep lasts at most forcegcPeriodNS/2 (60s) when no timer is set (timer0When == 0)%s",
				ev, ev.G, ev.P, ev.M, ev.Arg, half, kitHint(l07))
		}
	})

	t.Run("close_before_sleeping", func(t *testing.T) {
		gate := make(chan struct{})
		c := l07newDclock(func(n int, usec int64) {
			if n == 1 {
				<-gate
			}
		})
		rt := New(Config{Procs: 1, ForcePreempt: time.Hour, Usleep: c.usleep, Nanotime: c.now.Load})
		if !l07await(10*time.Second, func() bool { return c.count() >= 1 }) {
			close(gate)
			t.Fatalf("sysmon asked for no sleep (Config.Usleep) within 10s%s", kitHint(l07))
		}
		closed := make(chan struct{})
		go func() { rt.Close(); close(closed) }()
		if !l07await(10*time.Second, rt.sched.closing.Load) {
			close(gate)
			t.Fatalf("test setup: Close did not begin within 10s")
		}
		close(gate) // sysmon comes out of its first sleep, every P idle, Close begun
		select {
		case <-closed:
		case <-time.After(10 * time.Second):
			t.Fatalf("Close began while sysmon was in its first sleep (every P idle), and Close did not return within 10s: when sysmon finds sched.closing as it is about to sleep deeply, it must return%s", kitHint(l07))
		}
		if !rt.sched.lock.TryLock() {
			t.Fatalf("Close began while sysmon was in its first sleep (every P idle); Close returned, and sched.lock is still held: "+
				"sysmon found sched.closing under sched.lock and returned without unlocking it%s", kitHint(l07))
		}
		rt.sched.lock.Unlock()
	})

	// The timers below are constructed: sched.timer0When says when the next
	// one is due, and no G sleeps on it, so no M races sysmon to run it.

	t.Run("timer_in_5ms", func(t *testing.T) {
		var probs l07problems
		gate, second := make(chan struct{}), make(chan struct{})
		var sched atomic.Pointer[schedt]
		var rec Recorder
		var when atomic.Int64
		c := l07newDclock(func(n int, usec int64) {
			switch n {
			case 1:
				<-gate
			case 2:
				s := sched.Load()
				if len(l07events(&rec, EvSysmonSleep)) == 0 {
					probs.add("with every P idle and a timer due in 5ms (fake clock), sysmon did not go into its deep sleep: it went on sleeping in rounds. " +
						"The deep sleep is for when nothing can happen before the next timer: if timer0When is 0 or after now, sleep deeply (until it, at most)")
				} else if s.sysmonwait.Load() {
					probs.add("sysmon's deep sleep ended on its own (the timer's time came; nobody woke it), and sched.sysmonwait is still set: " +
						"after notetsleep returns, clear sysmonwait (under sched.lock) and noteclear the note, whether it was woken or not; otherwise the next syscall wakes a sysmon that is not asleep")
				}
				s.timer0When.Store(0) // the timer has run
				close(second)
			}
		})
		// The clock starts at 1h: both next - now (5ms) and next + now are
		// then far from 60s on either side.
		c.now.Store(int64(time.Hour))
		rt := New(Config{Procs: 1, ForcePreempt: time.Hour, Usleep: c.usleep, Nanotime: c.now.Load, Trace: rec.Record})
		sched.Store(rt.sched)
		var closeGate sync.Once
		defer l07close(t, rt)
		defer closeGate.Do(func() { close(gate) }) // before Close: sysmon may wait on it
		when.Store(c.now.Load() + int64(5*time.Millisecond))
		rt.sched.timer0When.Store(when.Load())
		closeGate.Do(func() { close(gate) })
		if !l07await(10*time.Second, func() bool { return len(l07events(&rec, EvSysmonSleep)) > 0 || c.count() >= 2 }) {
			t.Fatalf("with every P idle and a timer due in 5ms, sysmon neither slept deeply (no EvSysmonSleep) nor came back for another round within 10s%s", kitHint(l07))
		}
		if evs := l07events(&rec, EvSysmonSleep); len(evs) > 0 {
			ev := evs[0]
			if want := when.Load() - ev.When; ev.Arg != want {
				t.Fatalf("with every P idle and the next timer due in %v (fake clock), sysmon's deep sleep was for %v (EvSysmonSleep's Arg); want %v: "+
					"sleep until the next timer (timer0When - now) when that is sooner than forcegcPeriodNS/2, so that the timer is not late%s",
					time.Duration(want), time.Duration(ev.Arg), time.Duration(want), kitHint(l07))
			}
		}
		select {
		case <-second:
		case <-time.After(10 * time.Second):
			t.Fatalf("sysmon slept deeply with a timer due in 5ms, and did not come back within 10s (real time): a deep sleep lasts until the next timer at most (notetsleep for timer0When - now)%s", kitHint(l07))
		}
		if p := probs.first(); p != "" {
			t.Fatalf("%s%s", p, kitHint(l07))
		}
	})

	t.Run("timer_in_5min", func(t *testing.T) {
		// A timer further away than forcegcPeriodNS/2: the deep sleep
		// still lasts 60s at most (whichever comes first), so that sysmon
		// looks again at least that often.
		gate := make(chan struct{})
		c := l07newDclock(func(n int, usec int64) {
			if n == 1 {
				<-gate
			}
		})
		c.now.Store(int64(time.Hour))
		var rec Recorder
		rt := New(Config{Procs: 1, ForcePreempt: time.Hour, Usleep: c.usleep, Nanotime: c.now.Load, Trace: rec.Record})
		var closeGate sync.Once
		defer l07close(t, rt)
		defer closeGate.Do(func() { close(gate) }) // before Close: sysmon may wait on it
		rt.sched.timer0When.Store(c.now.Load() + int64(5*time.Minute))
		closeGate.Do(func() { close(gate) })
		if !l07await(10*time.Second, func() bool { return len(l07events(&rec, EvSysmonSleep)) > 0 }) {
			t.Fatalf("with every P idle and the next timer 5 minutes away (fake clock), sysmon emitted no EvSysmonSleep within 10s%s", kitHint(l07))
		}
		if ev := l07events(&rec, EvSysmonSleep)[0]; ev.Arg != half {
			t.Fatalf("with every P idle and the next timer 5 minutes away (fake clock), sysmon's deep sleep was for %v (EvSysmonSleep's Arg); want %v: "+
				"the deep sleep lasts forcegcPeriodNS/2 (60s) or until the next timer, whichever comes first: a far timer does not make it longer%s",
				time.Duration(ev.Arg), time.Duration(half), kitHint(l07))
		}
	})

	t.Run("late_wake", func(t *testing.T) {
		// sysmon sleeps deeply until a timer 20ms away; another thread takes
		// sched.lock while it sleeps, and holds it until sysmon has timed
		// out and waits for the lock; then, as a G entering a syscall would,
		// it sees sysmonwait, clears it and wakes the note: a wake-up that
		// comes after the sleep ended. noteclear must drop it, or the next
		// deep sleep ends at once.
		gate := make(chan struct{})
		var sched atomic.Pointer[schedt]
		var judged atomic.Bool
		var helper sync.WaitGroup
		c := l07newDclock(func(n int, usec int64) {
			switch n {
			case 1:
				<-gate
			case 2:
				sched.Load().timer0When.Store(0) // the timer has run
			}
		})
		var rec Recorder
		var once sync.Once
		trace := func(ev Event) {
			rec.Record(ev)
			if ev.Kind != EvSysmonSleep {
				return
			}
			once.Do(func() {
				helper.Add(1)
				go func() {
					defer helper.Done()
					s := sched.Load()
					s.lock.Lock()
					defer s.lock.Unlock()
					if !s.sysmonwait.Load() {
						return // sysmon was quicker: nothing to judge
					}
					time.Sleep(80 * time.Millisecond) // sysmon times out (its real timer: 20ms), and waits for the lock
					if s.sysmonwait.Load() {
						s.sysmonwait.Store(false)
						notewakeup(&s.sysmonnote)
						judged.Store(true)
					}
				}()
			})
		}
		rt := New(Config{Procs: 1, ForcePreempt: time.Hour, Usleep: c.usleep, Nanotime: c.now.Load, Trace: trace})
		sched.Store(rt.sched)
		var closeGate sync.Once
		defer l07close(t, rt)
		defer closeGate.Do(func() { close(gate) })
		rt.sched.timer0When.Store(c.now.Load() + int64(20*time.Millisecond))
		closeGate.Do(func() { close(gate) })
		if !l07await(10*time.Second, func() bool { return len(l07events(&rec, EvSysmonSleep)) >= 2 }) {
			t.Fatalf("after a deep sleep that ended on its own (a timer's time came), with every P idle and no timer left, sysmon did not go back into its deep sleep within 10s (EvSysmonSleep events: %d)%s",
				len(l07events(&rec, EvSysmonSleep)), kitHint(l07))
		}
		helper.Wait()
		time.Sleep(100 * time.Millisecond)
		if evs := l07events(&rec, EvSysmonSleep); judged.Load() && len(evs) != 2 {
			t.Fatalf("sysmon's deep sleep ended on its own (a timer's time came), and a wake-up arrived while sysmon waited for sched.lock to clear sysmonwait. "+
				"Later, every P idle and no timer left, its next deep sleep ended at once: %d deep sleeps, want 2 (the wake-up was left in sched.sysmonnote). "+
				"After notetsleep returns, woken or not, noteclear(&sched.sysmonnote) under sched.lock%s", len(evs), kitHint(l07))
		}
	})

	t.Run("timer_due_now", func(t *testing.T) {
		var probs l07problems
		gate, second := make(chan struct{}), make(chan struct{})
		var sched atomic.Pointer[schedt]
		var rec Recorder
		c := l07newDclock(func(n int, usec int64) {
			switch n {
			case 1:
				<-gate
			case 2:
				if evs := l07events(&rec, EvSysmonSleep); len(evs) > 0 {
					probs.add("a timer was due (timer0When == now, exactly) while every P was idle, and sysmon went into its deep sleep (EvSysmonSleep for %v). "+
						"A due timer means work is about to arrive: sleep deeply only if no timer is set or the next is after now (timer0When == 0 || timer0When > now)", time.Duration(evs[0].Arg))
				}
				sched.Load().timer0When.Store(0) // the timer has run
				close(second)
			}
		})
		rt := New(Config{Procs: 1, ForcePreempt: time.Hour, Usleep: c.usleep, Nanotime: c.now.Load, Trace: rec.Record})
		sched.Store(rt.sched)
		var closeGate sync.Once
		defer l07close(t, rt)
		defer closeGate.Do(func() { close(gate) })
		if !l07await(10*time.Second, func() bool { return c.count() >= 1 }) {
			t.Fatalf("sysmon asked for no sleep (Config.Usleep) within 10s%s", kitHint(l07))
		}
		rt.sched.timer0When.Store(c.now.Load()) // due when sysmon next reads the clock
		closeGate.Do(func() { close(gate) })
		select {
		case <-second:
		case <-time.After(10 * time.Second):
			t.Fatalf("a timer was due (timer0When == now) while every P was idle, and sysmon did not come back for another round within 10s: it slept deeply instead of going on (timer0When == 0 || timer0When > now is the condition to sleep deeply)%s", kitHint(l07))
		}
		if p := probs.first(); p != "" {
			t.Fatalf("%s%s", p, kitHint(l07))
		}
	})
}

// TestL07SysmonWakeReadsClock: every P idle, sysmon goes into its deep
// sleep (held, by the trace, just before notetsleep), and the clock moves
// on 1s; a G is started (which wakes sysmon) and enters a syscall with
// nothing queued, the other P idle. sysmon must judge the syscall and the
// G's time slice by the clock as it is after the sleep: the P stays 10ms
// (fake) in its syscall before it is taken. And the wake starts the
// back-off over: idle = 0.
func TestL07SysmonWakeReadsClock(t *testing.T) {
	var probs l07problems
	var sched atomic.Pointer[schedt]
	var released atomic.Bool
	var syscallP atomic.Pointer[p]
	var asleep atomic.Int64 // sleeps asked for before the deep sleep; -1 until known
	var woke atomic.Int64   // the fake time when sysmon woke
	asleep.Store(-1)
	var c *l07dclock
	c = l07newDclock(func(n int, usec int64) {
		s := sched.Load()
		if s == nil || released.Load() || asleep.Load() < 0 {
			return
		}
		if int64(n) == asleep.Load()+1 {
			// The first sleep after the wake: the clock stood still since.
			woke.Store(c.now.Load() - usec*1000)
		}
		pp := syscallP.Load()
		if d := c.now.Load() - woke.Load(); pp.status.Load() != _Psyscall && d < int64(9*time.Millisecond) {
			probs.add("P %d was taken from its syscall %v (fake clock) after sysmon woke, with nothing queued and the other P idle: "+
				"neither the syscall nor the time slice of its G had lasted 10ms. The clock moved on 1s while sysmon slept deeply: "+
				"after the deep sleep, read the clock again (now = cfg.nanotime()) before retake; the time read before the sleep is stale",
				pp.id, time.Duration(d))
		}
	})
	sleeping, proceed := make(chan struct{}), make(chan struct{})
	var once, proceedOnce sync.Once
	trace := func(ev Event) {
		if ev.Kind == EvSysmonSleep {
			once.Do(func() {
				close(sleeping)
				<-proceed // hold sysmon just before its deep sleep
			})
		}
	}
	// ForcePreempt is the default, 10ms: a slice recorded at a stale time
	// would be over at once too.
	rt := New(Config{Procs: 2, Usleep: c.usleep, Nanotime: c.now.Load, Trace: trace})
	sched.Store(rt.sched)
	defer l07close(t, rt)
	defer proceedOnce.Do(func() { close(proceed) })
	select {
	case <-sleeping:
	case <-time.After(10 * time.Second):
		t.Fatalf("with no G at all (every P idle) and a trace set, sysmon emitted no EvSysmonSleep within 10s: "+
			"just before its deep sleep (sysmonwait set, sched.lock released), it emits sched.traceEvent(EvSysmonSleep, 0, -1, mp.id, sleep)%s", kitHint(l07))
	}
	// The Ps have made syscalls before, so that sysmon's first look at the
	// coming one is a first sighting (a tick of 0 would match its record).
	for _, pp := range rt.sched.allp {
		pp.syscalltick.Store(1)
	}
	asleep.Store(int64(c.count()))
	c.now.Add(int64(time.Second)) // time passes while sysmon sleeps

	entered, release := make(chan struct{}), make(chan struct{})
	var releaseOnce sync.Once
	letGo := func() { released.Store(true); close(release) }
	defer releaseOnce.Do(letGo)
	rt.Go(func(g *G) { // wakes sysmon (sysmonwait is set)
		g.Syscall(func() {
			close(entered)
			<-release
		})
	})
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatalf("test setup: the G did not enter its syscall within 10s")
	}
	for _, pp := range rt.sched.allp {
		if pp.status.Load() == _Psyscall {
			syscallP.Store(pp)
		}
	}
	if syscallP.Load() == nil {
		t.Fatalf("test setup: the G is in its syscall, but no P is _Psyscall")
	}
	proceedOnce.Do(func() { close(proceed) }) // sysmon sleeps, and wakes at once
	taken := func() bool { return syscallP.Load().status.Load() != _Psyscall }
	if !l07await(10*time.Second, func() bool { return taken() || probs.first() != "" }) {
		t.Fatalf("a G has been in a syscall for 10s (real time; sysmon asked for %s since it woke), nothing queued, the other P idle, and sysmon never took its P: take it once the syscall has lasted 10ms (fake clock)%s",
			kitCount(int(c.count()-int(asleep.Load())), "sleep"), kitHint(l07))
	}
	if p := probs.first(); p != "" {
		t.Fatalf("%s%s", p, kitHint(l07))
	}
	s := c.all()[asleep.Load():]
	want := make([]int64, 51)
	for i := range want {
		want[i] = 20
	}
	want[50] = 40
	for i := range want {
		if i >= len(s) || s[i] != want[i] {
			t.Fatalf("after a wake-up ended sysmon's deep sleep, its sleeps (µs) were %s; want %s first. The wake starts the back-off over: idle = 0 and the sleep back to 20µs. "+
				"That round's retake takes nothing (a first sighting), so idle is 1 at the next sleep; the sleep doubles once idle > 50%s",
				l07fmtSleeps(s), l07fmtSleeps(want), kitHint(l07))
		}
	}
	releaseOnce.Do(letGo)
	l07finish(t, rt, 10*time.Second)
}

// TestL07SysmonTimeoutReadsClock: as TestL07SysmonWakeReadsClock, but the
// deep sleep ends on its own, at its timeout, with nobody waking sysmon: a
// G asleep on a timer (5ms, fake clock) is the next timer; while sysmon
// sleeps until it, the clock moves on 1s, the timer fires and the G runs
// on the only P, and keeps running (at safe points). Coming out of the
// sleep, sysmon sees the P for the first time: the G's time slice is
// judged from the clock as it is then, and the G is preempted only once
// it has run 10ms (fake) from there, not at the next round.
func TestL07SysmonTimeoutReadsClock(t *testing.T) {
	var sched atomic.Pointer[schedt]
	var asleep atomic.Int64 // sysmon's sleeps before its deep sleep; -1 until known
	var woke atomic.Int64   // the fake time sysmon came out of it
	var preemptAt atomic.Int64
	asleep.Store(-1)
	gate := make(chan struct{})
	var c *l07dclock
	c = l07newDclock(func(n int, usec int64) {
		if n == 1 {
			<-gate // until the G sleeps on its timer
		}
		if a := asleep.Load(); a >= 0 && int64(n) == a+1 {
			woke.Store(c.now.Load() - usec*1000)
		}
	})
	sleeping, proceed := make(chan struct{}), make(chan struct{})
	var once sync.Once
	trace := func(ev Event) {
		switch ev.Kind {
		case EvSysmonSleep:
			once.Do(func() {
				close(sleeping)
				<-proceed // hold sysmon just before its deep sleep
			})
		case EvSysmonPreempt:
			preemptAt.CompareAndSwap(0, c.now.Load())
		}
	}
	// ForcePreempt is the default, 10ms.
	rt := New(Config{Procs: 1, Usleep: c.usleep, Nanotime: c.now.Load, Trace: trace})
	sched.Store(rt.sched)
	var gateOnce, proceedOnce sync.Once
	defer l07close(t, rt)
	defer proceedOnce.Do(func() { close(proceed) })
	defer gateOnce.Do(func() { close(gate) })
	running := make(chan struct{})
	var stop atomic.Bool
	defer stop.Store(true)
	rt.Go(func(g *G) {
		g.Sleep(5 * time.Millisecond) // the next timer: sysmon sleeps until it
		close(running)
		for !stop.Load() && preemptAt.Load() == 0 {
			g.Safepoint()
		}
	})
	if !l07await(10*time.Second, func() bool { return rt.sched.timer0When.Load() != 0 }) {
		t.Fatalf("test setup: the G's Sleep armed no timer within 10s")
	}
	gateOnce.Do(func() { close(gate) })
	select {
	case <-sleeping:
	case <-time.After(10 * time.Second):
		t.Fatalf("with every P idle and a G asleep on a timer due in 5ms (fake clock), sysmon emitted no EvSysmonSleep within 10s: "+
			"just before its deep sleep (sysmonwait set, sched.lock released), it emits sched.traceEvent(EvSysmonSleep, 0, -1, mp.id, sleep)%s", kitHint(l07))
	}
	// Sysmon may have seen the P running the G, before the G went to sleep,
	// and noted that time slice (schedtick, schedwhen). The timer readies
	// the G into runnext, and a G run from runnext inherits the slice: the
	// same schedtick, so sysmon would judge it by the time it noted then,
	// 1s stale, and preempt at once, rightly. Move the idle P's schedtick
	// on, so that the slice sysmon finds after the sleep is a new one.
	for _, pp := range rt.sched.allp {
		pp.schedtick.Add(1)
	}
	asleep.Store(int64(c.count()))
	c.now.Add(int64(time.Second)) // time passes while sysmon sleeps: the timer fires
	select {
	case <-running:
	case <-time.After(10 * time.Second):
		t.Fatalf("test setup: the G asleep on a timer due 1s ago (fake clock) did not run within 10s")
	}
	proceedOnce.Do(func() { close(proceed) }) // sysmon sleeps until its timeout: nobody wakes it
	if !l07await(10*time.Second, func() bool { return preemptAt.Load() != 0 }) {
		t.Fatalf("a G has run at safe points on the only P for 10s (real time) since sysmon's deep sleep ended, and sysmon never preempted it (no EvSysmonPreempt): preempt a G whose time slice has lasted ForcePreempt (10ms, fake clock)%s", kitHint(l07))
	}
	if d := preemptAt.Load() - woke.Load(); woke.Load() == 0 || d < int64(9*time.Millisecond) {
		t.Fatalf("sysmon's deep sleep ended at its timeout (a timer's time came; nobody woke it), the clock having moved on 1s meanwhile, and sysmon preempted the G running on the only P %v (fake clock) after it came out of the sleep, "+
			"its first look at that time slice: the slice had not lasted 10ms. After the deep sleep, woken or not, read the clock again (now = cfg.nanotime()) before retake: the time read before the sleep is stale%s",
			time.Duration(d), kitHint(l07))
	}
	stop.Store(true)
	l07finish(t, rt, 10*time.Second)
}

// TestL07SysmonLongIdle: with a G running on the only P and nothing to
// retake or preempt, sysmon's back-off holds over hundreds of rounds: 20µs
// ×51, then doubling, then 10ms every round.
func TestL07SysmonLongIdle(t *testing.T) {
	const rounds = 300
	gate := make(chan struct{})
	c := l07newDclock(func(n int, usec int64) {
		if n == 1 {
			<-gate // until the G runs, so that sysmon never finds every P idle
		}
	})
	rt := New(Config{Procs: 1, ForcePreempt: time.Hour, Usleep: c.usleep, Nanotime: c.now.Load})
	var stop atomic.Bool
	var closeGate sync.Once
	defer l07close(t, rt)
	defer stop.Store(true)
	defer closeGate.Do(func() { close(gate) })
	running := make(chan struct{})
	rt.Go(func(g *G) {
		close(running)
		for !stop.Load() {
		}
	})
	select {
	case <-running:
	case <-time.After(10 * time.Second):
		t.Fatalf("test setup: the G did not start within 10s")
	}
	closeGate.Do(func() { close(gate) })
	if !l07await(20*time.Second, func() bool { return c.count() >= rounds }) {
		t.Fatalf("a G has been running on the only P, and sysmon asked for only %s (Config.Usleep) in 20s; want %d: with nothing to do, sysmon keeps sleeping and looking%s",
			kitCount(int(c.count()), "sleep"), rounds, kitHint(l07))
	}
	want := make([]int64, rounds)
	for i, d := 0, int64(20); i < rounds; i++ {
		if i > 50 {
			d = min(2*d, 10000)
		}
		want[i] = d
	}
	l07checkSleeps(t, c.all()[:rounds], want,
		"With a G running on the only P and nothing to retake, the back-off holds however long sysmon stays idle: "+l07backoffRule+", and 10ms every round after that, until a retake or a wake-up resets idle.")
	stop.Store(true)
	l07finish(t, rt, 10*time.Second)
}

// l07blockedOnMutex reports whether goroutine id is blocked in
// sync.Mutex.Lock (its status in a stack dump).
func l07blockedOnMutex(id uint64) bool {
	return l07goroutineIn(id, "sync.Mutex.Lock")
}

// l07goroutineIn reports whether goroutine id is blocked with one of the
// given statuses in a stack dump ("sync.Mutex.Lock", "select", ...).
func l07goroutineIn(id uint64, statuses ...string) bool {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	for _, status := range statuses {
		if bytes.Contains(buf, fmt.Appendf(nil, "goroutine %d [%s", id, status)) {
			return true
		}
	}
	return false
}

// TestL07SysmonDeepSleepRecheck: every P is idle, so sysmon sets out for
// its deep sleep; but before it gets sched.lock, a P comes back to life. An
// M takes it under sched.lock (as an M leaving a syscall takes an idle P),
// and its G enters a syscall at once: entersyscall finds sysmonwait still
// false and wakes nobody. Only sysmon's second look, under the lock, can
// see that a P is no longer idle; without it, sysmon sleeps for 60s while
// the P sits in its syscall.
//
// The test holds sched.lock from sysmon's first sleep on, waits until
// sysmon is blocked on it (its goroutine's status in a stack dump), and
// brings the P to life meanwhile: the window is opened by design, not by
// luck.
func TestL07SysmonDeepSleepRecheck(t *testing.T) {
	var probs l07problems
	var sched atomic.Pointer[schedt]
	var syscallP atomic.Pointer[p]
	var giveUp atomic.Bool
	start, locked := make(chan struct{}), make(chan struct{})
	c := l07newDclock(func(n int, usec int64) {
		if n == 1 {
			<-start
			if !giveUp.Load() {
				sched.Load().lock.Lock() // unlocked by the test's goroutine
				close(locked)
			}
		}
	})
	const bug = "every P was idle when sysmon looked, so it set out for its deep sleep; before it got sched.lock, P %d came back to life: " +
		"an M took it (under sched.lock, as an M leaving a syscall takes an idle P) and its G entered a syscall at once, finding sched.sysmonwait still false, so it woke nobody. " +
		"Then sysmon set sysmonwait and %s, with P %d in that syscall: nothing would take the P back, or run what waits behind it, for up to 60s. " +
		"Check \"every P idle\" (or the world stopped) again under sched.lock, just before you set sysmonwait: a P taken meanwhile shows there (npidle < gomaxprocs)"
	trace := func(ev Event) {
		if ev.Kind != EvSysmonSleep {
			return
		}
		if pp := syscallP.Load(); pp != nil && pp.status.Load() == _Psyscall {
			probs.add(bug, pp.id, "went into its deep sleep (EvSysmonSleep)", pp.id)
		}
	}
	rt := New(Config{Procs: 1, ForcePreempt: time.Hour, Usleep: c.usleep, Nanotime: c.now.Load, Trace: trace})
	sched.Store(rt.sched)
	s := rt.sched
	defer l07close(t, rt)
	var startOnce sync.Once
	defer startOnce.Do(func() { giveUp.Store(true); close(start) })
	startOnce.Do(func() { close(start) })
	select {
	case <-locked:
	case <-time.After(10 * time.Second):
		giveUp.Store(true)
		t.Fatalf("sysmon asked for no sleep (Config.Usleep) within 10s%s", kitHint(l07))
	}
	var unlockOnce sync.Once
	unlock := func() { unlockOnce.Do(s.lock.Unlock) }
	defer unlock()

	c.mu.Lock()
	id := c.sysmon
	c.mu.Unlock()
	if !l07await(10*time.Second, func() bool { return l07blockedOnMutex(id) }) {
		t.Fatalf("with every P idle and no timer, sysmon came out of its first sleep and did not wait for sched.lock within 10s (it asked for %s; sysmonwait = %v): "+
			"to go into its deep sleep, sysmon takes sched.lock, checks again, sets sched.sysmonwait and unlocks%s", kitCount(int(c.count()), "sleep"), s.sysmonwait.Load(), kitHint(l07))
	}

	// sysmon waits for sched.lock, which the test holds. An M takes the idle
	// P and runs a G (hand-made: nothing runs them) that enters a syscall.
	if s.sysmonwait.Load() {
		t.Fatalf("sched.sysmonwait was set while the test held sched.lock: sysmon sets it only under sched.lock, or a G entering a syscall may miss it%s", kitHint(l07))
	}
	pp := s.pidleget()
	if pp == nil {
		t.Fatalf("test setup: no idle P")
	}
	mp := &m{sched: s, id: s.mReserveID()} // sched.lock is held
	mp.park.init()
	acquirep(mp, pp)
	gp := kitG(s, 900)
	gp.atomicstatus.Store(_Grunning)
	gp.m = mp
	mp.curg.Store(gp)
	// The P has run and made a syscall before: sysmon's first look at the
	// new one is a first sighting, and the time slice is a new one.
	pp.schedtick.Store(1)
	pp.syscalltick.Store(1)
	gp.atomicstatus.Store(_Gsyscall)
	l07enterSyscall(mp, pp) // sysmonwait is false: entersyscall wakes nobody
	syscallP.Store(pp)
	unlock()

	// With no P idle and no M spinning, the P is worth taking on sysmon's
	// second sighting of the syscall.
	taken := func() bool { return pp.status.Load() != _Psyscall }
	deepWithSyscall := func() bool { return s.sysmonwait.Load() && !taken() }
	if !l07await(10*time.Second, func() bool { return taken() || probs.first() != "" || deepWithSyscall() }) {
		t.Fatalf("P %d has been in a syscall for 10s (real time; sysmon asked for %s), no P idle, no M spinning, and sysmon never took it (sysmonwait = %v)%s",
			pp.id, kitCount(int(c.count()), "sleep"), s.sysmonwait.Load(), kitHint(l07))
	}
	if p := probs.first(); p != "" {
		t.Fatalf("%s%s", p, kitHint(l07))
	}
	if deepWithSyscall() {
		t.Fatalf(bug+"%s", pp.id, "went into its deep sleep (sysmonwait set)", pp.id, kitHint(l07))
	}
}

// TestL07SysmonWaitSetUnderLock: every P is idle, and sysmon sets out for
// its deep sleep. Just then an M leaving a syscall takes the idle P (under
// sched.lock, where it looks at sysmonwait to wake sysmon: exitsyscallfast)
// and its G enters a syscall again at once (entersyscall looks at
// sysmonwait too). If sysmon sets sysmonwait only after it has unlocked
// sched.lock, the M can come in between, find sysmonwait false and wake
// nobody: sysmon then sleeps for up to 60s with the P in a syscall.
//
// sysmonwait is a scheduling point (atomics.go). From sysmon's first sleep
// on, the test counts sysmon's operations on the course's atomics and runs
// the M just before operation k, for k = 1, 2, ... until sysmon is in its
// deep sleep before it has made k of them: every placement, by design, not
// by luck. The M runs on its own goroutine; while it is blocked on a mutex
// (sched.lock, which sysmon may hold at that point: its status in a stack
// dump), sysmon goes on.
func TestL07SysmonWaitSetUnderLock(t *testing.T) {
	const most = 16
	for k := 1; k <= most; k++ {
		if !l07wakerBefore(t, k) {
			return
		}
	}
	// A sysmon that makes this many operations between its first sleep and
	// its deep sleep has not been found to lose the wake-up in any of them.
}

// l07wakerBefore runs one placement of TestL07SysmonWaitSetUnderLock: the M
// comes just before sysmon's k-th operation on the course's atomics after
// its first sleep. It reports whether sysmon made a k-th operation before
// its deep sleep (false: no placement k, the placements are done). It fails
// t if the wake-up was lost.
func l07wakerBefore(t *testing.T, k int) bool {
	t.Helper()
	const (
		waiting  = iota // for sysmon's first sleep
		counting        // sysmon's operations, up to k
		injected        // the M ran before operation k
		passed          // sysmon went into its deep sleep first
	)
	var (
		state    atomic.Int32
		sysmonID atomic.Uint64
		ops      atomic.Int64
		sched    atomic.Pointer[schedt]
		leaver   atomic.Pointer[m] // theM's M
		syscallP atomic.Pointer[p]
		probs    l07problems
		mDone    = make(chan struct{})
	)
	// theM is an M leaving a syscall: its old P is gone, so it takes the
	// idle one (exitsyscallfast, which wakes sysmon if sysmonwait is set),
	// and its G enters a syscall again at once (entersyscall, which wakes
	// sysmon if sysmonwait is set). Hand-made: nothing else runs them.
	theM := func(idc chan<- uint64) {
		defer close(mDone)
		idc <- kitGoid()
		defer func() {
			if r := recover(); r != nil {
				probs.add("test setup: the M leaving its syscall panicked: %v", r)
			}
		}()
		s := sched.Load()
		mp := leaver.Load()
		gp := kitG(s, 900)
		gp.atomicstatus.Store(_Gsyscall)
		gp.m = mp
		mp.curg.Store(gp)
		if !exitsyscallfast(mp, nil) {
			probs.add("test setup: every P was idle, yet the M leaving its syscall found none to take")
			return
		}
		pp := mp.p
		pp.syscalltick.Add(1) // as exitsyscall does; also makes sysmon's next look a first sighting
		casgstatus(gp, _Gsyscall, _Grunning)
		entersyscall(gp)
		syscallP.Store(pp)
	}
	hook := func() {
		if state.Load() != counting || kitGoid() != sysmonID.Load() || ops.Add(1) != int64(k) || !state.CompareAndSwap(counting, injected) {
			return
		}
		idc := make(chan uint64, 1)
		go theM(idc)
		id := <-idc
		// Let sysmon go on once the M is done, or waits for a lock that
		// sysmon may hold here.
		if !l07await(10*time.Second, func() bool {
			select {
			case <-mDone:
				return true
			default:
				return l07blockedOnMutex(id)
			}
		}) {
			probs.add("test setup: the M leaving its syscall neither finished nor waited for a lock within 10s")
		}
	}
	old := setInterleaveHook(hook)
	defer setInterleaveHook(old)

	ready := make(chan struct{}) // sched is stored: the M may come
	c := l07newDclock(func(n int, usec int64) {
		if n == 1 {
			<-ready
			sysmonID.Store(kitGoid())
			state.CompareAndSwap(waiting, counting)
		}
	})
	rt := New(Config{Procs: 1, ForcePreempt: time.Hour, Usleep: c.usleep, Nanotime: c.now.Load})
	sched.Store(rt.sched)
	leaver.Store(kitNewM(rt.sched)) // before sysmon's first sleep ends: sched.lock is free
	close(ready)
	s := rt.sched
	defer l07close(t, rt)

	// Wait for the M to come, or for sysmon to be in its deep sleep (blocked
	// on sysmonnote: notetsleep's select, or notesleep's receive) without
	// having made k operations.
	if !l07await(10*time.Second, func() bool {
		if state.Load() == injected {
			return true
		}
		id := sysmonID.Load()
		return id != 0 && l07goroutineIn(id, "select", "chan receive") && state.CompareAndSwap(counting, passed)
	}) {
		t.Fatalf("with no G at all (every P idle) and no timer, sysmon did not go into its deep sleep within 10s (it asked for %s; sysmonwait = %v): "+
			"when every P is idle, sysmon sleeps on sched.sysmonnote until someone wakes it%s", kitCount(int(c.count()), "sleep"), s.sysmonwait.Load(), kitHint(l07))
	}
	if state.Load() == passed {
		return false
	}
	select {
	case <-mDone:
	case <-time.After(10 * time.Second):
		t.Fatalf("every P was idle and sysmon set out for its deep sleep; an M leaving a syscall then waited over 10s for sched.lock to take the idle P: "+
			"sysmon must unlock sched.lock before it sleeps%s", kitHint(l07))
	}
	if p := probs.first(); p != "" {
		t.Fatalf("%s", p)
	}
	pp := syscallP.Load()
	taken := func() bool { return pp.status.Load() != _Psyscall }
	deepWithSyscall := func() bool { return s.sysmonwait.Load() && !taken() }
	if !l07await(10*time.Second, func() bool { return taken() || deepWithSyscall() }) {
		t.Fatalf("P %d has been in a syscall for 10s (real time; sysmon asked for %s), no P idle, no M spinning, and sysmon never took it (sysmonwait = %v)%s",
			pp.id, kitCount(int(c.count()), "sleep"), s.sysmonwait.Load(), kitHint(l07))
	}
	if deepWithSyscall() {
		t.Fatalf("every P was idle, so sysmon set out for its deep sleep. Just then (before sysmon's operation #%d on an atomic field since its first sleep), "+
			"an M leaving a syscall took the idle P under sched.lock, where it looks at sched.sysmonwait to wake sysmon, and its G entered a syscall at once (entersyscall looks at sysmonwait too). "+
			"Both found sysmonwait still false and woke nobody. Then sysmon set sysmonwait and went into its deep sleep, with P %d in that syscall: "+
			"nothing would take the P back, or run what waits behind it, for up to 60s. "+
			"Whoever brings a P back to life looks at sysmonwait under sched.lock: set it while you still hold sched.lock (after the second look at the Ps), and unlock only after that%s",
			k, pp.id, kitHint(l07))
	}
	return true
}

// l07deepSleepAfterResize is TestL07SysmonDeepSleep's GOMAXPROCS change:
// a G runs at safe points on the one P, then GOMAXPROCS grows from 1 to 2
// while sysmon runs, and the G runs on one P, the other idle. Not every P
// is idle (npidle 1, gomaxprocs 2): the count to compare with is the one
// of now, read each round, not the one when sysmon started. So sysmon
// keeps its rounds (200 more sleeps asked for) and never sleeps deeply
// once the world has restarted. (A G that runs an hour is preempted only
// then: no preemption here, whatever the timing. A moment with both Ps
// idle, while the G waits on a queue after the world's restart, lets a
// correct sysmon sleep deeply, and nothing wakes it when the G starts:
// under CI's load a correct file failed so. The test wakes it, as the
// world's restart does, once the G runs. A deep sleep so woken may
// announce itself (EvSysmonSleep, after sysmon unlocks) only after the
// wake: what counts is a deep sleep after sysmon's next round begins, when
// it asks for its next sleep.)
func l07deepSleepAfterResize(t *testing.T) {
	t.Helper()
	var armed, measuring, sleptWhileMeasuring atomic.Bool
	c := l07newDclock(func(int, int64) {
		if armed.Load() {
			measuring.Store(true)
		}
	})
	trace := func(ev Event) {
		if ev.Kind == EvSysmonSleep && measuring.Load() {
			sleptWhileMeasuring.Store(true)
		}
	}
	rt := New(Config{Procs: 1, ForcePreempt: time.Hour, Usleep: c.usleep, Nanotime: c.now.Load, Trace: trace})
	defer l07close(t, rt)
	if !l07await(10*time.Second, func() bool { return c.count() >= 1 }) {
		t.Fatalf("sysmon asked for no sleep (Config.Usleep) within 10s%s", kitHint(l07))
	}
	var stop atomic.Bool
	defer stop.Store(true)
	running := make(chan struct{})
	rt.Go(func(g *G) {
		close(running)
		for !stop.Load() {
			g.Safepoint()
		}
	})
	select {
	case <-running:
	case <-time.After(10 * time.Second):
		t.Fatalf("test setup: the G did not start within 10s")
	}
	if old := rt.GOMAXPROCS(2); old != 1 { // sysmon is in its rounds: the resize comes after its start
		t.Fatalf("test setup: GOMAXPROCS(2) reported %s before, want 1", kitCount(int(old), "P"))
	}
	if !l07await(10*time.Second, func() bool { return rt.sched.npidle.Load() == 1 }) {
		t.Fatalf("test setup: with a G running on one of 2 Ps, npidle did not settle at 1 within 10s (it is %d)", rt.sched.npidle.Load())
	}
	// A correct sysmon may be in its deep sleep now, legitimately: after
	// the world restarted, the G waited a moment on a queue with both Ps
	// idle, and nothing wakes sysmon when a G starts. Wake it as the
	// world's restart does: a correct one, with a P running, keeps its
	// rounds from here on; one that compares with a stale count sleeps
	// deeply again at once. The sleeps counted, and the deep sleeps
	// judged, are those from sysmon's next round on.
	start := c.count()
	sched := rt.sched
	sched.lock.Lock()
	if sched.sysmonwait.Load() {
		sched.sysmonwait.Store(false)
		notewakeup(&sched.sysmonnote)
	}
	sched.lock.Unlock()
	armed.Store(true)
	if !l07await(10*time.Second, func() bool { return c.count() >= start+200 || sleptWhileMeasuring.Load() }) || sleptWhileMeasuring.Load() {
		t.Fatalf("a G ran at safe points on the one P; GOMAXPROCS grew from 1 to 2 while sysmon ran, the G on one P, the other idle, and sysmon %s. "+
			"Not every P is idle: npidle == gomaxprocs must compare with gomaxprocs as it is now, read each round, not once when sysmon starts (procresize changes it)%s",
			map[bool]string{true: "went into its deep sleep (EvSysmonSleep) while the G ran", false: fmt.Sprintf("asked for only %s in 10s (real time), and none since", kitCount(int(c.count()-start), "sleep"))}[sleptWhileMeasuring.Load()], kitHint(l07))
	}
	stop.Store(true)
	l07finish(t, rt, 10*time.Second)
}
