package sched

// Benchmarks of lesson 04-findrunnable, run by `kata bench 04`: the /sched
// side is findrunnable.go (yours, or the reference's), called by hand on a
// constructed scheduler (kitSched) by an M that no goroutine runs. There is
// no /native side: Go's findRunnable is not reachable from a program.

import (
	"testing"
	"time"
)

// BenchmarkL04Steal: one op is findRunnable stealing the only G it can
// find, on 1 of 7 other busy Ps. With 8 Ps, P 5 alone has work (2 Gs): the
// M finds its own queue and the global queue empty, starts spinning and
// walks the other Ps in random order until it steals G 1 from P 5. After
// each op the M stops spinning and G 1 goes back to P 5.
func BenchmarkL04Steal(b *testing.B) {
	b.Run("sched", func(b *testing.B) {
		sched := kitSched(8, Config{Usleep: func(int64) {}})
		mp := &m{sched: sched, id: 100}
		mp.park.init()
		acquirep(mp, kitTakeP(sched, 0))
		var victim *p
		for id := int32(1); id < 8; id++ {
			pp := kitTakeP(sched, id)
			pp.status.Store(_Prunning) // as if its M were running a G
			if id == 5 {
				victim = pp
			}
		}
		gs := kitGs(sched, 1, 2)
		victim.runq[0].Store(gs[0])
		victim.runq[1].Store(gs[1])
		victim.runqtail.Store(2)
		restore := func() {
			victim.runqhead.Store(0)
			if mp.spinning {
				stopSpinning(mp)
			}
		}

		// The first call, under a time limit: a findRunnable that parks the
		// M instead would hang the benchmark.
		found := make(chan *g, 1)
		go func() {
			gp, _ := findRunnable(mp)
			found <- gp
		}()
		select {
		case gp := <-found:
			if gp != gs[0] {
				b.Fatalf("findRunnable with only P 5 holding work (G 1 and G 2 on its ring) returned %s, want G 1 stolen from P 5", kitID(gp))
			}
		case <-time.After(5 * time.Second):
			b.Fatal("findRunnable did not return within 5s though P 5 has 2 Gs to steal: did the M park instead of stealing?")
		}
		restore()

		for b.Loop() {
			if gp, _ := findRunnable(mp); gp != gs[0] {
				b.Fatalf("findRunnable returned %s, want G 1 stolen from P 5", kitID(gp))
			}
			restore()
		}
	})
}
