package sched

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestL02Differential: the reference is the oracle. On generated states
// (runnext set or not, rings empty, full or wrapped, Ps idle or running,
// with or without sysmon), a few operations run the learner's runnext
// functions and the reference's (ref_runqput...) on identical copies, and
// everything observable must agree: results (inheritTime, retry
// included), where each G lands (runnext, the ring's tail, the global
// queue), the back-offs, statuses. RandomizeScheduler is left out: the
// coin that skips runnext is the learner's to flip (TestL02Randomize
// counts it).
func TestL02Differential(t *testing.T) {
	kitDiff(t, l02, 80, l02GenDiff, l02DoDiff, func(kitState, kitOp) bool { return false })
}

// l02GenDiff makes a state of one to three Ps and a few operations on
// them.
func l02GenDiff(r *rand.Rand) (kitState, []kitOp) {
	st := kitState{Seed: r.Uint64(), NoSysmon: r.IntN(5) == 0, Global: kitGenGlobal(r, 3), HighIDs: true}
	for i := range 1 + r.IntN(3) {
		ps := kitGenP(r, i)
		if r.IntN(2) == 0 && ps.Next == 0 {
			ps.Next = int64(i+1)*1000 + 999 // runnext set more often: it is the lesson
		}
		st.Ps = append(st.Ps, ps)
	}
	var ops []kitOp
	for range 1 + r.IntN(5) {
		op := kitOp{P: r.IntN(len(st.Ps)), Flag: r.IntN(3) > 0}
		st.MinProcs = max(st.MinProcs, op.P+1)
		switch r.IntN(5) {
		case 0, 1:
			op.Kind = "runqput"
		case 2:
			op.Kind = "runqget"
		case 3:
			op.Kind = "runqempty"
		default:
			op.Kind = "runqgrabnext"
		}
		ops = append(ops, op)
	}
	return st, ops
}

// l02DoDiff runs op with the learner's functions, or the reference's.
func l02DoDiff(w *kitWorld, op kitOp, ref bool) string {
	pp := w.sched.allp[op.P]
	switch op.Kind {
	case "runqput":
		gp := w.newG()
		if ref {
			ref_runqput(pp, gp, op.Flag)
		} else {
			runqput(pp, gp, op.Flag)
		}
		return "nothing (a function with no result)"
	case "runqget":
		var gp *g
		var inherit bool
		if ref {
			gp, inherit = ref_runqget(pp)
		} else {
			gp, inherit = runqget(pp)
		}
		return fmt.Sprintf("%s, inheritTime=%v", kitGName(gp), inherit)
	case "runqempty":
		if ref {
			return fmt.Sprint(ref_runqempty(pp))
		}
		return fmt.Sprint(runqempty(pp))
	case "runqgrabnext":
		var gp *g
		var retry bool
		if ref {
			gp, retry = ref_runqgrabnext(pp)
		} else {
			gp, retry = runqgrabnext(pp)
		}
		return fmt.Sprintf("next=%s, retry=%v", kitGName(gp), retry)
	}
	panic("l02DoDiff: unknown operation " + op.Kind)
}
