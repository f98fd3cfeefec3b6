// Package scenario holds the named workloads that show the scheduler at
// work: `kata demo` runs them, and the book's and `kata trace`'s pictures
// are drawn from their events. Each has a story (story.go): what its
// caption says a run shows, checked on the run, and the stretch of the run
// a picture opens on. It runs the reference (or, built by checker/trace, a
// learner's scheduler); it draws nothing.
package scenario

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	sched "github.com/gmp-kata/gmp-kata/solutions"
)

// A Scenario is a workload with a story: Main runs as the first G.
type Scenario struct {
	Name  string
	Short string // one line: what to watch for
	Procs int    // default number of Ps
	Main  func(g *sched.G)
	// WantDeadlock: the scenario ends in a deadlock on purpose.
	WantDeadlock bool
	// Story checks on a run what Short and the book's text around the
	// scenario's picture say it shows, and returns the window of the run
	// that text is about (story.go); call it through Check.
	Story func(r *Result) (Window, error)
}

// all lists the scenarios, in the order they are shown.
var all = []Scenario{imbalance, pingpong, overflow, burst, syscall, hog, resize, deadlock}

// Names returns the scenario names, in order.
func Names() []string {
	names := make([]string, len(all))
	for i, s := range all {
		names[i] = s.Name
	}
	return names
}

// All returns every scenario, in order.
func All() []Scenario {
	return slices.Clone(all)
}

// Lookup returns the scenario called name.
func Lookup(name string) (Scenario, error) {
	for _, s := range all {
		if s.Name == name {
			return s, nil
		}
	}
	return Scenario{}, fmt.Errorf("scenario: no scenario %q (have: %s)", name, strings.Join(Names(), ", "))
}

// A Result is what one run of a scenario did.
type Result struct {
	Scenario Scenario
	Procs    int
	Seed     uint64
	Events   []sched.Event
	Err      error // what Wait returned
}

// Run runs s on a fresh reference Runtime with procs Ps (0: the scenario's
// default) and returns its events.
func Run(s Scenario, procs int, seed uint64) (*Result, error) {
	return RunWatching(s, procs, seed, 0, nil)
}

// RunWatching is Run, calling watch with the Runtime while s runs: once
// before s starts, then every period until it ends, as sysmon calls
// schedtrace under GODEBUG=schedtrace. watch runs on a goroutine of its
// own, and never after RunWatching has returned.
func RunWatching(s Scenario, procs int, seed uint64, period time.Duration, watch func(*sched.Runtime)) (*Result, error) {
	if procs == 0 {
		procs = s.Procs
	}
	if procs < 1 || procs > 64 {
		return nil, fmt.Errorf("scenario: %d Ps: want 1 to 64", procs)
	}
	if watch != nil && period <= 0 {
		return nil, fmt.Errorf("scenario: watching every %v: want a period above 0", period)
	}
	spinRate() // measured now, not by the first G to work, in the picture
	var rec sched.Recorder
	rt := sched.New(sched.Config{Procs: procs, Seed: seed, Trace: rec.Record})
	stop := func() {}
	if watch != nil {
		stop = every(period, func() { watch(rt) })
	}
	rt.Go(s.Main)
	err := rt.Wait()
	stop()
	rt.Close()
	if (err != nil) != s.WantDeadlock {
		return nil, fmt.Errorf("scenario %s: Wait returned %v", s.Name, err)
	}
	return &Result{Scenario: s, Procs: procs, Seed: seed, Events: rec.Events(), Err: err}, nil
}

// every calls f now, then every period on a goroutine of its own, until
// stop is called; stop returns once f has returned for the last time.
func every(period time.Duration, f func()) (stop func()) {
	f()
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(period)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				f()
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

var imbalance = Scenario{
	Name:  "imbalance",
	Story: imbalanceStory,
	Short: "one G spawns 200 CPU-bound tasks on one P; the idle Ps steal half of its queue at a time",
	Procs: 4,
	Main:  func(g *sched.G) { fanOut(g, 200, 150*time.Microsecond) },
}

// fanOut spawns n Gs from g, each doing d of work, and waits for them all.
func fanOut(g *sched.G, n int, d time.Duration) {
	var wg sched.WaitGroup
	for range n {
		wg.Add(1)
		g.Go(func(g *sched.G) {
			work(d)
			wg.Done(g)
		})
	}
	wg.Wait(g)
}

var pingpong = Scenario{
	Name:  "pingpong",
	Story: pingpongStory,
	Short: "two Gs trade a token over an unbuffered channel: each send readies the other into runnext",
	Procs: 2,
	Main: func(g *sched.G) {
		ping, pong := sched.NewChan[int](0), sched.NewChan[int](0)
		g.Go(func(g *sched.G) {
			for {
				v, ok := ping.Recv(g)
				if !ok {
					pong.Close(g)
					return
				}
				pong.Send(g, v+1)
			}
		})
		for i := 0; i < 50; i++ {
			ping.Send(g, i)
			pong.Recv(g)
		}
		ping.Close(g)
		pong.Recv(g)
	},
}

var syscall = Scenario{
	Name:  "syscall",
	Story: syscallStory,
	Short: "a G blocks in a long system call; sysmon retakes its P and hands it off so the others run",
	Procs: 2,
	Main: func(g *sched.G) {
		var wg sched.WaitGroup
		wg.Add(1)
		g.Go(func(g *sched.G) {
			g.Syscall(func() { blockFor(30) })
			wg.Done(g)
		})
		for range 8 {
			wg.Add(1)
			g.Go(func(g *sched.G) {
				work(2 * time.Millisecond)
				wg.Done(g)
			})
		}
		wg.Wait(g)
	},
}

var hog = Scenario{
	Name:  "hog",
	Story: hogStory,
	Short: "on one P, a G that never blocks is preempted by sysmon after 10ms so the others get a turn",
	Procs: 1,
	Main: func(g *sched.G) {
		var wg sched.WaitGroup
		wg.Add(1)
		g.Go(func(g *sched.G) {
			// 40ms of work, in safe-point-sized steps: preempted at
			// least twice. Work, not time: on a busy machine the OS slows
			// the hog and sysmon alike.
			for range 400 {
				work(100 * time.Microsecond)
				g.Safepoint()
			}
			wg.Done(g)
		})
		for i := 0; i < 3; i++ {
			wg.Add(1)
			g.Go(func(g *sched.G) {
				work(100 * time.Microsecond)
				wg.Done(g)
			})
		}
		wg.Wait(g)
	},
}

var overflow = Scenario{
	Name:  "overflow",
	Story: overflowStory,
	Short: "one G spawns 600 short tasks: its 256-slot ring overflows half at a time into the global queue, where idle Ps take batches",
	Procs: 4,
	Main:  func(g *sched.G) { fanOut(g, 600, 40*time.Microsecond) },
}

var burst = Scenario{
	Name:  "burst",
	Story: burstStory,
	Short: "five bursts of 12 short tasks, 5ms apart: Ms wake and spin to find the work, then park when it runs out",
	Procs: 4,
	Main: func(g *sched.G) {
		for b := 0; b < 5; b++ {
			fanOut(g, 12, 200*time.Microsecond)
			g.Sleep(5 * time.Millisecond)
		}
	},
}

var resize = Scenario{
	Name:  "resize",
	Story: resizeStory,
	Short: "GOMAXPROCS goes 4 → 2 → 4 under load: procresize stops the world, moves the Gs of the destroyed Ps to the global queue, and restarts",
	Procs: 4,
	Main: func(g *sched.G) {
		// The first change waits until four Gs run at once, so every P
		// is at work and has Gs queued (a P gets work here by stealing
		// half of a queue): on a busy machine the Ms may take
		// milliseconds to get a core, and a change after a fixed time
		// could find some P that never ran. If the first 60 all finish
		// without four ever running at once (two cores, and other
		// programs on them), the last one lets the change go ahead:
		// waiting on would leave every G blocked, a deadlock of the
		// scenario's own making (the run's story may then not hold, and
		// kata tries another run).
		var wg sched.WaitGroup
		var running, finished atomic.Int32
		var busy atomic.Bool
		allBusy := sched.NewChan[int](0)
		const first = 60
		spawn := func(n int) {
			for range n {
				wg.Add(1)
				g.Go(func(g *sched.G) {
					if running.Add(1) == 4 && busy.CompareAndSwap(false, true) {
						allBusy.Close(g)
					}
					for range 4 {
						work(200 * time.Microsecond)
						g.Safepoint()
					}
					running.Add(-1)
					if finished.Add(1) == first && busy.CompareAndSwap(false, true) {
						allBusy.Close(g)
					}
					wg.Done(g)
				})
			}
		}
		spawn(first)
		allBusy.Recv(g)
		g.Sleep(2 * time.Millisecond)
		g.GOMAXPROCS(2)
		spawn(30)
		g.Sleep(5 * time.Millisecond)
		g.GOMAXPROCS(4)
		wg.Wait(g)
	},
}

var deadlock = Scenario{
	Name:  "deadlock",
	Story: deadlockStory,
	Short: "two Gs each wait to receive from the other: every G is blocked, and checkdead reports the deadlock",
	Procs: 2,
	Main: func(g *sched.G) {
		a, b := sched.NewChan[int](0), sched.NewChan[int](0)
		g.Go(func(g *sched.G) {
			a.Recv(g)
			b.Send(g, 1)
		})
		b.Recv(g)
		a.Send(g, 1)
	},
	WantDeadlock: true,
}
