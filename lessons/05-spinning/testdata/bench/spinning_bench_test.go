package sched

// Benchmarks of lesson 05-spinning, run by `kata bench 05`: the /sched side
// is spinning.go (yours, or the reference's) deciding which Ms wake, spin
// and park, on a running Runtime; /native is the same workload on Go's own
// scheduler, whose wakep and spinning Ms these mirror.

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

const (
	b05burst = 16  // Gs per burst
	b05work  = 200 // hash rounds per G: well under a microsecond
)

var b05sink atomic.Uint64

// b05spin is a few hundred nanoseconds of CPU work that cannot be
// optimized away.
func b05spin(seed uint64) uint64 {
	x := seed | 1
	for range b05work {
		x = x*0x9e3779b97f4a7c15 + 0x632be59bd9b4e019
		x ^= x >> 29
	}
	return x
}

// BenchmarkL05Burst: one op is one G spawning a burst of 16 short Gs and
// waiting for them, on as many Ps as GOMAXPROCS. Each spawn calls
// wakep; an idle P gets a spinning M, which steals, stops spinning and
// wakes the next (resetspinning); when the burst is done the Ms find
// nothing, stop spinning and park, until the next burst wakes them.
func BenchmarkL05Burst(b *testing.B) {
	procs := runtime.GOMAXPROCS(0)
	b.Run("sched", func(b *testing.B) {
		rt := New(Config{Procs: procs})
		rt.Go(func(gp *G) {
			var wg WaitGroup
			for b.Loop() {
				wg.Add(b05burst)
				for i := range b05burst {
					gp.Go(func(gp *G) {
						b05sink.Add(b05spin(uint64(i)))
						wg.Done(gp)
					})
				}
				wg.Wait(gp)
			}
		})
		if err := rt.Wait(); err != nil {
			go rt.Close() // a broken scheduler may never finish closing
			b.Fatal(err)
		}
		rt.Close()
	})
	b.Run("native", func(b *testing.B) {
		var wg sync.WaitGroup
		for b.Loop() {
			wg.Add(b05burst)
			for i := range b05burst {
				go func() {
					b05sink.Add(b05spin(uint64(i)))
					wg.Done()
				}()
			}
			wg.Wait()
		}
	})
}
