package sched

// Benchmarks of lesson 06-gopark, run by `kata bench 06`: the /sched side
// is park.go (yours, or the reference's) blocking and waking Gs on a
// running Runtime with one P; /native is the same on Go's own scheduler
// with GOMAXPROCS 1.

import (
	"runtime"
	"sync"
	"testing"
)

// BenchmarkL06PingPong: one op is a round trip between two Gs over an
// unbuffered channel. Each side parks in gopark (its unlockf releasing the
// channel's lock) and is woken by the other's goready.
func BenchmarkL06PingPong(b *testing.B) {
	b.Run("sched", func(b *testing.B) {
		b06run(b, func(gp *G) {
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

// BenchmarkL06ParkReady: one op is a round trip between two Gs through
// semaphores built on Park and Ready alone. That is gopark with a commit
// that releases the semaphore's lock, and goready, with no channel code in
// between.
func BenchmarkL06ParkReady(b *testing.B) {
	b.Run("sched", func(b *testing.B) {
		b06run(b, func(gp *G) {
			var ping, pong b06sem
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

// b06sem is a semaphore with at most one waiter, built on Park and Ready
// the way channels are built on gopark and goready.
type b06sem struct {
	mu     sync.Mutex
	waiter *G
	tokens int
}

func (s *b06sem) acquire(gp *G) {
	s.mu.Lock()
	if s.tokens > 0 {
		s.tokens--
		s.mu.Unlock()
		return
	}
	s.waiter = gp
	gp.Park(func() bool { s.mu.Unlock(); return true })
}

func (s *b06sem) release(gp *G) {
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

// b06run runs body as the one G of a fresh Runtime with one P and waits for
// it; the Runtime's start and close are not timed.
func b06run(b *testing.B, body func(gp *G)) {
	b.Helper()
	rt := New(Config{Procs: 1})
	rt.Go(body)
	if err := rt.Wait(); err != nil {
		go rt.Close() // a broken scheduler may never finish closing
		b.Fatal(err)
	}
	rt.Close()
}
