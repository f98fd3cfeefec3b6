package sched

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gmp-kata/gmp-kata/internal/longtest"
)

// TestSoak puts a Runtime under a random mix of everything it offers, for a
// while, and checks that nothing got lost on the way:
//
//   - a root G starts waves of Gs, one after another; each wave's Gs do a few
//     random operations each: start more Gs (nested, fire-and-forget or
//     joined with a WaitGroup), Gosched, ping-pong on unbuffered and buffered
//     channels, stream values to consumers over a channel and close it, count
//     under a Mutex, block in a Syscall (a real time.Sleep inside), Sleep,
//     spin calling Safepoint (for sysmon to preempt), Park and Ready each
//     other, and change GOMAXPROCS;
//   - meanwhile, from outside the Runtime, a plain goroutine of the test
//     changes GOMAXPROCS, calls CheckInvariants and starts more Gs with
//     Runtime.Go;
//   - the Runtime runs with Debug on (the invariants are checked at every
//     stop-the-world, a violation panics), with RandomizeScheduler off in
//     one half of the runs and on in the other, and, for half the seeds,
//     sysmon preempting after 100µs-1ms instead of 10ms.
//
// At the end: Wait returned nil, CheckInvariants returned nil every time,
// every G started ran exactly once to completion (each has an index in a
// ledger of atomic counters), every message sent was received, every Mutex
// counter equals its increments, every Park was matched by a Ready, and
// Close leaves no goroutine behind.
//
// Each run draws a seed (printed in every failure, with the command that
// replays it) from which each G's choices are derived. Scheduling still
// depends on timing, so a replay runs the same plan, not the same
// interleaving: run it a few times (-count) to reproduce.
//
// Flags:
//
//	-soak.seed=N        replay seed N (0, the default: a fresh seed per run)
//	-soak.duration=D    how long the load runs per Procs value, split evenly
//	                    between RandomizeScheduler off and on (default 2s;
//	                    4s with KATA_LONG=1, 1.5s with -short)
//
// Each Procs value runs for the duration plus the time it takes to drain;
// for long runs raise go test's -timeout to well over 4 × the duration.
func TestSoak(t *testing.T) {
	perProcs := *soakDuration
	if perProcs <= 0 {
		// A soak says again at length what a short one says: the long
		// tests (KATA_LONG, as CI runs them) soak for 4s a Procs value.
		perProcs = 2 * time.Second
		if longtest.Enabled() {
			perProcs = 4 * time.Second
		} else if testing.Short() {
			perProcs = 1500 * time.Millisecond
		}
	}
	for _, procs := range []int{1, 2, 4, 8} {
		t.Run(fmt.Sprintf("procs=%d", procs), func(t *testing.T) {
			for _, randomize := range []bool{false, true} {
				t.Run(fmt.Sprintf("randomize=%v", randomize), func(t *testing.T) {
					seed := *soakSeed
					for seed == 0 {
						seed = rand.Uint64()
					}
					runSoak(t, procs, randomize, seed, perProcs/2)
				})
			}
		})
	}
}

var (
	soakSeed     = flag.Uint64("soak.seed", 0, "TestSoak: replay this seed (0: a fresh random seed for every run)")
	soakDuration = flag.Duration("soak.duration", 0, "TestSoak: how long the load runs per Procs value, split between RandomizeScheduler off and on (0: 2s; 4s with KATA_LONG=1, 1.5s with -short)")
)

const (
	// soakWaveMax bounds the Gs one wave starts, nested ones included. The
	// root waits for a wave to finish before it starts the next, so this
	// and soakOutsidePool bound the Gs alive at once: each is a goroutine,
	// and the race detector allows at most 8128.
	soakWaveMax = 1000
	// soakOutsidePool bounds the Gs alive at once that were started from
	// outside the Runtime, with everything they start.
	soakOutsidePool = 256
	// soakMaxDepth bounds how deep Gs start Gs.
	soakMaxDepth = 4
	// soakMutexes is how many Mutex-protected counters the Gs share.
	soakMutexes = 4
	// soakHangGrace is how much longer than the load a run may take before
	// it counts as hung.
	soakHangGrace = 60 * time.Second
	// soakMaxFailures is how many failure messages a run keeps.
	soakMaxFailures = 20
)

// A soakLedger gives each G an index and counts, at that index, how many
// times the G started and finished: in the low and the high 16 bits of an
// atomic counter (soakStarted, soakFinished). Counters come in chunks,
// allocated as indexes are handed out.
type soakLedger struct {
	n      atomic.Int64
	chunks [soakLedgerChunks]atomic.Pointer[soakLedgerChunk]
}

const (
	soakChunkBits    = 12
	soakLedgerChunks = 1 << 14 // room for 64M Gs per run

	soakStarted  = 1
	soakFinished = 1 << 16
)

type soakLedgerChunk [1 << soakChunkBits]atomic.Uint32

// alloc hands out the next index, or reports that the ledger is full.
func (l *soakLedger) alloc() (int64, bool) {
	i := l.n.Add(1) - 1
	c := i >> soakChunkBits
	if c >= soakLedgerChunks {
		l.n.Add(-1)
		return 0, false
	}
	if l.chunks[c].Load() == nil {
		l.chunks[c].CompareAndSwap(nil, new(soakLedgerChunk))
	}
	return i, true
}

// full reports whether the ledger is close to full.
func (l *soakLedger) full() bool {
	return l.n.Load() >= soakLedgerChunks<<soakChunkBits-4*soakWaveMax
}

func (l *soakLedger) slot(i int64) *atomic.Uint32 {
	return &l.chunks[i>>soakChunkBits].Load()[i&(1<<soakChunkBits-1)]
}

// A soakWave is a group of Gs: the root's waves, or a G started from
// outside with everything it starts.
type soakWave struct {
	wg     WaitGroup     // counts the wave's Gs still running
	budget atomic.Int64  // how many more Gs the wave may start
	pool   *atomic.Int64 // for outside waves: free slots in the shared pool
}

// take reserves a G for w: from its budget and, if it has one, its pool.
func (w *soakWave) take() bool {
	if w.budget.Add(-1) < 0 {
		w.budget.Add(1)
		return false
	}
	if w.pool != nil && w.pool.Add(-1) < 0 {
		w.pool.Add(1)
		w.budget.Add(1)
		return false
	}
	return true
}

// A soakMutex is a counter under a Mutex. holder (a ledger index + 1, 0
// when free) catches two Gs inside at once; n is deliberately a plain
// int64, for the race detector.
type soakMutex struct {
	mu     Mutex
	n      int64 // guarded by mu
	incs   atomic.Int64
	holder atomic.Int64
}

// soak is one run: a Runtime, its load and what the load did.
type soak struct {
	seed   uint64
	procs  int
	rt     *Runtime
	ledger soakLedger
	stop   atomic.Bool // the root starts no more waves

	outsidePool atomic.Int64
	live        atomic.Int64 // Gs started and not yet finished
	maxLive     atomic.Int64

	waves, outside                     atomic.Int64
	goscheds, joins                    atomic.Int64
	pingpongs, streams                 atomic.Int64
	sent, recvd, sentSum, recvdSum     atomic.Int64
	syscalls, sleeps, spins            atomic.Int64
	parks, readies, parkDeclined       atomic.Int64
	procsInside, procsOutside, checks  atomic.Int64
	mutexOps, mutexTry                 atomic.Int64
	mus                                [soakMutexes]soakMutex
	failMu                             sync.Mutex
	failures                           []string
	nfailures                          atomic.Int64
	goPanicsAfterFinish, ledgerRefused atomic.Int64
}

// failf records a failure seen by a G (or the driver): the run fails at the
// end, with the first soakMaxFailures messages.
func (s *soak) failf(format string, args ...any) {
	s.nfailures.Add(1)
	s.failMu.Lock()
	if len(s.failures) < soakMaxFailures {
		s.failures = append(s.failures, fmt.Sprintf(format, args...))
	}
	s.failMu.Unlock()
}

// rng returns the random source of the G with ledger index idx (or of the
// driver, idx -1): a function of the run's seed and idx only.
func (s *soak) rng(idx int64) *rand.Rand {
	return rand.New(rand.NewPCG(s.seed, uint64(idx)))
}

// newProcs picks a GOMAXPROCS: the run's Procs half the time, else anything
// in 1..2*Procs.
func (s *soak) newProcs(r *rand.Rand) int {
	if r.IntN(2) == 0 {
		return s.procs
	}
	return 1 + r.IntN(2*s.procs)
}

func (s *soak) checkOldProcs(who string, old int) {
	if old < 1 || old > 2*s.procs {
		s.failf("%s: GOMAXPROCS returned %d, want 1..%d", who, old, 2*s.procs)
	}
}

// spawn starts a G of wave w running body: from g, or from outside the
// Runtime if g is nil. It returns false, starting nothing, if w's budget is
// spent.
func (s *soak) spawn(g *G, w *soakWave, body func(g *G, r *rand.Rand, idx int64)) bool {
	if !w.take() {
		return false
	}
	idx, ok := s.ledger.alloc()
	if !ok {
		s.ledgerRefused.Add(1)
		w.budget.Add(1)
		if w.pool != nil {
			w.pool.Add(1)
		}
		return false
	}
	w.wg.Add(1)
	if n := s.live.Add(1); n > s.maxLive.Load() {
		for m := s.maxLive.Load(); n > m && !s.maxLive.CompareAndSwap(m, n); m = s.maxLive.Load() {
		}
	}
	fn := func(g *G) {
		slot := s.ledger.slot(idx)
		slot.Add(soakStarted)
		body(g, s.rng(idx), idx)
		slot.Add(soakFinished)
		s.live.Add(-1)
		if w.pool != nil {
			w.pool.Add(1)
		}
		w.wg.Done(g)
	}
	if g == nil {
		s.rt.Go(fn)
	} else {
		g.Go(fn)
	}
	return true
}

// root starts waves until told to stop, each after the last has finished.
func (s *soak) root(g *G, r *rand.Rand, idx int64) {
	for !s.stop.Load() && !s.ledger.full() {
		w := &soakWave{}
		// Mostly small waves, some up to soakWaveMax: log-uniform.
		w.budget.Store(int64(min(soakWaveMax, 8<<r.IntN(8)+r.IntN(8))))
		for range 1 + r.IntN(48) {
			if !s.spawn(g, w, s.worker(w, 0)) {
				break
			}
		}
		w.wg.Wait(g)
		s.waves.Add(1)
	}
}

// worker returns the body of a G of wave w at the given depth: a few random
// operations.
func (s *soak) worker(w *soakWave, depth int) func(g *G, r *rand.Rand, idx int64) {
	return func(g *G, r *rand.Rand, idx int64) {
		for range 1 + r.IntN(8) {
			s.op(g, r, idx, w, depth)
		}
	}
}

// op does one random operation.
func (s *soak) op(g *G, r *rand.Rand, idx int64, w *soakWave, depth int) {
	switch k := r.IntN(100); {
	case k < 12: // start Gs and forget them (the wave waits for them)
		if depth < soakMaxDepth {
			for range 1 + r.IntN(4) {
				s.spawn(g, w, s.worker(w, depth+1))
			}
		}
	case k < 20: // start Gs and wait for them
		if depth < soakMaxDepth {
			var wg WaitGroup
			inner := s.worker(w, depth+1)
			for range 1 + r.IntN(4) {
				wg.Add(1)
				if !s.spawn(g, w, func(g *G, r *rand.Rand, idx int64) { inner(g, r, idx); wg.Done(g) }) {
					wg.Add(-1)
				}
			}
			wg.Wait(g)
			s.joins.Add(1)
		}
	case k < 30:
		for range 1 + r.IntN(3) {
			g.Gosched()
			s.goscheds.Add(1)
		}
	case k < 40:
		s.pingPong(g, r, w)
	case k < 48:
		s.stream(g, r, w)
	case k < 60:
		s.mutex(g, r, idx)
	case k < 72:
		d := time.Duration(r.IntN(201)) * time.Microsecond
		if r.IntN(32) == 0 {
			d = time.Duration(1+r.IntN(12)) * time.Millisecond // long enough for sysmon to retake the P
		}
		g.Syscall(func() { time.Sleep(d) })
		s.syscalls.Add(1)
	case k < 82:
		var d time.Duration
		if r.IntN(4) != 0 {
			d = time.Duration(1+r.IntN(2000)) * time.Microsecond
		}
		start := time.Now()
		g.Sleep(d)
		if el := time.Since(start); el < d {
			s.failf("Sleep(%v) returned after %v", d, el)
		}
		s.sleeps.Add(1)
	case k < 88: // run without blocking: only sysmon or a stop-the-world stops it
		deadline := time.Now().Add(time.Duration(r.IntN(500)) * time.Microsecond)
		for time.Now().Before(deadline) {
			g.Safepoint()
		}
		s.spins.Add(1)
	case k < 95:
		s.parkReady(g, r, w)
	default:
		if r.IntN(8) == 0 { // a stop-the-world: not too often
			s.checkOldProcs("G.GOMAXPROCS", g.GOMAXPROCS(s.newProcs(r)))
			s.procsInside.Add(1)
		} else {
			s.checkOldProcs("G.GOMAXPROCS(0)", g.GOMAXPROCS(0))
		}
	}
}

// pingPong plays ping with a new G playing pong, on two channels of the same
// size (0: unbuffered): ping sends a burst of values (at most the buffer
// size, 1 if unbuffered) and waits for each to come back transformed.
func (s *soak) pingPong(g *G, r *rand.Rand, w *soakWave) {
	size := 0
	if r.IntN(2) == 0 {
		size = 1 + r.IntN(4)
	}
	ping, pong := NewChan[int64](size), NewChan[int64](size)
	rounds := 1 + r.IntN(32)
	burst := max(1, size)
	if !s.spawn(g, w, func(g *G, r *rand.Rand, idx int64) {
		for i := range int64(rounds * burst) {
			v, ok := ping.Recv(g)
			if !ok || v != i {
				s.failf("pong: received (%d, %v), want (%d, true)", v, ok, i)
			}
			s.recvd.Add(1)
			s.recvdSum.Add(v)
			pong.Send(g, 2*v+1)
			s.sent.Add(1)
			s.sentSum.Add(2*v + 1)
		}
	}) {
		return
	}
	next := int64(0)
	for range rounds {
		for i := range int64(burst) {
			ping.Send(g, next+i)
			s.sent.Add(1)
			s.sentSum.Add(next + i)
		}
		for i := range int64(burst) {
			v, ok := pong.Recv(g)
			if want := 2*(next+i) + 1; !ok || v != want {
				s.failf("ping (buffer %d): received (%d, %v), want (%d, true)", size, v, ok, want)
			}
			s.recvd.Add(1)
			s.recvdSum.Add(v)
		}
		next += int64(burst)
	}
	s.pingpongs.Add(1)
}

// stream sends values 0, 1, ... to 1-3 new Gs over one channel (buffered
// or not) and closes it; each consumer receives until the channel is
// closed, and must see increasing values.
func (s *soak) stream(g *G, r *rand.Rand, w *soakWave) {
	ch := NewChan[int64](r.IntN(5))
	consumers := 0
	for range 1 + r.IntN(3) {
		if !s.spawn(g, w, func(g *G, r *rand.Rand, idx int64) {
			last := int64(-1)
			for {
				v, ok := ch.Recv(g)
				if !ok {
					if v != 0 {
						s.failf("stream: Recv on a closed channel returned %d, want 0", v)
					}
					break
				}
				if v <= last {
					s.failf("stream: received %d after %d", v, last)
				}
				last = v
				s.recvd.Add(1)
				s.recvdSum.Add(v)
			}
		}) {
			break
		}
		consumers++
	}
	if consumers == 0 {
		return // nobody would receive
	}
	for i := range int64(r.IntN(64)) {
		ch.Send(g, i)
		s.sent.Add(1)
		s.sentSum.Add(i)
	}
	ch.Close(g)
	s.streams.Add(1)
}

// mutex increments one of the shared counters under its Mutex, sometimes
// yielding, sleeping or blocking in a Syscall while holding it.
func (s *soak) mutex(g *G, r *rand.Rand, idx int64) {
	i := r.IntN(soakMutexes)
	m := &s.mus[i]
	if r.IntN(4) == 0 && m.mu.TryLock() {
		s.mutexTry.Add(1)
	} else {
		m.mu.Lock(g)
	}
	if h := m.holder.Swap(idx + 1); h != 0 {
		s.failf("Mutex %d: G #%d got it while G #%d held it", i, idx, h-1)
	}
	m.n++
	m.incs.Add(1)
	switch r.IntN(10) {
	case 0:
		g.Gosched()
	case 1:
		g.Sleep(time.Duration(r.IntN(100)) * time.Microsecond)
	case 2:
		d := time.Duration(r.IntN(50)) * time.Microsecond
		g.Syscall(func() { time.Sleep(d) })
	}
	if h := m.holder.Swap(0); h != idx+1 {
		s.failf("Mutex %d: G #%d unlocking it found G #%d inside", i, idx, h-1)
	}
	m.mu.Unlock(g)
	s.mutexOps.Add(1)
}

// parkReady parks one G and has another Ready it: this G and a new one, in
// random roles. Sometimes the commit declines, and Park must return at
// once.
func (s *soak) parkReady(g *G, r *rand.Rand, w *soakWave) {
	if r.IntN(5) == 0 {
		g.Park(func() bool { return false })
		s.parkDeclined.Add(1)
		return
	}
	var parked atomic.Pointer[G]
	park := func(g *G) {
		g.Park(func() bool { parked.Store(g); return true })
		s.parks.Add(1)
	}
	wake := func(g *G) {
		for {
			if other := parked.Load(); other != nil {
				g.Ready(other)
				s.readies.Add(1)
				return
			}
			g.Gosched()
		}
	}
	if r.IntN(2) == 0 {
		if s.spawn(g, w, func(g *G, r *rand.Rand, idx int64) { park(g) }) {
			wake(g)
		}
	} else {
		if s.spawn(g, w, func(g *G, r *rand.Rand, idx int64) { wake(g) }) {
			park(g)
		}
	}
}

// drive is the load from outside the Runtime, until deadline or until Wait
// returns: GOMAXPROCS, CheckInvariants, Runtime.Go, NumGoroutine. Then it
// tells the root to stop. It returns an error if it panicked.
func (s *soak) drive(deadline time.Time, finished <-chan struct{}) (err error) {
	defer s.stop.Store(true)
	defer func() {
		if v := recover(); v != nil {
			buf := make([]byte, 64<<10)
			err = fmt.Errorf("panic outside the Runtime: %v\n\n%s", v, buf[:runtime.Stack(buf, false)])
		}
	}()
	r := s.rng(-1)
	for time.Now().Before(deadline) {
		select {
		case <-finished:
			return nil
		default:
		}
		switch k := r.IntN(10); {
		case k < 2:
			s.checkOldProcs("Runtime.GOMAXPROCS", s.rt.GOMAXPROCS(s.newProcs(r)))
			s.procsOutside.Add(1)
		case k < 5:
			if err := s.rt.CheckInvariants(); err != nil {
				s.failf("CheckInvariants during the load: %v", err)
			}
			s.checks.Add(1)
		case k < 8:
			if s.ledger.full() {
				break
			}
			w := &soakWave{pool: &s.outsidePool}
			w.budget.Store(int64(1 + r.IntN(32)))
			if !s.goOutside(w, finished) {
				return nil
			}
		default:
			if n := s.rt.NumGoroutine(); n < 0 {
				s.failf("NumGoroutine = %d", n)
			}
			s.checkOldProcs("Runtime.GOMAXPROCS(0)", s.rt.GOMAXPROCS(0))
		}
		time.Sleep(time.Duration(r.IntN(1000)) * time.Microsecond)
	}
	return nil
}

// goOutside starts a G of w with Runtime.Go. It returns false if the
// Runtime had finished (Wait returned early: the test reports why).
func (s *soak) goOutside(w *soakWave, finished <-chan struct{}) (ok bool) {
	defer func() {
		if v := recover(); v != nil {
			select {
			case <-finished:
				s.goPanicsAfterFinish.Add(1)
				ok = false
			default:
				panic(v)
			}
		}
	}()
	if s.spawn(nil, w, s.worker(w, 0)) {
		s.outside.Add(1)
	}
	return true
}

// runSoak runs the load for d on a Runtime with procs Ps, then checks.
func runSoak(t *testing.T, procs int, randomize bool, seed uint64, d time.Duration) {
	replay := fmt.Sprintf("seed %d; replay: go test ./solutions/ -run '^TestSoak$/^procs=%d$/^randomize=%v$' -soak.seed=%d -soak.duration=%v",
		seed, procs, randomize, seed, 2*d)
	baseline := runtime.NumGoroutine()

	s := &soak{seed: seed, procs: procs}
	s.outsidePool.Store(soakOutsidePool)
	cfg := Config{Procs: procs, Seed: seed, RandomizeScheduler: randomize, Debug: true}
	// Half the seeds make sysmon preempt after 100µs-1ms instead of 10ms,
	// so that it preempts the Gs that spin, not only stop-the-world does.
	if r := s.rng(-2); r.IntN(2) == 0 {
		cfg.ForcePreempt = time.Duration(100+r.IntN(901)) * time.Microsecond
	}
	preempt := "10ms, the default"
	if cfg.ForcePreempt != 0 {
		preempt = cfg.ForcePreempt.String()
	}
	t.Logf("%s (ForcePreempt %s)", replay, preempt)
	s.rt = New(cfg)
	closed := false
	defer func() {
		if !closed {
			// The run failed: Close may never return (a G stuck, the world
			// left stopped), so do not wait for it.
			go s.rt.Close()
		}
	}()

	start := time.Now()
	deadline := start.Add(d)
	rootWave := &soakWave{}
	rootWave.budget.Store(1)
	s.spawn(nil, rootWave, s.root)

	var waitErr error
	finished := make(chan struct{})
	go func() {
		waitErr = s.rt.Wait()
		close(finished)
	}()
	var driveErr error
	driven := make(chan struct{})
	go func() {
		driveErr = s.drive(deadline, finished)
		close(driven)
	}()

	guard := time.NewTimer(d + soakHangGrace)
	defer guard.Stop()
	for fin, drv := finished, driven; fin != nil || drv != nil; {
		select {
		case <-fin:
			fin = nil
			if waitErr != nil {
				t.Fatalf("Wait after %v: %v\n%s\n[%s]", time.Since(start), waitErr, s.failureReport(), replay)
			}
		case <-drv:
			drv = nil
			if driveErr != nil {
				t.Fatalf("%v\n%s\n[%s]", driveErr, s.failureReport(), replay)
			}
		case <-guard.C:
			what := "Wait did not return"
			if fin == nil {
				what = "Wait returned, but the driver is stuck (in GOMAXPROCS or CheckInvariants?)"
			}
			t.Fatalf("hung: %s %v after the start (load: %v)\n%s\n%s\n[%s]",
				what, time.Since(start), d, s.hangReport(), s.failureReport(), replay)
		}
	}
	elapsed := time.Since(start)

	if err := s.rt.CheckInvariants(); err != nil {
		s.failf("CheckInvariants after Wait: %v", err)
	}
	if n := s.rt.NumGoroutine(); n != 0 {
		s.failf("NumGoroutine after Wait = %d, want 0", n)
	}
	if n := s.live.Load(); n != 0 {
		s.failf("%d Gs started and not finished after Wait", n)
	}
	if n := s.outsidePool.Load(); n != soakOutsidePool {
		s.failf("outside pool = %d after Wait, want %d", n, soakOutsidePool)
	}

	// Every G ran exactly once to completion.
	started := s.ledger.n.Load()
	var bad []string
	nbad := 0
	for i := range started {
		v := s.ledger.slot(i).Load()
		if v == soakStarted+soakFinished {
			continue
		}
		nbad++
		if len(bad) < soakMaxFailures {
			bad = append(bad, fmt.Sprintf("G #%d started %d times and finished %d times", i, v&(soakFinished-1), v/soakFinished))
		}
	}
	if nbad > 0 {
		s.failf("%d of %d Gs did not run exactly once to completion:\n\t%s", nbad, started, strings.Join(bad, "\n\t"))
	}

	// The operations add up.
	if sent, recvd := s.sent.Load(), s.recvd.Load(); sent != recvd {
		s.failf("channels: %d values sent, %d received", sent, recvd)
	}
	if sent, recvd := s.sentSum.Load(), s.recvdSum.Load(); sent != recvd {
		s.failf("channels: values sent add up to %d, received to %d", sent, recvd)
	}
	total := int64(0)
	for i := range s.mus {
		m := &s.mus[i]
		if m.n != m.incs.Load() {
			s.failf("Mutex %d: counter = %d after %d increments", i, m.n, m.incs.Load())
		}
		total += m.n
	}
	if total != s.mutexOps.Load() {
		s.failf("Mutex counters add up to %d after %d increments", total, s.mutexOps.Load())
	}
	if parks, readies := s.parks.Load(), s.readies.Load(); parks != readies {
		s.failf("%d Gs woke from Park, %d were readied", parks, readies)
	}
	if n := s.goPanicsAfterFinish.Load(); n != 0 {
		s.failf("Runtime.Go panicked %d times: the Runtime finished with Gs still to start", n)
	}

	s.rt.sched.allglock.Lock()
	allgs := len(s.rt.sched.allgs)
	s.rt.sched.allglock.Unlock()
	s.rt.sched.lock.Lock()
	ms := s.rt.sched.mcount()
	s.rt.sched.lock.Unlock()
	t.Logf("%v (load %v): %d Gs (%d from outside, at most %d alive, %d G structs, %d Ms), %d waves; "+
		"%d Gosched, %d joins, %d ping-pongs, %d streams, %d values sent, %d Mutex increments (%d by TryLock), "+
		"%d Syscalls, %d Sleeps, %d spins, %d Park/Ready (%d declined), GOMAXPROCS %d inside, %d outside, %d CheckInvariants",
		elapsed.Round(time.Millisecond), d, started, s.outside.Load(), s.maxLive.Load(), allgs, ms, s.waves.Load(),
		s.goscheds.Load(), s.joins.Load(), s.pingpongs.Load(), s.streams.Load(), s.sent.Load(), s.mutexOps.Load(), s.mutexTry.Load(),
		s.syscalls.Load(), s.sleeps.Load(), s.spins.Load(), s.parks.Load(), s.parkDeclined.Load(),
		s.procsInside.Load(), s.procsOutside.Load(), s.checks.Load())
	if n := s.ledgerRefused.Load(); n != 0 {
		t.Logf("the ledger filled up: %d Gs were not started", n)
	}
	if s.nfailures.Load() != 0 {
		t.Fatalf("%s\n[%s]", s.failureReport(), replay)
	}

	// Close leaves nothing behind: its Ms and its Gs' coroutines are gone.
	s.rt.Close()
	closed = true
	for wait := time.Now().Add(10 * time.Second); runtime.NumGoroutine() > baseline; time.Sleep(time.Millisecond) {
		if time.Now().After(wait) {
			t.Fatalf("after Close, %d goroutines, %d before New\n[%s]", runtime.NumGoroutine(), baseline, replay)
		}
	}
}

// failureReport returns the failures recorded, or "" if none.
func (s *soak) failureReport() string {
	s.failMu.Lock()
	defer s.failMu.Unlock()
	n := s.nfailures.Load()
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d failures (the first %d):\n  %s", n, len(s.failures), strings.Join(s.failures, "\n  "))
}

// hangReport describes a hung run: the scheduler's state as far as it can
// be read without waiting on its locks, and every goroutine's stack, in a
// file (a G's stack is that of its coroutine).
func (s *soak) hangReport() string {
	sched := s.rt.sched
	var b strings.Builder
	fmt.Fprintf(&b, "ngLive %d, gomaxprocs %d, npidle %d, nmspinning %d, gcwaiting %v, sysmonwait %v, timer0When %d (now %d)",
		sched.ngLive.Load(), sched.gomaxprocs.Load(), sched.npidle.Load(), sched.nmspinning.Load(),
		sched.gcwaiting.Load(), sched.sysmonwait.Load(), sched.timer0When.Load(), sched.cfg.nanotime())
	if soakTryLock(&sched.lock, time.Second) {
		fmt.Fprintf(&b, ", mcount %d, nmidle %d, global runq %d, stopwait %d", sched.mcount(), sched.nmidle, sched.runq.size, sched.stopwait)
		for _, pp := range sched.allp {
			fmt.Fprintf(&b, "\n  P %d: %s, runq %d, runnext %v", pp.id, pStatusString(pp.status.Load()), runqlen(pp), pp.runnext.Load() != nil)
		}
		sched.lock.Unlock()
	} else {
		b.WriteString(", sched.lock held")
	}
	if soakTryLock(&sched.allglock, time.Second) {
		count := map[string]int{}
		for _, gp := range sched.allgs {
			count[gStatusString(readgstatus(gp))]++
		}
		sched.allglock.Unlock()
		fmt.Fprintf(&b, "\n  G structs by status: %v", count)
	}
	buf := make([]byte, 64<<20)
	buf = buf[:runtime.Stack(buf, true)]
	path := filepath.Join(os.TempDir(), fmt.Sprintf("soak-hang-%d.txt", s.seed))
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		fmt.Fprintf(&b, "\n  writing the stacks: %v", err)
	} else {
		fmt.Fprintf(&b, "\n  every goroutine's stack: %s", path)
	}
	return b.String()
}

// soakTryLock takes mu (sched.lock's mutex or a sync.Mutex), trying for d.
func soakTryLock(mu interface{ TryLock() bool }, d time.Duration) bool {
	for deadline := time.Now().Add(d); !mu.TryLock(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}
