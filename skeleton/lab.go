package sched

import (
	"fmt"
	"runtime"
	"sync"
	"time"
	"unsafe"
)

// This file is the Lab: scheduler states built by hand, for tools that ask
// the reference what it decides (kata quiz computes its answers here, and
// the book draws its figures of the ring and runnext from it). It
// belongs to no lesson; the skeleton carries it unchanged.

// A Lab is a scheduler state built by hand, where nothing runs unless the
// caller runs it: Ps, Ms that no goroutine runs (but for a moment in
// StopTheWorld), and Gs without code (they sit on queues and change
// status, and are never executed). Each method that decides something
// calls the reference's own function, named in its comment, on that state:
// what a Lab reports is what the reference decides, so an exercise built
// on it changes its answer when the reference changes.
//
// A Lab is not a Runtime. No M runs a scheduling loop, sysmon runs only
// inside Sysmon, round by round on the caller's goroutine, and no G ever
// runs. The clock is the Lab's own: it stands still, except in Sysmon.
// Ps are named by number from 0; Gs by IDs the caller chooses, above 0 (0
// means "no G" in results), each made runnable the first time it is named.
// Ms get IDs 0, 1, 2... as they are made.
//
// Where the reference would start an M (startm, from wakep, resetspinning,
// ready or retake's handoffp), a Lab hands the P to one of its Ms waiting
// on the idle M list instead: before each such call it tops that list up
// to one M per P. MOf says which M got which P.
//
// A Lab is not safe for concurrent use. Its methods panic on a request that
// makes no sense (a P that does not exist, the M of a P that has none), as
// the scheduler's own functions panic on a broken invariant.
type Lab struct {
	sched *schedt
	gs    map[int64]*g
	now   int64 // the clock, in nanoseconds

	stopped []*m           // Ms parked by StopTheWorld, until Procresize
	parked  sync.WaitGroup // their goroutines
}

// NewLab returns a Lab with procs Ps, all idle, as New leaves them, the
// clock at one second, and the runtime's defaults otherwise (sysmon's
// timings, runnext in use, no randomized scheduling, the default Seed).
// Nothing sleeps: a thief's back-off before it steals runnext returns at
// once.
func NewLab(procs int) *Lab {
	l := &Lab{gs: map[int64]*g{}, now: int64(time.Second)}
	cfg := Config{
		Procs:    procs,
		Nanotime: func() int64 { return l.now },
		Usleep:   func(int64) {},
	}
	sched := newSchedt(cfg)
	l.sched = sched
	return l
}

// Hold takes P p off the idle list and gives it to a new M that runs no G
// (an M between two Gs, about to look for work), and returns the M's ID.
func (l *Lab) Hold(p int) (m int64) {
	pp := l.p(p)
	sched := l.sched
	sched.lock.Lock()
	found := false
	for link := &sched.pidle; *link != nil; link = &(*link).link {
		if *link == pp {
			*link = pp.link
			pp.link = nil
			sched.idlepMask.clear(pp.id)
			sched.npidle.Add(-1)
			found = true
			break
		}
	}
	sched.lock.Unlock()
	if !found {
		panic(fmt.Sprintf("sched: Lab.Hold(%d): P %d is not idle", p, p))
	}
	mp := l.newM()
	acquirep(mp, pp)
	return mp.id
}

// Run has G g, new, start a time slice on P p: on P p's M if P p is held
// by one that runs no G (see Hold, Park), else on a new M that takes P p
// off the idle list. g is _Grunning and P p's schedtick has moved on by
// one, as execute leaves them. It returns the M's ID.
func (l *Lab) Run(p int, g int64) (m int64) {
	if _, ok := l.gs[g]; ok {
		panic(fmt.Sprintf("sched: Lab.Run(%d, %d): G %d already exists", p, g, g))
	}
	mp := l.p(p).m.Load()
	if mp == nil {
		l.Hold(p)
		mp = l.p(p).m.Load()
	}
	if cur := mp.curg.Load(); cur != nil {
		panic(fmt.Sprintf("sched: Lab.Run(%d, %d): P %d's M runs G %d", p, g, p, cur.goid))
	}
	gp := l.g(g)
	gp.atomicstatus.Store(_Grunning)
	gp.m = mp
	mp.curg.Store(gp)
	mp.p.schedtick.Add(1)
	return mp.id
}

// Spin is Hold, and the M spins (becomeSpinning): it counts in nmspinning.
func (l *Lab) Spin(p int) (m int64) {
	m = l.Hold(p)
	l.p(p).m.Load().becomeSpinning()
	return m
}

// Syscall makes the G that P p's M runs (see Run) enter a system call
// (entersyscall): the P goes _Psyscall, with no M. The P's syscalltick is
// moved on first, as by the calls its Gs made before, so that sysmon's
// next look at it is a first sighting: a fresh P's zero tick would match
// sysmon's zero record of it.
func (l *Lab) Syscall(p int) {
	pp := l.p(p)
	mp := l.mOf(p)
	gp := mp.curg.Load()
	if gp == nil {
		panic(fmt.Sprintf("sched: Lab.Syscall(%d): P %d's M runs no G (see Lab.Run)", p, p))
	}
	pp.syscalltick.Add(1)
	entersyscall(gp)
}

// SetSchedtick sets P p's schedtick, which findRunnable's fairness check
// and sysmon's retake read.
func (l *Lab) SetSchedtick(p int, tick uint32) {
	l.p(p).schedtick.Store(tick)
}

// SetRing sets the counters of P p's empty ring to head (runqhead =
// runqtail = head), to start it anywhere, near the uint32 wrap-around say.
func (l *Lab) SetRing(p int, head uint32) {
	pp := l.p(p)
	if pp.runqhead.Load() != pp.runqtail.Load() {
		panic(fmt.Sprintf("sched: Lab.SetRing(%d): the ring is not empty", p))
	}
	pp.runqhead.Store(head)
	pp.runqtail.Store(head)
}

// Runqput puts G g on P p's local run queue (runqput).
func (l *Lab) Runqput(p int, g int64, next bool) {
	runqput(l.p(p), l.g(g), next)
}

// Runqget takes a G from P p's local run queue (runqget): 0 if it is empty.
func (l *Lab) Runqget(p int) (g int64, inheritTime bool) {
	gp, inheritTime := runqget(l.p(p))
	return labGoid(gp), inheritTime
}

// Runqsteal has P thief steal from P victim (runqsteal): g is the G it
// returns to run (0 if none), n the number of Gs it took, g included.
func (l *Lab) Runqsteal(thief, victim int, stealRunNextG bool) (g int64, n int) {
	pp := l.p(thief)
	t := pp.runqtail.Load()
	gp := runqsteal(pp, l.p(victim), stealRunNextG)
	if gp == nil {
		return 0, 0
	}
	return gp.goid, int(pp.runqtail.Load()-t) + 1
}

// Ring returns P p's ring counters and its Gs, head first.
func (l *Lab) Ring(p int) (head, tail uint32, gs []int64) {
	pp := l.p(p)
	head, tail = pp.runqhead.Load(), pp.runqtail.Load()
	for i := head; i != tail; i++ {
		gs = append(gs, pp.runq[i%uint32(len(pp.runq))].Load().goid)
	}
	return head, tail, gs
}

// Runq returns P p's whole run queue as it is now: the counters, every
// slot, and runnext. The book's figures of the ring draw it.
func (l *Lab) Runq(p int) RunqState {
	pp := l.p(p)
	s := RunqState{Head: pp.runqhead.Load(), Tail: pp.runqtail.Load(), Next: labGoid(pp.runnext.Load())}
	for i := range pp.runq {
		s.Slots[i] = labGoid(pp.runq[i].Load())
	}
	return s
}

// A RunqState is one P's run queue at one moment. The Gs queued on the
// ring are those in the slots from Head to Tail-1 (mod 256); a slot
// outside them keeps the last G written to it, which nobody will read.
type RunqState struct {
	Head, Tail uint32
	Slots      [256]int64 // the ID of the G each slot holds, 0 if none ever
	Next       int64      // runnext's G, 0 if none
}

// Runnext returns the G in P p's runnext, 0 if none.
func (l *Lab) Runnext(p int) int64 {
	return labGoid(l.p(p).runnext.Load())
}

// GlobrunqPut puts G g at the tail of the global run queue (globrunqput).
func (l *Lab) GlobrunqPut(g int64) {
	l.sched.lock.Lock()
	defer l.sched.lock.Unlock()
	l.sched.globrunqput(l.g(g))
}

// GlobrunqPutHead puts G g at the head of the global run queue
// (globrunqputhead).
func (l *Lab) GlobrunqPutHead(g int64) {
	l.sched.lock.Lock()
	defer l.sched.lock.Unlock()
	l.sched.globrunqputhead(l.g(g))
}

// GlobrunqGetBatch takes a batch of at most n Gs off the global run queue
// (globrunqgetbatch): g to run, and the rest, in order. The Gs taken stay
// in the Lab, on no queue.
func (l *Lab) GlobrunqGetBatch(n int) (g int64, rest []int64) {
	l.sched.lock.Lock()
	gp, q := l.sched.globrunqgetbatch(int32(n))
	l.sched.lock.Unlock()
	for gp := q.head; gp != nil; gp = gp.schedlink {
		rest = append(rest, gp.goid)
	}
	return labGoid(gp), rest
}

// Global returns the Gs on the global run queue, head first.
func (l *Lab) Global() []int64 {
	l.sched.lock.Lock()
	defer l.sched.lock.Unlock()
	var ids []int64
	for gp := l.sched.runq.head; gp != nil; gp = gp.schedlink {
		ids = append(ids, gp.goid)
	}
	return ids
}

// StealOrder returns the order in which stealWork visits the Ps when its
// random number is r (randomOrder.start).
func (l *Lab) StealOrder(r uint32) []int {
	var order []int
	for enum := l.sched.stealOrder.start(r); !enum.done(); enum.next() {
		order = append(order, int(enum.position()))
	}
	return order
}

// FindRunnable has the M holding P p (see Hold) look for a G
// (findRunnable) and returns what it found. If it parked instead, having
// found nothing, FindRunnable wakes it as Close does and returns parked;
// the Lab is closed then and must not be used again.
func (l *Lab) FindRunnable(p int) (gid int64, inheritTime, parked bool) {
	mp := l.mOf(p)
	if gp := mp.curg.Load(); gp != nil {
		panic(fmt.Sprintf("sched: Lab.FindRunnable(%d): P %d's M is running G %d (see Lab.Hold)", p, p, gp.goid))
	}
	sched := l.sched
	var gp *g
	done := make(chan struct{})
	go func() {
		defer close(done)
		gp, inheritTime = findRunnable(mp)
	}()
	for {
		select {
		case <-done:
			return labGoid(gp), inheritTime, false
		case <-time.After(100 * time.Microsecond):
		}
		sched.lock.Lock()
		if sched.mgetSpecific(mp) != nil { // parked in stopm
			sched.closing.Store(true)
			notewakeup(&mp.park)
			sched.lock.Unlock()
			<-done
			return 0, false, true
		}
		sched.lock.Unlock()
	}
}

// ShouldSpin reports whether the M holding P p may spin (shouldSpin).
func (l *Lab) ShouldSpin(p int) bool {
	return shouldSpin(l.mOf(p))
}

// Wakep calls wakep and returns the P it handed to an M, or -1.
func (l *Lab) Wakep() (p int) {
	return l.started(func() { wakep(l.sched) })
}

// Resetspinning has the spinning M holding P p stop spinning
// (resetspinning) and returns the P its wakep handed to an M, or -1.
func (l *Lab) Resetspinning(p int) (woke int) {
	mp := l.mOf(p)
	return l.started(func() { resetspinning(mp) })
}

// Nmspinning returns the number of spinning Ms (sched.nmspinning).
func (l *Lab) Nmspinning() int {
	return int(l.sched.nmspinning.Load())
}

// NeedSpinning reports whether sched.needspinning is set: a wakep found
// no idle P and asked the next M that releases one to spin.
func (l *Lab) NeedSpinning() bool {
	return l.sched.needspinning.Load() == 1
}

// Park parks the G that P p's M runs (see Run), as gopark does, with an
// unlockf that returns unlockf: park_m runs on the M. runsAgain reports
// that park_m handed the G back to run at once; it is _Grunnable then,
// and on no queue.
func (l *Lab) Park(p int, unlockf bool) (runsAgain bool) {
	mp := l.mOf(p)
	gp := mp.curg.Load()
	if gp == nil {
		panic(fmt.Sprintf("sched: Lab.Park(%d): P %d's M runs no G (see Lab.Run)", p, p))
	}
	mp.waitunlockf = func(*g, unsafe.Pointer) bool { return unlockf }
	gp.waitreason = waitReasonPark
	next, _ := park_m(mp, gp)
	return next == gp
}

// Ready has the M holding P p ready G g (goready). It returns ready's
// panic, if it panicked, as an error.
func (l *Lab) Ready(p int, g int64) (err error) {
	mp := l.mOf(p)
	gp := l.g(g)
	l.topUpIdleMs()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	goready(mp, gp)
	return nil
}

// GStatus returns G g's status: "runnable", "running", "waiting", ...
func (l *Lab) GStatus(g int64) string {
	return gStatusString(readgstatus(l.g(g)))
}

// Preempted reports whether G g has been asked to yield (its preempt flag).
func (l *Lab) Preempted(g int64) bool {
	return l.g(g).preempt.Load()
}

// PStatus returns P p's status: "idle", "running", "syscall", ...
func (l *Lab) PStatus(p int) string {
	return pStatusString(l.p(p).status.Load())
}

// Retake runs one look of sysmon at the Ps (retake) with the clock at now,
// in nanoseconds, and returns how many Ps it took from system calls.
func (l *Lab) Retake(now int64) int {
	l.now = max(l.now, now)
	l.topUpIdleMs()
	return int(retake(l.sched, now))
}

// Sysmon runs sysmon for the given number of rounds on the caller's
// goroutine and returns the sleep it asked for before each, in
// microseconds. Each sleep moves the Lab's clock on by that much; then
// each(i), if not nil, may change the state before round i (from 1)
// looks at it. sysmon stops early if every P is idle: it would go into
// its deep sleep, which lasts real time.
func (l *Lab) Sysmon(rounds int, each func(round int)) (sleeps []int64) {
	sched := l.sched
	mp := allocm(sched, -1)
	mp.isSysmon = true
	sched.lock.Lock()
	sched.nmsys++
	sched.lock.Unlock()
	sched.cfg.usleep = func(usec int64) {
		sleeps = append(sleeps, usec)
		l.now += usec * 1000
		if each != nil {
			each(len(sleeps))
		}
		l.topUpIdleMs()
		if len(sleeps) >= rounds || sched.npidle.Load() == sched.gomaxprocs.Load() {
			sched.closing.Store(true) // sysmon returns after this round
		}
	}
	defer func() {
		sched.cfg.usleep = func(int64) {}
		sched.closing.Store(false)
	}()
	if rounds > 0 {
		sched.mWG.Add(1)
		sysmon(mp)
	}
	return sleeps
}

// StopTheWorld stops every P with the reference's stopTheWorld: it takes
// idle Ps and Ps in a system call itself, and each M holding a P stops
// its P and parks on the idle M list (gcstopm), one after the other in P
// order, as it would on its way through findRunnable. An M holding a P
// must run no G. The world stays stopped until Procresize.
func (l *Lab) StopTheWorld() {
	sched := l.sched
	var held []*m
	for _, pp := range sched.allp {
		if mp := pp.m.Load(); mp != nil {
			if gp := mp.curg.Load(); gp != nil {
				panic(fmt.Sprintf("sched: Lab.StopTheWorld: P %d's M runs G %d; a Lab stops only Ms that run no G", pp.id, gp.goid))
			}
			held = append(held, mp)
		}
	}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		stopTheWorld(sched)
	}()
	waitUntil(sched.gcwaiting.Load)
	for _, mp := range held {
		// The M parks in stopm until Procresize lets it go.
		l.stopped = append(l.stopped, mp)
		l.parked.Add(1)
		go func() {
			defer l.parked.Done()
			gcstopm(mp)
		}()
		waitUntil(func() bool {
			sched.lock.Lock()
			defer sched.lock.Unlock()
			for x := sched.midle; x != nil; x = x.schedlink {
				if x == mp {
					return true
				}
			}
			return false
		})
	}
	<-stopped
}

// Procresize resizes the stopped world (see StopTheWorld) to n Ps
// (procresize) and returns the Ps it handed back as having work, in its
// order, each with the M that is to run it (MOf). Then the world counts as
// started, but no M is woken to run a P: the Ms that StopTheWorld parked
// leave stopm with no P, and those procresize handed a P stay recorded
// as its M.
func (l *Lab) Procresize(n int) (withWork []int) {
	sched := l.sched
	sched.lock.Lock()
	head := procresize(sched, int32(n))
	sched.gcwaiting.Store(false)
	sched.lock.Unlock()
	for pp := head; pp != nil; pp = pp.link {
		withWork = append(withWork, int(pp.id))
	}
	for _, mp := range l.stopped {
		notewakeup(&mp.park) // with no nextp: stopm returns
	}
	l.parked.Wait()
	l.stopped = nil
	sched.stwLock.Unlock()
	return withWork
}

// waitUntil yields until cond holds: for the goroutines of StopTheWorld.
func waitUntil(cond func() bool) {
	for !cond() {
		runtime.Gosched()
	}
}

// Idle returns the Ps on the idle list, head first.
func (l *Lab) Idle() []int {
	l.sched.lock.Lock()
	defer l.sched.lock.Unlock()
	var ids []int
	for pp := l.sched.pidle; pp != nil; pp = pp.link {
		ids = append(ids, int(pp.id))
	}
	return ids
}

// IdleMs returns the Ms on the idle M list, head first.
func (l *Lab) IdleMs() []int64 {
	l.sched.lock.Lock()
	defer l.sched.lock.Unlock()
	var ids []int64
	for mp := l.sched.midle; mp != nil; mp = mp.schedlink {
		ids = append(ids, mp.id)
	}
	return ids
}

// MOf returns the M that holds P p, or was handed it to start with
// (startm, procresize), or -1.
func (l *Lab) MOf(p int) int64 {
	pp := l.p(p)
	if mp := pp.m.Load(); mp != nil {
		return mp.id
	}
	l.sched.lock.Lock()
	defer l.sched.lock.Unlock()
	for _, mp := range l.sched.allm {
		if mp.nextp == pp {
			return mp.id
		}
	}
	return -1
}

// p returns P id, which must exist.
func (l *Lab) p(id int) *p {
	if id < 0 || id >= len(l.sched.allp) {
		panic(fmt.Sprintf("sched: Lab: no P %d (there are %d)", id, len(l.sched.allp)))
	}
	return l.sched.allp[id]
}

// mOf returns the M holding P id, which must have one.
func (l *Lab) mOf(id int) *m {
	mp := l.p(id).m.Load()
	if mp == nil {
		panic(fmt.Sprintf("sched: Lab: P %d has no M (see Lab.Hold)", id))
	}
	return mp
}

// g returns G id, made runnable if it is new.
func (l *Lab) g(id int64) *g {
	if id <= 0 {
		panic(fmt.Sprintf("sched: Lab: G %d: G IDs start at 1", id))
	}
	gp, ok := l.gs[id]
	if !ok {
		gp = &g{sched: l.sched, goid: id}
		gp.atomicstatus.Store(_Grunnable)
		l.gs[id] = gp
	}
	return gp
}

// newM makes an M that no goroutine runs, counted among the Ms created.
func (l *Lab) newM() *m {
	mp := &m{sched: l.sched}
	mp.park.init()
	l.sched.lock.Lock()
	mp.id = l.sched.mReserveID()
	l.sched.allm = append(l.sched.allm, mp)
	l.sched.lock.Unlock()
	return mp
}

// topUpIdleMs parks new Ms on the idle M list until there is one per P, so
// that startm finds one there instead of starting a real M.
func (l *Lab) topUpIdleMs() {
	for {
		l.sched.lock.Lock()
		enough := l.sched.nmidle >= l.sched.gomaxprocs.Load()
		l.sched.lock.Unlock()
		if enough {
			return
		}
		mp := l.newM()
		l.sched.lock.Lock()
		l.sched.mput(mp)
		l.sched.lock.Unlock()
	}
}

// started runs f, which may start an M, and returns the P that f handed
// to one of the idle Ms, or -1.
func (l *Lab) started(f func()) int {
	l.topUpIdleMs()
	var idle []*m
	l.sched.lock.Lock()
	for mp := l.sched.midle; mp != nil; mp = mp.schedlink {
		idle = append(idle, mp)
	}
	l.sched.lock.Unlock()
	f()
	for _, mp := range idle {
		if mp.nextp != nil {
			return int(mp.nextp.id)
		}
	}
	return -1
}

func labGoid(gp *g) int64 {
	if gp == nil {
		return 0
	}
	return gp.goid
}
