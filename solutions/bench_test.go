package sched

import (
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

// Benchmarks of the scheduler against the Go runtime's own, shape by shape.
// Every shape has a /sched and a /native sub-benchmark, so that one
//
//	go test ./solutions/ -run '^$' -bench . -count=5
//
// gives both sides, and the sched side reports the ratio to the native side
// of the same round as a metric of its own (x/native: 1.10 is 10% slower
// than the Go runtime). Runq also has a floor: the same atomic operations
// as its sched side, done bare (x/floor). On the sched
// side one Runtime serves the whole benchmark run: it is made before the
// timer starts, its b.N ops run inside its Gs (the timer is reset inside
// the root G, after one untimed warm-up op), and it is closed after the
// timer stops; so New, sysmon's start, the first M's start, Wait and Close
// are not measured. The native side does the same warm-up op.
//
// Imbalance measures parallel speedup instead: the same CPU-bound tasks at
// procs=1 and procs=2; the speedup is the ratio of the two ns/op.
//
// benchstat wants key=value names to put the two sides in columns, e.g.
//
//	sed -E 's#/(sched|native)-#/impl=\1-#' bench.txt > b.txt
//	benchstat -col /impl b.txt

const (
	spawnManyN    = 10000 // Gs spawned per SpawnMany op
	yieldGs       = 200   // Gs per YieldMany op
	yieldEach     = 1000  // Gosched calls per G in YieldMany
	chainLen      = 1000  // Gs per ChainedSpawn op
	imbalanceN    = 10000 // tasks per Imbalance op
	imbalanceWork = 4000  // hash rounds per task: ~5-20µs (see spin)
)

// benchSink keeps the results of the CPU-bound tasks alive, so that the
// compiler cannot drop their computation.
var benchSink atomic.Uint64

// spin is a CPU-bound task: rounds of a dependent multiply-xorshift hash
// (a serial chain, ~2-3ns a round), seeded so every task differs.
func spin(seed uint64, rounds int) uint64 {
	x := seed | 1
	for range rounds {
		x = x*0x9e3779b97f4a7c15 + 0x632be59bd9b4e019
		x ^= x >> 29
	}
	return x
}

// runSched runs body(gp, n) in the one G of a fresh Runtime: first with
// n = 1, untimed, to warm the Runtime up (start its Ms, fill its free lists
// with Gs and their coroutines, as a long-running program would have them),
// then with n = b.N, timed. cfg.Procs = 0 means the host's GOMAXPROCS.
//
// The timer is reset from inside the G: the benchmark's goroutine is
// blocked in Wait meanwhile, and the Runtime orders the G's run between its
// rt.Go and Wait's return.
//
// New raises the host's GOMAXPROCS to Procs+1 (its Ms and sysmon must all
// be able to run: see Config.Procs); it is put back after the run, or the
// next run of the same benchmark (the testing package calls it again for
// each b.N) would take the raised value as the host's and run with one P
// more each time: 5 Ps against native's 2 by the final b.N on a 2-core
// machine.
func runSched(b *testing.B, cfg Config, body func(gp *G, n int)) {
	b.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	if cfg.Procs == 0 {
		cfg.Procs = runtime.GOMAXPROCS(0)
	}
	rt := New(cfg)
	defer rt.Close()
	b.ReportAllocs()
	n := b.N
	rt.Go(func(gp *G) {
		body(gp, 1)
		b.ResetTimer()
		body(gp, n)
		b.StopTimer()
	})
	if err := rt.Wait(); err != nil {
		b.Fatal(err)
	}
}

// runNative is runSched for the host's scheduler: op once untimed, then
// b.N times timed, on the benchmark's goroutine.
func runNative(b *testing.B, op func()) {
	b.Helper()
	b.ReportAllocs()
	op()
	b.ResetTimer()
	for range b.N {
		op()
	}
	b.StopTimer()
}

// A baseline is the ns/op of the sub-benchmark a sched side is compared
// with (the native side, the atomic floor), measured just before it in the
// same round; zero until measured (a -bench pattern that skips it).
type baseline struct{ nsPerOp float64 }

// measured records b's ns/op as the baseline: call it last in the
// baseline's sub-benchmark. Its last call, the final b.N, is the one the
// benchmark reports.
func (base *baseline) measured(b *testing.B) {
	if b.N > 0 {
		base.nsPerOp = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	}
}

// reportRatio reports b's ns/op over the baseline's as the metric unit.
func (base *baseline) reportRatio(b *testing.B, unit string) {
	if b.N > 0 && base.nsPerOp > 0 {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/base.nsPerOp, unit)
	}
}

// perUnit reports ns per inner unit (one spawn, one yield, one task) next
// to ns/op, when an op is many of them.
func perUnit(b *testing.B, units int, unit string) {
	b.Helper()
	if d := b.Elapsed(); b.N > 0 && d > 0 {
		b.ReportMetric(float64(d.Nanoseconds())/float64(b.N)/float64(units), "ns/"+unit)
	}
}

// PingPong: one op is one round trip over an unbuffered channel between
// two Gs. A send to a parked receiver readies it into the sender's runnext,
// so the pair should run as one on a P.
func BenchmarkPingPong(b *testing.B) {
	var native baseline
	b.Run("native", func(b *testing.B) {
		pingPong := func(n int) {
			ch := make(chan int)
			done := make(chan struct{})
			go func() {
				for range n {
					v := <-ch
					ch <- v + 1
				}
				close(done)
			}()
			for i := range n {
				ch <- i
				if v := <-ch; v != i+1 {
					panic("PingPong: bad reply")
				}
			}
			<-done
		}
		b.ReportAllocs()
		pingPong(1)
		b.ResetTimer()
		pingPong(b.N)
		b.StopTimer()
		native.measured(b)
	})
	b.Run("sched", func(b *testing.B) {
		runSched(b, Config{}, func(gp *G, n int) {
			ch := NewChan[int](0)
			var wg WaitGroup
			wg.Add(1)
			gp.Go(func(gp *G) {
				for range n {
					v, _ := ch.Recv(gp)
					ch.Send(gp, v+1)
				}
				wg.Done(gp)
			})
			for i := range n {
				ch.Send(gp, i)
				if v, _ := ch.Recv(gp); v != i+1 {
					panic("PingPong: bad reply")
				}
			}
			wg.Wait(gp)
		})
		native.reportRatio(b, "x/native")
	})
}

// SpawnMany: one op is one G spawning spawnManyN Gs and waiting for all of
// them. Each new G goes into the spawner's runnext, kicking the previous one
// to the ring, which overflows to the global queue; other Ps steal.
func BenchmarkSpawnMany(b *testing.B) {
	var native baseline
	b.Run("native", func(b *testing.B) {
		var wg sync.WaitGroup
		done := func() { wg.Done() }
		runNative(b, func() {
			wg.Add(spawnManyN)
			for range spawnManyN {
				go done()
			}
			wg.Wait()
		})
		perUnit(b, spawnManyN, "spawn")
		native.measured(b)
	})
	b.Run("sched", func(b *testing.B) {
		runSched(b, Config{}, func(gp *G, n int) {
			var wg WaitGroup
			done := func(gp *G) { wg.Done(gp) }
			for range n {
				wg.Add(spawnManyN)
				for range spawnManyN {
					gp.Go(done)
				}
				wg.Wait(gp)
			}
		})
		perUnit(b, spawnManyN, "spawn")
		native.reportRatio(b, "x/native")
	})
}

// YieldMany: one op is yieldGs Gs each calling Gosched yieldEach times.
// Every Gosched goes through the global run queue and sched.lock.
func BenchmarkYieldMany(b *testing.B) {
	var native baseline
	b.Run("native", func(b *testing.B) {
		var wg sync.WaitGroup
		yielder := func() {
			for range yieldEach {
				runtime.Gosched()
			}
			wg.Done()
		}
		runNative(b, func() {
			wg.Add(yieldGs)
			for range yieldGs {
				go yielder()
			}
			wg.Wait()
		})
		perUnit(b, yieldGs*yieldEach, "yield")
		native.measured(b)
	})
	b.Run("sched", func(b *testing.B) {
		runSched(b, Config{}, func(gp *G, n int) {
			var wg WaitGroup
			yielder := func(gp *G) {
				for range yieldEach {
					gp.Gosched()
				}
				wg.Done(gp)
			}
			for range n {
				wg.Add(yieldGs)
				for range yieldGs {
					gp.Go(yielder)
				}
				wg.Wait(gp)
			}
		})
		perUnit(b, yieldGs*yieldEach, "yield")
		native.reportRatio(b, "x/native")
	})
}

// ChainedSpawn: one op is a chain of chainLen Gs, each spawning the next
// and exiting; the last one signals completion. Spawn latency, serialised:
// every new G sits in runnext while its parent exits.
func BenchmarkChainedSpawn(b *testing.B) {
	var native baseline
	b.Run("native", func(b *testing.B) {
		done := make(chan struct{})
		var link func()
		depth := 0 // only one goroutine of the chain runs at a time
		link = func() {
			if depth++; depth == chainLen {
				done <- struct{}{}
				return
			}
			go link()
		}
		runNative(b, func() {
			depth = 0
			go link()
			<-done
		})
		perUnit(b, chainLen, "spawn")
		native.measured(b)
	})
	b.Run("sched", func(b *testing.B) {
		runSched(b, Config{}, func(gp *G, n int) {
			var wg WaitGroup
			var link func(gp *G)
			depth := 0 // only one G of the chain runs at a time
			link = func(gp *G) {
				if depth++; depth == chainLen {
					wg.Done(gp)
					return
				}
				gp.Go(link)
			}
			for range n {
				depth = 0
				wg.Add(1)
				gp.Go(link)
				wg.Wait(gp)
			}
		})
		perUnit(b, chainLen, "spawn")
		native.reportRatio(b, "x/native")
	})
}

// Runq: one op is runqput(pp, gp, false) then runqget(pp) on a P that no M
// runs (New starts no M until there is work; NoSysmon so nothing else looks
// at the P). Native: a send then a receive on a buffered channel, the
// runtime's nearest uncontended queue. Floor: the atomic operations of the
// sched side, bare (runqFloor), so that x/floor is what the ring's code
// costs beyond its atomics.
func BenchmarkRunq(b *testing.B) {
	var native, floor baseline
	b.Run("floor", func(b *testing.B) {
		var r runqFloor
		gp := &g{}
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			if !r.putThenGet(gp) {
				b.Fatal("the floor did not get the G just put")
			}
		}
		b.StopTimer()
		floor.measured(b)
	})
	b.Run("native", func(b *testing.B) {
		ch := make(chan *g, 256)
		gp := &g{}
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			ch <- gp
			if got := <-ch; got != gp {
				b.Fatal("receive did not return the value just sent")
			}
		}
		b.StopTimer()
		native.measured(b)
	})
	b.Run("sched", func(b *testing.B) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0)) // New raises it: see runSched
		rt := New(Config{Procs: runtime.GOMAXPROCS(0), NoSysmon: true})
		defer rt.Close()
		pp := rt.sched.allp[0]
		gp := &g{}
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			runqput(pp, gp, false)
			if got, _ := runqget(pp); got != gp {
				b.Fatal("runqget did not return the G just put")
			}
		}
		b.StopTimer()
		native.reportRatio(b, "x/native")
		floor.reportRatio(b, "x/floor")
	})
}

// runqFloor holds what the ring of a P holds that runqput and runqget
// touch atomically, as bare sync/atomic values.
type runqFloor struct {
	head, tail atomic.Uint32
	slots      [256]atomic.Pointer[g]
	next       atomic.Pointer[g]
}

// putThenGet makes the atomic operations of runqput(pp, gp, false) then
// runqget(pp) on an empty P, in their order, and nothing else: put loads
// head and tail, stores the slot then the tail; get loads runnext (nil),
// head, tail and the slot, and CASes the head.
func (r *runqFloor) putThenGet(gp *g) bool {
	h := r.head.Load()
	t := r.tail.Load()
	if t-h >= uint32(len(r.slots)) {
		return false
	}
	r.slots[t%uint32(len(r.slots))].Store(gp)
	r.tail.Store(t + 1)
	if r.next.Load() != nil {
		return false
	}
	h = r.head.Load()
	t = r.tail.Load()
	if t == h {
		return false
	}
	got := r.slots[h%uint32(len(r.slots))].Load()
	return r.head.CompareAndSwap(h, h+1) && got == gp
}

// Imbalance: one op is one producer spawning imbalanceN CPU-bound tasks
// (~5-20µs each) and waiting for them all. All the work starts on the
// producer's P; at procs=2 the other P must steal half of it. The speedup is
// the procs=1 ns/op over the procs=2 ns/op (for native, GOMAXPROCS is set
// for the run and restored after).
func BenchmarkImbalance(b *testing.B) {
	for _, procs := range []int{1, 2} {
		var native baseline
		b.Run("native/procs="+strconv.Itoa(procs), func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			var wg sync.WaitGroup
			runNative(b, func() {
				wg.Add(imbalanceN)
				go func() { // the producer
					for i := range imbalanceN {
						go func() {
							benchSink.Add(spin(uint64(i), imbalanceWork))
							wg.Done()
						}()
					}
				}()
				wg.Wait()
			})
			perUnit(b, imbalanceN, "task")
			native.measured(b)
		})
		b.Run("procs="+strconv.Itoa(procs), func(b *testing.B) {
			runSched(b, Config{Procs: procs}, func(gp *G, n int) {
				var wg WaitGroup
				for range n {
					wg.Add(imbalanceN)
					for i := range imbalanceN {
						gp.Go(func(gp *G) {
							benchSink.Add(spin(uint64(i), imbalanceWork))
							wg.Done(gp)
						})
					}
					wg.Wait(gp)
				}
			})
			perUnit(b, imbalanceN, "task")
			native.reportRatio(b, "x/native")
		})
	}
}

// BenchmarkSpin calibrates Imbalance's task: one op is one task.
func BenchmarkSpin(b *testing.B) {
	for i := range b.N {
		benchSink.Add(spin(uint64(i), imbalanceWork))
	}
}
