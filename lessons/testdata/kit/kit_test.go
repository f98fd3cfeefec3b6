package sched

// The hidden tests' kit: helpers shared by every lesson's hidden tests.
// Everything here is prefixed kit, so it cannot clash with a lesson's test.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"
)

// kitSched builds a scheduler with procs idle Ps and no M running: a
// constructed state for tests that drive the data structures by hand.
func kitSched(procs int, cfg Config) *schedt {
	// Made with more Ps, then GOMAXPROCS(procs): as a program that
	// changed GOMAXPROCS since New, allp has room past its length (dead
	// Ps) and cfg.procs is not gomaxprocs (kitResized).
	cfg.Procs = min(procs+kitResized(cfg.Seed, procs), maxProcs)
	sched := &schedt{done: make(chan struct{})}
	sched.cfg = cfg.normalize()
	sched.trace = cfg.Trace
	sched.runq.sched = sched // as newSchedt sets it
	sched.stopnote.init()
	sched.sysmonnote.init()
	sched.pollnote.init()
	sched.lastpoll.Store(kitClockAt(kitMix(sched.cfg.seed, 1)))
	sched.lock.Lock()
	procresize(sched, sched.cfg.procs)
	sched.lock.Unlock()
	kitGOMAXPROCS(sched, int32(procs))
	kitUsedRand(sched)
	kitRanBefore(sched)
	kitLivedFree(sched, sched.allp, 0)
	return sched
}

// The constructed worlds look used, as a running scheduler's do, and are
// the same for the same Config.Seed (the explorer replays a world by
// building it again, and a file's operations may depend on what it holds).

// kitMix is a hash of seed and salt (splitmix64's finaliser): the same
// for the same two, unrelated for different ones.
func kitMix(seed, salt uint64) uint64 {
	z := seed + salt*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// kitClockAt is a time as a new Runtime's clock reads it (nanoseconds
// since New, plus 1), from the random bits u: some microseconds to a
// millisecond, never a round number. A constructed scheduler's lastpoll
// was 1 once, which no Runtime stores: a twenty-ninth red team's
// findRunnable kept the fairness tick only when lastpoll looked hand-made
// (0, 1, a multiple of 2^20).
func kitClockAt(u uint64) int64 {
	return 1000 + int64(u%999_000)
}

// kitClockNow is kitClockAt of fresh random bits.
func kitClockNow() int64 { return kitClockAt(rand.Uint64()) }

// kitSpreadGoid is an ID for a G that is not one a test counts or names,
// from the random bits u: log-uniform from 10,000 to 2^40, as a
// long-lived program's Gs are numbered, not a round one a file could tell
// apart (a twenty-ninth red team's runqgrabnext backed off only when the
// victim's running G was numbered a round hundred or past a million, as
// the tests' were).
func kitSpreadGoid(u uint64) int64 {
	f := float64(u>>11) / (1 << 53)
	return int64(math.Exp(math.Log(1e4) + f*(math.Log(1<<40)-math.Log(1e4))))
}

// kitUsedRand draws from each P's random source 1 to 64 times, as a P
// that has run has: a P fresh from procresize holds exactly cfg.seed ^
// (id+1)*0x9e3779b97f4a7c15, which a file could tell (that red team's
// procresize took its mistake only when a P had drawn).
func kitUsedRand(sched *schedt) {
	for _, pp := range sched.allp {
		for range 1 + kitMix(sched.cfg.seed, 100+uint64(pp.id))%64 {
			pp.rand.uint32()
		}
	}
}

// kitRanBefore gives each P an old M (pp.oldm), as acquirep leaves on
// every P that has run: an M that has since gone, on no list of the
// scheduler's, and not counted in it (its ID is the P's, as the first Ms
// to run the Ps are numbered). A thirtieth red team's destroy put a P's
// Gs on the global queue's tail, not its head, only when the P had an old
// M, which no constructed P had.
func kitRanBefore(sched *schedt) {
	for _, pp := range sched.allp {
		mp := &m{sched: sched, id: int64(pp.id)}
		mp.park.init()
		pp.oldm = mp
	}
}

// kitResized is how many more Ps than procs a constructed world was made
// with before GOMAXPROCS(procs): 1 to 4, from the seed. A world fresh from
// New never had more Ps than it has (cap(allp) == len(allp), cfg.procs ==
// gomaxprocs): a thirty-second red team's files took their mistakes in
// lessons 03, 04, 05, 07 and 08 only after a shrink, which no test world
// had had. The differentials' worlds (kitBuild) are shrunk for half of
// the states and fresh for the others.
func kitResized(seed uint64, procs int) int {
	return 1 + int(kitMix(seed, 400+uint64(procs))%4)
}

// kitGOMAXPROCS changes the number of Ps of a world where every P is idle
// and nothing runs, as GOMAXPROCS does: the world stopped (every P taken
// off the idle list, _Pgcstop), procresize, the world started.
func kitGOMAXPROCS(sched *schedt, procs int32) {
	for _, pp := range sched.allp {
		kitTakeP(sched, pp.id).status.Store(_Pgcstop)
	}
	sched.lock.Lock()
	sched.gcwaiting.Store(true)
	procresize(sched, procs)
	sched.gcwaiting.Store(false)
	sched.lock.Unlock()
}

// kitLivedFree caches dead Gs on the free lists, as a scheduler that has
// run Gs to their end has: 0 to 40 on each P (gfput keeps fewer than 64)
// and 0 to 150 on the global list, numbered far apart (kitSpreadGoid), all
// from cfg.seed. A constructed world's free lists were empty: a
// thirty-first red team's procresize ignored a P's old M, put a destroyed
// P's Gs at the global queue's tail and reset the survivors' random
// sources, each only when the free lists held 8 Gs or more.
//
// Only the busy Ps are given dead Gs (all of them, from kitSched; a
// differential's, its state's own): a widened state (kitWiden) has up to
// maxProcs Ps, most of them idle since they were made, as on a big machine
// that has never had work for them all, and their free lists empty.
//
// more dead Gs are cached on the global list beyond those
// (kitState.Dead: a program that once ran that many Gs more at once),
// made in one allocation: 131,072 made one by one were most of lesson
// 08's differential.
func kitLivedFree(sched *schedt, busy []*p, more int) {
	seed := sched.cfg.seed
	var dead []*g
	for _, pp := range busy {
		for k := range kitMix(seed, 300+uint64(pp.id)) % 41 {
			gp := kitDeadG(sched, kitSpreadGoid(kitMix(seed, 1<<32+uint64(pp.id)<<12+k)))
			pp.gFree.push(gp)
			pp.gFree.n++
			dead = append(dead, gp)
		}
	}
	sched.gFree.lock.Lock()
	n := kitMix(seed, 299) % 151
	for k := range n {
		gp := kitDeadG(sched, kitSpreadGoid(kitMix(seed, 1<<33+k)))
		sched.gFree.list.push(gp)
		dead = append(dead, gp)
	}
	many := make([]g, more)
	for k := range many {
		gp := kitDead(&many[k], sched, kitSpreadGoid(kitMix(seed, 1<<34+uint64(k))))
		sched.gFree.list.push(gp)
		dead = append(dead, gp)
	}
	sched.gFree.n.Add(int32(n) + int32(more))
	sched.gFree.lock.Unlock()
	sched.allglock.Lock()
	sched.allgs = append(sched.allgs, dead...) // as allgadd, once for all
	sched.allglock.Unlock()
}

// kitDeadG makes a dead G, as malg and gfput leave one, not yet in allgs.
// Its status is written plainly, before anyone else can see the G: an
// atomic store would be a scheduling point (the noise's, a stirrer's) and,
// under the race detector, a synchronisation object kept until the G is
// freed, hundreds of them for each world (see kitPlainStore), which made
// the lessons' suites a third slower.
func kitDeadG(sched *schedt, id int64) *g {
	return kitDead(malg(sched), sched, id)
}

// kitDead makes gp, a G of no one yet, a dead G of sched numbered id, as
// kitDeadG does.
func kitDead(gp *g, sched *schedt, id int64) *g {
	gp.sched = sched
	gp.goid = id
	*(*uint32)(unsafe.Pointer(&gp.atomicstatus)) = _Gdead
	return gp
}

// kitG makes a runnable G with the given ID and no coroutine: enough for the
// run queues, which only move pointers.
func kitG(sched *schedt, id int64) *g {
	gp := &g{sched: sched, goid: id}
	gp.atomicstatus.Store(_Grunnable)
	return gp
}

// kitGs makes n runnable Gs with IDs first, first+1, ...
func kitGs(sched *schedt, first int64, n int) []*g {
	gs := make([]*g, n)
	for i := range gs {
		gs[i] = kitG(sched, first+int64(i))
	}
	return gs
}

// kitTakeP takes P id off the idle list (and the idle mask), as pidleget
// would for that P, and returns it. It panics if P id is not idle.
func kitTakeP(sched *schedt, id int32) *p {
	sched.lock.Lock()
	defer sched.lock.Unlock()
	for link := &sched.pidle; *link != nil; link = &(*link).link {
		if pp := *link; pp.id == id {
			*link = pp.link
			pp.link = nil
			sched.idlepMask.clear(id)
			sched.npidle.Add(-1)
			return pp
		}
	}
	panic(fmt.Sprintf("kitTakeP: P %d is not on the idle list", id))
}

// kitRealM takes P id off the idle list and gives it to a new M made as
// the scheduler makes its own: its ID reserved from sched's sequence (0,
// 1, 2...), not one of the hand-made IDs most tests give their Ms (100 and
// up), which a file could tell from the scheduler's (a twenty-sixth red
// team's took its mistake only for an M below 100, holding a P). The
// stirred questions are asked on such an M.
func kitRealM(sched *schedt, id int32) *m {
	pp := kitTakeP(sched, id)
	mp := kitNewM(sched)
	acquirep(mp, pp)
	return mp
}

// kitNewM makes an M as the scheduler makes its own: its ID reserved from
// sched's sequence (counted in mcount, as allocm's are), its note ready.
// Hand-made IDs (100 and up) were a tell: a thirtieth red team's
// findRunnable took a batch of one from the global queue only on an M
// below 100.
func kitNewM(sched *schedt) *m {
	sched.lock.Lock()
	mp := &m{sched: sched, id: sched.mReserveID()}
	sched.lock.Unlock()
	mp.park.init()
	return mp
}

// kitRunningP takes P id off the idle list and makes it running as it is
// in a real scheduler: owned by an M (acquirep: status _Prunning, pp.m set)
// whose current G is _Grunning. Nothing runs them: the test plays the
// owner. The M is numbered as the scheduler numbers its own (kitNewM),
// and its G as a long-lived program's (kitSpreadGoid); the G is not
// counted among the scheduler's Gs. Code under test may look at a
// running P's M and G (Go 1.26's runqgrab does, before it backs off), so a
// P marked _Prunning without them would be a state no scheduler is in.
func kitRunningP(sched *schedt, id int32) *p {
	pp := kitTakeP(sched, id)
	mp := kitNewM(sched)
	acquirep(mp, pp)
	gp := kitG(sched, kitSpreadGoid(kitMix(sched.cfg.seed, 200+uint64(id))))
	gp.atomicstatus.Store(_Grunning)
	gp.m = mp
	mp.curg.Store(gp)
	return pp
}

// kitID is a G's ID for messages, or "nil": a G of kitScenarioGs is
// named by its place, G 1 to G n.
func kitID(gp *g) string {
	if gp == nil {
		return "nil"
	}
	return fmt.Sprintf("G %d", kitPlace(gp))
}

// kitGoidBase is added to the IDs of the Gs of kitScenarioGs: drawn once
// per test process from the IDs a real scheduler's Gs have in the tests on
// real threads. The small controlled scenarios once numbered their Gs from
// 1, and a twentieth red team's files ran a mistake only for Gs numbered
// past 300, where no controlled scenario looked.
var kitGoidBase = rand.Int64N(3000)

// kitScenarioPlace labels a G of kitScenarioGs with its place (in g.cell,
// which no lesson file may read, as these Gs never run).
type kitScenarioPlace int64

// kitScenarioGs makes n runnable Gs for a controlled scenario, named
// G first, G first+1, ... by place, with IDs from kitGoidBase+first.
func kitScenarioGs(sched *schedt, first int64, n int) []*g {
	gs := kitGs(sched, kitGoidBase+first, n)
	for i, gp := range gs {
		gp.cell = kitScenarioPlace(first + int64(i))
	}
	return gs
}

// kitRingBase is where the rings of the controlled scenarios start
// (kitRingsAt): drawn once per test process from all of uint32. A P's
// ring counters only grow, so on a real scheduler they are anywhere; a
// twenty-first red team's file dropped every CompareAndSwap of the ring
// once its tail passed 40,000, which no concurrent test reached.
var kitRingBase = rand.Uint32()

// kitRingsAt empties every P's ring at a position of its own: P i's at
// at + i×2654435769 (so the Ps' counters differ and say nothing of each
// other), before any thread runs.
func kitRingsAt(sched *schedt, at uint32) {
	for _, pp := range sched.allp {
		pos := at + uint32(pp.id)*2654435769
		pp.runqhead.Store(pos)
		pp.runqtail.Store(pos)
	}
}

// kitPlace is gp's place among the Gs of kitScenarioGs, or its ID.
func kitPlace(gp *g) int64 {
	if place, ok := gp.cell.(kitScenarioPlace); ok {
		return int64(place)
	}
	return gp.goid
}

// kitRun runs body as the first G of a fresh Runtime and waits for every G
// to finish, failing the test if that takes longer than limit (a deadlock
// in the learner's code must not hang the grader).
func kitRun(t *testing.T, cfg Config, limit time.Duration, body func(*G)) error {
	t.Helper()
	rt := New(cfg)
	rt.Go(body)
	done := make(chan error, 1)
	go func() { done <- rt.Wait() }()
	select {
	case err := <-done:
		closed := make(chan struct{})
		go func() {
			rt.Close()
			close(closed)
		}()
		if err != nil {
			// A broken scheduler may never finish closing (a G that
			// panicked holding a lock leaves Ms stuck on it): leave it to
			// close in the background, so the verdict still comes fast.
			return err
		}
		select {
		case <-closed:
		case <-time.After(limit):
			t.Fatalf("every G finished, but Runtime.Close did not return within %s: an M that never wakes, or a G that never reaches a safe point?", limit)
		}
		return nil
	case <-time.After(limit):
		if where := kitLoops(); where != "" {
			t.Fatalf("the scheduler did not finish within %s: %s: stuck in a loop, or deadlocked?", limit, where)
		}
		t.Fatalf("the scheduler did not finish within %s: some G never ran again (lost from a run queue?), or an M never woke", limit)
		return nil
	}
}

// kitPlumbing is the files of the wrappers round sync/atomic and of the
// controlled scheduler's points: code every loop calls, never the loop.
var kitPlumbing = map[string]bool{"atomics.go": true, "interleave.go": true, "nointerleave.go": true}

// kitLoops says where the scheduler's code was running when a limit ran
// out, as kata's own hang message does ("runqgethead (runq.go:132) was
// still running"), or "" if every goroutine of it was blocked: the first
// frame in the package's own (not test) files of each goroutine running or
// runnable, read from a dump of them all. Whichever limit runs out first,
// the kit's or kata's, the learner learns where the loop is. The files of
// the atomics' scheduling points (kitPlumbing) are passed over: a loop
// spends its time in them, but it is the caller's.
func kitLoops() string {
	_, self, _, _ := runtime.Caller(0)
	dir := filepath.Dir(self)
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var running []string
	seen := map[string]bool{}
	for _, g := range strings.Split(string(buf), "\n\n") {
		header, frames, _ := strings.Cut(g, "\n")
		if !strings.Contains(header, "[running") && !strings.Contains(header, "[runnable") {
			continue
		}
		lines := strings.Split(frames, "\n")
		for i := 0; i+1 < len(lines); i += 2 {
			file, _, _ := strings.Cut(strings.TrimSpace(lines[i+1]), " +")
			colon := strings.LastIndex(file, ":")
			if colon < 0 || filepath.Dir(file[:colon]) != dir || strings.HasSuffix(file[:colon], "_test.go") || kitPlumbing[filepath.Base(file[:colon])] {
				continue
			}
			fn := lines[i][strings.LastIndex(lines[i], "/")+1:] // "solutions.runqgethead(0xc0001, ...)"
			_, fn, _ = strings.Cut(fn, ".")                     // the package's name off
			if args := strings.LastIndex(fn, "("); args > 0 {
				fn = fn[:args]
			}
			if at := fmt.Sprintf("%s (%s%s)", fn, filepath.Base(file[:colon]), file[colon:]); !seen[at] {
				seen[at] = true
				running = append(running, at)
			}
			break
		}
	}
	switch {
	case len(running) == 0:
		return ""
	case len(running) == 1:
		return running[0] + " was still running"
	case len(running) == 2:
		return running[0] + ", " + running[1] + " were still running"
	}
	return fmt.Sprintf("%s, %s and %d more were still running", running[0], running[1], len(running)-2)
}

// kitStall is how long a stress test waits for a run that has stopped
// getting anywhere (its progress count unchanged) before it calls it stuck.
// The reference moves that count every few hundred microseconds; five
// seconds with no step at all is a lost wake-up, not a slow machine. A run
// that keeps moving has the test's whole limit.
const kitStall = 5 * time.Second

// kitAwait waits for done until limit, but gives up sooner once progress
// (a count the run's Gs raise as they get anywhere) has not moved for
// kitStall: a learner whose scheduler lost a wake-up hears so in seconds,
// not at the end of the test's limit. ended says whether done came; waited
// is how long it waited, and stalled whether it gave up for the stall.
func kitAwait(done <-chan error, progress func() int64, limit time.Duration) (err error, ended, stalled bool, waited time.Duration) {
	start := time.Now()
	last, lastMove := progress(), start
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			return err, true, false, time.Since(start)
		case now := <-tick.C:
			if p := progress(); p != last {
				last, lastMove = p, now
			}
			switch {
			case now.Sub(start) >= limit:
				return nil, false, false, now.Sub(start).Round(time.Second)
			case now.Sub(lastMove) >= kitStall:
				return nil, false, true, now.Sub(start).Round(time.Second)
			}
		}
	}
}

// kitStalled says, for a failure message, how a kitAwait that did not end
// gave up.
func kitStalled(stalled bool, waited time.Duration) string {
	switch {
	case stalled && waited <= kitStall+time.Second:
		return fmt.Sprintf("after %s with nothing moving", waited)
	case stalled:
		return fmt.Sprintf("after %s (nothing moved in the last %s)", waited, kitStall)
	}
	return fmt.Sprintf("after %s", waited)
}

// kitHint is the pointer to the hints at the end of a failure message.
func kitHint(lesson string) string {
	return " (stuck? kata hint " + lesson + ")"
}

// kitCount says n of a noun as a message does: kitCount(1, "P") is "1 P",
// kitCount(3, "P") "3 Ps"; a plural other than noun+"s" comes after:
// kitCount(2, "pass", "passes").
func kitCount(n int, noun string, plural ...string) string {
	if n == 1 {
		return "1 " + noun
	}
	if len(plural) > 0 {
		return fmt.Sprintf("%d %s", n, plural[0])
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// kitSem is a semaphore with at most one waiter, built on G.Park and
// G.Ready the way channels are built on gopark and goready: the waiter
// queues itself under a lock that Park's commit releases.
type kitSem struct {
	mu     sync.Mutex
	waiter *G
	tokens int
}

func (s *kitSem) acquire(gp *G) {
	s.mu.Lock()
	if s.tokens > 0 {
		s.tokens--
		s.mu.Unlock()
		return
	}
	s.waiter = gp
	gp.Park(func() bool { s.mu.Unlock(); return true })
}

func (s *kitSem) release(gp *G) {
	s.mu.Lock()
	if w := s.waiter; w != nil {
		s.waiter = nil
		s.mu.Unlock()
		gp.Ready(w)
		return
	}
	s.tokens++
	s.mu.Unlock()
}

// kitBenchRun runs body as the one G of a fresh Runtime and waits for it;
// the Runtime's start and close are not timed (body's b.Loop times itself).
func kitBenchRun(b *testing.B, cfg Config, body func(gp *G)) {
	b.Helper()
	rt := New(cfg)
	rt.Go(body)
	if err := rt.Wait(); err != nil {
		go rt.Close() // a broken scheduler may never finish closing
		b.Fatal(err)
	}
	rt.Close()
}

// kitBenchPingPong times a round trip between two Gs over an unbuffered
// channel on one P (/sched), and the same with two goroutines on
// GOMAXPROCS 1 (/native). Each send readies the receiver through goready
// into runnext: lesson 02 times it for runnext, lesson 06 for gopark.
func kitBenchPingPong(b *testing.B) {
	b.Run("sched", func(b *testing.B) {
		kitBenchRun(b, Config{Procs: 1}, func(gp *G) {
			ch := NewChan[int](0)
			var wg WaitGroup
			wg.Add(1)
			gp.Go(func(gp *G) {
				for {
					v, ok := ch.Recv(gp)
					if !ok {
						break
					}
					ch.Send(gp, v+1)
				}
				wg.Done(gp)
			})
			i := 0
			for b.Loop() {
				ch.Send(gp, i)
				if v, _ := ch.Recv(gp); v != i+1 {
					panic("PingPong: the reply is not the value sent plus one")
				}
				i++
			}
			ch.Close(gp)
			wg.Wait(gp)
		})
	})
	b.Run("native", func(b *testing.B) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
		ch := make(chan int)
		done := make(chan struct{})
		go func() {
			for v := range ch {
				ch <- v + 1
			}
			close(done)
		}()
		i := 0
		for b.Loop() {
			ch <- i
			if v := <-ch; v != i+1 {
				panic("PingPong: the reply is not the value sent plus one")
			}
			i++
		}
		close(ch)
		<-done
	})
}
