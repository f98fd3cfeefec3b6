package sched

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Tests of the event trace: that what it says about each G is consistent,
// whatever the interleaving.

// btTraceWorkload runs a small but busy program on rt: pairs ping-ponging,
// Gs yielding, sleeping, making system calls and sharing a Mutex, and a G
// spinning with no safe point until Gs it queued on its own P have run (so
// they must be stolen).
func btTraceWorkload(t *testing.T, rt *Runtime) {
	t.Helper()
	var abort atomic.Bool
	var mu Mutex
	var wg WaitGroup
	const pairs, loners = 4, 12
	wg.Add(2*pairs + loners)
	rt.Go(func(g *G) {
		for i := 0; i < pairs; i++ {
			ch := NewChan[int](i % 2) // unbuffered and buffered
			g.Go(func(g *G) {
				for j := 0; j < 50; j++ {
					ch.Send(g, j)
				}
				ch.Close(g)
				wg.Done(g)
			})
			g.Go(func(g *G) {
				for {
					if _, ok := ch.Recv(g); !ok {
						break
					}
				}
				wg.Done(g)
			})
		}
		for i := 0; i < loners; i++ {
			g.Go(func(g *G) {
				for j := 0; j < 5; j++ {
					switch (i + j) % 4 {
					case 0:
						g.Gosched()
					case 1:
						g.Syscall(func() {})
					case 2:
						g.Sleep(50 * time.Microsecond)
					case 3:
						mu.Lock(g)
						g.Gosched()
						mu.Unlock(g)
					}
				}
				wg.Done(g)
			})
		}
		wg.Wait(g)
	})
	// A G that queues work on its own P and then holds the P, spinning
	// with no safe point, until that work has run elsewhere.
	rt.Go(func(g *G) {
		const n = 8
		var ran atomic.Int32
		for i := 0; i < n; i++ {
			g.Go(func(g *G) { ran.Add(1) })
		}
		for ran.Load() != n && !abort.Load() {
			runtime.Gosched() // the host's, not the G's: no safe point
		}
	})
	require.NoError(t, btWait(t, rt, &abort))
}

// TestTraceConsistent checks, for the trace of btTraceWorkload: every G
// created has exactly one EvGoEnd, and no event before its EvGoCreate or
// start after its end; EvGoStart never happens twice for a G without an
// EvGoPark, EvGoSched, EvGoPreempt or EvGoSyscall in between; every
// EvGoUnpark follows an EvGoPark not yet unparked; EvGoStart is on a P; every
// EvSteal takes at least one G, from another P; every EvGlobalRunq moves at
// least one G and gives the length the queue's previous length implies.
func TestTraceConsistent(t *testing.T) {
	runs := 3
	if testing.Short() {
		runs = 1
	}
	for _, randomize := range []bool{false, true} {
		t.Run(fmt.Sprintf("RandomizeScheduler %v", randomize), func(t *testing.T) {
			steals, globals := 0, 0
			for run := 0; run < runs; run++ {
				var rec Recorder
				rt := New(Config{Procs: 3, RandomizeScheduler: randomize, Seed: uint64(run + 1), Trace: rec.Record})
				defer rt.Close()
				btTraceWorkload(t, rt)
				s, g := btCheckTrace(t, rec.Events())
				steals, globals = steals+s, globals+g
			}
			// The spinning G's queued work can only run if other Ps steal it.
			assert.Positive(t, steals, "EvSteal events over %d runs", runs)
			// Gosched puts the G on the global queue.
			assert.Positive(t, globals, "EvGlobalRunq events over %d runs", runs)
		})
	}
}

// btCheckTrace checks evs as TestTraceConsistent says, and returns the
// number of EvSteal and EvGlobalRunq events.
func btCheckTrace(t *testing.T, evs []Event) (steals, globals int) {
	t.Helper()
	type gState struct {
		created, ended int
		started        bool // since the last park, yield, preemption or syscall
		parked         int  // EvGoPark not yet matched by EvGoUnpark
	}
	gs := map[int64]*gState{}
	errs := 0
	fail := func(i int, format string, args ...any) {
		if errs++; errs <= 10 {
			lo, hi := max(0, i-8), min(len(evs), i+3)
			t.Errorf("event #%d %v: %s\ncontext:\n%s", i, evs[i], fmt.Sprintf(format, args...), btDump(evs[lo:hi]))
		}
	}
	var globalLen int64 // the global run queue starts empty
	for i, ev := range evs {
		if ev.Kind == EvGlobalRunq {
			globals++
			switch {
			case ev.N == 0:
				fail(i, "EvGlobalRunq that moved no G")
			case ev.Arg != globalLen+ev.N:
				fail(i, "global run queue of %d Gs after %+d; expected %d (it had %d)", ev.Arg, ev.N, globalLen+ev.N, globalLen)
			case ev.Arg < 0:
				fail(i, "global run queue of negative length %d", ev.Arg)
			}
			globalLen = ev.Arg
		}
		if ev.Kind == EvSteal {
			steals++
			if ev.N < 1 {
				fail(i, "steal of N = %d Gs; expected N >= 1", ev.N)
			}
			if int64(ev.P) == ev.Arg {
				fail(i, "P %d stole from itself", ev.P)
			}
			if ev.G == 0 {
				fail(i, "steal without the G to run")
			}
		}
		if ev.G == 0 {
			continue
		}
		s := gs[ev.G]
		if s == nil {
			s = &gState{}
			gs[ev.G] = s
		}
		if ev.Kind != EvGoCreate && s.created == 0 {
			fail(i, "event for G %d before its EvGoCreate", ev.G)
		}
		switch ev.Kind {
		case EvGoCreate:
			s.created++
			if s.created > 1 {
				fail(i, "G %d created %d times; expected once (goids are never reused)", ev.G, s.created)
			}
		case EvGoStart:
			if s.ended > 0 {
				fail(i, "G %d started after its EvGoEnd", ev.G)
			}
			if s.started {
				fail(i, "G %d started twice without EvGoPark, EvGoSched, EvGoPreempt or EvGoSyscall in between", ev.G)
			}
			if s.parked > 0 {
				fail(i, "G %d started while parked (no EvGoUnpark since its EvGoPark)", ev.G)
			}
			if ev.P < 0 {
				fail(i, "EvGoStart without a P")
			}
			if ev.Arg != 0 && ev.Arg != 1 {
				fail(i, "EvGoStart Arg (inheritTime) = %d; expected 0 or 1", ev.Arg)
			}
			s.started = true
		case EvGoPark:
			s.parked++
			s.started = false
		case EvGoUnpark:
			if s.parked == 0 {
				fail(i, "EvGoUnpark of G %d, which has no EvGoPark pending", ev.G)
			} else {
				s.parked--
			}
		case EvGoSched, EvGoPreempt, EvGoSyscall:
			s.started = false
		case EvGoEnd:
			s.ended++
			s.started = false
		}
	}
	for id, s := range gs {
		if s.created == 1 && s.ended != 1 {
			t.Errorf("G %d: %d EvGoEnd events; expected exactly 1", id, s.ended)
		}
	}
	return steals, globals
}

// TestTraceSyscallExitBeforeRequeue: a G leaving a syscall that finds no P
// goes on the global queue, where another M may pick it up and start it at
// once. Its EvGoSyscallExit must therefore be emitted before the G is put
// there; otherwise the trace can show the G started before it left its
// syscall.
//
// One P: G1 enters a syscall with G2 queued; sysmon hands the P to another M,
// which runs G2; G2 holds the P until G1's EvGoSyscallExit has been seen.
// When it is, the trace callback looks at the global queue: G1 must not be
// on it yet.
func TestTraceSyscallExitBeforeRequeue(t *testing.T) {
	var rt *Runtime
	var g1 atomic.Int64
	var release atomic.Bool
	var exitEv atomic.Pointer[Event]
	var onQueue atomic.Bool
	trace := func(ev Event) {
		if ev.Kind != EvGoSyscallExit || ev.G == 0 || ev.G != g1.Load() {
			return
		}
		exitEv.Store(&ev)
		defer release.Store(true)
		sched := rt.sched
		// If the emitter holds sched.lock, nobody can take G1 off the queue
		// before the event is out: nothing to check.
		for try := 0; try < 10000; try++ {
			if sched.lock.TryLock() {
				for gp := sched.runq.head; gp != nil; gp = gp.schedlink {
					if gp.goid == ev.G {
						onQueue.Store(true)
					}
				}
				sched.lock.Unlock()
				return
			}
			runtime.Gosched()
		}
	}
	rt = New(Config{Procs: 1, ForcePreempt: time.Hour, Trace: trace})
	defer rt.Close()
	g2running := make(chan struct{})
	rt.Go(func(g *G) {
		g1.Store(g.ID())
		g.Go(func(g *G) {
			close(g2running)
			for !release.Load() {
				g.Safepoint()
			}
		})
		g.Syscall(func() { <-g2running })
	})
	require.NoError(t, btWait(t, rt, nil))
	ev := exitEv.Load()
	require.NotNil(t, ev, "no EvGoSyscallExit for G1")
	require.EqualValues(t, -1, ev.P, "%v: expected G1 to leave its syscall with no P (its P was retaken and is busy)", *ev)
	assert.False(t, onQueue.Load(), "G1 was already on the global run queue, free for any M to start, "+
		"when its EvGoSyscallExit was emitted (%v)", *ev)
}
