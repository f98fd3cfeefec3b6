package sched

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Tests of sysmon: retake's rules, driven directly with chosen times on a
// Runtime without sysmon; its back-off, with an injected Usleep; and its
// effect on running Gs, under testing/synctest's fake clock or with an
// injected Nanotime.

// btSyscallP takes an idle P of rt (which must run without sysmon, so that
// only the test calls retake) and puts it in _Psyscall, as if its M had
// entered a system call. The P has run before: its schedtick and syscalltick
// are not zero, so sysmon's first look at it is a first sighting. (A P whose
// syscalltick is still 0 is a special case, in the runtime too: sysmon's
// zeroed sysmontick already matches it, so the first syscall a P ever makes
// counts as seen before and can be retaken on sysmon's first look.)
func btSyscallP(t *testing.T, rt *Runtime) *p {
	t.Helper()
	sched := rt.sched
	sched.lock.Lock()
	pp := sched.pidleget()
	sched.lock.Unlock()
	require.NotNil(t, pp, "no idle P to put in a system call")
	pp.schedtick.Store(1)
	pp.syscalltick.Store(1)
	pp.status.Store(_Psyscall)
	return pp
}

// btRetake calls retake at now and checks how many Ps it took back.
func btRetake(t *testing.T, rt *Runtime, pp *p, now int64, want uint32, why string) {
	t.Helper()
	got := retake(rt.sched, now)
	require.Equalf(t, want, got, "retake(now=%v) = %d Ps taken back; expected %d: %s",
		time.Duration(now), got, want, why)
	if want == 0 {
		require.Equalf(t, _Psyscall, pp.status.Load(), "P %d status after retake(now=%v): %s; expected it left in its syscall",
			pp.id, time.Duration(now), pStatusString(pp.status.Load()))
	}
}

// TestRetakeSyscall checks retake's rules for a P in a system call (Go ≤
// 1.25, the model this package follows): never on the first sighting of a
// syscall; then take it if its run queue has work, OR nobody is spinning and
// no P is idle, OR the syscall has lasted 10ms; and, through the time-slice
// check, once its G's slice has lasted ForcePreempt.
func TestRetakeSyscall(t *testing.T) {
	const t0 = int64(time.Second) // any time; retake only compares
	const tick = int64(20 * time.Microsecond)
	const tenMS = int64(10 * time.Millisecond)

	t.Run("runq not empty", func(t *testing.T) {
		var rec Recorder
		rt := New(Config{Procs: 2, NoSysmon: true, ForcePreempt: time.Hour, Trace: rec.Record})
		defer rt.Close()
		pp := btSyscallP(t, rt)
		var ran atomic.Bool
		gp := newproc1(rt.sched, func(g *G) { ran.Store(true) }, nil, nil)
		runqput(pp, gp, false)

		btRetake(t, rt, pp, t0, 0, "first sighting of the syscall, even with work queued")
		btRetake(t, rt, pp, t0+tick, 1, "second sighting with work in the P's run queue")
		require.NoError(t, btWait(t, rt, nil))
		assert.True(t, ran.Load(), "the G queued on the retaken P must run (handoffp starts an M for it)")
		n := 0
		for _, ev := range rec.Events() {
			if ev.Kind == EvSysmonRetake {
				n++
				assert.Equal(t, pp.id, ev.P, "P of %v", ev)
			}
		}
		assert.Equal(t, 1, n, "EvSysmonRetake events")
	})

	t.Run("runq empty, P idle", func(t *testing.T) {
		rt := New(Config{Procs: 2, NoSysmon: true, ForcePreempt: time.Hour})
		defer rt.Close()
		pp := btSyscallP(t, rt)
		btRetake(t, rt, pp, t0, 0, "first sighting")
		btRetake(t, rt, pp, t0+tick, 0, "no work queued and a P is idle: not worth an M")
		btRetake(t, rt, pp, t0+tenMS-1, 0, "the syscall has lasted just under 10ms")
		btRetake(t, rt, pp, t0+tenMS, 1, "the syscall has lasted 10ms")
		assert.Equal(t, pStatusString(_Pidle), pStatusString(pp.status.Load()), "status of the retaken P with no work")
		assert.EqualValues(t, 2, rt.sched.npidle.Load(), "idle Ps after the retaken P went idle")
	})

	t.Run("runq empty, M spinning", func(t *testing.T) {
		rt := New(Config{Procs: 1, NoSysmon: true, ForcePreempt: time.Hour})
		defer rt.Close()
		pp := btSyscallP(t, rt)
		rt.sched.nmspinning.Add(1) // pretend some M is looking for work
		defer rt.sched.nmspinning.Add(-1)
		btRetake(t, rt, pp, t0, 0, "first sighting")
		btRetake(t, rt, pp, t0+tick, 0, "no work queued and an M is spinning: it would find new work")
		btRetake(t, rt, pp, t0+tenMS-1, 0, "the syscall has lasted just under 10ms")
		btRetake(t, rt, pp, t0+tenMS, 1, "the syscall has lasted 10ms")
	})

	t.Run("runq empty, nobody idle or spinning", func(t *testing.T) {
		rt := New(Config{Procs: 1, NoSysmon: true, ForcePreempt: time.Hour})
		defer rt.Close()
		pp := btSyscallP(t, rt)
		btRetake(t, rt, pp, t0, 0, "first sighting")
		btRetake(t, rt, pp, t0+tick, 1, "no P idle and no M spinning: nobody would notice new work")
	})

	t.Run("new syscall is a new first sighting", func(t *testing.T) {
		rt := New(Config{Procs: 2, NoSysmon: true, ForcePreempt: time.Hour})
		defer rt.Close()
		pp := btSyscallP(t, rt)
		runqput(pp, newproc1(rt.sched, func(g *G) {}, nil, nil), false)
		btRetake(t, rt, pp, t0, 0, "first sighting")
		pp.syscalltick.Add(1) // the M left its syscall and entered another
		btRetake(t, rt, pp, t0+tick, 0, "first sighting of the next syscall")
		btRetake(t, rt, pp, t0+2*tick, 1, "second sighting of the next syscall, work queued")
		require.NoError(t, btWait(t, rt, nil))
	})

	t.Run("time slice over", func(t *testing.T) {
		// The time-slice check runs for Ps in a syscall too: once the
		// slice of the G that entered the syscall has lasted ForcePreempt,
		// preemptone cannot reach the G (no M is wired to the P), so the P
		// is retaken without waiting for a second sighting.
		const fp = int64(3 * time.Millisecond)
		rt := New(Config{Procs: 2, NoSysmon: true, ForcePreempt: time.Duration(fp)})
		defer rt.Close()
		pp := btSyscallP(t, rt)
		runqput(pp, newproc1(rt.sched, func(g *G) {}, nil, nil), false)
		// sysmon saw the P running its G at t0...
		pp.status.Store(_Prunning)
		require.Zero(t, retake(rt.sched, t0), "retake(now=t0) with the P running")
		// ...then the G entered a syscall, first seen at t0+fp.
		pp.status.Store(_Psyscall)
		btRetake(t, rt, pp, t0+fp, 1, "first sighting of the syscall, but the time slice has lasted ForcePreempt")
		require.NoError(t, btWait(t, rt, nil))
	})
}

// TestRetakePreempt checks retake's preemption rule on a running P: its G is
// asked to stop (g.preempt, p.preempt) once the P's schedtick has not moved
// for ForcePreempt; a new time slice restarts the count. Preemption does not
// count as a retake. Default ForcePreempt is 10ms.
func TestRetakePreempt(t *testing.T) {
	for _, fp := range []time.Duration{0, 3 * time.Millisecond} {
		want := fp
		if want == 0 {
			want = 10 * time.Millisecond
		}
		t.Run(fmt.Sprintf("ForcePreempt %v", fp), func(t *testing.T) {
			var rec Recorder
			rt := New(Config{Procs: 1, NoSysmon: true, ForcePreempt: fp, Trace: rec.Record})
			defer rt.Close()
			sched := rt.sched
			// A P running a G on an M, built by hand: nothing runs, so only
			// the test moves the ticks.
			sched.lock.Lock()
			pp := sched.pidleget()
			sched.lock.Unlock()
			require.NotNil(t, pp)
			gp := &g{sched: sched, goid: 1000}
			mp := &m{sched: sched, id: 1000}
			mp.curg.Store(gp)
			pp.m.Store(mp)
			pp.schedtick.Store(7)
			pp.status.Store(_Prunning)
			defer func() { // back to idle, for Close
				pp.m.Store(nil)
				pp.status.Store(_Pidle)
			}()

			const t0 = int64(time.Second)
			w := int64(want)
			check := func(now int64, preempt bool, why string) {
				t.Helper()
				require.Zero(t, retake(sched, now), "retake(now=%v) on a running P: preemption is not a retake", time.Duration(now))
				require.Equal(t, preempt, gp.preempt.Load(), "G's preempt flag after retake(now=%v): %s", time.Duration(now), why)
				require.Equal(t, preempt, pp.preempt.Load(), "P's preempt flag after retake(now=%v): %s", time.Duration(now), why)
			}
			check(t0, false, "first look at this time slice")
			check(t0+w-1, false, "slice just under ForcePreempt")
			pp.schedtick.Add(1) // the M started a new time slice
			check(t0+w, false, "a new time slice started since the last look")
			check(t0+2*w-1, false, "new slice just under ForcePreempt")
			check(t0+2*w, true, "new slice has lasted ForcePreempt")

			var preempts []Event
			for _, ev := range rec.Events() {
				if ev.Kind == EvSysmonPreempt {
					preempts = append(preempts, ev)
				}
			}
			if assert.Len(t, preempts, 1, "EvSysmonPreempt events") {
				assert.Equal(t, int64(1000), preempts[0].G, "G of %v", preempts[0])
				assert.Equal(t, pp.id, preempts[0].P, "P of %v", preempts[0])
			}
		})
	}
}

// TestRetakePreemptsRunningG: a real G spinning at safe points, on a P that
// sysmon (here the test, calling retake) finds on the same time slice for
// ForcePreempt, is preempted: it yields at its next Safepoint (EvGoPreempt)
// and later resumes.
func TestRetakePreemptsRunningG(t *testing.T) {
	var target atomic.Int64
	preempted := make(chan struct{})
	var once sync.Once
	rt := New(Config{Procs: 1, NoSysmon: true, Trace: func(ev Event) {
		if ev.Kind == EvGoPreempt && ev.G != 0 && ev.G == target.Load() {
			once.Do(func() { close(preempted) })
		}
	}})
	defer rt.Close()
	var self atomic.Pointer[G]
	var stop atomic.Bool
	running := make(chan struct{})
	rt.Go(func(g *G) {
		target.Store(g.ID())
		self.Store(g)
		close(running)
		for !stop.Load() {
			g.Safepoint()
		}
	})
	btAwait(t, running, "the spinning G to start")
	gp := self.Load()

	const t0 = int64(time.Second)
	retake(rt.sched, t0)
	retake(rt.sched, t0+int64(10*time.Millisecond)-1)
	require.False(t, gp.preempt.Load(), "preempt flag after 10ms - 1ns on one time slice")
	retake(rt.sched, t0+int64(10*time.Millisecond))
	btAwait(t, preempted, "the G to yield at a safe point (EvGoPreempt) after retake found its slice 10ms old")
	stop.Store(true)
	require.NoError(t, btWait(t, rt, nil))
}

// TestSysmonBackoff: sysmon sleeps 20µs between rounds; after 50 rounds in
// a row with nothing retaken, it doubles the sleep each round, up to 10ms.
// Retaking a P from a syscall starts it over at 20µs. Usleep is injected: it
// records each delay and returns at once.
func TestSysmonBackoff(t *testing.T) {
	const rounds = 64
	var mu sync.Mutex
	var log []string // "20", "40", ... for each sleep; "retake" for each retake
	running := make(chan struct{})
	enough := make(chan struct{})
	release := make(chan struct{})
	inSyscall := make(chan struct{})
	afterRetake := make(chan struct{})
	retook := false // under mu
	sleeps := 0
	rt := New(Config{
		Procs: 1,
		Usleep: func(usec int64) {
			mu.Lock()
			log = append(log, fmt.Sprint(usec))
			sleeps++
			n := sleeps
			if !retook && len(log) >= 2 && log[len(log)-2] == "retake" {
				retook = true
				close(afterRetake)
			}
			mu.Unlock()
			switch {
			case n == 1:
				// Let a G take the P first: with every P idle, sysmon
				// would go into its deep sleep instead of counting rounds.
				<-running
			case n == rounds:
				close(enough)
				<-inSyscall // and the P has a G in its run queue
			case n > rounds+20:
				<-release
			}
		},
		Trace: func(ev Event) {
			if ev.Kind == EvSysmonRetake {
				mu.Lock()
				log = append(log, "retake")
				mu.Unlock()
			}
		},
	})
	defer rt.Close()
	defer close(release) // before Close, which waits for sysmon
	var stop atomic.Bool
	syscallDone := make(chan struct{})
	rt.Go(func(g *G) {
		close(running)
		for !stop.Load() {
			g.Safepoint()
		}
		g.Go(func(g *G) {}) // work for the P while this G is in its syscall
		g.Syscall(func() {
			close(inSyscall)
			<-syscallDone
		})
	})
	btAwait(t, enough, fmt.Sprintf("%d sysmon rounds", rounds))
	stop.Store(true)

	mu.Lock()
	got := append([]string(nil), log[:rounds]...)
	mu.Unlock()
	var want []string
	for i := 0; i < 51; i++ {
		want = append(want, "20")
	}
	for d := 40; len(want) < rounds; d *= 2 {
		want = append(want, fmt.Sprint(min(d, 10000)))
	}
	assert.Equal(t, want, got, "sysmon's first %d sleeps (µs)", rounds)

	// The G is now in its syscall with work queued: sysmon retakes its P,
	// and its next sleep is the shortest again.
	btAwait(t, afterRetake, "sysmon to retake the P of a G in a syscall with work queued, and sleep again")
	mu.Lock()
	l := append([]string(nil), log...)
	mu.Unlock()
	i := slices.Index(l, "retake")
	assert.Equal(t, "10000", l[i-1], "sleep before the retake (µs): sysmon had backed off; log %v", l)
	assert.Equal(t, "20", l[i+1], "sleep after the retake (µs): a retake resets the back-off; log %v", l)
	close(syscallDone)
	require.NoError(t, btWait(t, rt, nil))
}

// TestSysmonPreemptsOnlyAfterForcePreempt: with the clock injected and
// advanced only by sysmon's sleeps (each by the time it asks for), every
// preemption comes at least ForcePreempt after the time slice it ends
// began: sysmon preempts long slices, never short ones.
//
// The clock moves only between sysmon's rounds, so the now a round reads
// first is still the time when it looks at a P's schedtick. A clock the
// spinning Gs advanced (as this test's did) could move on by milliseconds
// between the two reads on a loaded machine, and sysmon, as the runtime's
// does, then dates a slice that began in between from that older now and
// preempts it early by the clock's reckoning: a flaky test, not a wrong
// sysmon.
func TestSysmonPreemptsOnlyAfterForcePreempt(t *testing.T) {
	var clock atomic.Int64
	clock.Store(1)
	var rec Recorder
	running := make(chan struct{})
	var first atomic.Bool
	rt := New(Config{
		Procs:    1,
		Nanotime: clock.Load,
		Usleep: func(usec int64) {
			// Let a G take the P before sysmon's first look, so that it
			// does not go into its deep sleep (see
			// TestSysmonWakesForGoFromOutside).
			if first.CompareAndSwap(false, true) {
				<-running
			}
			clock.Add(usec * int64(time.Microsecond))
			usleep(usec)
		},
		Trace: rec.Record,
	})
	defer rt.Close()
	n := 4
	if testing.Short() {
		n = 2
	}
	var x atomic.Uint32
	var startOnce sync.Once
	for id := uint32(0); id < 2; id++ {
		rt.Go(func(g *G) {
			startOnce.Do(func() { close(running) })
			for i := 0; i < n; i++ {
				for x.Load() != id {
					g.Safepoint()
				}
				x.Store(1 - id)
			}
		})
	}
	require.NoError(t, btWait(t, rt, nil))

	evs := rec.Events()
	sliceStart := map[int32]int64{} // P -> when its current time slice began
	preempts := 0
	for _, ev := range evs {
		switch ev.Kind {
		case EvGoStart:
			if ev.Arg == 0 {
				sliceStart[ev.P] = ev.When
			}
		case EvGoPreempt:
			preempts++
			start, ok := sliceStart[ev.P]
			if assert.True(t, ok, "%v without a time slice started on its P", ev) {
				assert.GreaterOrEqual(t, time.Duration(ev.When-start), 10*time.Millisecond,
					"%v: time since its slice began on P %d", ev, ev.P)
			}
		}
	}
	// 2n turns in all; each hand-over from one spinner to the other needs
	// a preemption, except the last but one, when the first G to finish
	// exits instead.
	assert.GreaterOrEqual(t, preempts, 2*n-2, "preemptions; trace:\n%s", btDump(evs))
}

// TestSysmonWakesForGoFromOutside: a Runtime left idle puts sysmon into its
// deep sleep (every P idle). Gs started afterwards with Runtime.Go must
// still be preempted: here two spinners on one P take turns, which needs
// sysmon. (In the runtime a running G always exists when Gs are created;
// Runtime.Go creates them from outside, and nothing in its path — wakep,
// startm — wakes sysmon.)
func TestSysmonWakesForGoFromOutside(t *testing.T) {
	slept := make(chan struct{})
	var once sync.Once
	rt := New(Config{Procs: 1, Trace: func(ev Event) {
		if ev.Kind == EvSysmonSleep {
			once.Do(func() { close(slept) })
		}
	}})
	defer rt.Close()
	btAwait(t, slept, "sysmon's deep sleep on an idle Runtime")
	var x atomic.Uint32
	for id := uint32(0); id < 2; id++ {
		rt.Go(func(g *G) {
			for i := 0; i < 2; i++ {
				for x.Load() != id {
					g.Safepoint()
				}
				x.Store(1 - id)
			}
		})
	}
	require.NoError(t, btWait(t, rt, nil), "two spinners on one P started after sysmon's deep sleep")
}

// TestSysmonSyscallRetakeSynctest runs sysmon on testing/synctest's fake
// clock: a system call that blocks for a second gives its P, with a G
// queued, to another M within a few sysmon ticks, so the queued G runs
// during the syscall.
func TestSysmonSyscallRetakeSynctest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var rec Recorder
		rt := New(Config{Procs: 1, Trace: rec.Record})
		defer rt.Close()
		otherRan := make(chan struct{})
		var during atomic.Bool
		rt.Go(func(g *G) {
			g.Go(func(g *G) { close(otherRan) })
			g.Syscall(func() {
				select {
				case <-otherRan:
					during.Store(true)
				case <-time.After(time.Second):
				}
			})
		})
		require.NoError(t, rt.Wait())
		assert.True(t, during.Load(), "the G queued on the P ran while the P's M was in a 1s syscall; trace:\n%s", btDump(rec.Events()))
		retakes := 0
		for _, ev := range rec.Events() {
			if ev.Kind == EvSysmonRetake {
				retakes++
			}
		}
		assert.Equal(t, 1, retakes, "EvSysmonRetake events")
	})
}

// TestSysmonSyscallIdlePSynctest: with an idle P and nothing queued, a short
// syscall (5ms) keeps its P — the M gets the same P back on return — and a
// long one (30ms) loses it once it has lasted 10ms.
func TestSysmonSyscallIdlePSynctest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var rec Recorder
		rt := New(Config{Procs: 2, ForcePreempt: time.Hour, Trace: rec.Record})
		defer rt.Close()
		var id atomic.Int64
		rt.Go(func(g *G) {
			id.Store(g.ID())
			g.Syscall(func() {})                                    // a first syscall: sysmon's ticks move on
			g.Syscall(func() { time.Sleep(5 * time.Millisecond) })  // short
			g.Syscall(func() { time.Sleep(30 * time.Millisecond) }) // long
		})
		require.NoError(t, rt.Wait())

		evs := rec.Events()
		var enters, exits []Event
		var retakes []Event
		for _, ev := range evs {
			switch {
			case ev.Kind == EvGoSyscall && ev.G == id.Load():
				enters = append(enters, ev)
			case ev.Kind == EvGoSyscallExit && ev.G == id.Load():
				exits = append(exits, ev)
			case ev.Kind == EvSysmonRetake:
				retakes = append(retakes, ev)
			}
		}
		require.Len(t, enters, 3, "syscalls entered; trace:\n%s", btDump(evs))
		require.Len(t, exits, 3, "syscalls left; trace:\n%s", btDump(evs))
		assert.EqualValues(t, 1, exits[1].Arg, "the 5ms syscall must get its own P back: %v", exits[1])
		for _, r := range retakes {
			assert.Falsef(t, r.When >= enters[1].When && r.When <= exits[1].When,
				"%v during the 5ms syscall (from %d to %d), with an idle P and nothing queued", r, enters[1].When, exits[1].When)
		}
		var long []Event
		for _, r := range retakes {
			if r.When >= enters[2].When && r.When <= exits[2].When {
				long = append(long, r)
			}
		}
		if assert.Len(t, long, 1, "retakes during the 30ms syscall; trace:\n%s", btDump(evs)) {
			assert.GreaterOrEqual(t, time.Duration(long[0].When-enters[2].When), 10*time.Millisecond,
				"time into the 30ms syscall when its P was retaken")
		}
	})
}

// TestSynctestStealRunnextTerminates: a Runtime with two Ps inside a
// testing/synctest bubble must make progress. A thief that finds only a
// running P's runnext backs off with Usleep(3) before stealing it; the
// default Usleep must not spin on time.Now, which in a bubble does not move
// while any goroutine is running. Run in a child process, since the failure
// is a hang.
func TestSynctestStealRunnextTerminates(t *testing.T) {
	if os.Getenv("SCHED_BT_CHILD") == "steal-runnext" {
		synctest.Test(t, func(t *testing.T) {
			rt := New(Config{Procs: 2})
			defer rt.Close()
			ch := NewChan[int](0)
			rt.Go(func(g *G) {
				g.Go(func(g *G) {
					for i := 0; i < 10000; i++ {
						ch.Send(g, i)
					}
				})
				for i := 0; i < 10000; i++ {
					ch.Recv(g)
				}
			})
			if err := rt.Wait(); err != nil {
				t.Fatal(err)
			}
		})
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSynctestStealRunnextTerminates$", "-test.count=1")
	cmd.Env = append(os.Environ(), "SCHED_BT_CHILD=steal-runnext")
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		require.NoError(t, err, "child test failed:\n%s", out.String())
	case <-time.After(btGuard):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("a 2-P ping-pong in a synctest bubble did not finish within %v: "+
			"a thief waiting with the default Usleep(3) spins forever on the bubble's frozen clock", btGuard)
	}
}

// lockedBuffer is an io.Writer safe for a child process's stdout and stderr
// at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	return len(p), nil
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
