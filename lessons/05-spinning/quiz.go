package spinning

import (
	"fmt"
	"math/rand/v2"

	"github.com/gmp-kata/gmp-kata/internal/quiz"
	sched "github.com/gmp-kata/gmp-kata/solutions"
)

// The lesson's questions for kata quiz. Each builds its situation in a
// sched.Lab and takes the answer from what the reference does there.
var quizKinds = []quiz.Kind{
	{Name: "may-spin", Make: quizMaySpin},
	{Name: "wakep", Make: quizWakep},
	{Name: "resetspinning", Make: quizResetspinning},
	// What happens next: the kinds below set up a state and ask what the
	// scheduler does with it. Appended, so that each seed keeps the
	// numbers it made before (see quiz.Kind.MakeSeed).
	{Name: "next-needspinning", Make: quizNextNeedspinning},
}

// labPs gives a Lab's Ps from P first on: spinning ones, then busy ones
// (running a G), leaving the last idle ones idle.
func labPs(lab *sched.Lab, first, spinning, busy int) {
	p := first
	for range spinning {
		lab.Spin(p)
		p++
	}
	for range busy {
		lab.Run(p, int64(100+p))
		p++
	}
}

// quizMaySpin: findRunnable's gate on voluntary spinning.
func quizMaySpin(r *rand.Rand) quiz.Question {
	procs := 2 + r.IntN(7)
	spinning := r.IntN(min(procs, 4))
	idle := r.IntN(procs - spinning)
	busy := procs - 1 - spinning - idle
	lab := sched.NewLab(procs)
	lab.Hold(0)
	labPs(lab, 1, spinning, busy)
	may := lab.ShouldSpin(0)
	verdict := "so it may spin"
	if !may {
		verdict = "so it may not: it releases its P and sleeps"
	}
	return quiz.Question{
		Text: fmt.Sprintf("GOMAXPROCS is %d. Idle Ps: %d. Spinning Ms, each holding a P: %d. The other Ps run Gs. "+
			"An M that is not spinning finds nothing on its own P or on the global queue. "+
			"May it start spinning, to steal from other Ps?", procs, idle, spinning),
		Answer: quiz.YesNo(may),
		Explain: fmt.Sprintf("findRunnable lets an M that is not already spinning spin only while 2 × nmspinning < "+
			"gomaxprocs - npidle, the number of busy Ps (`findRunnable` (proc.go:3517)): 2 × %d against %d - %d here, %s. "+
			"The gate keeps the CPU burnt in spinning in proportion to the work: with many Ps and little to do, most Ms sleep.",
			spinning, procs, idle, verdict),
	}
}

// quizWakep: the three things wakep can do.
func quizWakep(r *rand.Rand) quiz.Question {
	procs := 2 + r.IntN(5)
	spinning := 0
	if r.IntN(3) == 0 {
		spinning = 1
	}
	idle := r.IntN(procs - spinning)
	if r.IntN(3) == 0 {
		idle = 0
	}
	lab := sched.NewLab(procs)
	lab.Run(0, 1)
	labPs(lab, 1, spinning, procs-1-spinning-idle)
	before := lab.Nmspinning()
	started := lab.Wakep()
	options := []string{
		"it starts an M spinning, on an idle P",
		"nothing: an M is already spinning and will find the work",
		"no P is idle: it sets needspinning, so the next M to release its P spins instead",
	}
	var right int
	var why string
	switch {
	case started >= 0:
		right = 0
		why = fmt.Sprintf("nobody was spinning, so its CAS of nmspinning from 0 to 1 won, and P%d was idle: "+
			"`startm` (proc.go:3035) hands it to an M that starts spinning (nmspinning is now %d)", started, lab.Nmspinning())
	case lab.NeedSpinning():
		right = 2
		why = "nobody was spinning and its CAS of nmspinning won, but `pidlegetSpinning` (proc.go:7430) found no idle P: " +
			"it undid the CAS and set needspinning, which findRunnable reads before it releases a P"
	default:
		right = 1
		why = fmt.Sprintf("nmspinning was %d, not 0, so it returned at once: the spinning M will find the new G, "+
			"and when it does, its resetspinning calls wakep again", before)
	}
	return quiz.Question{
		Text: fmt.Sprintf("GOMAXPROCS is %d. P0 runs G1. Spinning Ms: %d. Idle Ps: %d. The other Ps run Gs. "+
			"G1 readies a G, which goes on P0's run queue, and ready calls wakep. What does wakep do?",
			procs, spinning, idle),
		Answer:  quiz.Choice(right, options...),
		Explain: "`wakep` (proc.go:3212) starts at most one spinning M, only if none spins and a P is idle: " + why + ".",
	}
}

// quizResetspinning: how the spinning chain hands over.
func quizResetspinning(r *rand.Rand) quiz.Question {
	procs := 2 + r.IntN(5)
	others := r.IntN(min(procs-1, 3))
	idle := r.IntN(procs - others)
	lab := sched.NewLab(procs)
	lab.Spin(0)
	labPs(lab, 1, others, procs-1-others-idle)
	woke := lab.Resetspinning(0)
	after := lab.Nmspinning()
	what := fmt.Sprintf("wakep started an M spinning on P%d", woke)
	switch {
	case woke >= 0:
	case others > 0:
		what = "wakep did nothing, since other Ms still spin"
	default:
		what = "wakep found no idle P to start a spinner on"
	}
	return quiz.Question{
		Text: fmt.Sprintf("GOMAXPROCS is %d. The M holding P0 is spinning and has just found a G to run. "+
			"Other spinning Ms: %d. Idle Ps: %d. The other Ps run Gs. "+
			"The M calls resetspinning. How many Ms are spinning right after?", procs, others, idle),
		Answer: quiz.Number(int64(after)),
		Explain: fmt.Sprintf("`resetspinning` (proc.go:4021) stops this M spinning (nmspinning %d → %d) and calls wakep, "+
			"since where there was one G there may be more: %s, so nmspinning is %d. "+
			"Each spinner that finds work hands over to at most one new one: the chain goes on while there is work and idle Ps.",
			others+1, others, what, after),
	}
}

// quizNextNeedspinning: a G readied while no P is idle, then an M that runs
// out of work: wakep's answer (needspinning, or trust in a spinner) and
// what the M does next.
func quizNextNeedspinning(r *rand.Rand) quiz.Question {
	procs := 3 + r.IntN(4)
	spinning := r.IntN(procs - 1)
	lab := sched.NewLab(procs)
	lab.Run(0, 1)
	lab.Run(1, 50)
	labPs(lab, 2, spinning, procs-2-spinning) // no P idle
	lab.Runqput(0, 7, true)                   // G1 readies G7 ...
	woke := lab.Wakep()                       // ... and ready calls wakep
	need := lab.NeedSpinning()
	lab.Park(1, true) // G50 blocks: P1's M looks for work
	g, _, parked := lab.FindRunnable(1)
	options := []string{
		"wakep sets needspinning (no P is idle); P1's M spins instead of sleeping and steals G7",
		"wakep does nothing (an M is already spinning); P1's M may spin too, and steals G7",
		"wakep does nothing (an M is already spinning); the gate refuses P1's M, which sleeps: the spinning Ms will find G7",
		"wakep does nothing; P1's M sleeps, and G7 waits in P0's runnext until G1 blocks",
	}
	gate := fmt.Sprintf("P1's M then finds nothing of its own, and the gate (`findRunnable` (proc.go:3517)) lets it spin only while "+
		"2 × nmspinning < gomaxprocs - npidle: 2 × %d against %d - 0. ", spinning, procs)
	var right int
	var why string
	switch {
	case woke >= 0:
		panic(fmt.Sprintf("spinning: quiz next-needspinning: wakep started an M on P%d, with no P idle", woke))
	case need && g == 7:
		right = 0
		why = "Nobody was spinning, so wakep claimed nmspinning, but `pidlegetSpinning` (proc.go:7430) found no idle P: " +
			"it set needspinning, the request that the next M about to release its P spin instead (`findRunnable` (proc.go:3610)). " +
			gate + "It passes, becomes spinning, which clears needspinning (`becomeSpinning` (proc.go:1073)), " +
			"and takes G7 from P0's runnext on its last steal pass."
	case !need && g == 7:
		right = 1
		why = fmt.Sprintf("`wakep` (proc.go:3212) saw nmspinning = %d and returned: a spinning M will find the work. ", spinning) +
			gate + "It passes, and steals G7 from P0's runnext on its last steal pass."
	case !need && parked:
		right = 2
		why = fmt.Sprintf("`wakep` (proc.go:3212) saw nmspinning = %d and returned: a spinning M will find the work. ", spinning) +
			gate + "It is refused, so it releases P1 and sleeps; the spinning Ms are the ones counted on to steal G7."
	default:
		panic(fmt.Sprintf("spinning: quiz next-needspinning: needspinning %v, found G%d, parked %v", need, g, parked))
	}
	return quiz.Question{
		Text: fmt.Sprintf("GOMAXPROCS is %d and no P is idle: G1 runs on P0, G50 on P1, and of the other Ps, %d hold a spinning M "+
			"and %d run Gs. G1 readies G7, which ready puts in P0's runnext, and ready calls wakep. "+
			"Then G50 blocks, and P1's M, not spinning, finds nothing on P1 or the global run queue; no other M moves meanwhile. "+
			"What happens next?",
			procs, spinning, procs-2-spinning),
		Answer:  quiz.Choice(right, options...),
		Explain: why,
	}
}
