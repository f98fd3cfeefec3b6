package sched

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"strconv"
	"time"
	"unsafe"
)

// This file is the public face of the package: Config, Runtime, and the
// methods a G's body calls on its *G.

// Config configures a Runtime. The zero value is the runtime's defaults: as
// many Ps as the host's GOMAXPROCS, sysmon running, real time.
type Config struct {
	// Procs is the number of Ps (GOMAXPROCS). 0 means the host's
	// runtime.GOMAXPROCS(0). Every M must be able to run at the same time
	// as the others, as the runtime's Ms are threads: so if the host's
	// GOMAXPROCS is less than Procs+1 (the Ms that hold a P, and sysmon),
	// New raises it to that, and the host's OS time-slices the threads when
	// there are more than cores (it never lowers it again).
	Procs int

	// Seed seeds each P's random source (steal order, randomized
	// scheduling). 0 means a fixed default: runs differ only by timing.
	Seed uint64

	// RandomizeScheduler makes runqput skip runnext half the time and
	// shuffles batches moved between queues, as the runtime does under the
	// race detector, to shake out code that depends on scheduling order.
	RandomizeScheduler bool

	// NoSysmon runs without sysmon: no preemption, no syscall retake, and
	// (as in the runtime on wasm) no runnext, which would starve others
	// without preemption.
	NoSysmon bool

	// Debug checks the scheduler's invariants at every stop-the-world and
	// the locks that functions require; a violation panics.
	Debug bool

	// Trace, if set, receives every scheduling event. It is called from
	// many Ms at once and must be safe for that (see Recorder).
	Trace func(Event)

	// Nanotime is the clock, in nanoseconds since an arbitrary start.
	// nil: real monotonic time (faked inside a testing/synctest bubble).
	Nanotime func() int64

	// Usleep sleeps for usec microseconds: sysmon between rounds, and a
	// thief backing off before it steals a running P's runnext. nil: real
	// sleeping.
	Usleep func(usec int64)

	// ForcePreempt is how long a G may run one time slice before sysmon
	// preempts it. 0: 10ms, as the runtime (forcePreemptNS).
	ForcePreempt time.Duration

	// SysmonMinDelay and SysmonMaxDelay bound sysmon's sleep between
	// rounds; SysmonIdleRounds is how many idle rounds pass before the
	// sleep starts doubling. 0: 20µs, 10ms and 50, as the runtime.
	SysmonMinDelay   time.Duration
	SysmonMaxDelay   time.Duration
	SysmonIdleRounds int
}

// config is a Config with every default filled in.
type config struct {
	procs              int32
	seed               uint64
	randomizeScheduler bool
	haveSysmon         bool
	debug              bool
	nanotime           func() int64
	usleep             func(usec int64)
	forcePreemptNS     int64
	sysmonMinDelayUS   int64
	sysmonMaxDelayUS   int64
	sysmonIdleRounds   int
}

// maxProcs bounds Config.Procs and GOMAXPROCS (the runtime allows 1<<20;
// every P here is a struct with a 2 KiB ring).
const maxProcs = 1024

func (c Config) normalize() config {
	cfg := config{
		procs:              int32(c.Procs),
		seed:               c.Seed,
		randomizeScheduler: c.RandomizeScheduler,
		haveSysmon:         !c.NoSysmon,
		debug:              c.Debug,
		nanotime:           c.Nanotime,
		usleep:             c.Usleep,
		forcePreemptNS:     int64(c.ForcePreempt),
		sysmonMinDelayUS:   c.SysmonMinDelay.Microseconds(),
		sysmonMaxDelayUS:   c.SysmonMaxDelay.Microseconds(),
		sysmonIdleRounds:   c.SysmonIdleRounds,
	}
	if c.Procs < 0 || c.Procs > maxProcs {
		panic(fmt.Sprintf("sched: Config.Procs = %d, want 0 (the host's) or 1..%d", c.Procs, maxProcs))
	}
	if cfg.procs == 0 {
		cfg.procs = int32(min(runtime.GOMAXPROCS(0), maxProcs))
	}
	if cfg.seed == 0 {
		cfg.seed = 0x5eed
	}
	if cfg.nanotime == nil {
		start := time.Now()
		cfg.nanotime = func() int64 { return int64(time.Since(start)) + 1 }
	}
	if cfg.usleep == nil {
		cfg.usleep = usleep
	}
	if cfg.forcePreemptNS <= 0 {
		cfg.forcePreemptNS = forcePreemptNS
	}
	if cfg.sysmonMinDelayUS <= 0 {
		cfg.sysmonMinDelayUS = sysmonMinDelayUS
	}
	if cfg.sysmonMaxDelayUS <= 0 {
		cfg.sysmonMaxDelayUS = sysmonMaxDelayUS
	}
	if cfg.sysmonMaxDelayUS < cfg.sysmonMinDelayUS {
		cfg.sysmonMaxDelayUS = cfg.sysmonMinDelayUS
	}
	if cfg.sysmonIdleRounds <= 0 {
		cfg.sysmonIdleRounds = sysmonIdleRounds
	}
	return cfg
}

// usleep is the default Usleep. Go's timers cannot sleep a few
// microseconds (a short time.Sleep takes tens), so short sleeps yield the
// host thread until the time has passed, as the runtime's osyield does; at
// most maxYields times, because inside a testing/synctest bubble the clock
// stands still while anything runs.
func usleep(usec int64) {
	if usec >= 20 {
		time.Sleep(time.Duration(usec) * time.Microsecond)
		return
	}
	const maxYields = 64
	deadline := time.Now().Add(time.Duration(usec) * time.Microsecond)
	for i := 0; i < maxYields && time.Now().Before(deadline); i++ {
		runtime.Gosched()
	}
}

// A Runtime is one instance of the scheduler: its Ps, Ms and Gs. Several
// may run in one process. Make one with New, start Gs with Go, wait with
// Wait, and always Close it.
type Runtime struct {
	sched *schedt
}

// G is a goroutine of a Runtime, as its body sees it. Its methods must be
// called only by the G itself, from its own body (not from a goroutine it
// starts with the go statement, nor from inside Syscall's function).
type G = g

// New starts a Runtime: its Ps, all idle, and sysmon. Ms are started as work
// arrives.
func New(c Config) *Runtime {
	sched := newSchedt(c)
	oversubscribe(sched.cfg.procs)
	if sched.cfg.haveSysmon {
		mp := allocm(sched, -1)
		mp.isSysmon = true
		sched.lock.Lock()
		sched.nmsys++
		sched.lock.Unlock()
		sched.mWG.Add(1)
		go sysmon(mp)
	}
	return &Runtime{sched: sched}
}

// newSchedt makes a scheduler of c's idle Ps, with no M and no sysmon
// started yet.
func newSchedt(c Config) *schedt {
	sched := &schedt{done: make(chan struct{})}
	sched.cfg = c.normalize()
	sched.trace = c.Trace
	sched.runq.sched = sched
	sched.stopnote.init()
	sched.sysmonnote.init()
	sched.pollnote.init()
	sched.lastpoll.Store(max(sched.cfg.nanotime(), 1))
	sched.lock.Lock()
	procresize(sched, sched.cfg.procs)
	sched.lock.Unlock()
	return sched
}

// Go starts a G running fn. It may be called from outside the Runtime (a G
// starts another with its own Go method). It panics once Wait has returned.
func (rt *Runtime) Go(fn func(*G)) {
	sched := rt.sched
	if sched.closing.Load() {
		panic("sched: Go on a closed Runtime")
	}
	select {
	case <-sched.done:
		panic("sched: Go after the Runtime finished (Wait returned); make a new Runtime")
	default:
	}
	newg := newproc1(sched, fn, nil, nil)
	// Like an M leaving a system call with no P (exitsyscall0): the G goes
	// on the global queue, and sysmon, which may be in its deep sleep
	// because every P was idle, must wake to watch the P that will run it.
	sched.lock.Lock()
	sched.globrunqput(newg)
	if sched.sysmonwait.Load() {
		sched.sysmonwait.Store(false)
		notewakeup(&sched.sysmonnote)
	}
	sched.lock.Unlock()
	wakep(sched)
}

// Wait blocks until every G has finished and returns nil, or returns a
// *DeadlockError if the Gs left can never run again, or a *PanicError if a
// G panicked.
func (rt *Runtime) Wait() error {
	sched := rt.sched
	sched.waitCalled.Store(true)
	if sched.ngLive.Load() == 0 {
		sched.finish(nil)
	}
	// The Ms may all have gone idle before Wait was called, with Gs blocked
	// that only the caller could have helped: look now.
	sched.lock.Lock()
	sched.checkdead()
	sched.lock.Unlock()
	<-sched.done
	return sched.deadErr
}

// GOMAXPROCS sets the number of Ps to n, with the world stopped, and
// returns the previous number. n < 1 only reports the current number.
func (rt *Runtime) GOMAXPROCS(n int) int {
	return gomaxprocs(rt.sched, n)
}

func gomaxprocs(sched *schedt, n int) int {
	if n > maxProcs {
		panic(fmt.Sprintf("sched: GOMAXPROCS(%d): at most %d", n, maxProcs))
	}
	if n < 1 {
		return int(sched.gomaxprocs.Load())
	}
	oversubscribe(int32(n))
	stopTheWorld(sched)
	old := int(sched.gomaxprocs.Load())
	startTheWorld(sched, int32(n))
	return old
}

// oversubscribe raises the host's GOMAXPROCS so that procs Ms and sysmon
// can all run at once (see Config.Procs). With fewer host Ps than Ms, an M
// waits for a host P, and a 4-P scheduler on a 2-core machine runs as if it
// had 2 Ps: two of them sit idle through a short run, and two Ms never
// interleave between host preemptions.
func oversubscribe(procs int32) {
	if need := int(procs) + 1; runtime.GOMAXPROCS(0) < need {
		runtime.GOMAXPROCS(need)
	}
}

// NumGoroutine returns the number of Gs that have been started and have
// not finished.
func (rt *Runtime) NumGoroutine() int {
	return int(rt.sched.ngLive.Load())
}

// CheckInvariants stops the world, checks the scheduler's invariants and
// starts it again. It returns what is broken, or nil.
func (rt *Runtime) CheckInvariants() error {
	sched := rt.sched
	stopTheWorld(sched)
	sched.lock.Lock()
	err := sched.checkInvariants()
	sched.lock.Unlock()
	startTheWorld(sched, 0)
	return err
}

// Close stops the Runtime: its Ms finish the Gs they are running up to
// their next safe point and exit, sysmon exits, and every G left is unwound
// (its deferred calls run). A G that never reaches a safe point, or is
// blocked inside Syscall, keeps Close waiting.
func (rt *Runtime) Close() {
	sched := rt.sched
	if !sched.closing.CompareAndSwap(false, true) {
		return
	}
	sched.lock.Lock()
	for mp := sched.mget(); mp != nil; mp = sched.mget() {
		notewakeup(&mp.park) // with no nextp: the M exits
	}
	if sched.sysmonwait.Load() {
		sched.sysmonwait.Store(false)
		notewakeup(&sched.sysmonnote)
	}
	sched.lock.Unlock()
	netpollBreak(sched)
	preemptall(sched)
	sched.mWG.Wait()

	// No M runs now: unwind every G that is not dead.
	sched.allglock.Lock()
	gs := append([]*g(nil), sched.allgs...)
	sched.allglock.Unlock()
	sched.corostopall(gs)
	sched.finish(errClosed)
}

var errClosed = errors.New("sched: Runtime closed before its Gs finished")

// A PanicError is what Wait returns when a G panicked: the G's value and
// stack. (In Go, the panic would crash the process.)
type PanicError struct {
	G     int64
	Value any
	Stack []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("panic in G %d: %v\n\n%s", e.G, e.Value, e.Stack)
}

// gpanic records a panic in gp's function.
func (sched *schedt) gpanic(gp *g, r any) {
	sched.finish(&PanicError{G: gp.goid, Value: r, Stack: debug.Stack()})
}

// finish ends Wait, with err as its result (nil: all Gs finished). Only the
// first call counts.
func (sched *schedt) finish(err error) {
	sched.doneOnce.Do(func() {
		sched.deadErr = err
		close(sched.done)
	})
}

// ID returns the G's goroutine ID, unique within its Runtime.
func (gp *G) ID() int64 {
	return gp.goid
}

// Go starts a new G running fn. It goes in this P's runnext: it runs next
// here unless another P steals it first.
func (gp *G) Go(fn func(*G)) {
	gp.checkRunning("Go")
	gp.Safepoint()
	newproc(gp, fn)
}

// Gosched yields the P: the G goes to the global run queue and the M runs
// something else.
func (gp *G) Gosched() {
	gp.checkRunning("Gosched")
	mcall(gp, gosched_m)
}

// Safepoint is where the G may be preempted: if sysmon (or stop-the-world)
// asked it to stop, it yields here. Every other method is a safe point too;
// a G in a long loop that calls none of them should call Safepoint.
func (gp *G) Safepoint() {
	if gp.preempt.Load() {
		mcall(gp, gopreempt_m)
	}
}

// Park blocks the G until another G calls Ready on it. commit runs once the
// G is parked (_Gwaiting): release there the lock that protects whatever
// tells others to wake this G, so that they cannot Ready it too early. If
// commit returns false, the G does not park after all.
func (gp *G) Park(commit func() bool) {
	gp.checkRunning("Park")
	gopark(gp, parkCommit, unsafe.Pointer(&commit), waitReasonPark)
}

func parkCommit(gp *g, commit unsafe.Pointer) bool {
	f := *(*func() bool)(commit)
	return f == nil || f()
}

// Ready makes other, which must be parked, runnable; it runs next on this P.
func (gp *G) Ready(other *G) {
	gp.checkRunning("Ready")
	goready(gp.m, other)
}

// Syscall runs fn as a blocking system call: the G keeps its M but gives up
// its P while fn runs, so the P's other Gs can run elsewhere (sysmon hands
// the P off if fn takes long). fn must not call the G's methods.
func (gp *G) Syscall(fn func()) {
	gp.checkRunning("Syscall")
	gp.Safepoint()
	entersyscall(gp)
	fn()
	exitsyscall(gp)
}

// Sleep parks the G for at least d.
func (gp *G) Sleep(d time.Duration) {
	gp.checkRunning("Sleep")
	gp.Safepoint()
	timeSleep(gp, int64(d))
}

// GOMAXPROCS sets the number of Ps, as Runtime.GOMAXPROCS. The G does it as
// a system call: it gives up its P so that the world can stop without it.
func (gp *G) GOMAXPROCS(n int) (old int) {
	gp.checkRunning("GOMAXPROCS")
	if n < 1 {
		return int(gp.sched.gomaxprocs.Load())
	}
	gp.Syscall(func() { old = gomaxprocs(gp.sched, n) })
	return old
}

// checkRunning panics if gp is not the G running on its M, with a P: a G's
// methods called from somewhere else would corrupt the scheduler.
func (gp *G) checkRunning(method string) {
	mp := gp.m
	if mp == nil || mp.curg.Load() != gp {
		panic("sched: G." + method + " called from outside G " + strconv.FormatInt(gp.goid, 10) + "'s own body")
	}
	if mp.p == nil {
		panic("sched: G." + method + " called inside Syscall's function")
	}
}
