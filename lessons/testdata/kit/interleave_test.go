//go:build kata_interleave

// The controlled scheduler needs the scheduling points, which exist only
// in the hidden tests' build (the build tag kata_interleave, which kata
// sets for them): kata bench builds the kit without it, and only
// kit_test.go then.

package sched

// A controlled scheduler for the hidden tests: it runs a few threads (real
// goroutines) one at a time, switching between them only at scheduling
// points (every operation of the atomics in atomics.go), in an order
// chosen by PCT (Burckhardt, Kothari, Musuvathi and Nagarakatte, "A
// randomized scheduler with probabilistic guarantees of finding bugs",
// ASPLOS 2010): each thread gets a random priority, the highest-priority
// thread that can run runs, and at d-1 random steps the running thread
// drops to the lowest priority. A bug that needs d ordering constraints
// between n threads that take k steps is found by one run with
// probability at least 1/(n·k^(d-1)); a test runs many seeds, and names
// the one that failed so it replays exactly.

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// kitSeeds returns the seeds a controlled-interleaving test runs: 1 to n,
// or only the one in KATA_SEED (kata check --seed N), to replay a failure.
func kitSeeds(n uint64) []uint64 {
	if s, err := strconv.ParseUint(os.Getenv("KATA_SEED"), 10, 64); err == nil && s > 0 {
		return []uint64{s}
	}
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = uint64(i) + 1
	}
	return seeds
}

// kitReplay is the end of a failure message of a controlled-interleaving
// test: how to run that interleaving again.
func kitReplay(t *testing.T, lesson string, seed uint64) string {
	return fmt.Sprintf(" (replay this interleaving: kata check %s --seed %d --run %s)", lesson[:2], seed, t.Name())
}

type kitCtlThread struct {
	name   string
	c      *kitController
	prio   int
	turn   chan struct{}
	done   bool
	run    int      // steps in a row without a switch
	waits  *mutex   // the lock it waits for, or nil
	waitAt kitWhere // where it waits, for a deadlock's message
	wake   int      // if it sleeps (kitSleep), the step it wakes at
}

type kitController struct {
	mu       sync.Mutex
	threads  []*kitCtlThread
	step     int
	change   map[int]bool
	walk     float64    // kitInterleaveWalk's: the chance of a switch at each point
	watch    func()     // kitInterleaveWalkWatched's: called at every point of every thread
	rng      *rand.Rand // which draws them
	low      int
	high     int // above every priority: a thread that wakes gets it
	panics   []string
	deadlock string // every thread left waits for a lock: what kitInterleave returns
}

// kitGoid returns the calling goroutine's ID.
func kitGoid() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	id, _ := strconv.ParseUint(string(b[:bytes.IndexByte(b, ' ')]), 10, 64)
	return id
}

// kitThreads maps every controlled thread, of every run under way, by
// the identity of its goroutine (kitSelf): several runs may go at once
// (kitEach), each with its own controller, and a scheduling point goes to
// the controller of the goroutine that reached it. The hook is installed
// while any run is under way.
var kitThreads struct {
	sync.Mutex
	byID     map[uint64]kitParticipant
	runs     int
	old      func()     // the hook before the first run
	oldSlot  func()     // the slots' hook before it
	oldLocks *lockHooks // and the lock hooks
}

// kitParticipant is a controlled thread of either controller: the PCT
// one here (kitCtlThread) or the exhaustive explorer (kitExWorker).
type kitParticipant interface {
	atPoint()              // the thread reached a scheduling point
	atSlotPoint()          // the same, before an operation of a ring's slot
	lockWait(l *mutex)     // it found l held: it waits until l is released
	lockReleased(l *mutex) // it released l: the threads waiting for l may go on
}

// atPoint hands th's scheduling point to its run's controller.
func (th *kitCtlThread) atPoint()              { th.c.point(th) }
func (th *kitCtlThread) atSlotPoint()          { th.c.point(th) }
func (th *kitCtlThread) lockWait(l *mutex)     { th.c.lockWait(th, l) }
func (th *kitCtlThread) lockReleased(l *mutex) { th.c.lockReleased(l) }

// kitParticipantOf returns the controlled thread the calling goroutine
// runs, of either controller, or nil.
func kitParticipantOf() kitParticipant {
	kitThreads.Lock()
	th := kitThreads.byID[kitSelf()] // kitSelf is read under the lock: see self_linux_test.go
	kitThreads.Unlock()
	return th
}

// kitRegister makes the calling goroutine th's: from now on its scheduling
// points go to th's controller. Call the result before the goroutine
// exits (its identity may then be another's). A run's hooks must be
// installed (kitRunStarts).
func kitRegister(th kitParticipant) (unregister func()) {
	unbind := kitBind()
	kitThreads.Lock()
	id := kitSelf()
	kitThreads.byID[id] = th
	kitThreads.Unlock()
	return func() {
		kitThreads.Lock()
		delete(kitThreads.byID, id)
		kitThreads.Unlock()
		unbind()
	}
}

// kitPoint is the hook: a scheduling point on the calling goroutine, which
// goes to its run's controller; a goroutine no run controls goes on.
func kitPoint() {
	if th := kitParticipantOf(); th != nil {
		th.atPoint()
	}
}

// kitSlotPoint is the hook of a ring's slots (solutions/interleave.go's
// slotHook): kitPoint, but the explorer takes a run of them as one place
// to switch threads (kitStep.inSlotRun).
func kitSlotPoint() {
	if th := kitParticipantOf(); th != nil {
		th.atSlotPoint()
	}
}

// kitLocks are the hooks of sched.lock's mutex (solutions/interleave.go):
// a controlled thread that finds it held waits in its controller, which
// runs the other threads until one releases it. A goroutine no run
// controls blocks in sync.Mutex as usual; so a thread waiting for a lock
// that such a goroutine holds would wait for ever: the threads of a run
// must not share a lock with goroutines outside it.
var kitLocks = &lockHooks{
	wait: func(l *mutex) bool {
		th := kitParticipantOf()
		if th == nil {
			return false
		}
		th.lockWait(l)
		return true
	},
	released: func(l *mutex) {
		if th := kitParticipantOf(); th != nil {
			th.lockReleased(l)
		}
	},
}

// kitDeadlock is the panic that ends a thread waiting for a lock nobody
// will release, once its controller has found that every thread left
// waits (the failure is the controller's, not this panic's).
type kitDeadlock struct{}

// kitDeadlockMsg says who waits, and where, when no thread can go on.
func kitDeadlockMsg(names []string, waitAt []kitWhere, done []bool) string {
	var who []string
	for t, name := range names {
		if !done[t] {
			who = append(who, fmt.Sprintf("%s waits at %s", name, waitAt[t]))
		}
	}
	why := "each waits for a lock another of them holds, or one that ended still holds"
	if len(who) == 1 {
		why = "no thread left will release it: one that ended still holds it (an Unlock missing on some path?), or it holds the lock itself and asks for it again"
	}
	return fmt.Sprintf("the threads deadlocked: %s; %s (a function that takes sched.lock itself, such as startm, called with it held?)", strings.Join(who, "; "), why)
}

// kitRunStarts and kitRunEnds count the runs under way, installing the
// hook for the first and restoring the one before after the last.
func kitRunStarts() {
	kitThreads.Lock()
	defer kitThreads.Unlock()
	if kitThreads.runs == 0 {
		kitThreads.byID = map[uint64]kitParticipant{}
		kitThreads.old = setInterleaveHook(kitPoint)
		kitThreads.oldSlot = setSlotHook(kitSlotPoint)
		kitThreads.oldLocks = setLockHooks(kitLocks)
	}
	kitThreads.runs++
}

func kitRunEnds() {
	kitThreads.Lock()
	defer kitThreads.Unlock()
	kitThreads.runs--
	if kitThreads.runs == 0 {
		setInterleaveHook(kitThreads.old)
		setSlotHook(kitThreads.oldSlot)
		setLockHooks(kitThreads.oldLocks)
		kitThreads.old, kitThreads.oldSlot, kitThreads.oldLocks = nil, nil, nil
	}
}

// kitEach runs check(i) for i = 0..n-1, on as many goroutines as the host
// has Ps (each call may run its own kitInterleave), and returns the
// message of the failing call with the smallest i, or "": the same answer
// as a loop, in less time. Once a call has failed, calls past it are not
// started.
func kitEach(n int, check func(i int) string) string {
	var (
		mu    sync.Mutex
		first = n
		msg   string
		next  int
		wg    sync.WaitGroup
	)
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				stop := i >= n || i > first
				mu.Unlock()
				if stop {
					return
				}
				if m := check(i); m != "" {
					mu.Lock()
					if i < first {
						first, msg = i, m
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return msg
}

// kitEachSeed runs check for every seed of kitSeeds(n) side by side
// (kitEach), and fails t with the message of the first seed that failed.
func kitEachSeed(t *testing.T, n uint64, check func(seed uint64) string) {
	t.Helper()
	seeds := kitSeeds(n)
	if msg := kitEach(len(seeds), func(i int) string { return check(seeds[i]) }); msg != "" {
		t.Fatal(msg)
	}
}

// kitInterleave runs the named threads (name, fn, name, fn, ...) under the
// controlled scheduler with the given seed, depth d and an estimate of the
// steps the run takes (where the change points fall). It returns an error
// if a thread panicked or the run did not end in 10 s (a thread blocked on
// something other than a scheduling point, such as a lock another thread
// holds: only lock-free code may run under it).
func kitInterleave(seed uint64, depth, steps int, threads ...any) error {
	return kitControl(seed, depth, steps, 0, nil, threads...)
}

// kitInterleaveWalk runs the threads as kitInterleave does, but switches
// threads at random, at each scheduling point with chance walk, not at a
// few change points. PCT's few switches are its strength on small runs
// and a tell on large ones: a thread that sees its head move twice in a
// few loads, or Gs numbered in the thousands, could know it is on real
// threads (a twentieth red team's files ran a mistake only then). Run on
// the real-thread tests' own worlds, with their Gs, this is a controlled
// run that looks like theirs, where a mistake meets many switches.
func kitInterleaveWalk(seed uint64, walk float64, threads ...any) error {
	return kitControl(seed, 1, 0, walk, nil, threads...)
}

// kitInterleaveWalkWatched is kitInterleaveWalk, and it calls watch at
// every scheduling point of every thread, before its operation, with no
// other thread running: watch sees every state the threads' operations
// see, and may record what it needs of it (with plain loads: a scheduling
// point inside watch is not the controller's to take). A test can then
// judge a call by every state the shared memory held while it ran: a
// steal that found nothing must have met an empty ring at some moment of
// its call.
func kitInterleaveWalkWatched(seed uint64, walk float64, watch func(), threads ...any) error {
	return kitControl(seed, 1, 0, walk, watch, threads...)
}

func kitControl(seed uint64, depth, steps int, walk float64, watch func(), threads ...any) error {
	kitRunStarts()
	defer kitRunEnds()
	rng := rand.New(rand.NewPCG(seed, 0x6b617461))
	c := &kitController{change: map[int]bool{}, walk: walk, watch: watch, rng: rand.New(rand.NewPCG(seed, 0x77616c6b))}
	n := len(threads) / 2
	perm := rng.Perm(n)
	for i := 0; i < n; i++ {
		c.threads = append(c.threads, &kitCtlThread{name: threads[2*i].(string), c: c, prio: depth + perm[i], turn: make(chan struct{}, 1)})
	}
	c.high = depth + n
	for i := 0; i < depth-1; i++ {
		c.change[1+rng.IntN(max(1, steps))] = true
	}
	var ready, finished sync.WaitGroup
	ready.Add(n)
	finished.Add(n)
	for i, th := range c.threads {
		fn := threads[2*i+1].(func())
		go func() {
			defer finished.Done()
			defer kitRegister(th)()
			ready.Done()
			<-th.turn
			defer c.exit(th)
			defer func() {
				if r := recover(); r != nil {
					if _, ok := r.(kitDeadlock); ok {
						return
					}
					c.mu.Lock()
					c.panics = append(c.panics, fmt.Sprintf("%s panicked: %v", th.name, r))
					c.mu.Unlock()
				}
			}()
			fn()
		}()
	}
	ready.Wait()
	c.mu.Lock()
	first := c.pick()
	c.mu.Unlock()
	first.turn <- struct{}{}

	end := make(chan struct{})
	go func() { finished.Wait(); close(end) }()
	select {
	case <-end:
	case <-time.After(10 * time.Second):
		return fmt.Errorf("the threads did not finish in 10s: one is blocked on something other than an atomic operation, or loops forever")
	}
	if len(c.panics) > 0 {
		return fmt.Errorf("%s", c.panics[0])
	}
	if c.deadlock != "" {
		return fmt.Errorf("%s", c.deadlock)
	}
	return nil
}

// pick returns the highest-priority thread that has not finished and
// waits for no lock; c.mu is held. If every thread left waits, that is a
// deadlock: it returns one of them, which ends (kitDeadlock) when it runs.
func (c *kitController) pick() *kitCtlThread {
	var best, waiting *kitCtlThread
	for _, th := range c.threads {
		switch {
		case th.done:
		case th.waits != nil:
			waiting = th
		case best == nil || th.prio > best.prio:
			best = th
		}
	}
	if best == nil && waiting != nil {
		if c.deadlock == "" {
			var names []string
			var at []kitWhere
			var done []bool
			for _, th := range c.threads {
				names, at, done = append(names, th.name), append(at, th.waitAt), append(done, th.done)
			}
			c.deadlock = kitDeadlockMsg(names, at, done)
		}
		return waiting
	}
	return best
}

// lockWait is th's Lock of l, which found it held: th waits, not enabled,
// while the others run, until l is released and its turn comes again.
func (c *kitController) lockWait(th *kitCtlThread, l *mutex) {
	at := kitCallers()
	c.mu.Lock()
	th.waits, th.waitAt = l, at
	next := c.pick()
	th.run = 0
	c.mu.Unlock()
	if next != th {
		next.turn <- struct{}{}
		<-th.turn
	}
	c.mu.Lock()
	deadlock := c.deadlock != ""
	c.mu.Unlock()
	if deadlock {
		panic(kitDeadlock{})
	}
}

// lockReleased lets the threads waiting for l go on.
func (c *kitController) lockReleased(l *mutex) {
	c.mu.Lock()
	for _, th := range c.threads {
		if th.waits == l {
			th.waits = nil
		}
	}
	c.mu.Unlock()
}

// point is a scheduling point of th, one of c's threads.
func (c *kitController) point(th *kitCtlThread) { c.switchAt(th, false) }

// kitSleep is a scheduling point where the calling thread sleeps a
// little (a thief's back-off, Usleep): under kitInterleave and
// kitInterleaveWalk the others run while it sleeps, as on real threads,
// and it wakes after 1 to 16 of their points, at once, wherever they are.
// Elsewhere it is an ordinary scheduling point.
func kitSleep() {
	switch th := kitParticipantOf().(type) {
	case nil:
	case *kitCtlThread:
		th.c.switchAt(th, true)
	default:
		th.atPoint()
	}
}

// switchAt is th's scheduling point: it switches threads at a change
// point, by the walk's chance, when th spins, or when th sleeps.
func (c *kitController) switchAt(th *kitCtlThread, sleeps bool) {
	c.mu.Lock()
	if c.watch != nil {
		c.watch()
	}
	c.step++
	th.run++
	woke := false
	for _, o := range c.threads {
		if o.wake != 0 && c.step >= o.wake {
			o.wake, o.prio, woke = 0, c.high, true
			c.high++
		}
	}
	if sleeps {
		th.wake = c.step + 1 + c.rng.IntN(16)
	}
	if sleeps || woke || c.change[c.step] || th.run > 1000 || (c.walk > 0 && c.rng.Float64() < c.walk) {
		// A change point; or the thread spins waiting for another, which
		// only a switch can let progress.
		c.low--
		th.prio = c.low
	}
	next := c.pick()
	if next == th {
		c.mu.Unlock()
		return
	}
	th.run = 0
	c.mu.Unlock()
	next.turn <- struct{}{}
	<-th.turn
}

// exit ends th's part in the run and hands the turn on.
func (c *kitController) exit(th *kitCtlThread) {
	c.mu.Lock()
	if c.watch != nil {
		c.watch() // the state th's last operation left
	}
	th.done = true
	next := c.pick()
	c.mu.Unlock()
	if next != nil {
		next.turn <- struct{}{}
	}
}
