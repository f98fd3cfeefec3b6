package procresize

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/gmp-kata/gmp-kata/internal/quiz"
	sched "github.com/gmp-kata/gmp-kata/solutions"
)

// The lesson's questions for kata quiz. Each builds its situation in a
// sched.Lab and takes the answer from what the reference does there.
var quizKinds = []quiz.Kind{
	{Name: "shrink-global", Make: quizShrinkGlobal},
	{Name: "idle-after", Make: quizIdleAfter},
	{Name: "which-m", Make: quizWhichM},
	// What happens next: the kinds below set up a state and ask what the
	// scheduler does with it. Appended, so that each seed keeps the
	// numbers it made before (see quiz.Kind.MakeSeed).
	{Name: "next-runnext", Make: quizNextRunnext},
}

// fill gives P p, held by an M, the Gs 10p+1.. on its ring and maybe 10p+9
// in runnext, and says so.
func fill(lab *sched.Lab, r *rand.Rand, p int, atLeastOne bool) string {
	ring := r.IntN(3)
	next := r.IntN(2) == 0
	if atLeastOne && ring == 0 && !next {
		ring = 1
	}
	var ids []int64
	for i := range ring {
		ids = append(ids, int64(10*p+1+i))
		lab.Runqput(p, ids[i], false)
	}
	s := fmt.Sprintf("P%d's ring holds %s", p, orNothing(ids))
	if next {
		lab.Runqput(p, int64(10*p+9), true)
		s += fmt.Sprintf(" and its runnext G%d", 10*p+9)
	}
	return s
}

// quizShrinkGlobal: where a destroyed P's Gs go, and in what order.
func quizShrinkGlobal(r *rand.Rand) quiz.Question {
	old := 3 + r.IntN(3)
	nprocs := 1 + r.IntN(old-1)
	lab := sched.NewLab(old)
	var global []int64
	for i := range r.IntN(3) {
		global = append(global, int64(i+1))
		lab.GlobrunqPut(int64(i + 1))
	}
	var state []string
	for p := range old {
		lab.Hold(p)
		if p >= nprocs {
			state = append(state, fill(lab, r, p, false))
		}
	}
	lab.StopTheWorld()
	lab.Procresize(nprocs)
	after := lab.Global()
	return quiz.Question{
		Text: fmt.Sprintf("GOMAXPROCS goes from %d to %d: with the world stopped, procresize(%d) runs. %s; "+
			"the global run queue holds %s. What does the global queue hold afterwards, head first?",
			old, nprocs, nprocs, strings.Join(state, "; "), orNothing(global)),
		Answer: quiz.List("G", after...),
		Explain: fmt.Sprintf("`procresize` (proc.go:6030) destroys %s, in that order. `(*p).destroy` (proc.go:5947) "+
			"pops its ring from the tail and pushes each G at the head of the global queue (`globrunqputhead` (proc.go:7260)), "+
			"then its runnext, so a P's Gs keep the order they would have run in, ahead of everything queued before; "+
			"the last P destroyed ends up at the head: %s. Nothing is handed to the surviving Ps: they find the Gs there.",
			quiz.List("P", idRange(int64(nprocs), old-nprocs)...), quiz.List("G", after...)),
	}
}

// quizIdleAfter: which Ps procresize leaves idle.
func quizIdleAfter(r *rand.Rand) quiz.Question {
	old := 2 + r.IntN(4)
	nprocs := 1 + r.IntN(6)
	if nprocs == old {
		nprocs++
	}
	lab := sched.NewLab(old)
	var state []string
	for p := range old {
		if r.IntN(2) == 0 {
			lab.Hold(p)
			state = append(state, fill(lab, r, p, true))
		}
	}
	others := "; the other Ps have none"
	switch len(state) {
	case 0:
		state, others = []string{"No P has any G"}, ""
	case old:
		others = ""
	}
	lab.StopTheWorld()
	work := lab.Procresize(nprocs)
	idle := lab.Idle()
	ps := func(ids []int) []int64 {
		out := make([]int64, len(ids))
		for i, id := range ids {
			out[i] = int64(id)
		}
		return out
	}
	return quiz.Question{
		Text: fmt.Sprintf("GOMAXPROCS goes from %d to %d: with the world stopped, procresize(%d) runs. %s%s. "+
			"Which Ps are on the idle P list afterwards?", old, nprocs, nprocs, strings.Join(state, "; "), others),
		Answer: quiz.Set("P", ps(idle)...),
		Explain: fmt.Sprintf("`procresize` (proc.go:6030) looks at every P that is left, new ones included: one with an empty run "+
			"queue goes on the idle list (pidleput), one with work is returned with an M to run it (%s here). "+
			"A destroyed P's Gs go to the global queue, not to another P, so they make no P busy: idle, %s.",
			quiz.Set("P", ps(work)...), quiz.Set("P", ps(idle)...)),
	}
}

// quizWhichM: procresize gives a P its old M back if it can.
func quizWhichM(r *rand.Rand) quiz.Question {
	old := 3 + r.IntN(2)
	nprocs := old - 1
	lab := sched.NewLab(old)
	for p := range old {
		lab.Hold(p) // M p holds P p
	}
	inCall := r.IntN(nprocs)
	var state []string
	for p := range old {
		if p == inCall || r.IntN(2) == 0 {
			state = append(state, fill(lab, r, p, true))
		}
	}
	others := "; the other Ps have none"
	if len(state) == old {
		others = ""
	}
	lab.Run(inCall, 99)
	lab.Syscall(inCall)
	lab.StopTheWorld()
	idleMs := lab.IdleMs()
	work := lab.Procresize(nprocs)
	asked := inCall
	if r.IntN(2) == 0 {
		asked = work[r.IntN(len(work))]
	}
	var given []string
	for _, p := range work {
		given = append(given, fmt.Sprintf("P%d → %s", p, quiz.ID("M", lab.MOf(p))))
	}
	ms := make([]string, len(idleMs))
	for i, m := range idleMs {
		ms[i] = fmt.Sprintf("M%d", m)
	}
	return quiz.Question{
		Text: fmt.Sprintf("GOMAXPROCS is %d; M0 ran P0, M1 ran P1 and so on. %s%s. "+
			"G99 on P%d is in a system call, with its M, M%d. Stopping the world took P%d from the call and parked the other Ms "+
			"on the idle M list, which reads %s, head first. Then procresize(%d) runs. Which M is P%d handed to run it?",
			old, strings.Join(state, "; "), others, inCall, inCall, inCall, strings.Join(ms, " "), nprocs, asked),
		Answer: quiz.ID("M", lab.MOf(asked)),
		Explain: fmt.Sprintf("`procresize` (proc.go:6030) walks the Ps from the last to the first. A P with work gets the M that "+
			"ran it last if that M is idle (`mgetSpecific` (proc.go:7230)); if not, it waits until the walk is over and then takes "+
			"the head of the idle list (`mget` (proc.go:7213)), so that it cannot take an M a P later in the walk wants back. "+
			"Here: %s.", strings.Join(given, ", ")),
	}
}

// orNothing is "G2 G3", or "nothing".
func orNothing(ids []int64) string {
	if len(ids) == 0 {
		return "nothing"
	}
	return quiz.List("G", ids...).String()
}

// idRange is first, first+1, ... first+n-1.
func idRange(first int64, n int) []int64 {
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = first + int64(i)
	}
	return ids
}

// quizNextRunnext: what happens to the G in a destroyed P's runnext when
// GOMAXPROCS is lowered.
func quizNextRunnext(r *rand.Rand) quiz.Question {
	old := 3 + r.IntN(3)
	nprocs := 1 + r.IntN(old-1)
	lab := sched.NewLab(old)
	var global []int64
	for i := range r.IntN(3) {
		global = append(global, int64(i+1))
		lab.GlobrunqPut(int64(i + 1))
	}
	withNext := nprocs + r.IntN(old-nprocs) // a destroyed P whose runnext holds a G
	var state []string
	rings := map[int][]int64{}
	for p := range old {
		lab.Hold(p)
		if p < nprocs {
			continue
		}
		for i := range r.IntN(3) {
			g := int64(10*p + 1 + i)
			rings[p] = append(rings[p], g)
			lab.Runqput(p, g, false)
		}
		s := fmt.Sprintf("P%d's ring holds %s", p, orNothing(rings[p]))
		if p == withNext || r.IntN(2) == 0 {
			lab.Runqput(p, int64(10*p+9), true)
			s += fmt.Sprintf(" and its runnext G%d", 10*p+9)
			rings[p] = append(rings[p], int64(10*p+9))
		}
		state = append(state, s)
	}
	g := int64(10*withNext + 9)
	lab.StopTheWorld()
	lab.Procresize(nprocs)
	after := lab.Global()
	later := 0 // the Gs of the Ps destroyed after withNext
	for p := withNext + 1; p < old; p++ {
		later += len(rings[p])
	}
	options := []string{
		fmt.Sprintf("G%d is lost with P%d: procresize empties only the ring", g, withNext),
		fmt.Sprintf("G%d moves to P0's runnext, to run next on a P that is kept", g),
		fmt.Sprintf("G%d goes to the head of the global run queue, ahead of everything queued there", g),
		fmt.Sprintf("G%d goes to the global run queue ahead of P%d's ring, but behind the Gs of the Ps destroyed after P%d", g, withNext, withNext),
		fmt.Sprintf("G%d goes to the tail of the global run queue, after the Gs already queued there", g),
	}
	right := -1
	switch i := slices.Index(after, g); {
	case i < 0 && lab.Runnext(0) == g:
		right = 1
	case i < 0:
		right = 0
	case i == 0 && later == 0:
		right = 2
	case i == later && later > 0:
		right = 3
	case i == len(after)-1:
		right = 4
	default:
		panic(fmt.Sprintf("procresize: quiz next-runnext: G%d is at %d on the global queue %v", g, i, after))
	}
	return quiz.Question{
		Text: fmt.Sprintf("GOMAXPROCS goes from %d to %d: with the world stopped, procresize(%d) runs. %s; "+
			"the global run queue holds %s. What happens to G%d, in P%d's runnext?",
			old, nprocs, nprocs, strings.Join(state, "; "), orNothing(global), g, withNext),
		Answer: quiz.Choice(right, options...),
		Explain: fmt.Sprintf("`procresize` (proc.go:6030) destroys %s, in that order, and `(*p).destroy` (proc.go:5947) "+
			"loses no G: it pushes the ring's Gs, from the tail, and then runnext at the head of the global queue "+
			"(`globrunqputhead` (proc.go:7260)), so runnext runs first, before the ring, as it would have on its P. "+
			"A P destroyed later pushes its Gs in front: the global queue reads %s.",
			quiz.List("P", idRange(int64(nprocs), old-nprocs)...), quiz.List("G", after...)),
	}
}
