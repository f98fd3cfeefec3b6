package sched

// Benchmarks of lesson 03-globrunqget, run by `kata bench 03`: the /sched
// side is globrunq.go (yours, or the reference's). Each drives the global
// queue by hand under sched.lock, on a constructed scheduler (kitSched) that
// no M runs. There is no /native side: Go's global run queue is not
// reachable from a program.

import "testing"

// BenchmarkL03GetBatch: one op is a batch of 65 Gs from a global queue of
// 256 with 4 Ps, and putting them back. globrunqgetbatch(128) takes 256/4
// + 1 = 65, one G to run and 64 for the ring; globrunqput and
// globrunqputbatch return them.
func BenchmarkL03GetBatch(b *testing.B) {
	b.Run("sched", func(b *testing.B) {
		sched := kitSched(4, Config{})
		for _, gp := range kitGs(sched, 1, 256) {
			sched.runq.pushBack(gp)
		}
		sched.lock.Lock()
		defer sched.lock.Unlock()
		gp, q := sched.globrunqgetbatch(128)
		if gp == nil || q.size != 64 || sched.runq.size != 256-65 {
			b.Fatalf("globrunqgetbatch(128) on a global queue of 256 Gs with 4 Ps returned %s and a batch of %d, leaving %d; want a G, a batch of 64 and 191 left",
				kitID(gp), q.size, sched.runq.size)
		}
		sched.globrunqput(gp)
		sched.globrunqputbatch(&q)
		for b.Loop() {
			gp, q := sched.globrunqgetbatch(128)
			sched.globrunqput(gp)
			sched.globrunqputbatch(&q)
		}
		if sched.runq.size != 256 {
			b.Fatalf("after taking batches and putting them back, the global queue holds %d Gs, want 256", sched.runq.size)
		}
	})
}
