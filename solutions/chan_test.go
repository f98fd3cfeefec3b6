package sched

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Tests of channels, Mutex and WaitGroup: their semantics, and what the
// scheduler does for them (a receiver readied by a send runs next, in the
// sender's time slice).

// TestChanFIFO: values arrive in the order sent, through an unbuffered or a
// buffered channel, and each sender's values stay in order when several
// send at once.
func TestChanFIFO(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 200
	}
	for _, size := range []int{0, 1, 10} {
		t.Run(fmt.Sprintf("cap %d", size), func(t *testing.T) {
			rt := New(Config{Procs: 3})
			defer rt.Close()
			ch := NewChan[int](size)
			require.Equal(t, size, ch.Cap(), "Cap()")
			var got []int
			rt.Go(func(g *G) {
				g.Go(func(g *G) {
					for i := 0; i < n; i++ {
						ch.Send(g, i)
					}
					ch.Close(g)
				})
				for {
					v, ok := ch.Recv(g)
					if !ok {
						return
					}
					got = append(got, v)
				}
			})
			require.NoError(t, btWait(t, rt, nil))
			require.Len(t, got, n, "values received")
			for i, v := range got {
				if v != i {
					t.Fatalf("value #%d received = %d; expected %d (FIFO order)", i, v, i)
				}
			}
		})
	}
	t.Run("many senders", func(t *testing.T) {
		const senders = 8
		rt := New(Config{Procs: 3})
		defer rt.Close()
		ch := NewChan[[2]int](4)
		next := make([]int, senders) // next value expected from each sender
		bad := ""
		var wg WaitGroup
		wg.Add(senders)
		rt.Go(func(g *G) {
			for s := 0; s < senders; s++ {
				g.Go(func(g *G) {
					for i := 0; i < n/senders; i++ {
						ch.Send(g, [2]int{s, i})
					}
					wg.Done(g)
				})
			}
			g.Go(func(g *G) { wg.Wait(g); ch.Close(g) })
			for {
				v, ok := ch.Recv(g)
				if !ok {
					return
				}
				if v[1] != next[v[0]] && bad == "" {
					bad = fmt.Sprintf("sender %d: received value %d; expected %d", v[0], v[1], next[v[0]])
				}
				next[v[0]] = v[1] + 1
			}
		})
		require.NoError(t, btWait(t, rt, nil))
		require.Empty(t, bad, "each sender's values must arrive in order")
		for s := range next {
			assert.Equal(t, n/senders, next[s], "values received from sender %d", s)
		}
	})
}

// TestChanBlocking: a send blocks while no receiver and no buffer room is
// there; a receive blocks while nothing is sent. The deadlock report proves
// it: the G is parked with the runtime's wait reason, after the sends that
// fit in the buffer went through.
func TestChanBlocking(t *testing.T) {
	cases := []struct {
		name   string
		size   int
		sends  int // -1: receive instead
		passed int // operations that must complete
		reason string
	}{
		{"unbuffered send", 0, 1, 0, "chan send"},
		{"buffered send fits", 2, 2, 2, ""},
		{"buffered send full", 2, 3, 2, "chan send"},
		{"unbuffered receive", 0, -1, 0, "chan receive"},
		{"buffered receive empty", 3, -1, 0, "chan receive"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rt := New(Config{Procs: 2})
			defer rt.Close()
			ch := NewChan[int](tc.size)
			var passed atomic.Int32
			var id atomic.Int64
			rt.Go(func(g *G) {
				id.Store(g.ID())
				if tc.sends < 0 {
					ch.Recv(g)
					passed.Add(1)
					return
				}
				for i := 0; i < tc.sends; i++ {
					ch.Send(g, i)
					passed.Add(1)
				}
			})
			err := btWait(t, rt, nil)
			if tc.reason == "" {
				require.NoError(t, err)
				assert.Equal(t, tc.size, ch.Len(), "Len() of the buffer")
			} else {
				de := btDeadlock(t, err)
				assert.Equal(t, []WaitingG{{ID: id.Load(), Reason: tc.reason}}, de.Waiting, "blocked Gs")
			}
			assert.EqualValues(t, tc.passed, passed.Load(), "operations that completed")
		})
	}
}

// TestChanClose: close wakes every blocked receiver with the zero value and
// ok == false; buffered values are still received first; a closed, drained
// channel returns at once.
func TestChanClose(t *testing.T) {
	t.Run("wakes receivers", func(t *testing.T) {
		// One P, no sysmon: the receivers run, and park, before the parent
		// (gone to the global queue by Gosched) runs again to close.
		var rec Recorder
		rt := New(Config{Procs: 1, NoSysmon: true, Trace: rec.Record})
		defer rt.Close()
		const n = 5
		ch := NewChan[int](0)
		var ids [n]atomic.Int64
		var oks, zeros atomic.Int32
		rt.Go(func(g *G) {
			for i := 0; i < n; i++ {
				g.Go(func(g *G) {
					ids[i].Store(g.ID())
					v, ok := ch.Recv(g)
					if !ok {
						oks.Add(1)
					}
					if v == 0 {
						zeros.Add(1)
					}
				})
			}
			g.Gosched()
			ch.Close(g)
		})
		require.NoError(t, btWait(t, rt, nil))
		assert.EqualValues(t, n, oks.Load(), "receivers woken by Close with ok == false")
		assert.EqualValues(t, n, zeros.Load(), "receivers woken by Close with the zero value")
		parked := map[int64]int{}
		for _, ev := range rec.Events() {
			if ev.Kind == EvGoPark && waitReason(ev.Arg).String() == "chan receive" {
				parked[ev.G]++
			}
		}
		for i := range ids {
			assert.Equal(t, 1, parked[ids[i].Load()], "times receiver %d parked in chan receive before Close", i)
		}
	})
	t.Run("drains buffer first", func(t *testing.T) {
		rt := New(Config{Procs: 2})
		defer rt.Close()
		ch := NewChan[int](3)
		type res struct {
			v  int
			ok bool
		}
		var got []res
		rt.Go(func(g *G) {
			ch.Send(g, 1)
			ch.Send(g, 2)
			ch.Close(g)
			for i := 0; i < 4; i++ {
				v, ok := ch.Recv(g)
				got = append(got, res{v, ok})
			}
		})
		require.NoError(t, btWait(t, rt, nil))
		assert.Equal(t, []res{{1, true}, {2, true}, {0, false}, {0, false}}, got, "receives after close")
	})
}

// TestChanClosePanics: sending on a closed channel, closing a closed one,
// and a sender blocked when the channel is closed all panic inside the G,
// and Wait returns the panic.
func TestChanClosePanics(t *testing.T) {
	cases := []struct {
		name  string
		value string
		body  func(g *G, id *atomic.Int64)
	}{
		{"send on closed", "send on closed channel", func(g *G, id *atomic.Int64) {
			ch := NewChan[int](1)
			ch.Close(g)
			id.Store(g.ID())
			ch.Send(g, 1)
		}},
		{"close of closed", "close of closed channel", func(g *G, id *atomic.Int64) {
			ch := NewChan[int](0)
			ch.Close(g)
			id.Store(g.ID())
			ch.Close(g)
		}},
		{"blocked sender", "send on closed channel", func(g *G, id *atomic.Int64) {
			// One P, no sysmon: the sender runs and blocks first; the
			// parent, back from the global queue, closes.
			ch := NewChan[int](0)
			g.Go(func(g *G) {
				id.Store(g.ID())
				ch.Send(g, 1)
			})
			g.Gosched()
			ch.Close(g)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rt := New(Config{Procs: 1, NoSysmon: true})
			defer rt.Close()
			var id atomic.Int64
			rt.Go(func(g *G) { tc.body(g, &id) })
			pe := btPanic(t, btWait(t, rt, nil))
			assert.Equal(t, tc.value, pe.Value, "panic value")
			assert.Equal(t, id.Load(), pe.G, "G that panicked")
		})
	}
}

// TestChanHandoffRunsNext: a send to a parked receiver readies it into the
// sender's runnext, so it runs as soon as the sender blocks or exits, ahead
// of Gs queued before, and inherits the time slice (EvGoStart with Arg 1).
func TestChanHandoffRunsNext(t *testing.T) {
	var rec Recorder
	// runnext needs sysmon (without it runqput never uses runnext); a long
	// ForcePreempt keeps sysmon from preempting anything during the test.
	rt := New(Config{Procs: 1, ForcePreempt: time.Hour, Trace: rec.Record})
	defer rt.Close()
	ch := NewChan[int](0)
	var recvID atomic.Int64
	var fillers [3]atomic.Int64
	rt.Go(func(g *G) {
		g.Go(func(g *G) {
			recvID.Store(g.ID())
			ch.Recv(g)
		})
		g.Gosched() // the receiver runs from runnext and parks
		for i := range fillers {
			g.Go(func(g *G) { fillers[i].Store(g.ID()) })
		}
		// runnext: filler 2; ring: filler 0, filler 1. The send puts the
		// receiver in runnext and kicks filler 2 to the ring.
		ch.Send(g, 1)
	})
	require.NoError(t, btWait(t, rt, nil))

	evs := rec.Events()
	unpark := -1
	for i, ev := range evs {
		if ev.Kind == EvGoUnpark && ev.G == recvID.Load() {
			unpark = i
		}
	}
	require.GreaterOrEqual(t, unpark, 0, "no EvGoUnpark for the receiver G %d in\n%s", recvID.Load(), btDump(evs))
	var next *Event
	for i := unpark + 1; i < len(evs); i++ {
		if evs[i].Kind == EvGoStart {
			next = &evs[i]
			break
		}
	}
	require.NotNil(t, next, "no EvGoStart after the receiver was readied in\n%s", btDump(evs))
	assert.Equal(t, recvID.Load(), next.G, "G started next after the send readied the receiver (G %d); trace:\n%s", recvID.Load(), btDump(evs))
	assert.EqualValues(t, 1, next.Arg, "inheritTime of the receiver's EvGoStart after the send: %v", *next)
	for i := range fillers {
		assert.NotZero(t, fillers[i].Load(), "filler %d must still have run", i)
	}
}

// TestChanPingPongSharesTimeSlice: two Gs ping-ponging on one P hand the P
// to each other through runnext: after each has started once, every start
// inherits the time slice, so the pair never waits behind the run queue.
func TestChanPingPongSharesTimeSlice(t *testing.T) {
	const rounds = 100
	var rec Recorder
	rt := New(Config{Procs: 1, ForcePreempt: time.Hour, Trace: rec.Record})
	defer rt.Close()
	ping, pong := NewChan[int](0), NewChan[int](0)
	var a, b atomic.Int64
	rt.Go(func(g *G) {
		a.Store(g.ID())
		for i := 0; i < rounds; i++ {
			ping.Send(g, i)
			pong.Recv(g)
		}
	})
	rt.Go(func(g *G) {
		b.Store(g.ID())
		for i := 0; i < rounds; i++ {
			v, _ := ping.Recv(g)
			pong.Send(g, v)
		}
	})
	require.NoError(t, btWait(t, rt, nil))
	fresh, inherited := map[int64]int{}, 0
	for _, ev := range rec.Events() {
		if ev.Kind != EvGoStart || (ev.G != a.Load() && ev.G != b.Load()) {
			continue
		}
		if ev.Arg == 0 {
			fresh[ev.G]++
		} else {
			inherited++
		}
	}
	assert.Equal(t, map[int64]int{a.Load(): 1, b.Load(): 1}, fresh,
		"EvGoStart with a new time slice (Arg 0) per G: expected only each G's first start")
	assert.GreaterOrEqual(t, inherited, rounds, "EvGoStart events inheriting the time slice (Arg 1)")
}

// TestMutex: mutual exclusion under contention, with Gs yielding and being
// preempted while they hold the lock.
func TestMutex(t *testing.T) {
	gs, iters := 50, 100
	if testing.Short() {
		gs, iters = 20, 50
	}
	rt := New(Config{Procs: 4})
	defer rt.Close()
	var mu Mutex
	counter := 0 // guarded by mu; the race detector checks that too
	var inside, overlaps atomic.Int32
	for i := 0; i < gs; i++ {
		rt.Go(func(g *G) {
			for j := 0; j < iters; j++ {
				mu.Lock(g)
				if inside.Add(1) != 1 {
					overlaps.Add(1)
				}
				c := counter
				if j%10 == 0 {
					g.Gosched()
				}
				counter = c + 1
				inside.Add(-1)
				mu.Unlock(g)
			}
		})
	}
	require.NoError(t, btWait(t, rt, nil))
	assert.Zero(t, overlaps.Load(), "times a G found another inside the critical section")
	assert.Equal(t, gs*iters, counter, "counter incremented under the Mutex")
}

// TestMutexHandoffFIFO: Unlock hands the Mutex to the longest waiter. With
// one P and no sysmon the waiters queue in the order they were started.
func TestMutexHandoffFIFO(t *testing.T) {
	rt := New(Config{Procs: 1, NoSysmon: true})
	defer rt.Close()
	var mu Mutex
	var order []int // appended under mu
	var tryLocked atomic.Bool
	rt.Go(func(g *G) {
		mu.Lock(g)
		tryLocked.Store(mu.TryLock())
		for i := 0; i < 4; i++ {
			g.Go(func(g *G) {
				mu.Lock(g)
				order = append(order, i)
				mu.Unlock(g)
			})
		}
		g.Gosched() // the four queue up behind the lock
		mu.Unlock(g)
	})
	require.NoError(t, btWait(t, rt, nil))
	assert.False(t, tryLocked.Load(), "TryLock on a locked Mutex")
	assert.Equal(t, []int{0, 1, 2, 3}, order, "order in which the waiters got the Mutex")
	assert.True(t, mu.TryLock(), "TryLock on the Mutex once everyone unlocked")
}

// TestMutexUnlockUnlocked panics inside the G.
func TestMutexUnlockUnlocked(t *testing.T) {
	rt := New(Config{Procs: 1})
	defer rt.Close()
	var mu Mutex
	rt.Go(func(g *G) { mu.Unlock(g) })
	pe := btPanic(t, btWait(t, rt, nil))
	assert.Equal(t, "sched: unlock of unlocked Mutex", pe.Value, "panic value")
}

// TestWaitGroup: Wait returns in every waiter only once every Done has
// been called, and at once when the count is zero.
func TestWaitGroup(t *testing.T) {
	workers, waiters := 40, 3
	rt := New(Config{Procs: 3})
	defer rt.Close()
	var wg, zero WaitGroup
	var work atomic.Int32
	var seen sync.Map // waiter -> work done when its Wait returned
	wg.Add(workers)
	for w := 0; w < waiters; w++ {
		rt.Go(func(g *G) {
			zero.Wait(g) // count zero: returns at once
			wg.Wait(g)
			seen.Store(w, work.Load())
		})
	}
	for i := 0; i < workers; i++ {
		rt.Go(func(g *G) {
			for j := 0; j < 5; j++ {
				g.Gosched()
			}
			work.Add(1)
			wg.Done(g)
		})
	}
	require.NoError(t, btWait(t, rt, nil))
	for w := 0; w < waiters; w++ {
		v, ok := seen.Load(w)
		if assert.True(t, ok, "waiter %d never returned from Wait", w) {
			assert.EqualValues(t, workers, v, "work done when waiter %d returned from Wait", w)
		}
	}
}

// TestWaitGroupNegative: Done below zero panics inside the G.
func TestWaitGroupNegative(t *testing.T) {
	rt := New(Config{Procs: 1})
	defer rt.Close()
	var wg WaitGroup
	rt.Go(func(g *G) { wg.Done(g) })
	pe := btPanic(t, btWait(t, rt, nil))
	assert.Equal(t, "sched: negative WaitGroup counter", pe.Value, "panic value")
}

// btDump formats events one per line, for failure messages.
func btDump(evs []Event) string {
	s := ""
	for _, ev := range evs {
		s += ev.String() + "\n"
	}
	return s
}
