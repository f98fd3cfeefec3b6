package sched

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestL01Differential: the reference is the oracle. On 100 generated states
// (rings empty, full, nearly full, wrapped past 2^32, with runnext, Ps
// idle or running, the global queue empty or long), each of a few
// operations runs the learner's ring functions and the reference's
// (ref_runqputtail...) on identical copies, and everything observable must
// agree: what they return, every ring's counters and Gs in order, runnext,
// the global queue in order, the locks. With RandomizeScheduler, the
// shuffled Gs are compared as a multiset: their order is free.
func TestL01Differential(t *testing.T) {
	kitDiff(t, l01, 100, l01GenDiff, l01DoDiff, func(st kitState, op kitOp) bool { return st.Randomize })
}

// l01GenDiff makes a state of two to four Ps and a few ring operations
// on P0 and P1.
func l01GenDiff(r *rand.Rand) (kitState, []kitOp) {
	st := kitState{Seed: r.Uint64(), MinProcs: 2, Global: kitGenGlobal(r, 5), HighIDs: true}
	for i := range 2 + r.IntN(3) {
		st.Ps = append(st.Ps, kitGenP(r, i))
	}
	if p := r.IntN(4); p < 2 {
		// An empty ring with a runnext: where a thief takes runnext.
		st.Ps[p].Ring, st.Ps[p].Next = nil, int64(p+1)*1000+999
	}
	if r.IntN(6) == 0 {
		// One put that may shuffle: runqputslow's batch, or runqputbatch's.
		st.Randomize = true
		if r.IntN(2) == 0 {
			return st, []kitOp{{Kind: "runqputtail"}}
		}
		return st, []kitOp{{Kind: "runqputbatch", K: 1 + r.IntN(300)}}
	}
	var ops []kitOp
	for range 1 + r.IntN(4) {
		op := kitOp{P: r.IntN(2), Flag: r.IntN(2) == 0}
		switch r.IntN(6) {
		case 0:
			op.Kind = "runqputtail"
		case 1:
			op.Kind, op.K = "runqputbatch", 1+r.IntN(300)
		case 2:
			op.Kind = "runqgethead"
		case 3:
			op.Kind, op.At = "runqgrab", r.Uint32()
		case 4:
			op.Kind, op.Q = "runqsteal", 1-op.P
			if vn := len(st.Ps[op.Q].Ring); vn >= 3 && r.IntN(3) == 0 {
				// A thief with just about room for what it steals (n - n/2
				// of n, one of them returned): one G more and it overflows.
				// It steals first, before other operations change the rings.
				room := 256 - (vn - vn/2 - 1) + r.IntN(3) - 1
				st.Ps[op.P].Ring = nil
				for i := range min(room, 256) {
					st.Ps[op.P].Ring = append(st.Ps[op.P].Ring, int64(op.P+1)*1000+int64(i))
				}
				ops = append([]kitOp{op}, ops...)
				continue
			}
		default:
			op.Kind = "runqdrain"
		}
		ops = append(ops, op)
	}
	return st, ops
}

// l01DoDiff runs op with the learner's functions, or the reference's.
func l01DoDiff(w *kitWorld, op kitOp, ref bool) string {
	pp := w.sched.allp[op.P]
	switch op.Kind {
	case "runqputtail":
		gp := w.newG()
		if ref {
			ref_runqputtail(pp, gp)
		} else {
			runqputtail(pp, gp)
		}
		return "nothing (a function with no result)"
	case "runqputbatch":
		var q gQueue
		for range op.K {
			q.pushBack(w.newG())
		}
		if ref {
			ref_runqputbatch(pp, &q)
		} else {
			runqputbatch(pp, &q)
		}
		return "a queue left holding " + l01Queue(q)
	case "runqgethead":
		if ref {
			return kitGName(ref_runqgethead(pp))
		}
		return kitGName(runqgethead(pp))
	case "runqgrab":
		var batch [256]atomicRingSlot
		var n uint32
		if ref {
			n = ref_runqgrab(pp, &batch, op.At, op.Flag)
		} else {
			n = runqgrab(pp, &batch, op.At, op.Flag)
		}
		return l01Batch(&batch, op.At, n)
	case "runqsteal":
		if ref {
			return kitGName(ref_runqsteal(pp, w.sched.allp[op.Q], op.Flag))
		}
		return kitGName(runqsteal(pp, w.sched.allp[op.Q], op.Flag))
	case "runqdrain":
		if ref {
			return "the queue " + l01Queue(ref_runqdrain(pp))
		}
		return "the queue " + l01Queue(runqdrain(pp))
	}
	panic("l01DoDiff: unknown operation " + op.Kind)
}

// l01Queue describes a gQueue: its Gs in order and its size.
func l01Queue(q gQueue) string {
	var gs []*g
	for gp := q.head; gp != nil && len(gs) <= 600; gp = gp.schedlink {
		gs = append(gs, gp)
	}
	return fmt.Sprintf("%s (size=%d)", kitGList(gs), q.size)
}

// l01Batch describes what runqgrab wrote into batch: n, the Gs from
// batchHead on, and any slot written outside them.
func l01Batch(batch *[256]atomicRingSlot, head, n uint32) string {
	var taken []*g
	in := map[uint32]bool{}
	for i := uint32(0); i < n && i < 256; i++ {
		s := (head + i) % 256
		in[s] = true
		taken = append(taken, batch[s].Load())
	}
	out := 0
	for s := range batch {
		if !in[uint32(s)] && batch[s].Load() != nil {
			out++
		}
	}
	msg := fmt.Sprintf("n=%d, batch[batchHead...] = %s", n, kitGList(taken))
	if out > 0 {
		msg += fmt.Sprintf(", and %s written outside batchHead..batchHead+n-1", kitCount(int(out), "slot"))
	}
	return msg
}
