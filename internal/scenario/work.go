package scenario

import (
	"sync"
	"sync/atomic"
	"time"
)

// The scenarios' Gs do their CPU work in amounts of time, not of loop
// iterations, so that a story lasts as long on a fast machine as on a slow
// one. It must last: the Ms are threads, and on a machine with fewer cores
// than Ps the OS runs them in turns of a few milliseconds each, so a run
// shorter than a few turns ends before some Ms ever get a core, and their
// Ps stay idle in the picture. Measured on 2 cores, 4 Ps (issue #13): 200
// Gs of about 30µs each ran in 4ms, their threads waited for a core as
// long as they ran, and a P stayed idle in 10 runs of 20; of 150µs each,
// every P ran Gs in 20 runs of 20, with other programs keeping both cores
// busy.

// spin burns n iterations of CPU and returns a value that depends on all
// of them.
func spin(n int) uint64 {
	x := uint64(n)
	for i := 0; i < n; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

// sink keeps what work computes, so that the compiler cannot drop it.
var sink atomic.Uint64

// spinRate is how many iterations of spin this machine runs in a
// microsecond: the best of a few tries, since a try the OS interrupted
// is slower, never faster.
var spinRate = sync.OnceValue(func() float64 {
	const n = 1 << 16
	best := time.Duration(1 << 62)
	for range 5 {
		start := time.Now()
		sink.Add(spin(n))
		best = min(best, time.Since(start))
	}
	return n / max(float64(best)/1e3, 1e-3)
})

// work burns about d of CPU time.
func work(d time.Duration) {
	sink.Add(spin(int(float64(d) / 1e3 * spinRate())))
}
