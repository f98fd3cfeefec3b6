package sched

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestL03Differential: the reference is the oracle. On generated states
// (global queues of 0 to 300 Gs, or to 1000 or 5000 in one state of four,
// as a busy scheduler's may hold: a file must not keep the fair share only
// for the short queues tests build; 1 to 8 Ps, so that size/gomaxprocs+1
// varies), a few operations run the learner's global-queue methods and
// the reference's (sched.ref_globrunqget...) on identical copies, with
// sched.lock held, and everything observable must agree: the G or batch
// returned, the queue's Gs in order, its size and sizeHint, sched.lock
// still held on return, and the queue as the trace tells it (its
// EvGlobalRunq events: not event by event, since a batch may be told as
// one event or one per G, but what they add up to and the length the last
// one gives). With
// Config{Debug: true}, some calls are made without the lock: the
// reference's assertion panics, and so must the learner's, before it
// touches the queue.
func TestL03Differential(t *testing.T) {
	kitDiff(t, l03, 80, l03GenDiff, l03DoDiff, func(kitState, kitOp) bool { return false })
}

// l03GenDiff makes a state of one to eight Ps and a few operations on
// the global queue.
func l03GenDiff(r *rand.Rand) (kitState, []kitOp) {
	st := kitState{Seed: r.Uint64(), Debug: r.IntN(2) == 0, Global: kitGenGlobal(r, []int{300, 300, 1000, 5000}[r.IntN(4)]), Observe: l03TraceView}
	nps := 1 + r.IntN(8)
	long := r.IntN(4) == 0
	if long {
		// One P, a long queue and a caller asking for more than half a
		// ring: the fair share is the whole queue, so only n and size
		// limit the batch (no cap of 128 as in Go 1.24's globrunqget).
		nps, st.Global = 1, nil
		for i := range 129 + r.IntN(172) {
			st.Global = append(st.Global, 9000+int64(i))
		}
	}
	for range nps {
		st.Ps = append(st.Ps, kitPState{})
	}
	var ops []kitOp
	for range 1 + r.IntN(4) {
		op := kitOp{Flag: st.Debug && r.IntN(6) == 0} // Flag: called without sched.lock
		switch r.IntN(6) {
		case 0:
			op.Kind = "globrunqput"
		case 1:
			op.Kind = "globrunqputhead"
		case 2:
			op.Kind, op.K = "globrunqputbatch", 1+r.IntN(40)
			if r.IntN(4) == 0 {
				op.K = 0 // an empty batch: nothing to do, but the lock must still be held
			}
		case 3:
			op.Kind = "globrunqget"
		default:
			op.Kind, op.MinK = "globrunqgetbatch", 1 // n >= 1: a caller asks for something
			switch r.IntN(3) {
			case 0:
				op.K = 128 // len(runq)/2, as findRunnable asks
				if long {
					op.K = 129 + r.IntN(172)
				}
			case 1:
				op.K = 1 + r.IntN(4)
			default:
				op.K = 1 + r.IntN(299)
			}
		}
		ops = append(ops, op)
	}
	return st, ops
}

// l03DoDiff runs op with the learner's methods, or the reference's, with
// sched.lock held (unless op.Flag), and says what it returned and whether
// the lock was still held.
func l03DoDiff(w *kitWorld, op kitOp, ref bool) (res string) {
	sched := w.sched
	if !op.Flag {
		sched.lock.Lock()
		defer func() {
			if sched.lock.TryLock() {
				res += "; sched.lock was no longer held on return"
			}
			sched.lock.Unlock()
		}()
	}
	switch op.Kind {
	case "globrunqput", "globrunqputhead":
		gp := w.newG()
		switch {
		case op.Kind == "globrunqput" && ref:
			sched.ref_globrunqput(gp)
		case op.Kind == "globrunqput":
			sched.globrunqput(gp)
		case ref:
			sched.ref_globrunqputhead(gp)
		default:
			sched.globrunqputhead(gp)
		}
		return "nothing (a method with no result)"
	case "globrunqputbatch":
		var q gQueue
		for range op.K {
			q.pushBack(w.newG())
		}
		if ref {
			sched.ref_globrunqputbatch(&q)
		} else {
			sched.globrunqputbatch(&q)
		}
		return "the batch left as " + l03Queue(q)
	case "globrunqget":
		if ref {
			return kitGName(sched.ref_globrunqget())
		}
		return kitGName(sched.globrunqget())
	case "globrunqgetbatch":
		var gp *g
		var q gQueue
		if ref {
			gp, q = sched.ref_globrunqgetbatch(int32(op.K))
		} else {
			gp, q = sched.globrunqgetbatch(int32(op.K))
		}
		return fmt.Sprintf("gp=%s, q=%s", kitGName(gp), l03Queue(q))
	}
	panic("l03DoDiff: unknown operation " + op.Kind)
}

// l03Queue describes a gQueue: its Gs in order, its size, its tail.
func l03Queue(q gQueue) string {
	var gs []*g
	for gp := q.head; gp != nil && len(gs) <= 1000; gp = gp.schedlink {
		gs = append(gs, gp)
	}
	tail := ""
	if n := len(gs); (n == 0) != (q.tail == nil) || n > 0 && q.tail != gs[n-1] {
		tail = ", its tail pointer is not its last G"
	}
	return fmt.Sprintf("%s (size=%d%s)", kitGList(gs), q.size, tail)
}

// l03TraceView is what the trace has told of the global queue since the
// world was built: the changes its EvGlobalRunq events add up to, and the
// length the last one gave. kata trace draws the queue from these events;
// the queue's own methods (push, pushBack, pop...) emit them, through
// changed, and a file that changes the queue behind them must call changed
// itself.
func l03TraceView(w *kitWorld, o *kitObs) {
	var sum int64
	last := "none"
	for _, ev := range w.events {
		if ev.Kind == EvGlobalRunq {
			sum += ev.N
			last = fmt.Sprint(ev.Arg)
		}
	}
	o.addf("the global queue as the trace tells it (EvGlobalRunq events)", "changes adding up to %+d, the last giving its length as %s", sum, last)
}
