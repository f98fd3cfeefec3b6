package sched

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Behavioural tests of the scheduler as a whole, ported from the runtime's
// proc_test.go and crash_test.go: fairness (runnext + preemption),
// parallelism (wakep + stealing), syscalls, deadlock reports, resizing under
// load, panics and Close.
//
// The helpers below are prefixed bt ("behavioural test") so as not to clash
// with the package's shared test helpers.

// btGuard bounds every wait in these tests. It is not a timing assertion: a
// correct scheduler finishes each wait in milliseconds; the guard only turns
// a hang into a failure that says what was being waited for.
const btGuard = 10 * time.Second

// btWait returns rt.Wait(), failing the test if it has not returned within
// btGuard. abort, if not nil, is set before failing, so that Gs spinning
// without a safe point can leave and Close can return.
func btWait(t *testing.T, rt *Runtime, abort *atomic.Bool) error {
	t.Helper()
	errc := make(chan error, 1)
	go func() { errc <- rt.Wait() }()
	select {
	case err := <-errc:
		return err
	case <-time.After(btGuard):
		if abort != nil {
			abort.Store(true)
		}
		t.Fatalf("Runtime.Wait did not return within %v: expected every G to finish "+
			"(a G never preempted, a lost wake-up, or a deadlock not reported?)", btGuard)
		return nil
	}
}

// btAwait waits for ch to be closed, failing the test after btGuard.
func btAwait(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(btGuard):
		t.Fatalf("timed out after %v waiting for %s", btGuard, what)
	}
}

// btAwaitProgress waits for ch to be closed, as btAwait, where how long
// that takes depends on the machine's load: it fails when progress (a count
// of Gs finished) stands still for btGuard, a hang, or when the work waited
// for makes no step (steps, its own count) for btStarved while Gs go on
// finishing, a G starved. Each step restarts the starved clock: eight
// resizes from inside, each seconds behind runnext chains on a machine
// running two -race processes at once, took more than btStarved together
// in a CI flake hunt while none of them starved.
func btAwaitProgress(t *testing.T, ch <-chan struct{}, what string, steps, progress func() int64) {
	t.Helper()
	starved := time.NewTimer(btStarved)
	defer starved.Stop()
	tick := time.NewTicker(btGuard)
	defer tick.Stop()
	last, lastStep := progress(), steps()
	for {
		select {
		case <-ch:
			return
		case <-starved.C:
			if s := steps(); s != lastStep {
				lastStep = s
				starved.Reset(btStarved)
				continue
			}
			t.Fatalf("still waiting for %s after %v with no step of it done (%d so far), while other Gs kept finishing: starved", what, btStarved, lastStep)
		case <-tick.C:
			now := progress()
			if now == last {
				t.Fatalf("timed out waiting for %s: no G finished for %v", what, btGuard)
			}
			last = now
			if s := steps(); s != lastStep {
				lastStep = s
				starved.Reset(btStarved)
			}
		}
	}
}

// btStarved bounds btAwaitProgress: six guards, far above the slowest wait
// seen on a loaded machine (a G on the global queue behind runnext chains).
const btStarved = 6 * btGuard

// btDeadlock asserts that err is a *DeadlockError and returns it.
func btDeadlock(t *testing.T, err error) *DeadlockError {
	t.Helper()
	var de *DeadlockError
	require.Truef(t, errors.As(err, &de), "Wait() = %v (%T); expected a *DeadlockError", err, err)
	return de
}

// btPanic asserts that err is a *PanicError and returns it.
func btPanic(t *testing.T, err error) *PanicError {
	t.Helper()
	var pe *PanicError
	require.Truef(t, errors.As(err, &pe), "Wait() = %v (%T); expected a *PanicError", err, err)
	return pe
}

// TestPingPongHog ports the runtime's test of the same name: on one P, a
// "hog" pair of Gs (1e6 iterations per hand-off) and a "light" pair (1e3)
// ping-pong on unbuffered channels. Each pair hands the P back and forth
// through runnext, sharing one time slice, until sysmon preempts it; then the
// other pair gets a slice. So both pairs get about the same CPU time and
// their counts are within a factor of 20. Without runnext, the pairs would
// alternate at every hand-off and the hog would count ~1000× more; without
// preemption, one pair would never run.
//
// Instead of sleeping 100ms as the runtime does, the test runs until the P
// has passed between the pairs a fixed number of times.
func TestPingPongHog(t *testing.T) {
	switches := int32(20)
	if testing.Short() {
		switches = 6
	}
	rt := New(Config{Procs: 1})
	defer rt.Close()

	var done atomic.Bool
	var last, nswitch atomic.Int32
	enough := make(chan struct{})
	// turn is called at the start of every round of counting: it counts the
	// times the P went from one pair to the other.
	turn := func(pair int32) {
		if last.Swap(pair) != pair && nswitch.Add(1) == switches {
			close(enough)
		}
	}
	// Each counter is written by the two Gs of one pair, which hand it to
	// each other through their channel; the test reads it after Wait.
	var hogCount, lightCount int
	pingPong := func(pair int32, limit int, counter *int) {
		ch := NewChan[bool](0)
		rt.Go(func(g *G) {
			for !done.Load() {
				turn(pair)
				for i := 0; i < limit; i++ {
					*counter++
				}
				ch.Send(g, true)
				ch.Recv(g)
			}
			ch.Close(g)
		})
		rt.Go(func(g *G) {
			for {
				if _, ok := ch.Recv(g); !ok {
					return
				}
				turn(pair)
				for i := 0; i < limit; i++ {
					*counter++
				}
				ch.Send(g, true)
			}
		})
	}
	pingPong(1, 1e6, &hogCount)
	pingPong(2, 1e3, &lightCount)

	btAwait(t, enough, fmt.Sprintf("the P to pass %d times between the hog and the light pair "+
		"(does sysmon preempt a pair that shares one time slice through runnext?)", switches))
	done.Store(true)
	require.NoError(t, btWait(t, rt, nil))

	const factor = 20
	if hogCount/factor > lightCount || lightCount/factor > hogCount {
		t.Fatalf("expected hogCount/lightCount in [1/%d, %d]; got %d/%d = %g",
			factor, factor, hogCount, lightCount, float64(hogCount)/float64(lightCount))
	}
}

// TestPreemption ports the runtime's test: on one P, two Gs take turns, each
// spinning (calling only Safepoint) until the other has had its turn. The
// spinner holds the only P, so the other G runs only if sysmon preempts the
// spinner at a safe point.
func TestPreemption(t *testing.T) {
	n := 5
	if testing.Short() {
		n = 2
	}
	rt := New(Config{Procs: 1})
	defer rt.Close()
	var x atomic.Uint32
	var turns [2]atomic.Int32
	for id := uint32(0); id < 2; id++ {
		rt.Go(func(g *G) {
			for i := 0; i < n; i++ {
				for x.Load() != id {
					g.Safepoint()
				}
				turns[id].Add(1)
				x.Store(1 - id)
			}
		})
	}
	require.NoError(t, btWait(t, rt, nil))
	for id := range turns {
		assert.EqualValues(t, n, turns[id].Load(), "turns taken by spinner %d", id)
	}
}

// TestPreemptionAfterSyscall ports the runtime's test: 8 Gs on 2 Ps loop
// over short system calls (busy for d, as the runtime's fakeSyscall). All
// must get to run, and all must stop when asked: the Ps go back and forth
// between _Psyscall and their Gs, retaken by sysmon, with Ms leaving
// syscalls to find their P taken.
func TestPreemptionAfterSyscall(t *testing.T) {
	for _, d := range []time.Duration{10 * time.Microsecond, 100 * time.Microsecond, time.Millisecond} {
		t.Run(d.String(), func(t *testing.T) {
			iterations := 3
			if testing.Short() {
				iterations = 1
			}
			const nroutines = 8
			for it := 0; it < iterations; it++ {
				rt := New(Config{Procs: 2})
				defer rt.Close()
				var stop atomic.Bool
				var started, syscalls atomic.Int32
				allStarted := make(chan struct{})
				for i := 0; i < nroutines; i++ {
					rt.Go(func(g *G) {
						if started.Add(1) == nroutines {
							close(allStarted)
						}
						for !stop.Load() {
							g.Syscall(func() {
								for start := time.Now(); time.Since(start) < d; {
								}
							})
							syscalls.Add(1)
						}
					})
				}
				btAwait(t, allStarted, fmt.Sprintf("all %d Gs to start while the others loop over system calls", nroutines))
				stop.Store(true)
				require.NoError(t, btWait(t, rt, nil))
				assert.GreaterOrEqual(t, syscalls.Load(), int32(1), "system calls made")
				require.NoError(t, rt.CheckInvariants(), "invariants after every G finished")
			}
		})
	}
}

// TestGoroutineParallelism ports the runtime's test: P Gs on P Ps must all
// run at the same time, for each waits (without a safe point, so that no
// preemption can help) until the others have moved a shared counter on.
// That needs wakep to start an M per P and the Ms to steal the Gs queued on
// one P. Gs are started from outside (the global queue) and from inside a G
// (its runnext and local queue).
func TestGoroutineParallelism(t *testing.T) {
	procs, tries := 3, 3
	if testing.Short() {
		procs, tries = 2, 2
	}
	for _, from := range []string{"outside", "inside"} {
		t.Run(from, func(t *testing.T) {
			for try := 0; try < tries; try++ {
				rt := New(Config{Procs: procs})
				defer rt.Close()
				var x atomic.Uint32
				var abort atomic.Bool
				body := func(p int) func(*G) {
					return func(g *G) {
						for i := 0; i < 3; i++ {
							expected := uint32(procs*i + p)
							for x.Load() != expected {
								if abort.Load() {
									return
								}
							}
							x.Store(expected + 1)
						}
					}
				}
				if from == "outside" {
					for p := 0; p < procs; p++ {
						rt.Go(body(p))
					}
				} else {
					rt.Go(func(g *G) {
						for p := 0; p < procs; p++ {
							g.Go(body(p))
						}
					})
				}
				require.NoError(t, btWait(t, rt, &abort))
				require.EqualValues(t, 3*procs, x.Load(), "final counter: every G must have taken its 3 turns")
			}
		})
	}
}

// TestDeadlock checks the runtime's deadlock report (crash_test.go
// SimpleDeadlock): when every G left is blocked and no M runs, Wait returns
// a *DeadlockError whose message is the runtime's, word for word, listing
// each blocked G with what it waits for.
func TestDeadlock(t *testing.T) {
	const msg = "all goroutines are asleep - deadlock!"
	cases := []struct {
		name, reason string
		block        func(g *G)
	}{
		{"receive", "chan receive", func(g *G) { NewChan[int](0).Recv(g) }},
		{"send", "chan send", func(g *G) { NewChan[int](0).Send(g, 1) }},
		{"send full buffer", "chan send", func(g *G) { c := NewChan[int](1); c.Send(g, 1); c.Send(g, 2) }},
		{"Mutex", "sync.Mutex.Lock", func(g *G) { var mu Mutex; mu.Lock(g); mu.Lock(g) }},
		{"WaitGroup", "sync.WaitGroup.Wait", func(g *G) { var wg WaitGroup; wg.Add(1); wg.Wait(g) }},
		{"Park", "park", func(g *G) { g.Park(nil) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rt := New(Config{Procs: 2})
			defer rt.Close()
			var id atomic.Int64
			rt.Go(func(g *G) {
				id.Store(g.ID())
				tc.block(g)
			})
			de := btDeadlock(t, btWait(t, rt, nil))
			assert.True(t, strings.HasPrefix(de.Error(), msg), "Error() = %q; expected it to start with %q", de.Error(), msg)
			assert.Equal(t, []WaitingG{{ID: id.Load(), Reason: tc.reason}}, de.Waiting, "blocked Gs")
			assert.Contains(t, de.Error(), fmt.Sprintf("goroutine %d [%s]", id.Load(), tc.reason))
		})
	}
}

// TestDeadlockManyGs: a deadlock among Gs that have run for a while lists
// every blocked G, sorted by ID, each with its own reason. The even Gs block
// sending; the odd ones queue for a Mutex whose holder (the first odd G to
// get it) blocks receiving on a channel nobody sends to.
func TestDeadlockManyGs(t *testing.T) {
	rt := New(Config{Procs: 3})
	defer rt.Close()
	const n = 20
	var ids [n]atomic.Int64
	sendq, never := NewChan[int](0), NewChan[int](0)
	var mu Mutex
	for i := 0; i < n; i++ {
		rt.Go(func(g *G) {
			ids[i].Store(g.ID())
			for j := 0; j < 20; j++ {
				g.Gosched()
			}
			if i%2 == 0 {
				sendq.Send(g, i)
			} else {
				mu.Lock(g)
				never.Recv(g)
			}
		})
	}
	de := btDeadlock(t, btWait(t, rt, nil))
	require.Len(t, de.Waiting, n, "blocked Gs in %v", de.Waiting)
	for i := 1; i < n; i++ {
		assert.Less(t, de.Waiting[i-1].ID, de.Waiting[i].ID, "Waiting must be sorted by ID: %v", de.Waiting)
	}
	reasons := map[int64]string{}
	for _, w := range de.Waiting {
		reasons[w.ID] = w.Reason
	}
	holders := 0
	for i := 0; i < n; i++ {
		r := reasons[ids[i].Load()]
		switch {
		case i%2 == 0:
			assert.Equal(t, "chan send", r, "reason of G %d (ID %d), a sender", i, ids[i].Load())
		case r == "chan receive":
			holders++
		default:
			assert.Equal(t, "sync.Mutex.Lock", r, "reason of G %d (ID %d), waiting for the Mutex", i, ids[i].Load())
		}
	}
	assert.Equal(t, 1, holders, "odd Gs waiting in chan receive (the Mutex holder)")
}

// TestNoFalseDeadlock: Gs blocked while another sleeps, or while another is
// in a system call, are not deadlocked: the sleeper's timer or the syscall
// will wake them.
func TestNoFalseDeadlock(t *testing.T) {
	t.Run("sleep", func(t *testing.T) {
		rt := New(Config{Procs: 2})
		defer rt.Close()
		ch := NewChan[int](0)
		var got atomic.Int64
		rt.Go(func(g *G) { v, _ := ch.Recv(g); got.Store(int64(v)) })
		rt.Go(func(g *G) { g.Sleep(5 * time.Millisecond); ch.Send(g, 7) })
		require.NoError(t, btWait(t, rt, nil), "a G blocked while another sleeps is not a deadlock")
		assert.EqualValues(t, 7, got.Load(), "value received after the sleep")
	})
	t.Run("syscall", func(t *testing.T) {
		rt := New(Config{Procs: 1})
		defer rt.Close()
		ch := NewChan[int](0)
		var got atomic.Int64
		rt.Go(func(g *G) { v, _ := ch.Recv(g); got.Store(int64(v)) })
		rt.Go(func(g *G) {
			g.Syscall(func() { time.Sleep(20 * time.Millisecond) }) // the system call's duration, not a wait
			ch.Send(g, 7)
		})
		require.NoError(t, btWait(t, rt, nil), "a G blocked while another is in a system call is not a deadlock")
		assert.EqualValues(t, 7, got.Load(), "value received after the system call")
	})
	t.Run("no Gs", func(t *testing.T) {
		rt := New(Config{Procs: 2})
		defer rt.Close()
		require.NoError(t, btWait(t, rt, nil), "Wait with no Gs at all")
	})
}

// TestParkReady: Park's commit runs once the G is parked, so it can publish
// the G for another to Ready; a commit that returns false does not park.
// With one P and no sysmon the order is fixed: the child runs only once the
// parent has parked.
func TestParkReady(t *testing.T) {
	var rec Recorder
	rt := New(Config{Procs: 1, NoSysmon: true, Trace: rec.Record})
	defer rt.Close()
	var waiter atomic.Pointer[G]
	var resumed, notParked atomic.Bool
	var parentID atomic.Int64
	rt.Go(func(g *G) {
		parentID.Store(g.ID())
		g.Park(func() bool { return false })
		notParked.Store(true)
		g.Go(func(g *G) {
			w := waiter.Load()
			if assert.NotNil(t, w, "the parent's commit must have run before the child does") {
				g.Ready(w)
			}
		})
		g.Park(func() bool { waiter.Store(g); return true })
		resumed.Store(true)
	})
	require.NoError(t, btWait(t, rt, nil))
	assert.True(t, notParked.Load(), "Park with a commit returning false must return")
	assert.True(t, resumed.Load(), "Park must return once another G readies the parked G")
	var parks, unparks int
	for _, ev := range rec.Events() {
		if ev.G != parentID.Load() {
			continue
		}
		switch ev.Kind {
		case EvGoPark:
			parks++
			assert.Equal(t, "park", waitReason(ev.Arg).String(), "wait reason of %v", ev)
		case EvGoUnpark:
			unparks++
		}
	}
	assert.Equal(t, 2, parks, "EvGoPark events of the parent")
	assert.Equal(t, 2, unparks, "EvGoUnpark events of the parent (one for the declined park, one for Ready)")
}

// TestResizeUnderLoad is TestStopTheWorldDeadlock: GOMAXPROCS changes from
// outside and from inside a G, while Gs spawn, ping-pong, yield, sleep and
// make system calls, must neither deadlock nor lose a G. Debug mode checks
// the invariants at every stop-the-world.
func TestResizeUnderLoad(t *testing.T) {
	// A G that resizes goes through a system call and, if it finds no idle
	// P when the world restarts, waits on the global queue: behind the
	// perpetuum mobile and the ping-pong pairs, which hand one time slice
	// down through runnext. On one P that is 25-70ms a call under -race
	// (the global queue is looked at every 61st schedule and when the local
	// queue is empty), and seconds on a loaded machine, hence fewer calls
	// from inside, and a guard on progress rather than on time.
	iters, insideIters := 100, 20
	if testing.Short() {
		iters, insideIters = 25, 8
	}
	rt := New(Config{Procs: 2, Debug: true})
	defer rt.Close()
	var stop atomic.Bool
	var created, finished atomic.Int64
	spawn := func(g *G, fn func(*G)) {
		created.Add(1)
		g.Go(func(g *G) { fn(g); finished.Add(1) })
	}

	// Resize from outside.
	outside := make(chan struct{})
	go func() {
		defer close(outside)
		for i := 0; i < iters; i++ {
			rt.GOMAXPROCS(1 + i%4)
		}
	}()
	// Resize from inside a G.
	inside := make(chan struct{})
	var insideDone atomic.Int64
	created.Add(1)
	rt.Go(func(g *G) {
		for i := 0; i < insideIters; i++ {
			g.GOMAXPROCS(1 + (i*3)%5)
			insideDone.Add(1)
		}
		close(inside)
		finished.Add(1)
	})
	// The load.
	var mobile func(g *G)
	mobile = func(g *G) { // perpetuum mobile: each G starts the next
		if !stop.Load() {
			spawn(g, mobile)
		}
	}
	created.Add(1)
	rt.Go(func(g *G) {
		spawn(g, mobile)
		for pair := 0; pair < 2; pair++ {
			ch := NewChan[int](0)
			spawn(g, func(g *G) {
				for !stop.Load() {
					ch.Send(g, 1)
				}
				ch.Close(g)
			})
			spawn(g, func(g *G) {
				for {
					if _, ok := ch.Recv(g); !ok {
						return
					}
				}
			})
		}
		spawn(g, func(g *G) {
			for !stop.Load() {
				g.Syscall(func() {})
			}
		})
		spawn(g, func(g *G) {
			for !stop.Load() {
				g.Sleep(100 * time.Microsecond)
			}
		})
		for !stop.Load() {
			// Bursts that fill local run queues, for procresize to move.
			for i := 0; i < 50; i++ {
				spawn(g, func(g *G) { g.Gosched() })
			}
			g.Gosched()
		}
		finished.Add(1)
	})

	btAwait(t, outside, fmt.Sprintf("%d Runtime.GOMAXPROCS calls from outside under load", iters))
	btAwaitProgress(t, inside, fmt.Sprintf("%d G.GOMAXPROCS calls from inside a G under load", insideIters), insideDone.Load, finished.Load)
	stop.Store(true)
	require.NoError(t, btWait(t, rt, nil))
	assert.Equal(t, created.Load(), finished.Load(), "Gs finished, of those created")
	assert.Equal(t, 0, rt.NumGoroutine(), "live Gs after Wait")
	require.NoError(t, rt.CheckInvariants(), "invariants after Wait")
}

// TestGOMAXPROCS: the number of Ps reported and set, from outside and from
// a G.
func TestGOMAXPROCS(t *testing.T) {
	rt := New(Config{Procs: 2})
	defer rt.Close()
	require.Equal(t, 2, rt.GOMAXPROCS(0), "GOMAXPROCS(0) of a Runtime with Procs 2")
	require.Equal(t, 2, rt.GOMAXPROCS(5), "GOMAXPROCS(5) returns the previous number")
	require.Equal(t, 5, rt.GOMAXPROCS(-1), "GOMAXPROCS(-1) after GOMAXPROCS(5)")
	require.Len(t, rt.sched.allp, 5, "allp after GOMAXPROCS(5)")
	var in0, old, after atomic.Int64
	rt.Go(func(g *G) {
		in0.Store(int64(g.GOMAXPROCS(0)))
		old.Store(int64(g.GOMAXPROCS(1)))
		after.Store(int64(g.GOMAXPROCS(0)))
	})
	require.NoError(t, btWait(t, rt, nil))
	assert.EqualValues(t, 5, in0.Load(), "G.GOMAXPROCS(0)")
	assert.EqualValues(t, 5, old.Load(), "G.GOMAXPROCS(1) returns the previous number")
	assert.EqualValues(t, 1, after.Load(), "G.GOMAXPROCS(0) after G.GOMAXPROCS(1)")
	assert.Equal(t, 1, rt.GOMAXPROCS(0), "Runtime.GOMAXPROCS(0) after the G set 1")
	require.NoError(t, rt.CheckInvariants())
}

// TestPanic: a G that panics makes Wait return a *PanicError with the G's
// ID and the panic value, as the runtime would crash with it.
func TestPanic(t *testing.T) {
	t.Run("value", func(t *testing.T) {
		rt := New(Config{Procs: 2})
		defer rt.Close()
		var id atomic.Int64
		rt.Go(func(g *G) {
			g.Go(func(g *G) {
				id.Store(g.ID())
				panic("boom")
			})
		})
		pe := btPanic(t, btWait(t, rt, nil))
		assert.Equal(t, "boom", pe.Value, "PanicError.Value")
		assert.Equal(t, id.Load(), pe.G, "PanicError.G")
		assert.Contains(t, pe.Error(), fmt.Sprintf("panic in G %d: boom", id.Load()))
	})
	t.Run("error", func(t *testing.T) {
		rt := New(Config{Procs: 1})
		defer rt.Close()
		errBoom := errors.New("boom")
		rt.Go(func(g *G) { panic(errBoom) })
		pe := btPanic(t, btWait(t, rt, nil))
		assert.Equal(t, errBoom, pe.Value, "PanicError.Value")
	})
	t.Run("others blocked", func(t *testing.T) {
		// A panic ends Wait even though the other Gs are blocked: it is a
		// panic, not a deadlock.
		rt := New(Config{Procs: 2})
		defer rt.Close()
		ch := NewChan[int](0)
		rt.Go(func(g *G) { ch.Recv(g) })
		rt.Go(func(g *G) { g.Gosched(); panic(42) })
		pe := btPanic(t, btWait(t, rt, nil))
		assert.Equal(t, 42, pe.Value, "PanicError.Value")
	})
}

// TestCloseUnwindsParkedGs: Close stops the Ms, then unwinds every G left,
// running its deferred calls, and returns; Wait then reports that the
// Runtime was closed.
func TestCloseUnwindsParkedGs(t *testing.T) {
	rt := New(Config{Procs: 2})
	var unwound atomic.Int32
	ch := NewChan[int](0)
	full := NewChan[int](0)
	var mu Mutex
	var wg WaitGroup
	wg.Add(1)
	require.True(t, mu.TryLock(), "TryLock on a new Mutex") // held by nobody's G, for ever
	blockers := []func(g *G){
		func(g *G) { ch.Recv(g) },
		func(g *G) { full.Send(g, 1) },
		func(g *G) { mu.Lock(g) },
		func(g *G) { g.Gosched(); mu.Lock(g) },
		func(g *G) { wg.Wait(g) },
		func(g *G) { g.Sleep(time.Hour) },
		func(g *G) { g.Park(nil) },
	}
	var ready atomic.Int32
	allReady := make(chan struct{})
	for _, block := range blockers {
		rt.Go(func(g *G) {
			defer unwound.Add(1)
			if ready.Add(1) == int32(len(blockers)) {
				close(allReady)
			}
			block(g)
			t.Errorf("G %d returned from a call that blocks forever", g.ID())
		})
	}
	btAwait(t, allReady, "every G to start")

	closed := make(chan struct{})
	go func() { rt.Close(); close(closed) }()
	btAwait(t, closed, "Close to return with Gs parked")
	assert.EqualValues(t, len(blockers), unwound.Load(), "Gs whose deferred calls ran at Close")
	err := btWait(t, rt, nil)
	require.Error(t, err, "Wait after Close with Gs unfinished")
	assert.Contains(t, err.Error(), "closed", "Wait's error after Close")
	rt.Close() // a second Close is harmless
}

// TestGoAfterWait: a finished Runtime refuses new Gs with a clear panic, as
// does a closed one.
func TestGoAfterWait(t *testing.T) {
	rt := New(Config{Procs: 1})
	defer rt.Close()
	rt.Go(func(g *G) {})
	require.NoError(t, btWait(t, rt, nil))
	msg := func(f func()) (s string) {
		defer func() { s = fmt.Sprint(recover()) }()
		f()
		return "no panic"
	}
	got := msg(func() { rt.Go(func(g *G) {}) })
	assert.True(t, strings.HasPrefix(got, "sched: ") && strings.Contains(got, "Wait returned"),
		"Go after Wait returned: panic %q; expected a \"sched: \" message saying Wait returned", got)

	rt2 := New(Config{Procs: 1})
	rt2.Close()
	got = msg(func() { rt2.Go(func(g *G) {}) })
	assert.True(t, strings.HasPrefix(got, "sched: ") && strings.Contains(got, "closed"),
		"Go after Close: panic %q; expected a \"sched: \" message saying the Runtime is closed", got)
}

// TestSleep: a sleeping G wakes after at least its duration (on
// testing/synctest's fake clock, so exactly), and many Gs sleeping short
// times at once on several Ps all wake (under -race, this also checks the
// timers' locking).
func TestSleep(t *testing.T) {
	t.Run("duration", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			rt := New(Config{Procs: 1})
			defer rt.Close()
			var slept [3]time.Duration
			rt.Go(func(g *G) {
				for i, d := range []time.Duration{time.Millisecond, 5 * time.Millisecond, time.Second} {
					start := time.Now()
					g.Sleep(d)
					slept[i] = time.Since(start)
				}
			})
			require.NoError(t, rt.Wait())
			assert.Equal(t, [3]time.Duration{time.Millisecond, 5 * time.Millisecond, time.Second}, slept,
				"time slept by Sleep(1ms), Sleep(5ms), Sleep(1s) on the bubble's clock")
		})
	})
	t.Run("many short", func(t *testing.T) {
		rt := New(Config{Procs: 3})
		defer rt.Close()
		const gs, sleeps = 12, 100
		var woke atomic.Int32
		for i := 0; i < gs; i++ {
			rt.Go(func(g *G) {
				for j := 0; j < sleeps; j++ {
					g.Sleep(time.Duration(1+(i+j)%20) * time.Microsecond)
					woke.Add(1)
				}
			})
		}
		require.NoError(t, btWait(t, rt, nil))
		assert.EqualValues(t, gs*sleeps, woke.Load(), "sleeps that returned")
	})
}

// TestCloseWhileGsPark: Close called while Gs are still parking, one of them
// on a timer an hour away, must return. An M about to wait for that timer
// (standing in for the runtime's netpoll block) must see that Close has begun
// or be woken by it, even if the wake-up meant for it went to the M that
// waited before it.
func TestCloseWhileGsPark(t *testing.T) {
	iters := 200
	if testing.Short() {
		iters = 50
	}
	for it := 0; it < iters; it++ {
		rt := New(Config{Procs: 2})
		const n = 6
		var started atomic.Int32
		all := make(chan struct{})
		ch := NewChan[int](0)
		for i := 0; i < n; i++ {
			rt.Go(func(g *G) {
				if started.Add(1) == n {
					close(all)
				}
				if i%2 == 0 {
					g.Sleep(time.Hour)
				} else {
					ch.Recv(g)
				}
			})
		}
		btAwait(t, all, "the Gs to start")
		closed := make(chan struct{})
		go func() { rt.Close(); close(closed) }()
		btAwait(t, closed, fmt.Sprintf("Close to return while Gs park (iteration %d of %d)", it+1, iters))
	}
}
