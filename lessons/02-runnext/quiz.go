package runnext

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
	{Name: "put-order", Make: quizPutOrder},
	{Name: "steal-runnext", Make: quizStealRunnext},
	{Name: "inherit-time", Make: quizInheritTime},
	// What happens next: the kinds below set up a state and ask what the
	// scheduler does with it. Appended, so that each seed keeps the
	// numbers it made before (see quiz.Kind.MakeSeed).
	{Name: "next-kick", Make: quizNextKick},
}

// put writes runqput(P0, Gg, next) as the question shows it.
func put(g int64, next bool) string {
	return fmt.Sprintf("runqput(G%d, next=%v)", g, next)
}

// quizPutOrder: where runqput puts Gs with and without next, and the
// order runqget hands them out.
func quizPutOrder(r *rand.Rand) quiz.Question {
	lab := sched.NewLab(1)
	n := 3 + r.IntN(4)
	var calls []string
	for i := range n {
		next := r.IntN(2) == 0
		lab.Runqput(0, int64(i+1), next)
		calls = append(calls, put(int64(i+1), next))
	}
	runnext := lab.Runnext(0)
	_, _, ring := lab.Ring(0)
	var order []int64
	for g, _ := lab.Runqget(0); g != 0; g, _ = lab.Runqget(0) {
		order = append(order, g)
	}
	return quiz.Question{
		Text: fmt.Sprintf("P0's run queue is empty: no runnext, nothing on the ring. P0 calls, in this order, %s. "+
			"In what order does runqget then hand the Gs out?", strings.Join(calls, ", ")),
		Answer: quiz.List("G", order...),
		Explain: fmt.Sprintf("`runqput` (proc.go:7478) with next=true puts the G in runnext and kicks the G that was there "+
			"to the tail of the ring; with next=false the G goes to the tail. After these calls runnext holds %s and the ring %s, "+
			"head first. `runqget` (proc.go:7598) takes runnext first, then the ring from its head.",
			quiz.ID("G", orNone(runnext)), quiz.List("G", ring...)),
	}
}

// quizStealRunnext: what runqsteal takes, with and without runnext.
func quizStealRunnext(r *rand.Rand) quiz.Question {
	lab := sched.NewLab(2)
	n := r.IntN(4)
	if r.IntN(3) == 0 {
		n = 0 // the interesting case, more often
	}
	for i := range n {
		lab.Runqput(0, int64(i+1), false)
	}
	lab.Runqput(0, 9, true)
	stealNext := r.IntN(2) == 0
	pass := "its first pass, which does not ask for runnext (stealRunNextG false)"
	if stealNext {
		pass = "its last pass, which asks for runnext too (stealRunNextG true)"
	}
	g, took := lab.Runqsteal(1, 0, stealNext)
	_, _, kept := lab.Ring(1)
	taken := append(kept, g)
	if g == 0 {
		taken = nil
	}
	ring := "empty"
	if n > 0 {
		ring = quiz.List("G", idRange(1, n)...).String() + ", head first"
	}
	var why string
	switch {
	case n > 0:
		why = fmt.Sprintf("P0's ring is not empty, so `runqgrab` (proc.go:7662) takes n - n/2 = %d of its %d Gs, from the head, "+
			"and leaves runnext alone: runnext is taken only from a P with nothing else to steal.", took, n)
	case took > 0:
		why = "P0's ring is empty and the thief asks for runnext, so `runqgrab` (proc.go:7662) takes it with a CAS, " +
			"after backing off for ~3µs if P0 is running, so that its owner can run it first."
	default:
		why = "P0's ring is empty and this pass does not ask for runnext, so `runqgrab` (proc.go:7662) takes nothing: " +
			"`stealWork` (proc.go:3828) asks for runnext only on the last of its four passes."
	}
	return quiz.Question{
		Text: fmt.Sprintf("P0's ring is %s, and its runnext holds G9. P1, whose ring is empty, steals from P0 (runqsteal) "+
			"on %s. Which Gs does P1 take? List them head first, the G that runqsteal returns last.", ring, pass),
		Answer: quiz.List("G", taken...),
		Explain: why + fmt.Sprintf(" P1 took %s; `runqsteal` (proc.go:7730) returns the last of the Gs it took, to run at once.",
			quiz.List("G", taken...)),
	}
}

// quizInheritTime: which Gs runqget says inherit the time slice.
func quizInheritTime(r *rand.Rand) quiz.Question {
	lab := sched.NewLab(1)
	var calls []string
	var inherit []int64
	g, gets, queued := int64(0), 0, 0
	for len(calls) < 6 || gets < 2 {
		if queued == 0 || r.IntN(2) == 0 {
			g++
			next := r.IntN(2) == 0
			lab.Runqput(0, g, next)
			calls = append(calls, put(g, next))
			queued++
			continue
		}
		got, inheritTime := lab.Runqget(0)
		calls = append(calls, "runqget()")
		gets++
		queued--
		if inheritTime {
			inherit = append(inherit, got)
		}
	}
	return quiz.Question{
		Text: fmt.Sprintf("P0's run queue is empty. P0 calls, in this order, %s. "+
			"Which of the Gs that runqget returns come with inheritTime = true? List them in the order they were returned.",
			strings.Join(calls, ", ")),
		Answer: quiz.List("G", inherit...),
		Explain: fmt.Sprintf("`runqget` (proc.go:7598) says inheritTime = true only for a G it takes from runnext: "+
			"here %s. Such a G runs in the rest of the current time slice (execute does not count a new one), "+
			"so a pair of Gs that ready each other runs as one and sysmon can still preempt the pair after 10ms. "+
			"A G from the ring starts a new slice.", quiz.List("G", inherit...)),
	}
}

// orNone is g, or -1 (none) for 0.
func orNone(g int64) int64 {
	if g == 0 {
		return -1
	}
	return g
}

// idRange is first, first+1, ... first+n-1.
func idRange(first int64, n int) []int64 {
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = first + int64(i)
	}
	return ids
}

// quizNextKick: what happens next to the G in runnext when another G is
// readied into it and the ring may be full.
func quizNextKick(r *rand.Rand) quiz.Question {
	n := 252 + r.IntN(5)
	if r.IntN(2) == 0 {
		n = 256 // the interesting case, more often
	}
	lab := sched.NewLab(1)
	lab.Run(0, 1000)
	for i := range n {
		lab.Runqput(0, int64(i+1), false)
	}
	const kicked, readied = 900, 901
	lab.Runqput(0, kicked, true)
	lab.Runqput(0, readied, true)
	global := lab.Global()
	_, _, ring := lab.Ring(0)
	options := []string{
		fmt.Sprintf("G%d goes to the tail of the ring, behind G%d, and G%d takes runnext", kicked, n, readied),
		fmt.Sprintf("G%d, with G1 to G128, the oldest half of the ring, goes to the global run queue, and G%d takes runnext", kicked, readied),
		fmt.Sprintf("G%d stays in runnext, and G%d goes to the tail of the ring", kicked, readied),
		fmt.Sprintf("G%d takes runnext and G%d is dropped: runnext holds one G", readied, kicked),
	}
	right := -1
	switch {
	case lab.Runnext(0) != readied:
		panic(fmt.Sprintf("runnext: quiz next-kick: runnext holds G%d", lab.Runnext(0)))
	case len(global) == 0 && ring[len(ring)-1] == kicked:
		right = 0
	case slices.Equal(global, append(idRange(1, 128), kicked)):
		right = 1
	default:
		panic(fmt.Sprintf("runnext: quiz next-kick: the global queue holds %v, the ring %d Gs", global, len(ring)))
	}
	why := fmt.Sprintf("The ring holds %d Gs of 256, so G%d goes to its tail like any other put.", n, kicked)
	if right == 1 {
		why = fmt.Sprintf("The ring is full, so the kicked G%d takes the path of any put onto a full ring: `runqputslow` (proc.go:7524) "+
			"moves the oldest half, G1 to G128, and G%d after them, 129 Gs, to the global queue in one batch.", kicked, kicked)
	}
	return quiz.Question{
		Text: fmt.Sprintf("G1000 runs on P0. P0's ring holds G1 to G%d, G1 at the head, and its runnext holds G%d; "+
			"the global run queue is empty. G1000 readies G%d, which ready puts on P0's run queue with runqput(next=true). "+
			"What happens next?", n, kicked, readied),
		Answer: quiz.Choice(right, options...),
		Explain: fmt.Sprintf("`runqput` (proc.go:7478) with next=true swaps G%d into runnext with a CAS and puts the G it "+
			"replaced, G%d, on the ring as if it had been put with next=false: kicked out, never lost. ", readied, kicked) + why,
	}
}
