package sched

// Benchmarks of lesson 07-sysmon, run by `kata bench 07`: the /sched side
// is sysmon.go (yours, or the reference's): one round of retake, called by
// hand on a constructed scheduler (kitSched) with a made-up clock. There
// is no /native side: Go's sysmon is not reachable from a program.

import (
	"testing"
	"time"
)

// BenchmarkL07Retake: one op is one sysmon round, retake(now), over 8 Ps in
// the states it looks at. The clock moves 100µs a round: P 0-2 run a G that
// started a new time slice since (their schedtick moved), P 3-5 run a G
// whose slice is older than forcePreempt (1ms) and is preempted
// (preemptone), P 6 is in a system call too young and too idle to retake (a
// new one every 500µs), P 7 is idle. No round retakes a P.
func BenchmarkL07Retake(b *testing.B) {
	b.Run("sched", func(b *testing.B) {
		sched := kitSched(8, Config{NoSysmon: true, ForcePreempt: time.Millisecond})
		var running [6]*p
		var curg [6]*g
		for id := range int32(6) {
			pp := kitTakeP(sched, id)
			mp := &m{sched: sched, id: 100 + int64(id)}
			curg[id] = kitG(sched, 1+int64(id))
			curg[id].atomicstatus.Store(_Grunning)
			mp.curg.Store(curg[id])
			mp.p = pp
			pp.m.Store(mp)
			pp.status.Store(_Prunning)
			pp.schedtick.Store(1) // a slice sysmon has not seen yet
			running[id] = pp
		}
		insys := kitTakeP(sched, 6)
		insys.status.Store(_Psyscall)
		insys.schedtick.Store(1)
		insys.syscalltick.Store(1)

		now := int64(1e9)
		round := 0
		op := func() {
			round++
			now += 100e3
			for _, pp := range running[:3] {
				pp.schedtick.Add(1)
			}
			if round%5 == 0 { // its G ran a little and made a new system call
				insys.schedtick.Add(1)
				insys.syscalltick.Add(1)
			}
			if n := retake(sched, now); n != 0 {
				b.Fatalf("retake returned %d: it took a P from a system call of at most 500µs, with an empty run queue and an idle P", n)
			}
		}
		for range 20 {
			op()
		}
		for id, gp := range curg {
			if stale := id >= 3; gp.preempt.Load() != stale {
				b.Fatalf("after 20 rounds of retake 100µs apart with forcePreempt = 1ms, G %d's preempt flag is %v, want %v (P %d's time slice is %s)",
					gp.goid, gp.preempt.Load(), stale, id, map[bool]string{true: "2ms old", false: "new every round"}[stale])
			}
		}
		for b.Loop() {
			op()
		}
	})
}
