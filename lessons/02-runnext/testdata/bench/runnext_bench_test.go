package sched

// Benchmarks of lesson 02-runnext, run by `kata bench 02`: the /sched side
// is runnext.go (yours, or the reference's), /native the same shape on Go's
// own scheduler.

import "testing"

// BenchmarkL02PutGet: one op is two runqput(next=true) and two runqget on
// an empty P. The second put kicks the first G out of runnext to the ring;
// the gets return the runnext G (inheriting the time slice), then the
// kicked one.
func BenchmarkL02PutGet(b *testing.B) {
	b.Run("sched", func(b *testing.B) {
		sched := kitSched(1, Config{})
		pp := sched.allp[0]
		first, second := kitG(sched, 1), kitG(sched, 2)
		for b.Loop() {
			runqput(pp, first, true)
			runqput(pp, second, true)
			if gp, inherit := runqget(pp); gp != second || !inherit {
				b.Fatalf("after runqput(G 1, next) and runqput(G 2, next), runqget returned %s, inheritTime=%v; want G 2 from runnext, true", kitID(gp), inherit)
			}
			if gp, inherit := runqget(pp); gp != first || inherit {
				b.Fatalf("the second runqget returned %s, inheritTime=%v; want G 1, kicked to the ring, false", kitID(gp), inherit)
			}
		}
	})
}

// BenchmarkL02PingPong: one op is a round trip between two Gs over an
// unbuffered channel, on one P. Each send readies the receiver into
// runnext, so the pair runs as one G would. Native: the same with two
// goroutines and GOMAXPROCS 1.
func BenchmarkL02PingPong(b *testing.B) { kitBenchPingPong(b) }
