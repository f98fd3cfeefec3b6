package sched

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// This file mirrors runtime/runtime2.go: the G, M and P structures, their
// status values, and schedt, the scheduler's global state. Go keeps that state
// in package variables (sched, allp, allm, gomaxprocs); a Runtime here is one
// instance, so it all lives in schedt and every structure points back to it.

// G status values (runtime2.go). A G moves between them only by casgstatus,
// which panics on an unexpected old status: that is how a G dispatched twice
// is caught at execute instead of corrupting its coroutine.
//
// The runtime also has _Gpreempted, but only suspendG (used by the GC to stop
// a goroutine in place) enters it; ordinary preemption goes _Grunning →
// _Grunnable onto the global queue, so this scheduler has no use for it.
const (
	_Gidle     uint32 = iota // just allocated, not yet initialised
	_Grunnable               // on a run queue (or in transit to one); not running
	_Grunning                // running user code on an M that holds a P
	_Gsyscall                // in Syscall: running on an M that has given up its P
	_Gwaiting                // parked by gopark; on no run queue; goready wakes it
	_Gdead                   // finished, on a gFree list; its coroutine went back to its M
)

// P status values (runtime2.go, Go ≤ 1.25; see doc.go for what Go 1.26 did to
// _Psyscall).
const (
	_Pidle    uint32 = iota // on the idle P list; its run queue is empty
	_Prunning               // owned by an M that is running user code or the scheduler
	_Psyscall               // its M is in a system call; sysmon may take it (retake)
	_Pgcstop                // stopped for stop-the-world
	_Pdead                  // no longer used (GOMAXPROCS shrank)
)

var gStatusStrings = [...]string{
	_Gidle: "idle", _Grunnable: "runnable", _Grunning: "running",
	_Gsyscall: "syscall", _Gwaiting: "waiting", _Gdead: "dead",
}

var pStatusStrings = [...]string{
	_Pidle: "idle", _Prunning: "running", _Psyscall: "syscall",
	_Pgcstop: "gcstop", _Pdead: "dead",
}

func gStatusString(s uint32) string {
	if int(s) < len(gStatusStrings) {
		return gStatusStrings[s]
	}
	return "bad status"
}

func pStatusString(s uint32) string {
	if int(s) < len(pStatusStrings) {
		return pStatusStrings[s]
	}
	return "bad status"
}

// A waitReason says why a G is parked (runtime2.go waitReason).
type waitReason uint8

const (
	waitReasonZero waitReason = iota
	waitReasonChanReceive
	waitReasonChanSend
	waitReasonSleep
	waitReasonSyncMutexLock
	waitReasonSyncWaitGroupWait
	waitReasonPark
)

var waitReasonStrings = [...]string{
	waitReasonZero:              "",
	waitReasonChanReceive:       "chan receive",
	waitReasonChanSend:          "chan send",
	waitReasonSleep:             "sleep",
	waitReasonSyncMutexLock:     "sync.Mutex.Lock",
	waitReasonSyncWaitGroupWait: "sync.WaitGroup.Wait",
	waitReasonPark:              "park",
}

func (w waitReason) String() string {
	if int(w) < len(waitReasonStrings) {
		return waitReasonStrings[w]
	}
	return "unknown wait reason"
}

// g is a goroutine of this scheduler: a function and the coroutine it runs on.
// The exported name G is what a goroutine's body receives (see api.go).
type g struct {
	sched *schedt
	goid  int64

	// atomicstatus is one of the _G constants; change it only with casgstatus.
	atomicstatus atomicUint32

	// m is the M running this G (set by execute, cleared by dropg). Only the
	// M that runs the G, and the G itself, read it.
	m *m

	// coro is the coroutine the G runs on (coro.go), its stack: taken by
	// execute at the G's first run, given back by goexit0; nil before and
	// after. Written and read only by the M that runs the G.
	coro *coro

	// fn is the goroutine's body; nil once it has returned.
	fn func(*G)

	// schedlink links the G into exactly one gQueue or gList at a time. It is
	// guarded by whatever lock guards that queue.
	schedlink *g

	// preempt asks the G to yield at its next safe point (sysmon's
	// preemptone, stop-the-world's preemptall).
	preempt atomicBool

	waitreason waitReason // set by gopark while _Gwaiting

	// waiting is the sudog this G is blocked on (chan, Mutex, WaitGroup);
	// sg is the one sudog it owns (see acquireSudog).
	waiting *sudog
	sg      sudog
	// cell is a reusable *T where a blocked channel operation keeps its
	// value (see chanCell): taking the address of a local would make every
	// Send and Recv allocate.
	cell any

	// timer is the G's sleep timer (time.go); when == 0 while not sleeping.
	timer timer
}

// m is a worker thread of this scheduler: one Go goroutine running the
// scheduling loop in parallel with the others (see doc.go for why not an OS
// thread of its own).
type m struct {
	sched *schedt
	id    int64

	p     *p // attached P for executing Gs (nil if not executing Go code)
	nextp *p // P handed over by startm/startTheWorld before waking this M
	oldp  *p // the P that was attached before entersyscall

	// curg is the G running on this M, or nil. sysmon reads it to preempt
	// (a scheduling point: see atomics.go).
	curg atomicPointer[g]

	// spinning: the M is out of work and actively looking for it. Only the
	// M itself reads and writes this; sched.nmspinning counts spinning Ms.
	spinning bool

	park      note // stopm sleeps here; startm wakes it
	schedlink *m   // next M on sched.midle

	// mcallfn is the handler a G asked for with mcall; the M runs it on its
	// own stack after the G's coroutine has yielded (see coro.go).
	mcallfn func(mp *m, gp *g) (next *g, inheritTime bool)

	// waitunlockf and waitlock are gopark's arguments, kept for park_m.
	waitunlockf func(gp *g, lock unsafe.Pointer) bool
	waitlock    unsafe.Pointer

	syscalltick uint32 // pp.syscalltick when this M entered its syscall

	isSysmon bool // the sysmon M: it never holds a P

	// corofree caches free coroutines (coro.go), last in first out: the
	// last one a G of this M exited on is the warmest.
	corofree struct {
		first *coro
		n     int32
	}
}

// mPadded is an m padded to a whole number of cache lines, so that two Ms
// never share one: every M writes curg and mcallfn on every G it runs, and
// two Ms allocated one after the other would otherwise stall each other on
// each of those writes (false sharing). The runtime pads its m for another
// reason (runtime2.go mPadded: a 2048-byte size class, to free the low
// bits of an M pointer), with the same effect. Go's size classes up to 512
// bytes that are multiples of 64 are aligned to their size, so rounding up
// to 64 bytes is enough.
type mPadded struct {
	m
	_ [(cacheLineSize - unsafe.Sizeof(m{})%cacheLineSize) % cacheLineSize]byte
}

// cacheLineSize is the cache line of the machines Go runs on most (amd64,
// arm64 have 64 bytes; some arm64 have 128, where padding to 64 halves the
// sharing instead of removing it).
const cacheLineSize = 64

// p is a processor: the right to run Go code. An M must hold a P to execute
// a G. Each P has a local run queue that only it pushes to.
type p struct {
	sched *schedt
	id    int32

	status atomicUint32 // one of the _P constants
	link   *p           // next P on sched.pidle (under sched.lock)

	// schedtick is incremented on every scheduler call that does not inherit
	// the time slice; syscalltick on every system call. sysmon reads both,
	// while the P's M moves them: scheduling points (see atomics.go).
	schedtick   atomicUint32
	syscalltick atomicUint32
	sysmontick  sysmontick // last ticks observed by sysmon (sysmon only)

	m    atomicPointer[m] // back-link to the owning M (nil if idle or in a syscall); sysmon reads it
	oldm *m               // the last M to own this P, preferred when restarting it

	// The local run queue: a 256-slot ring, lock-free. runqhead is advanced
	// by the owner (runqget) and by thieves (runqgrab), always with a CAS;
	// runqtail only by the owner, with a store-release. The slots hold
	// atomic pointers: the runtime's plain slots are a data race by the Go
	// memory model (it tolerates them because the runtime is not
	// race-instrumented; a thief that loses its CAS throws the read away).
	runqhead atomicRingIndex
	runqtail atomicRingIndex
	runq     [256]atomicRingSlot

	// runnext, if non-nil, is a runnable G that was readied by the current
	// G and should run next instead of what is in runq, if there is time
	// left in the running G's time slice. It inherits the time slice, so a
	// set of goroutines locked in communicate-and-wait run as a unit. Other
	// Ps may take it only with a CAS (runqgrab's last resort).
	runnext atomicPointer[g]

	// gFree caches dead Gs for reuse by newproc.
	gFree struct {
		gList
		n int32
	}

	// Cache of goroutine ids, amortizes accesses to sched.goidgen: the
	// next id to hand out, and the end of the batch.
	goidcache    int64
	goidcacheend int64

	preempt atomicBool // set by preemptone; schedule clears it

	// rand is this P's random source (steal order, randomized scheduling).
	// The runtime keeps it on the M; on the P, only the owner uses it, and a
	// Config.Seed gives each P a reproducible sequence.
	rand cheaprand
}

// sysmontick is what sysmon saw of a P last time it looked (retake).
type sysmontick struct {
	schedtick   uint32
	syscalltick uint32
	schedwhen   int64
	syscallwhen int64
}

// schedt is the scheduler's global state (runtime2.go schedt, plus the
// package-level variables proc.go keeps beside it: allp, allm, allgs,
// gomaxprocs, stealOrder, idlepMask).
type schedt struct {
	cfg config

	goidgen atomic.Int64 // last goid handed out

	// lock guards the idle M and P lists, the global run queue, stopwait
	// and the M counts below. Lock order: lock before allpLock (procresize
	// holds lock and takes allpLock, so retake drops allpLock before it
	// takes lock); a chan's, Mutex's or WaitGroup's lock before lock;
	// timersLock after lock.
	lock mutex

	midle        *m    // idle Ms waiting for work
	nmidle       int32 // number of idle Ms
	nmidlelocked int32 // number of locked Ms waiting for work (always 0: no LockOSThread yet)
	mnext        int64 // number of Ms created and next M ID
	nmsys        int32 // number of system Ms (sysmon) not counted for deadlock

	pidle        *p // idle Ps
	npidle       atomicInt32
	nmspinning   atomicInt32  // number of spinning Ms
	needspinning atomicUint32 // a wakep found no idle P; a releasing M should spin instead

	// The global run queue (under lock).
	runq globalRunq

	// Global cache of dead Gs.
	gFree struct {
		lock sync.Mutex
		list gList
		n    atomicInt32 // written under lock; read without it as a hint
	}

	// Global cache of free coroutines (see m.corofree).
	corofree struct {
		lock  sync.Mutex
		first *coro
	}

	// Stop-the-world.
	gcwaiting atomicBool // stop-the-world is pending or in effect
	stopwait  int32      // Ps still to stop (under lock)
	stopnote  note       // woken when stopwait reaches 0

	// sysmonwait says sysmon is in its deep sleep. Whoever brings a P back
	// to life (a syscall entering or leaving, startTheWorld, Go) finds it
	// set under lock, clears it and wakes sysmonnote; so sysmon sets it
	// under lock too, after its second look at the Ps, or such a waker can
	// miss it. A scheduling point (see atomics.go): the hidden tests put a
	// waker just before sysmon's operations on it.
	sysmonwait atomicBool
	sysmonnote note // wakes sysmon from the deep sleep

	// The M that waits for the next timer stands in for the runtime's
	// netpoll block: lastpoll == 0 while some M is blocked there. An M
	// claims that role with lastpoll.Swap(0), and other Ms without a P may
	// claim it at the same moment: lastpoll and pollUntil are scheduling
	// points (see atomics.go).
	lastpoll  atomicInt64
	pollUntil atomicInt64 // when that M will wake, 0 if none
	pollnote  note        // breaks that M's sleep (netpollBreak)

	// allp, idlepMask and gomaxprocs change only under stop-the-world
	// (procresize). Readers that may run during a resize take a snapshot.
	allpLock   sync.Mutex // guards allp against sysmon (retake)
	allp       []*p
	idlepMask  pMask
	gomaxprocs atomicInt32
	stealOrder randomOrder

	// allm lists every M ever created (under lock); allgs every G (under
	// allglock).
	allm     []*m
	allglock sync.Mutex
	allgs    []*g

	// Timers: one heap for the whole scheduler (the runtime keeps one per
	// P); timer0When is the earliest deadline, 0 if none, read without lock.
	timersLock sync.Mutex
	timers     timerHeap
	timer0When atomicInt64

	// Lifetime of the instance (api.go).
	//
	// ngLive counts the Gs created and not yet exited. Every newproc1 and
	// every goexit0 writes it, on whichever M: it has a cache line of its
	// own, or each of those writes would also evict, from every other M's
	// cache, the fields next to it that each schedule reads (closing).
	_          [cacheLineSize]byte
	ngLive     atomic.Int64
	_          [cacheLineSize - 8]byte
	waitCalled atomic.Bool   // Wait has been called: running out of Gs ends it
	done       chan struct{} // closed when ngLive reaches 0, a deadlock or a panic is found
	doneOnce   sync.Once
	deadErr    error // why done was closed, if not by ngLive reaching 0 (under lock)
	closing    atomicBool
	mWG        sync.WaitGroup // every M goroutine, sysmon included
	stwLock    sync.Mutex     // serialises stop-the-world callers (the runtime's worldsema)

	trace func(Event) // optional event sink

	// starttime is schedtrace's time zero: the time of its first call
	// (the runtime's starttime, proc.go:6897).
	starttime atomic.Int64
}

// mcount returns the number of Ms created. Call with sched.lock held.
func (sched *schedt) mcount() int32 {
	return int32(sched.mnext)
}
