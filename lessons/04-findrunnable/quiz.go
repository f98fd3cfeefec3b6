package findrunnable

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
	{Name: "steal-order", Make: quizStealOrder},
	{Name: "next-g", Make: quizNextG},
	{Name: "steal-pass", Make: quizStealPass},
	// What happens next: the kinds below set up a state and ask what the
	// scheduler does with it. Appended, so that each seed keeps the
	// numbers it made before (see quiz.Kind.MakeSeed).
	{Name: "next-give-up", Make: quizNextGiveUp},
}

// quizStealOrder: the coprime walk of randomOrder.
func quizStealOrder(r *rand.Rand) quiz.Question {
	procs := 2 + r.IntN(7)
	rnd := uint32(r.IntN(1000))
	lab := sched.NewLab(procs)
	order := lab.StealOrder(rnd)
	ps := make([]int64, len(order))
	for i, p := range order {
		ps[i] = int64(p)
	}
	inc := (order[1] - order[0] + procs) % procs
	return quiz.Question{
		Text: fmt.Sprintf("GOMAXPROCS is %d. stealWork starts a pass over the Ps with the random number %d "+
			"(stealOrder.start(%d)). In what order does the pass visit the Ps?", procs, rnd, rnd),
		Answer: quiz.List("P", ps...),
		Explain: fmt.Sprintf("`(*randomOrder).start` (proc.go:8021) starts at %d mod %d = P%d and steps by a number coprime "+
			"with %d, the one at index (%d / %d) mod len(coprimes) in the list of coprimes: %d here. Stepping by a coprime, mod %d, "+
			"visits every P exactly once, and starting points and steps vary from pass to pass, so that thieves spread out. "+
			"The M skips its own P and idle ones (`stealWork` (proc.go:3828)).", rnd, procs, order[0], procs, rnd, procs, inc, procs),
	}
}

// quizNextG: which source findRunnable takes its G from.
func quizNextG(r *rand.Rand) quiz.Question {
	lab := sched.NewLab(2)
	lab.Hold(0)
	lab.Run(1, 100)
	where := map[int64]string{}
	var state []string
	// Aim at each step of the search about as often: the fairness check, runnext,
	// the ring, the global queue, stealing. The reference decides which wins.
	aim := r.IntN(5)
	tick := uint32(1 + r.IntN(200))
	if aim == 0 || r.IntN(4) == 0 {
		tick = uint32(61 * (1 + r.IntN(3)))
	}
	lab.SetSchedtick(0, tick)
	state = append(state, fmt.Sprintf("P0's schedtick is %d", tick))
	local := 0 // Gs in P0's run queue
	if aim == 1 || aim == 0 && r.IntN(2) == 0 {
		local++
		lab.Runqput(0, 1, true)
		where[1] = "runnext"
		state = append(state, "its runnext holds G1")
	} else {
		state = append(state, "its runnext is empty")
	}
	var ring []int64
	switch aim {
	case 0, 1:
		ring = idRange(2, r.IntN(3))
	case 2:
		ring = idRange(2, 1+r.IntN(2))
	}
	for _, g := range ring {
		lab.Runqput(0, g, false)
		where[g] = "ring"
	}
	local += len(ring)
	state = append(state, "its ring holds "+orEmpty(ring))
	var global []int64
	switch aim {
	case 0, 3:
		global = idRange(10, 1+r.IntN(2))
	case 1, 2:
		global = idRange(10, r.IntN(3))
	}
	for _, g := range global {
		lab.GlobrunqPut(g)
		where[g] = "global"
	}
	state = append(state, "the global queue holds "+orEmpty(global))
	theirs := idRange(20, 1+r.IntN(4))
	for _, g := range theirs {
		lab.Runqput(1, g, false)
		where[g] = "steal"
	}
	state = append(state, "P1 runs G100 and its ring holds "+orEmpty(theirs))

	g, _, _ := lab.FindRunnable(0)
	var why string
	switch where[g] {
	case "global":
		if tick%61 == 0 && local > 0 {
			why = fmt.Sprintf("Every 61st tick findRunnable looks at the global queue before its own (`findRunnable` (proc.go:3443)), "+
				"and %d is a multiple of 61: it takes one G, the head, with globrunqget, although P0 has work of its own.", tick)
		} else if tick%61 == 0 {
			why = fmt.Sprintf("The tick, %d, is a multiple of 61, so findRunnable's fairness check (`findRunnable` (proc.go:3443)) "+
				"takes the global queue's head with globrunqget; P0 had nothing of its own anyway.", tick)
		} else {
			why = "P0's run queue is empty, so findRunnable takes a batch from the global queue " +
				"(`findRunnable` (proc.go:3476)) and runs its head."
		}
	case "runnext":
		why = "The local run queue comes first (`findRunnable` (proc.go:3469)), and runqget takes runnext before the ring."
		if tick%61 == 0 {
			why = fmt.Sprintf("The tick, %d, is a multiple of 61, but the global queue is empty, so the fairness check finds nothing; ", tick) +
				"then the local run queue comes first (`findRunnable` (proc.go:3469)), and runqget takes runnext before the ring."
		}
	case "ring":
		why = "The local run queue comes first (`findRunnable` (proc.go:3469)); runnext is empty, so runqget takes the ring's head."
		if tick%61 == 0 {
			why = fmt.Sprintf("The tick, %d, is a multiple of 61, but the global queue is empty; ", tick) +
				"then the local run queue comes first (`findRunnable` (proc.go:3469)): runnext is empty, so runqget takes the ring's head."
		}
	default:
		why = "P0 and the global queue have nothing, so the M spins and steals (`findRunnable` (proc.go:3517)): " +
			"half of P1's ring, from the head, and it runs the last G taken."
	}
	return quiz.Question{
		Text: fmt.Sprintf("GOMAXPROCS is 2 and P0's M looks for its next G (findRunnable). %s. "+
			"Which G does findRunnable return?", strings.Join(state, "; ")),
		Answer:  quiz.ID("G", g),
		Explain: why + " The order is cheapest first: fairness, local queue, global queue, then stealing.",
	}
}

// quizStealPass: what findRunnable steals, and runnext only on the last
// pass.
func quizStealPass(r *rand.Rand) quiz.Question {
	lab := sched.NewLab(2)
	lab.Hold(0)
	lab.Run(1, 100)
	n := r.IntN(5)
	if r.IntN(2) == 0 {
		n = 0
	}
	ring := idRange(1, n)
	for _, g := range ring {
		lab.Runqput(1, g, false)
	}
	lab.Runqput(1, 9, true)
	g, _, _ := lab.FindRunnable(0)
	_, _, kept := lab.Ring(0)
	why := fmt.Sprintf("On each of its four passes, `stealWork` (proc.go:3828) tries P1's ring first: it holds %d Gs, "+
		"so the first pass takes %d of them, the oldest, with runqgrab, and findRunnable runs the last one taken, G%d "+
		"(left on P0's ring: %s). P1's runnext is left alone.", n, len(kept)+1, g, quiz.List("G", kept...))
	if n == 0 {
		why = "P1's ring is empty, so the first three passes of `stealWork` (proc.go:3828) take nothing; " +
			"only the last pass (i == stealTries-1) may take a runnext, and P1's holds G9. " +
			"Waiting until then gives P1's own M time to run the G it has just readied."
	}
	return quiz.Question{
		Text: fmt.Sprintf("GOMAXPROCS is 2. P1 runs G100; its ring holds %s and its runnext G9. "+
			"P0's M finds nothing on P0 or on the global queue, so it spins and steals (findRunnable). "+
			"Which G does findRunnable return?", orEmpty(ring)),
		Answer:  quiz.ID("G", g),
		Explain: why,
	}
}

// orEmpty is "G2 G3", or "nothing".
func orEmpty(ids []int64) string {
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

// quizNextGiveUp: an M that finds nothing of its own while another P has
// just queued work: it steals if the gate lets it spin, else it gives up
// its P without the last look, which is a spinner's.
func quizNextGiveUp(r *rand.Rand) quiz.Question {
	procs := 4 + r.IntN(4)
	spinning := r.IntN(min(4, procs-1))
	idle := r.IntN(procs - 1 - spinning)
	busy := procs - 2 - spinning - idle // running Gs, besides P1
	lab := sched.NewLab(procs)
	lab.Hold(0)
	lab.Run(1, 1)
	p := 2
	for range spinning {
		lab.Spin(p)
		p++
	}
	for range busy {
		lab.Run(p, int64(100+p))
		p++
	}
	k := 1 + r.IntN(6)
	queued := idRange(2, k)
	for _, g := range queued {
		lab.Runqput(1, g, true) // as newproc does: each G into runnext, kicking the one before to the ring
	}
	// newproc calls wakep after each put; after the first, the others
	// find nmspinning above 0 (or needspinning set) and change nothing.
	woke := lab.Wakep()
	nmspinning, npidle := lab.Nmspinning(), len(lab.Idle())
	var wakep string
	switch {
	case woke >= 0:
		wakep = fmt.Sprintf("newproc's `wakep` (proc.go:3212) found nobody spinning and P%d idle, so it started an M spinning "+
			"on P%d: nmspinning is 1 and %d Ps are idle now. ", woke, woke, npidle)
	case lab.NeedSpinning():
		wakep = "newproc's `wakep` (proc.go:3212) found nobody spinning and no P idle, so it set needspinning. "
	default:
		wakep = fmt.Sprintf("newproc's `wakep` (proc.go:3212) saw nmspinning = %d and did nothing. ", nmspinning)
	}
	g, _, parked := lab.FindRunnable(0)
	options := []string{
		"it spins, steals from P1's run queue, and runs a G it took there",
		"it releases P0 and sleeps (stopm) without looking at P1: the spinning Ms are there to steal P1's Gs",
		"it releases P0, then looks at every P's ring once more, finds P1's Gs, takes an idle P and spins",
		"it keeps P0 and sleeps until G1 hands it a G",
	}
	gate := wakep + fmt.Sprintf("The spinning gate (`findRunnable` (proc.go:3517)) lets an M that is not spinning start only "+
		"while 2 × nmspinning < gomaxprocs - npidle, the busy Ps: 2 × %d against %d - %d here. ", nmspinning, procs, npidle)
	var right int
	var why string
	switch {
	case parked && nmspinning > 0:
		right = 1
		why = gate + "Refused, it goes straight to giving up: one more look at the global queue under the lock, then it releases P0 " +
			"and sleeps. The last look at every P's ring (`checkRunqsNoP` (proc.go:3902)) is only for an M that was spinning, " +
			"which must look again after it stops being counted; this M was never counted, and the spinning Ms will find P1's Gs."
	case !parked && slices.Contains(queued, g):
		right = 0
		_, _, kept := lab.Ring(0)
		why = gate + fmt.Sprintf("It may, so it becomes spinning and steals (`stealWork` (proc.go:3828)): runqgrab takes %d of the %d Gs "+
			"on P1's ring, the oldest, and leaves runnext, G%d, to P1; it runs the last one taken, G%d.", len(kept)+1, k-1, queued[k-1], g)
		if k == 1 {
			why = gate + fmt.Sprintf("It may, so it becomes spinning and steals (`stealWork` (proc.go:3828)): P1's ring is empty, "+
				"so only the last of the four passes takes P1's runnext, G%d, and runs it.", g)
		}
	default:
		panic(fmt.Sprintf("findrunnable: quiz next-give-up: found G%d, parked %v", g, parked))
	}
	created := fmt.Sprintf("has just created %s, in that order: newproc put each in P1's runnext and called wakep", quiz.List("G", queued...))
	if k == 1 {
		created = "has just created G2: newproc put it in P1's runnext and called wakep"
	}
	return quiz.Question{
		Text: fmt.Sprintf("GOMAXPROCS is %d. P0's G has just finished; P0's run queue and the global run queue are empty. "+
			"Of the other Ps: %d with a spinning M, %d idle, %d running Gs. G1, running on P1, %s. "+
			"P0's M, which is not spinning, looks for its next G (findRunnable), while no other M moves. What happens next?",
			procs, spinning, idle, busy, created),
		Answer:  quiz.Choice(right, options...),
		Explain: why,
	}
}
