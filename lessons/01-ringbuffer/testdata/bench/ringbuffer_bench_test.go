package sched

// Benchmarks of lesson 01-ringbuffer, run by `kata bench 01`: the /sched
// side is runq.go (yours, or the reference's), /native the nearest thing in
// Go's own runtime. Each one drives the ring by hand on a constructed state
// (kitSched: Ps that no M runs), so that nothing but runq.go is timed; the
// state is set up and restored with plain stores to the ring's fields, never
// with the code being measured.

import "testing"

// BenchmarkL01PutGet: one op is runqputtail then runqgethead of one G, the
// owner's fast path. Native: a send and a receive on a buffered channel, the
// runtime's nearest queue.
func BenchmarkL01PutGet(b *testing.B) {
	b.Run("sched", func(b *testing.B) {
		sched := kitSched(1, Config{})
		pp := sched.allp[0]
		gp := kitG(sched, 1)
		for b.Loop() {
			runqputtail(pp, gp)
			if got := runqgethead(pp); got != gp {
				b.Fatalf("runqgethead returned %s right after runqputtail of G 1 on an empty ring", kitID(got))
			}
		}
	})
	b.Run("native", func(b *testing.B) {
		ch := make(chan *g, 256)
		gp := &g{goid: 1}
		for b.Loop() {
			ch <- gp
			if got := <-ch; got != gp {
				b.Fatal("a receive did not return the value just sent")
			}
		}
	})
}

// BenchmarkL01Steal: one op is runqsteal taking the older half (64 Gs) of
// another P's 128. It times runqgrab's copy and its CAS, then the thief's
// publish.
func BenchmarkL01Steal(b *testing.B) {
	b.Run("sched", func(b *testing.B) {
		sched := kitSched(2, Config{})
		thief, victim := sched.allp[0], sched.allp[1]
		gs := kitGs(sched, 1, 128)
		for i, gp := range gs {
			victim.runq[i].Store(gp)
		}
		victim.runqtail.Store(128)
		// Between ops, the 64 stolen Gs go back to the victim by moving its
		// head back (a thief never writes the victim's slots, so they still
		// hold them), and the thief's ring is emptied.
		restore := func() {
			victim.runqhead.Store(0)
			thief.runqhead.Store(thief.runqtail.Load())
		}
		if gp := runqsteal(thief, victim, false); gp != gs[63] || thief.runqtail.Load()-thief.runqhead.Load() != 63 || victim.runqhead.Load() != 64 {
			b.Fatalf("runqsteal from a P with G 1 to G 128 queued returned %s and queued %d Gs on the thief, want G 64 and 63 more (G 1 to G 63)",
				kitID(gp), thief.runqtail.Load()-thief.runqhead.Load())
		}
		restore()
		for b.Loop() {
			if runqsteal(thief, victim, false) == nil {
				b.Fatal("runqsteal from a P with 128 Gs queued returned nil")
			}
			restore()
		}
	})
}

// BenchmarkL01Overflow: one op is runqputtail on a full ring, through
// runqputslow. The older half and the new G (129 Gs) go to the global queue
// in one batch.
func BenchmarkL01Overflow(b *testing.B) {
	b.Run("sched", func(b *testing.B) {
		sched := kitSched(1, Config{})
		pp := sched.allp[0]
		gs := kitGs(sched, 1, 257)
		for i, gp := range gs[:256] {
			pp.runq[i].Store(gp)
		}
		pp.runqtail.Store(256)
		extra := gs[256]
		// Between ops, the 128 Gs moved out go back on the ring (its head
		// moves back: their slots still hold them) and the global queue is
		// emptied.
		restore := func() {
			pp.runqhead.Store(0)
			sched.runq.gQueue = gQueue{}
			sched.runq.sizeHint.Store(0)
		}
		runqputtail(pp, extra)
		if n := sched.runq.size; n != 129 || pp.runqhead.Load() != 128 {
			b.Fatalf("runqputtail on a full ring moved %d Gs to the global queue and left the ring's head at %d, want 129 and 128", n, pp.runqhead.Load())
		}
		restore()
		for b.Loop() {
			runqputtail(pp, extra)
			restore()
		}
	})
}
