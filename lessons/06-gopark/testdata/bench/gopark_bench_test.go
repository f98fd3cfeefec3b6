package sched

// Benchmarks of lesson 06-gopark, run by `kata bench 06`: the /sched side
// is park.go (yours, or the reference's) blocking and waking Gs on a
// running Runtime with one P; /native is the same on Go's own scheduler
// with GOMAXPROCS 1.

import "testing"

// BenchmarkL06PingPong: one op is a round trip between two Gs over an
// unbuffered channel. Each side parks in gopark (its unlockf releasing the
// channel's lock) and is woken by the other's goready.
func BenchmarkL06PingPong(b *testing.B) { kitBenchPingPong(b) }

// BenchmarkL06ParkReady: one op is a round trip between two Gs through
// semaphores built on Park and Ready alone. That is gopark with a commit
// that releases the semaphore's lock, and goready, with no channel code in
// between.
func BenchmarkL06ParkReady(b *testing.B) {
	b.Run("sched", func(b *testing.B) {
		kitBenchRun(b, Config{Procs: 1}, func(gp *G) {
			var ping, pong kitSem
			var wg WaitGroup
			stop := false // written before the last ping, read after it
			wg.Add(1)
			gp.Go(func(gp *G) {
				for {
					ping.acquire(gp)
					if stop {
						break
					}
					pong.release(gp)
				}
				wg.Done(gp)
			})
			for b.Loop() {
				ping.release(gp)
				pong.acquire(gp)
			}
			stop = true
			ping.release(gp)
			wg.Wait(gp)
		})
	})
}
