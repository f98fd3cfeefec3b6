package gopark

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
	{Name: "park-status", Make: quizParkStatus},
	{Name: "ready-whom", Make: quizReadyWhom},
	{Name: "ready-order", Make: quizReadyOrder},
	// What happens next: the kinds below set up a state and ask what the
	// scheduler does with it. Appended, so that each seed keeps the
	// numbers it made before (see quiz.Kind.MakeSeed).
	{Name: "next-park-race", Make: quizNextParkRace},
}

// statuses are the G statuses a question offers, in the lesson's words.
var statuses = []string{"running", "runnable", "waiting", "dead"}

// quizParkStatus: the G's status after park_m, by what unlockf says.
func quizParkStatus(r *rand.Rand) quiz.Question {
	g := int64(2 + r.IntN(20))
	unlockf := r.IntN(2) == 0
	lab := sched.NewLab(1)
	lab.Run(0, g)
	lab.Park(0, unlockf)
	status := lab.GStatus(g)
	says := "false: the condition it meant to wait for already holds"
	why := fmt.Sprintf("unlockf returned false, so park_m makes G%d _Grunnable again and hands it back to execute, "+
		"which runs it at once with the rest of its time slice: it never waited", g)
	if unlockf {
		says = "true: it has released the lock that guards its wait queue"
		why = fmt.Sprintf("unlockf returned true, so G%d stays _Gwaiting, on no run queue, until someone readies it (goready); "+
			"the M goes back to schedule", g)
	}
	return quiz.Question{
		Text: fmt.Sprintf("G%d runs on P0 and calls gopark with an unlockf that returns %s. "+
			"What is G%d's status once park_m, on the M, has returned?", g, says, g),
		Answer: quiz.Choice(slices.Index(statuses, status), statuses...),
		Explain: "`park_m` (proc.go:4253) first makes the G _Gwaiting and drops it from the M, and only then runs unlockf, " +
			"so that whoever takes the lock unlockf releases finds the G parked and may ready it at once. " + why + ".",
	}
}

// quizReadyWhom: goready on a G that may not be waiting.
func quizReadyWhom(r *rand.Rand) quiz.Question {
	lab := sched.NewLab(2)
	lab.Run(0, 3)
	g := int64(4 + r.IntN(20))
	var state string
	switch r.IntN(4) {
	case 0, 1:
		lab.Run(1, g)
		lab.Park(1, true)
		state = fmt.Sprintf("G%d parked on P1 with gopark", g)
	case 2:
		lab.Hold(1)
		lab.Runqput(1, g, false)
		state = fmt.Sprintf("G%d is on P1's ring, waiting for its turn to run", g)
	default:
		lab.Run(1, g)
		state = fmt.Sprintf("G%d is running on P1", g)
	}
	err := lab.Ready(0, g)
	options := []string{
		fmt.Sprintf("G%d goes into P0's runnext, to run next on P0", g),
		fmt.Sprintf("G%d goes to the tail of P0's ring", g),
		fmt.Sprintf("ready panics: G%d is not waiting", g),
		"nothing: it is runnable already",
	}
	right := 3
	_, _, ring := lab.Ring(0)
	switch {
	case err != nil:
		right = 2
	case lab.Runnext(0) == g:
		right = 0
	case slices.Contains(ring, g):
		right = 1
	}
	why := fmt.Sprintf("G%d was _Gwaiting, so ready makes it _Grunnable and calls runqput with next=true: "+
		"it runs next on P0, in the rest of G3's time slice", g)
	if err != nil {
		why = fmt.Sprintf("G%d was _G%s, not _Gwaiting, and ready throws rather than queue it: "+
			"a G on two run queues, or running twice, would corrupt the scheduler. "+
			"Only the one who took it off a wait queue, under that queue's lock, may ready a parked G", g, lab.GStatus(g))
	}
	return quiz.Question{
		Text:    fmt.Sprintf("G3 runs on P0. %s. G3 calls goready(G%d). What happens?", state, g),
		Answer:  quiz.Choice(right, options...),
		Explain: "`goready` (proc.go:481) calls `ready` (proc.go:1120), which first checks the G's status: " + why + ".",
	}
}

// quizReadyOrder: several goreadys in a row, and the order P0 runs them.
func quizReadyOrder(r *rand.Rand) quiz.Question {
	lab := sched.NewLab(2)
	n := 2 + r.IntN(3)
	parked := make([]int64, n)
	for i := range parked {
		parked[i] = int64(4 + i)
		lab.Run(1, parked[i])
		lab.Park(1, true)
	}
	r.Shuffle(n, func(i, j int) { parked[i], parked[j] = parked[j], parked[i] })
	lab.Run(0, 3)
	queued := idRange(20, r.IntN(3))
	for _, g := range queued {
		lab.Runqput(0, g, false)
	}
	var calls []string
	for _, g := range parked {
		lab.Ready(0, g)
		calls = append(calls, fmt.Sprintf("goready(G%d)", g))
	}
	lab.Park(0, true)
	var order []int64
	for g, _ := lab.Runqget(0); g != 0; g, _ = lab.Runqget(0) {
		order = append(order, g)
	}
	ring := "nothing"
	if len(queued) > 0 {
		ring = quiz.List("G", queued...).String()
	}
	return quiz.Question{
		Text: fmt.Sprintf("G3 runs on P0, whose runnext is empty and whose ring holds %s. "+
			"G3 calls, one after the other, %s (each of them was parked), then parks itself. "+
			"In what order does P0 run the Gs on its run queue?", ring, strings.Join(calls, ", ")),
		Answer: quiz.List("G", order...),
		Explain: "`goready` (proc.go:481) puts each G in runnext (`ready` (proc.go:1120) calls runqput with next=true), " +
			"and `runqput` (proc.go:7478) kicks the G that was there to the tail of the ring. " +
			fmt.Sprintf("So the last G readied runs first, then the ring from its head: %s. ", quiz.List("G", order...)) +
			"The last one readied is the one most likely still warm in the cache.",
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

// quizNextParkRace: a G parking while another thread wakes it, in either
// order: after unlockf released the lock (goready finds it parked), or
// before unlockf took it (unlockf says no).
func quizNextParkRace(r *rand.Rand) quiz.Question {
	g := int64(4 + r.IntN(15))
	lab := sched.NewLab(2)
	lab.Run(0, 3)
	next := r.IntN(2) == 0
	p0 := "P0's runnext is empty"
	if next {
		lab.Runqput(0, 20, true)
		p0 = "P0's runnext holds G20"
	}
	lab.Run(1, g)
	after := r.IntN(2) == 0
	var story string
	var runsAgain bool
	var err error
	if after {
		story = fmt.Sprintf("G%d, on P1, receives from a channel: under the channel's lock it finds no sender, queues itself "+
			"on the channel's wait queue and calls gopark, with an unlockf that releases the lock. park_m runs, and its unlockf "+
			"releases the lock. At that instant G3, on P0, takes the lock to send, finds G%d on the wait queue, takes it off, "+
			"and calls goready(G%d), before P1's M has gone on to look for other work.", g, g, g)
		lab.Park(1, true)
		err = lab.Ready(0, g)
	} else {
		story = fmt.Sprintf("G%d, on P1, waits for a flag: it reads the flag unset and calls gopark, with an unlockf that takes "+
			"the flag's lock, records G%d as the waiter and returns true if the flag is still unset, and returns false if it is set. "+
			"Between G%d's read and its unlockf, G3, on P0, sets the flag under the lock; finding no waiter recorded, it readies nobody.",
			g, g, g)
		runsAgain = lab.Park(1, false)
	}
	options := []string{
		fmt.Sprintf("G%d goes into P0's runnext and runs next on P0 (whatever was in runnext moves to the tail of P0's ring)", g),
		fmt.Sprintf("G%d runs again at once on P1, in the rest of its time slice: as far as it can tell, gopark returned", g),
		fmt.Sprintf("ready throws: G%d is still its M's G, not yet _Gwaiting", g),
		fmt.Sprintf("G%d is lost: it sleeps, and nobody is left to wake it", g),
	}
	var right int
	var why string
	switch {
	case after && err == nil && lab.Runnext(0) == g && (!next || slices.Contains(ring0(lab), 20)):
		right = 0
		why = fmt.Sprintf("`park_m` (proc.go:4253) makes G%d _Gwaiting and drops it from its M before it calls unlockf, so by the "+
			"time the lock is released G%d is fully parked: `ready` (proc.go:1120) finds it _Gwaiting, makes it _Grunnable and puts "+
			"it in the readier's runnext, P0's.", g, g)
		if next {
			why += " G20 is kicked to the tail of P0's ring, not lost."
		}
	case !after && runsAgain && lab.GStatus(g) == "runnable":
		right = 1
		why = fmt.Sprintf("The unlockf finds the flag set and returns false: the park does not stand, and nobody can ready G%d, "+
			"since G3 found no waiter. So `park_m` (proc.go:4253) makes G%d _Grunnable again and runs it at once on the same M, "+
			"with the rest of its time slice, not through a run queue.", g, g)
	default:
		panic(fmt.Sprintf("gopark: quiz next-park-race: ready said %v, runs again %v, G%d is %s", err, runsAgain, g, lab.GStatus(g)))
	}
	return quiz.Question{
		Text:    fmt.Sprintf("G3 runs on P0, and %s. %s What happens next to G%d?", p0, story, g),
		Answer:  quiz.Choice(right, options...),
		Explain: why,
	}
}

// ring0 is the Gs on P0's ring, head first.
func ring0(lab *sched.Lab) []int64 {
	_, _, ring := lab.Ring(0)
	return ring
}
