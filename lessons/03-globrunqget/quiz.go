package globrunqget

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/gmp-kata/gmp-kata/internal/quiz"
	sched "github.com/gmp-kata/gmp-kata/solutions"
)

// The lesson's questions for kata quiz. Each builds its situation in a
// sched.Lab and takes the answer from what the reference does there.
var quizKinds = []quiz.Kind{
	{Name: "batch-size", Make: quizBatchSize},
	{Name: "batch-turns", Make: quizBatchTurns},
	{Name: "queue-order", Make: quizQueueOrder},
	// What happens next: the kinds below set up a state and ask what the
	// scheduler does with it. Appended, so that each seed keeps the
	// numbers it made before (see quiz.Kind.MakeSeed).
	{Name: "next-global", Make: quizNextGlobal},
}

// quizBatchSize: how many Gs one globrunqgetbatch takes.
func quizBatchSize(r *rand.Rand) quiz.Question {
	procs := []int{1, 2, 3, 4, 6, 8}[r.IntN(6)]
	size := 1 + r.IntN(400)
	lab := sched.NewLab(procs)
	for i := range size {
		lab.GlobrunqPut(int64(i + 1))
	}
	g, rest := lab.GlobrunqGetBatch(128)
	took := 1 + len(rest)
	return quiz.Question{
		Text: fmt.Sprintf("The global run queue holds %d Gs, G1 at the head, and GOMAXPROCS is %d. "+
			"A P with an empty local run queue calls globrunqgetbatch(128), as findRunnable does. "+
			"How many Gs does the P take, counting the one it runs?", size, procs),
		Answer: quiz.Number(int64(took)),
		Explain: fmt.Sprintf("`globrunqgetbatch` (proc.go:7293) takes min(n, size, size/gomaxprocs + 1) Gs from the head: "+
			"min(128, %d, %d/%d + 1) here, so %d. The P runs G%d and puts the other %d on its ring. "+
			"size/gomaxprocs leaves a share for each other P, the + 1 takes something from a queue shorter than GOMAXPROCS, "+
			"and the cap of half a ring keeps the batch from overflowing the ring.", size, size, procs, took, g, took-1),
	}
}

// quizBatchTurns: the shares of Ps that take batches one after the other.
func quizBatchTurns(r *rand.Rand) quiz.Question {
	procs := 2 + r.IntN(4)
	size := 10 + r.IntN(300)
	turn := 1 + r.IntN(procs-1) // the P asked about: P1 .. P(procs-1)
	lab := sched.NewLab(procs)
	for i := range size {
		lab.GlobrunqPut(int64(i + 1))
	}
	var trace []string
	took := 0
	for p := 0; p <= turn; p++ {
		_, rest := lab.GlobrunqGetBatch(128)
		took = 1 + len(rest)
		trace = append(trace, fmt.Sprintf("P%d takes %d, leaving %d", p, took, len(lab.Global())))
	}
	return quiz.Question{
		Text: fmt.Sprintf("The global run queue holds %d Gs and GOMAXPROCS is %d. "+
			"Its Ps find their local run queues empty and call globrunqgetbatch(128) one after the other, P0 first. "+
			"How many Gs does P%d take?", size, procs, turn),
		Answer: quiz.Number(int64(took)),
		Explain: fmt.Sprintf("Each call of `globrunqgetbatch` (proc.go:7293) takes min(n, size, size/gomaxprocs + 1) "+
			"of the Gs still queued: %s. Each share is about 1/gomaxprocs of what is left, "+
			"so the Ps share the queue without any of them counting the others.", strings.Join(trace, "; ")),
	}
}

// quizQueueOrder: globrunqput and globrunqputhead, and the order that
// results.
func quizQueueOrder(r *rand.Rand) quiz.Question {
	lab := sched.NewLab(1)
	n := 4 + r.IntN(3)
	var calls []string
	for i := range n {
		g := int64(i + 1)
		if r.IntN(2) == 0 {
			lab.GlobrunqPut(g)
			calls = append(calls, fmt.Sprintf("globrunqput(G%d)", g))
		} else {
			lab.GlobrunqPutHead(g)
			calls = append(calls, fmt.Sprintf("globrunqputhead(G%d)", g))
		}
	}
	order := lab.Global()
	return quiz.Question{
		Text: fmt.Sprintf("The global run queue is empty. Under sched.lock, one after the other: %s. "+
			"In what order will the Ps take these Gs from the queue?", strings.Join(calls, ", ")),
		Answer: quiz.List("G", order...),
		Explain: fmt.Sprintf("`globrunqput` (proc.go:7249) appends a G at the tail and `globrunqputhead` (proc.go:7260) "+
			"pushes it in front of everything, so the queue reads %s, head first, and `globrunqget` (proc.go:7281) takes from the head. "+
			"Of the Gs put at the head, the last one runs first: procresize relies on it to put a destroyed P's Gs, "+
			"pushed from its ring's tail, back in the order they would have run.", quiz.List("G", order...)),
	}
}

// quizNextGlobal: which P runs a G put on the global queue, when one P has
// work of its own and the other has none.
func quizNextGlobal(r *rand.Rand) quiz.Question {
	lab := sched.NewLab(2)
	lab.Hold(0)
	lab.Hold(1)
	tick := uint32(1 + r.IntN(200))
	if r.IntN(2) == 0 {
		tick = uint32(61 * (1 + r.IntN(3)))
	}
	tick1 := uint32(1 + r.IntN(60))
	lab.SetSchedtick(0, tick)
	lab.SetSchedtick(1, tick1)
	var local []int64
	if r.IntN(2) == 0 {
		lab.Runqput(0, 1, true)
		local = append(local, 1)
	}
	for i := range 1 + r.IntN(2) {
		lab.Runqput(0, int64(2+i), false)
		local = append(local, int64(2+i))
	}
	global := idRange(10, 1+r.IntN(2))
	for _, g := range global {
		lab.GlobrunqPut(g)
	}
	next := "its runnext is empty and its ring holds " + quiz.List("G", local...).String()
	if local[0] == 1 {
		next = "its runnext holds G1 and its ring " + quiz.List("G", local[1:]...).String()
	}
	g0, _, _ := lab.FindRunnable(0)
	g1, _, _ := lab.FindRunnable(1)
	options := []string{
		"P0: its schedtick is a multiple of 61, so findRunnable takes the global queue's head before P0's own Gs",
		"P1: its own run queue is empty, so findRunnable takes a batch from the global queue and runs its head, G10",
		"P0: findRunnable looks at the global queue before the local run queue",
		"neither yet: a G on the global queue waits until every P's local run queue is empty",
	}
	var right int
	var why string
	switch {
	case g0 == 10 && tick%61 == 0:
		right = 0
		why = fmt.Sprintf("P0's schedtick, %d, is a multiple of 61, so its fairness check takes one G, the head, from the "+
			"global queue (`findRunnable` (proc.go:3443)) before its own %s: without it, Gs that keep readying each other "+
			"on P0 would starve the global queue.", tick, quiz.List("G", local...))
	case g1 == 10:
		right = 1
		why = fmt.Sprintf("P0's schedtick, %d, is no multiple of 61, so P0 runs its own G%d: the local run queue comes before "+
			"the global queue. P1's run queue is empty, so it takes a batch from the global queue (`findRunnable` (proc.go:3476)) "+
			"with `globrunqgetbatch` (proc.go:7293), and runs its head, G10.", tick, g0)
	default:
		panic(fmt.Sprintf("globrunqget: quiz next-global: P0 ran G%d and P1 G%d", g0, g1))
	}
	return quiz.Question{
		Text: fmt.Sprintf("GOMAXPROCS is 2 and both Ps' Ms are between two Gs. P0's schedtick is %d, %s; P1's schedtick is %d and its "+
			"run queue is empty. Gs that left system calls found no P and put themselves on the global run queue (globrunqput), "+
			"which holds %s, head first. Then P0's M, and after it P1's, looks for its next G (findRunnable). Which P runs G10?",
			tick, next, tick1, quiz.List("G", global...)),
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
