package sched

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestL05Differential: the reference is the oracle. On 400 generated states
// (1 to 5 Ps, each idle, running or in a system call, the busy ones with a
// few Gs queued or none; Ms holding a P or none, spinning or not; other
// Ms spinning elsewhere; needspinning set or not; idle Ms waiting on
// sched.midle), a few operations run on identical copies: wakep,
// resetspinning, becomeSpinning, stopSpinning, shouldSpin, checkRunqsNoP
// with the live allp and idle mask or with stale snapshots, and work
// arriving on a P. The learner's functions run on one copy and the
// reference's (ref_wakep...) on the other, and everything observable must
// agree after each operation: what it returned, nmspinning and
// needspinning, each M's spinning flag, which idle M was started with
// which P (spinning or not), the idle P list, npidle and idlepMask,
// sched.lock, the trace.
func TestL05Differential(t *testing.T) {
	kitDiffLoop(t, l05, "spinning.go", "", 400, l05dGen, l05dRun, l05dShrink, l05dOpName)
}

// l05dState is a generated state: the kit's (Ps and their queues, the
// trace) and what the spinning protocol reads beyond it.
type l05dState struct {
	kit          kitState
	Spinning     []bool // the acting Ms' mp.spinning: one M per running P, then one M with no P (l05dActorIDs)
	Others       int32  // Ms spinning elsewhere, counted in nmspinning too
	Needspinning bool
}

func (st l05dState) String() string {
	var b strings.Builder
	if st.kit.MBase > 0 {
		fmt.Fprintf(&b, "M 0..M %d made before, running no Go code (nmsys=%d); ", st.kit.MBase-1, st.kit.MBase)
	}
	running := st.kit.MBase
	for i, ps := range st.kit.Ps {
		switch {
		case ps.Running:
			fmt.Fprintf(&b, "P%d running (held by M %d)", i, running)
			running++
		case ps.Syscall:
			fmt.Fprintf(&b, "P%d in a system call", i)
		default:
			fmt.Fprintf(&b, "P%d idle", i)
		}
		var q []string
		for _, id := range ps.Ring {
			q = append(q, fmt.Sprintf("G %d", id))
		}
		if ps.Next != 0 {
			q = append(q, fmt.Sprintf("runnext G %d", ps.Next))
		}
		if len(q) > 0 {
			fmt.Fprintf(&b, ", queued [%s]", strings.Join(q, " "))
		}
		b.WriteString("; ")
	}
	if st.kit.Idle > 0 {
		fmt.Fprintf(&b, "P%d..P%d idle; ", len(st.kit.Ps), len(st.kit.Ps)+st.kit.Idle-1)
	}
	var spinning []string
	for k, id := range l05dActorIDs(st.kit) {
		if st.Spinning[k] {
			spinning = append(spinning, fmt.Sprintf("M %d", id))
		}
	}
	fmt.Fprintf(&b, "spinning: [%s] and %d other Ms (nmspinning=%d)", strings.Join(spinning, " "), st.Others, int32(len(spinning))+st.Others)
	if st.Needspinning {
		b.WriteString("; needspinning=1")
	}
	b.WriteString("; idle Ms waiting on sched.midle")
	if st.kit.Trace {
		b.WriteString("; sched.trace set")
	}
	if st.kit.Debug {
		b.WriteString("; Config{Debug: true}")
	}
	return b.String()
}

// widened is st on a big machine (kitWiden): up to maxProcs Ps.
func (st l05dState) widened(r *rand.Rand, ops []kitOp, i int) l05dState {
	kitWiden(r, &st.kit, ops, i)
	return st
}

// l05dActorIDs lists the IDs of a state's acting Ms: the M of each running
// P, then one that holds no P. They are numbered as the scheduler numbers
// its Ms, in the order they were made (kitRunningP's, P by P, then the
// one with no P).
func l05dActorIDs(st kitState) []int64 {
	var ids []int64
	for _, ps := range st.Ps {
		if ps.Running {
			ids = append(ids, st.MBase+int64(len(ids)))
		}
	}
	return append(ids, st.MBase+int64(len(ids)))
}

// l05dWorld is one built copy of an l05dState.
type l05dWorld struct {
	*kitWorld
	actors []*m // the acting Ms, as l05dActorIDs lists them
	idle   []*m // the idle Ms wakep may start, in the order they were put on sched.midle
}

func l05dBuild(st l05dState, pool map[int64]*g) *l05dWorld {
	w := &l05dWorld{kitWorld: kitBuild(st.kit, pool)}
	sched := w.sched
	if !st.kit.Trace {
		sched.trace = nil
	}
	for _, pp := range w.ps {
		if mp := pp.m.Load(); mp != nil {
			w.actors = append(w.actors, mp)
		}
	}
	noP := kitNewM(sched)
	w.actors = append(w.actors, noP)
	nmspinning := st.Others
	for k, mp := range w.actors {
		if k < len(st.Spinning) && st.Spinning[k] {
			mp.spinning = true
			nmspinning++
		}
	}
	sched.nmspinning.Store(nmspinning)
	if st.Needspinning {
		sched.needspinning.Store(1)
	}
	for range 6 {
		w.idle = append(w.idle, l05idleM(sched))
	}
	return w
}

// l05dOpName names an operation for a learner.
func l05dOpName(op kitOp, st l05dState) string {
	ids := l05dActorIDs(st.kit)
	mName := func() string {
		if op.Q < len(ids) {
			return fmt.Sprintf("M %d", ids[op.Q])
		}
		return fmt.Sprintf("acting M #%d", op.Q)
	}
	switch op.Kind {
	case "wakep":
		return "wakep(sched)"
	case "resetspinning", "stopSpinning":
		return fmt.Sprintf("%s(%s), if it spins", op.Kind, mName())
	case "shouldSpin":
		return fmt.Sprintf("shouldSpin(%s)", mName())
	case "becomeSpinning":
		return fmt.Sprintf("%s.becomeSpinning(), if it does not spin", mName())
	case "checkRunqsNoP":
		switch op.K {
		case 0:
			return "checkRunqsNoP(sched, sched.allp, sched.idlepMask) with sched.lock not held"
		case 1:
			return fmt.Sprintf("checkRunqsNoP(sched, a snapshot of allp[:%d], a snapshot of idlepMask) with sched.lock not held", op.P)
		default:
			return fmt.Sprintf("checkRunqsNoP(sched, a snapshot of allp, a snapshot of idlepMask taken when P%d's idle bit was the other way) with sched.lock not held", op.P)
		}
	case "work":
		return fmt.Sprintf("a new G is queued on P%d's ring, if it runs (no wakep)", op.P)
	}
	return op.Kind
}

// l05dDo runs op on w: the reference's functions if ref.
func l05dDo(w *l05dWorld, op kitOp, ref bool) string {
	sched := w.sched
	var mp *m
	if op.Q < len(w.actors) {
		mp = w.actors[op.Q]
	}
	switch op.Kind {
	case "wakep":
		if ref {
			ref_wakep(sched)
		} else {
			wakep(sched)
		}
		return "done"
	case "resetspinning", "stopSpinning":
		if mp == nil || !mp.spinning {
			return "not called (the M does not spin)"
		}
		switch {
		case op.Kind == "stopSpinning" && ref:
			ref_stopSpinning(mp)
		case op.Kind == "stopSpinning":
			stopSpinning(mp)
		case ref:
			ref_resetspinning(mp)
		default:
			resetspinning(mp)
		}
		return "done"
	case "becomeSpinning":
		if mp == nil || mp.spinning {
			return "not called (the M already spins)"
		}
		if ref {
			mp.ref_becomeSpinning()
		} else {
			mp.becomeSpinning()
		}
		return "done"
	case "shouldSpin":
		if mp == nil {
			return "not called"
		}
		if ref {
			return fmt.Sprint(ref_shouldSpin(mp))
		}
		return fmt.Sprint(shouldSpin(mp))
	case "checkRunqsNoP":
		allp := slices.Clone(sched.allp)
		mask := make(pMask, len(sched.idlepMask))
		for i := range mask {
			mask[i].Store(sched.idlepMask[i].Load())
		}
		switch op.K {
		case 1:
			allp = allp[:min(op.P, len(allp))]
		case 2:
			if op.P < len(allp) {
				if mask.read(int32(op.P)) {
					mask.clear(int32(op.P))
				} else {
					mask.set(int32(op.P))
				}
			}
		}
		var pp *p
		if ref {
			pp = ref_checkRunqsNoP(sched, allp, mask)
		} else {
			pp = checkRunqsNoP(sched, allp, mask)
		}
		if pp == nil {
			return "nil"
		}
		return fmt.Sprintf("P%d", pp.id)
	case "work":
		if op.P >= len(w.ps) {
			return "no such P"
		}
		pp := w.ps[op.P]
		if pp.status.Load() != _Prunning {
			return "not done (only a running P's G queues work)"
		}
		t := pp.runqtail.Load()
		if t-pp.runqhead.Load() >= uint32(len(pp.runq)) {
			return "the ring is full"
		}
		kitRawSlot(&pp.runq[t%uint32(len(pp.runq))]).Store(w.newG())
		pp.runqtail.Store(t + 1)
		return "done"
	}
	panic("l05dDo: unknown operation " + op.Kind)
}

// l05dObserve adds what the spinning protocol changes beyond the kit's
// observables.
func l05dObserve(w *l05dWorld, o *kitObs) {
	sched := w.sched
	if w.trace {
		o.addf("trace events, every field", "%s", kitEvents(w.events))
	}
	o.addf("needspinning", "%d", sched.needspinning.Load())
	var mask []uint32
	for i := range sched.idlepMask {
		mask = append(mask, sched.idlepMask[i].Load())
	}
	o.addf("idlepMask", "%#x", mask)
	for _, mp := range w.actors {
		o.addf(fmt.Sprintf("M %d's mp.spinning", mp.id), "%v", mp.spinning)
	}
	if !sched.lock.TryLock() {
		return // the kit reports sched.lock held
	}
	defer sched.lock.Unlock()
	onList := map[*m]bool{}
	for mp := sched.midle; mp != nil && len(onList) <= len(w.idle); mp = mp.schedlink {
		onList[mp] = true
	}
	o.addf("idle Ms", "%d (nmidle=%d), Ms created %d", len(onList), sched.nmidle, sched.mnext)
	for _, mp := range w.idle {
		switch {
		case onList[mp]:
			o.addf(fmt.Sprintf("M %d", mp.id), "on the idle M list")
		case mp.nextp == nil:
			o.addf(fmt.Sprintf("M %d", mp.id), "taken off the idle list, given no P")
		default:
			o.addf(fmt.Sprintf("M %d", mp.id), "started with P%d (mp.nextp), spinning=%v, woken=%v", mp.nextp.id, mp.spinning, l05woken(mp))
		}
	}
}

// l05dLimit is how long an operation may take: every one takes
// microseconds, unless it waits for a lock it holds.
const l05dLimit = 5 * time.Second

// l05dRun runs ops on two builds of st and returns "" if the learner's
// functions and the reference's agree after each, else what differed;
// and whether one of the learner's operations never returned (it is left
// behind).
func l05dRun(st l05dState, ops []kitOp, pools *[2]map[int64]*g) (string, bool) {
	mine, ref := l05dBuild(st, pools[0]), l05dBuild(st, pools[1])
	for i, op := range ops {
		type result struct{ s, panicked string }
		c := make(chan result, 1)
		go func() {
			s, panicked := kitCall(func() string { return l05dDo(mine, op, false) })
			c <- result{s, panicked}
		}()
		var got, why string
		select {
		case r := <-c:
			got, why = r.s, r.panicked
		case <-time.After(l05dLimit):
			return fmt.Sprintf("after operation %d, %s:\n  yours did not return in %s (waiting for sched.lock while it holds it?)", i+1, l05dOpName(op, st), l05dLimit), true
		}
		want, _ := kitCall(func() string { return l05dDo(ref, op, true) })
		var o1, o2 kitObs
		o1.addf("returned", "%s", got)
		o2.addf("returned", "%s", want)
		mine.observe(&o1, false)
		ref.observe(&o2, false)
		l05dObserve(mine, &o1)
		l05dObserve(ref, &o2)
		var diffs []string
		for _, name := range o2.names {
			if o1.vals[name].key() != o2.vals[name].key() {
				diffs = append(diffs, fmt.Sprintf("  %s: the reference's %s, yours %s", name, o2.vals[name], o1.vals[name]))
			}
		}
		if len(diffs) > 0 {
			if why != "" {
				diffs = append(diffs, "  yours panicked with: "+strings.SplitN(why, "\n", 2)[0])
			}
			return fmt.Sprintf("after operation %d, %s:\n%s", i+1, l05dOpName(op, st), strings.Join(diffs, "\n")), false
		}
		if strings.HasPrefix(want, "panicked") {
			return "", false
		}
	}
	return "", false
}

// l05dValid reports whether st is a state a scheduler can be in: an idle
// P has nothing queued, and every acting M has its spinning flag.
func l05dValid(st l05dState) bool {
	for _, ps := range st.kit.Ps {
		if !ps.Running && !ps.Syscall && (len(ps.Ring) > 0 || ps.Next != 0) {
			return false
		}
	}
	return len(st.Spinning) == len(l05dActorIDs(st.kit))
}

// l05dShrink makes a failing state smaller: the kit's steps (fewer Ps and
// Gs, a busy P made idle, fewer operations), then this lesson's (no other
// spinners, no needspinning, an acting M not spinning, no trace).
func l05dShrink(st l05dState, ops []kitOp, fails func(l05dState, []kitOp) bool) (l05dState, []kitOp) {
	deadline := time.Now().Add(kitShrinkTime)
	for tries := 0; tries < 1000 && time.Now().Before(deadline); {
		progress := false
		var cands []l05dState
		var candOps [][]kitOp
		for _, c := range kitShrinkSteps(st.kit, ops) {
			s := st
			s.kit = c.st
			// A busy P made idle takes its M out of the acting Ms.
			s.Spinning = nil
			old, now := l05dActorIDs(st.kit), l05dActorIDs(c.st)
			for k, id := range old {
				if slices.Contains(now, id) {
					s.Spinning = append(s.Spinning, st.Spinning[k])
				}
			}
			cands, candOps = append(cands, s), append(candOps, c.ops)
		}
		simpler := func(f func(s *l05dState)) {
			s := st
			s.Spinning = slices.Clone(st.Spinning)
			f(&s)
			cands, candOps = append(cands, s), append(candOps, ops)
		}
		if st.Others > 0 {
			simpler(func(s *l05dState) { s.Others-- })
		}
		if st.Needspinning {
			simpler(func(s *l05dState) { s.Needspinning = false })
		}
		if st.kit.Trace {
			simpler(func(s *l05dState) { s.kit.Trace = false })
		}
		if st.kit.Debug {
			simpler(func(s *l05dState) { s.kit.Debug = false })
		}
		for k, sp := range st.Spinning {
			if sp {
				simpler(func(s *l05dState) { s.Spinning[k] = false })
			}
		}
		for i := range cands {
			tries++
			if l05dValid(cands[i]) && fails(cands[i], candOps[i]) {
				st, ops, progress = cands[i], candOps[i], true
				break
			}
		}
		if !progress {
			break
		}
	}
	return st, ops
}

// l05dGen makes a state of one to five Ps and one to four operations.
func l05dGen(r *rand.Rand) (l05dState, []kitOp) {
	n := 1 + r.IntN(5)
	st := l05dState{kit: kitState{Seed: r.Uint64(), Trace: r.IntN(3) > 0, Debug: r.IntN(2) == 0, NoSysmon: true}}
	for i := range n {
		ps := kitPState{Head: r.Uint32()}
		switch r.IntN(5) {
		case 0, 1:
		case 2:
			ps.Syscall = true
		default:
			ps.Running = true
		}
		if (ps.Running || ps.Syscall) && r.IntN(3) == 0 {
			for j := range 1 + r.IntN(2) {
				ps.Ring = append(ps.Ring, int64(i+1)*1000+int64(j))
			}
		}
		if (ps.Running || ps.Syscall) && r.IntN(5) == 0 {
			ps.Next = int64(i+1)*1000 + 999
		}
		st.kit.Ps = append(st.kit.Ps, ps)
	}
	actors := len(l05dActorIDs(st.kit))
	var spinners, others []int
	for k := range actors {
		st.Spinning = append(st.Spinning, r.IntN(3) == 0)
		if st.Spinning[k] {
			spinners = append(spinners, k)
		} else {
			others = append(others, k)
		}
	}
	st.Others = int32(max(0, r.IntN(5)-2))
	st.Needspinning = r.IntN(4) == 0
	var ops []kitOp
	for range 1 + r.IntN(4) {
		op := kitOp{Q: r.IntN(actors), P: r.IntN(n + 1)}
		switch k := r.IntN(18); {
		case k < 4:
			op.Kind = "wakep"
		case k < 7:
			op.Kind = "resetspinning"
			if len(spinners) > 0 {
				op.Q = spinners[r.IntN(len(spinners))]
			}
		case k < 9:
			op.Kind = "stopSpinning"
			if len(spinners) > 0 {
				op.Q = spinners[r.IntN(len(spinners))]
			}
		case k < 11:
			op.Kind = "becomeSpinning"
			if len(others) > 0 {
				op.Q = others[r.IntN(len(others))]
			}
		case k < 14:
			op.Kind = "shouldSpin"
			if len(others) > 0 && r.IntN(4) > 0 {
				op.Q = others[r.IntN(len(others))] // the gate matters for an M that does not spin yet
			}
		case k < 17:
			op.Kind, op.K = "checkRunqsNoP", r.IntN(3)
		default:
			op.Kind, op.P = "work", r.IntN(n)
		}
		ops = append(ops, op)
	}
	if r.IntN(2) == 0 {
		// A long-lived program's Ms, numbered from a log-uniform MBase of
		// 64 to 2^20: a thirty-fourth red team's file went wrong only on
		// an M numbered over 5,000, where no M of a state was. Drawn last,
		// so that the rest of each state is as it was before.
		st.kit.MBase = int64(kitLogUniform(r, 64, 1<<20))
	}
	return st, ops
}
