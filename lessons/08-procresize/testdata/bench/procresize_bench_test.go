package sched

// Benchmarks of lesson 08-procresize, run by `kata bench 08`: the /sched
// side is procresize.go (yours, or the reference's), called by hand on a
// constructed scheduler (kitSched) where no M runs, with the world stopped
// by hand as stopTheWorld would; /native is runtime.GOMAXPROCS, which
// stops Go's own world and runs its procresize.

import (
	"runtime"
	"testing"
)

// BenchmarkL08Resize: one op is procresize from 2 Ps up to 8 and back down
// to 2, each under a stopped world. Before the shrink, P 5 holds 8 Gs on its
// ring and one in runnext: destroy must move them to the head of the
// global queue (which is emptied after each op).
func BenchmarkL08Resize(b *testing.B) {
	b.Run("sched", func(b *testing.B) {
		sched := kitSched(2, Config{})
		gs := kitGs(sched, 1, 9) // G 1 in runnext, G 2-9 on the ring
		sched.lock.Lock()
		defer sched.lock.Unlock()
		// stop does what stopTheWorld does, with every P idle and no M.
		stop := func() {
			sched.stopwait = sched.gomaxprocs.Load()
			sched.gcwaiting.Store(true)
			for pp := sched.pidleget(); pp != nil; pp = sched.pidleget() {
				pp.status.Store(_Pgcstop)
				sched.stopwait--
			}
			if sched.stopwait != 0 {
				b.Fatalf("stopping the world by hand left %d Ps not idle after procresize: every P without work must go on the idle list", sched.stopwait)
			}
		}
		op := func() {
			stop()
			procresize(sched, 8)
			sched.gcwaiting.Store(false)
			pp := sched.allp[5]
			t := pp.runqtail.Load()
			pp.runqhead.Store(t)
			for i, gp := range gs[1:] {
				pp.runq[(t+uint32(i))%uint32(len(pp.runq))].Store(gp)
			}
			pp.runqtail.Store(t + 8)
			pp.runnext.Store(gs[0])
			stop()
			procresize(sched, 2)
			sched.gcwaiting.Store(false)
		}
		emptyGlobal := func() {
			sched.runq.gQueue = gQueue{}
			sched.runq.sizeHint.Store(0)
		}
		op()
		var ids []int64
		for gp := sched.runq.head; gp != nil && len(ids) < 10; gp = gp.schedlink {
			ids = append(ids, gp.goid)
		}
		if len(ids) != 9 || ids[0] != 1 || ids[1] != 2 || ids[8] != 9 || len(sched.allp) != 2 {
			b.Fatalf("after procresize 2 → 8 → 2 with G 1 in P 5's runnext and G 2-9 on its ring, the global queue holds %v and allp has %d Ps, want [1 2 ... 9] and 2", ids, len(sched.allp))
		}
		emptyGlobal()
		for b.Loop() {
			op()
			emptyGlobal()
		}
	})
	b.Run("native", func(b *testing.B) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
		for b.Loop() {
			runtime.GOMAXPROCS(8)
			runtime.GOMAXPROCS(2)
		}
	})
}
