package sched

// Benchmarks of lesson 02-runnext, run by `kata bench 02`: the /sched side
// is runnext.go (yours, or the reference's), /native the same shape on Go's
// own scheduler.

import (
	"runtime"
	"testing"
)

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
func BenchmarkL02PingPong(b *testing.B) {
	b.Run("sched", func(b *testing.B) {
		b02run(b, Config{Procs: 1}, func(gp *G) {
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

// b02run runs body as the one G of a fresh Runtime and waits for it; the
// Runtime's start and close are not timed (body's b.Loop times itself).
func b02run(b *testing.B, cfg Config, body func(gp *G)) {
	b.Helper()
	rt := New(cfg)
	rt.Go(body)
	if err := rt.Wait(); err != nil {
		go rt.Close() // a broken scheduler may never finish closing
		b.Fatal(err)
	}
	rt.Close()
}
