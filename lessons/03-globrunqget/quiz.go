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
