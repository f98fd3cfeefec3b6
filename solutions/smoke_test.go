package sched

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestSmoke(t *testing.T) {
	rt := New(Config{Procs: 4, Debug: true})
	defer rt.Close()
	var n atomic.Int64
	ch := NewChan[int](0)
	rt.Go(func(g *G) {
		for i := 0; i < 1000; i++ {
			g.Go(func(g *G) { n.Add(1); g.Gosched() })
		}
		g.Go(func(g *G) {
			for i := 0; i < 100; i++ {
				ch.Send(g, i)
			}
			ch.Close(g)
		})
		sum := 0
		for {
			v, ok := ch.Recv(g)
			if !ok {
				break
			}
			sum += v
		}
		if sum != 4950 {
			panic("bad sum")
		}
		g.Sleep(time.Millisecond)
		g.Syscall(func() { time.Sleep(15 * time.Millisecond) })
		g.GOMAXPROCS(2)
		g.GOMAXPROCS(3)
	})
	require.NoError(t, rt.Wait())
	require.EqualValues(t, 1000, n.Load(), "Gs that ran")
}

func TestSmokeDeadlock(t *testing.T) {
	rt := New(Config{Procs: 2})
	defer rt.Close()
	ch := NewChan[int](0)
	rt.Go(func(g *G) { ch.Recv(g) })
	err := rt.Wait()
	t.Log(err)
	if err == nil {
		t.Fatal("no deadlock")
	}
}
