package ringbuffer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/gmp-kata/gmp-kata/internal/quiz"
	sched "github.com/gmp-kata/gmp-kata/solutions"
)

// The lesson's questions for kata quiz. Each builds its situation in a
// sched.Lab and takes the answer from what the reference does there.
var quizKinds = []quiz.Kind{
	{Name: "counters", Make: quizCounters},
	{Name: "steal-half", Make: quizStealHalf},
	{Name: "overflow", Make: quizOverflow},
	// What happens next: the kinds below set up a state and ask what the
	// scheduler does with it. Appended, so that each seed keeps the
	// numbers it made before (see quiz.Kind.MakeSeed).
	{Name: "next-put", Make: quizNextPut},
}

// quizCounters: runqhead and runqtail after puts, gets and a steal, across
// the uint32 wrap-around.
func quizCounters(r *rand.Rand) quiz.Question {
	lab := sched.NewLab(2)
	start := uint32(math.MaxUint32 - r.IntN(6))
	lab.SetRing(0, start)
	puts, gets, more := 3+r.IntN(6), 0, 1+r.IntN(4)
	gets = 1 + r.IntN(puts-1)
	var steps []string
	state := func(what string) {
		h, t, _ := lab.Ring(0)
		steps = append(steps, fmt.Sprintf("%s: head %d, tail %d", what, h, t))
	}
	g := int64(0)
	for range puts {
		g++
		lab.Runqput(0, g, false)
	}
	state(fmt.Sprintf("%d puts", puts))
	for range gets {
		lab.Runqget(0)
	}
	state(fmt.Sprintf("%d gets", gets))
	_, stolen := lab.Runqsteal(1, 0, false)
	state(fmt.Sprintf("P1 steals %d", stolen))
	for range more {
		g++
		lab.Runqput(0, g, false)
	}
	state(fmt.Sprintf("%d puts", more))
	head, tail, _ := lab.Ring(0)
	which, answer := "runqhead", head
	if r.IntN(2) == 0 {
		which, answer = "runqtail", tail
	}
	return quiz.Question{
		Text: fmt.Sprintf("P0's ring is empty, with runqhead = runqtail = %d. P0 puts %d Gs on it (runqput, next false), "+
			"takes %d with runqget, then P1, whose ring is empty, steals from P0 (runqsteal), and P0 puts %d more. "+
			"What is P0's %s now?", start, puts, gets, more, which),
		Answer: quiz.Number(int64(answer)),
		Explain: fmt.Sprintf("A put moves runqtail on by one (`runqput` (proc.go:7478)), a get moves runqhead on by one "+
			"(`runqget` (proc.go:7598)), and a steal moves runqhead on by the n - n/2 Gs it takes (`runqgrab` (proc.go:7662)). "+
			"%s. Both are uint32 and wrap from 4294967295 to 0: only tail - head, the number of Gs, means anything.",
			strings.Join(steps, "; ")),
	}
}

// quizStealHalf: what runqsteal takes from a ring of n Gs.
func quizStealHalf(r *rand.Rand) quiz.Question {
	n := 1 + r.IntN(12)
	lab := sched.NewLab(2)
	for i := range n {
		lab.Runqput(0, int64(i+1), false)
	}
	g, took := lab.Runqsteal(1, 0, false)
	_, _, left := lab.Ring(0)
	_, _, kept := lab.Ring(1)
	ask, answer := "Which G does runqsteal return for P1 to run?", quiz.ID("G", g)
	if r.IntN(2) == 0 {
		ask, answer = "Which Gs are left on P0's ring, head first?", quiz.List("G", left...)
	}
	return quiz.Question{
		Text: fmt.Sprintf("P0's ring holds G1 to G%d, G1 at the head, and its runnext is empty. "+
			"P1, whose ring is empty, steals from P0 (runqsteal, without runnext). %s", n, ask),
		Answer: answer,
		Explain: fmt.Sprintf("`runqgrab` (proc.go:7662) takes n - n/2 of the n Gs, rounded up so that a lone G can be stolen, "+
			"and the oldest ones, from the head: %d of %d here. `runqsteal` (proc.go:7730) returns the last of them, G%d, "+
			"and leaves the others on P1's ring (%s), where runqgrab copied them; P0 keeps %s.",
			took, n, g, quiz.List("G", kept...), quiz.List("G", left...)),
	}
}

// quizOverflow: how many Gs runqputslow moves to the global queue.
func quizOverflow(r *rand.Rand) quiz.Question {
	n := 250 + r.IntN(400)
	lab := sched.NewLab(1)
	var at []string
	moved := 0
	for i := range n {
		lab.Runqput(0, int64(i+1), false)
		if global := len(lab.Global()); global != moved {
			at = append(at, fmt.Sprintf("G%d", i+1))
			moved = global
		}
	}
	_, _, ring := lab.Ring(0)
	when := "never happened here"
	if len(at) > 0 {
		when = "happened at " + strings.Join(at, ", ")
	}
	return quiz.Question{
		Text: fmt.Sprintf("P0's ring is empty. P0 puts G1, G2, ... G%d on it one by one (runqput, next false), "+
			"and nothing takes any. How many Gs are on the global run queue at the end?", n),
		Answer: quiz.Number(int64(moved)),
		Explain: fmt.Sprintf("The ring has 256 slots. A put that finds it full calls `runqputslow` (proc.go:7524), "+
			"which moves the older half, 128 Gs, and the new G, 129 in all, to the global queue in one batch, "+
			"leaving room for 128 more puts. That %s, so %d Gs moved and %d are left on the ring.",
			when, moved, len(ring)),
	}
}

// quizNextPut: what happens next to a G put on a ring that may be full.
func quizNextPut(r *rand.Rand) quiz.Question {
	n := 250 + r.IntN(7)
	if r.IntN(2) == 0 {
		n = 256 // the interesting case, more often
	}
	lab := sched.NewLab(1)
	for i := range n {
		lab.Runqput(0, int64(i+1), false)
	}
	g := int64(n + 1)
	lab.Runqput(0, g, false)
	global := lab.Global()
	_, _, ring := lab.Ring(0)
	options := []string{
		fmt.Sprintf("G%d goes to the tail of the ring, after G%d", g, n),
		fmt.Sprintf("G%d alone goes to the global run queue: the ring has no room for it", g),
		fmt.Sprintf("G1 to G128, the oldest half of the ring, and G%d go to the global run queue in one batch", g),
		"runqput waits until runqget or a thief makes room on the ring",
	}
	right := -1
	switch {
	case len(global) == 0 && ring[len(ring)-1] == g:
		right = 0
	case slices.Equal(global, []int64{g}):
		right = 1
	case slices.Equal(global, append(idRange(1, 128), g)):
		right = 2
	default:
		panic(fmt.Sprintf("ringbuffer: quiz next-put: the global queue holds %v, the ring %d Gs", global, len(ring)))
	}
	why := fmt.Sprintf("The ring has 256 slots and holds %d Gs, so there is room: `runqput` (proc.go:7478) stores G%d at "+
		"runqtail and moves runqtail on by one; only a put that finds tail - head == 256 calls runqputslow.", n, g)
	if right == 2 {
		why = fmt.Sprintf("The ring has 256 slots and holds 256 Gs, so `runqput` (proc.go:7478) calls `runqputslow` (proc.go:7524), "+
			"which takes the oldest half, 128 Gs from the head, with one CAS of runqhead, adds G%d as number 129, and puts the "+
			"129 on the global queue in one batch under one lock: a put never waits, and the owner keeps the newer half (%d Gs).",
			g, len(ring))
	}
	return quiz.Question{
		Text: fmt.Sprintf("P0's ring holds G1 to G%d, G1 at the head, its runnext is empty, and the global run queue is empty. "+
			"P0 puts G%d on its ring with runqput(next=false). What happens next?", n, g),
		Answer:  quiz.Choice(right, options...),
		Explain: why,
	}
}

// idRange is first, first+1, ... first+n-1.
func idRange(first int64, n int) []int64 {
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = first + int64(i)
	}
	return ids
}
