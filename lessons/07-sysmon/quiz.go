package sysmon

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/gmp-kata/gmp-kata/internal/quiz"
	sched "github.com/gmp-kata/gmp-kata/solutions"
)

// The lesson's questions for kata quiz. Each builds its situation in a
// sched.Lab and takes the answer from what the reference does there.
var quizKinds = []quiz.Kind{
	{Name: "sysmon-delay", Make: quizSysmonDelay},
	{Name: "preempt-look", Make: quizPreemptLook},
	{Name: "syscall-retake", Make: quizSyscallRetake},
	// What happens next: the kinds below set up a state and ask what the
	// scheduler does with it. Appended, so that each seed keeps the
	// numbers it made before (see quiz.Kind.MakeSeed).
	{Name: "next-handoff", Make: quizNextHandoff},
}

// t0 is the Lab's clock when it starts, and when sysmon first looks.
const t0 = int64(time.Second)

// quizSysmonDelay: sysmon's back-off, and what resets it.
func quizSysmonDelay(r *rand.Rand) quiz.Question {
	rounds := 1 + r.IntN(80)
	if r.IntN(3) > 0 {
		rounds = 48 + r.IntN(13) // around the 50th round, where the sleep starts doubling
	}
	retakeAt := 0 // the round that takes P1 from a system call, if any
	if rounds >= 2 && r.IntN(3) == 0 {
		retakeAt = 2 + r.IntN(rounds-1)
	}
	lab := sched.NewLab(2)
	lab.Run(0, 1)
	lab.Run(1, 2)
	lab.Runqput(1, 3, false)
	sleeps := lab.Sysmon(rounds+1, func(round int) {
		if round == retakeAt-1 {
			// G2 starts a new time slice and enters a system call: first
			// seen in this round, taken in the next.
			lab.SetSchedtick(1, uint32(round))
			lab.Syscall(1)
		}
	})
	what := "None of its rounds took a P back from a system call"
	if retakeAt > 0 {
		what = fmt.Sprintf("In round %d it took P1 back from a system call (P1 had work queued); no other round took a P", retakeAt)
	}
	return quiz.Question{
		Text: fmt.Sprintf("sysmon has run %d rounds since it started, with G1 running on P0 all along, so it never slept deeply. "+
			"%s. How long does sysmon sleep before round %d, in µs?", rounds, what, rounds+1),
		Answer: quiz.Number(sleeps[rounds]),
		Explain: fmt.Sprintf("`sysmon` (proc.go:6486) sleeps 20µs while its idle count, the rounds in a row that took no P from "+
			"a system call, is at most 50; after that it doubles the sleep each round, up to 10ms. Only a retake from a system call, "+
			"or a wake-up from its deep sleep, resets the count: preempting a G does not. Its sleeps so far: %s; the next is %dµs.",
			runs(sleeps[:rounds]), sleeps[rounds]),
	}
}

// runs writes sleeps compactly: "20µs ×51, 40µs, 80µs".
func runs(sleeps []int64) string {
	var out []string
	for i := 0; i < len(sleeps); {
		j := i
		for j < len(sleeps) && sleeps[j] == sleeps[i] {
			j++
		}
		s := fmt.Sprintf("%dµs", sleeps[i])
		if j-i > 1 {
			s += fmt.Sprintf(" ×%d", j-i)
		}
		out = append(out, s)
		i = j
	}
	return strings.Join(out, ", ")
}

// quizPreemptLook: when retake preempts a long time slice.
func quizPreemptLook(r *rand.Rand) quiz.Question {
	every := []int64{1, 2, 3, 4, 5, 6, 7, 9}[r.IntN(8)]
	g := int64(2 + r.IntN(20))
	lab := sched.NewLab(1)
	lab.Run(0, g)
	look := 0
	for look < 30 && !lab.Preempted(g) {
		lab.Retake(t0 + int64(look)*every*int64(time.Millisecond))
		look++
	}
	return quiz.Question{
		Text: fmt.Sprintf("G%d runs on P0 in one long time slice: its schedtick does not change. sysmon looks at the Ps "+
			"(retake) every %dms: at t0, t0+%dms, t0+%dms and so on, t0 being its first look since the slice began. "+
			"At which look, counting t0 as look 1, does retake ask G%d to yield?", g, every, every, 2*every, g),
		Answer: quiz.Number(int64(look)),
		Explain: fmt.Sprintf("`retake` (proc.go:6630) notes each P's schedtick and when it first saw it; once it sees the same "+
			"tick forcePreemptNS (proc.go:6628), 10ms, after that, it calls `preemptone` (proc.go:6866). "+
			"Here that is look %d, at t0+%dms. The 10ms count from sysmon's first sight of the slice, not from its start, "+
			"so a slice may run a little over 10ms.", look, int64(look-1)*every),
	}
}

// quizSyscallRetake: the three reasons retake takes a P from a syscall.
func quizSyscallRetake(r *rand.Rand) quiz.Question {
	procs := 2 + r.IntN(3)
	queued := 0
	if r.IntN(4) == 0 {
		queued = 1 + r.IntN(2)
	}
	spinning := r.IntN(2)
	idle := r.IntN(procs - spinning)
	if r.IntN(3) == 0 {
		idle = 0
	}
	after := []int64{20 * 1000, 1000 * 1000, 5 * 1000 * 1000, 9 * 1000 * 1000, 10 * 1000 * 1000, 15 * 1000 * 1000}[r.IntN(6)]

	lab := sched.NewLab(procs)
	lab.Run(1, 5)
	for i := range queued {
		lab.Runqput(1, int64(20+i), false)
	}
	lab.Syscall(1)
	others := []int{0}
	for p := 2; p < procs; p++ {
		others = append(others, p)
	}
	for i, p := range others {
		switch {
		case i < spinning:
			lab.Spin(p)
		case i < len(others)-idle:
			lab.Run(p, int64(100+p))
		}
	}
	ring := "is empty"
	if queued > 0 {
		ring = "holds " + quiz.Count(queued, "G")
	}
	lab.Retake(t0)
	lab.Retake(t0 + after)
	taken := lab.PStatus(1) != "syscall"
	verdict := "none of them holds, so it leaves P1 alone"
	if taken {
		verdict = "so it takes P1 and hands it off (handoffp)"
	}
	return quiz.Question{
		Text: fmt.Sprintf("GOMAXPROCS is %d. G5, on P1, is in a system call; P1's ring %s. "+
			"Other Ps: %d with a spinning M, %d idle, the rest running Gs. "+
			"sysmon's look at t0 is the first to see P1 in this call. Does its next look, at t0+%s, take P1 from the call?",
			procs, ring, spinning, idle, time.Duration(after)),
		Answer: quiz.YesNo(taken),
		Explain: fmt.Sprintf("`retake` (proc.go:6630) leaves a P in a system call alone when it first sees the call; "+
			"on a later look it takes the P if any of three holds: its run queue has work (%s here); "+
			"no M spins and no P is idle, so nobody else would notice new work (%d spinning, %d idle); "+
			"or the call has been seen for 10ms (%s here). %s.",
			quiz.Count(queued, "G"), spinning, idle, time.Duration(after), strings.ToUpper(verdict[:1])+verdict[1:]),
	}
}

// quizNextHandoff: what sysmon's next look does with a P in a system call:
// leave it, or take it and hand it off (handoffp) to an M that runs its
// work, to a spinning M, or to the idle list.
func quizNextHandoff(r *rand.Rand) quiz.Question {
	procs := 2 + r.IntN(3)
	queued := 0
	if r.IntN(3) == 0 {
		queued = 1 + r.IntN(2)
	}
	spinning := r.IntN(2)
	idle := r.IntN(procs - spinning)
	if r.IntN(2) == 0 {
		idle = 0
	}
	after := []int64{20 * 1000, 1000 * 1000, 5 * 1000 * 1000, 10 * 1000 * 1000, 15 * 1000 * 1000}[r.IntN(5)]

	lab := sched.NewLab(procs)
	lab.Run(1, 5)
	for i := range queued {
		lab.Runqput(1, int64(20+i), false)
	}
	lab.Syscall(1)
	p := 0
	for i := range procs - 1 {
		switch {
		case i < spinning:
			lab.Spin(p)
		case i < procs-1-idle:
			lab.Run(p, int64(100+p))
		}
		if p++; p == 1 {
			p++
		}
	}
	lab.Retake(t0)
	before := lab.Nmspinning()
	lab.Retake(t0 + after)
	options := []string{
		"nothing yet: it leaves P1 in the system call",
		"it takes P1, and handoffp starts an M on P1 to run P1's queued Gs",
		"it takes P1, and handoffp starts a spinning M on P1, to look for work on other Ps",
		"it takes P1, and handoffp puts it on the idle P list",
		"it asks G5 to yield (preemptone) and leaves P1 to G5's M",
	}
	conds := fmt.Sprintf("`retake` (proc.go:6630) takes a P that it has seen in the same system call before if its run queue "+
		"has work (%s here), or if no M spins and no P is idle, so that nobody else would notice new work (%d spinning, %d idle), "+
		"or if the call has lasted 10ms (%s here). ", quiz.Count(queued, "G"), spinning, idle, time.Duration(after))
	var right int
	var why string
	switch {
	case lab.PStatus(1) == "syscall":
		right = 0
		why = conds + "None holds, so P1 stays with its call: most calls are short, and G5's M takes P1 back when it returns."
	case lab.MOf(1) >= 0 && lab.Nmspinning() == before && queued > 0:
		right = 1
		why = conds + "It takes P1, and `handoffp` (proc.go:3131) sees work on P1's run queue, so it starts an M on P1 to run it."
	case lab.MOf(1) >= 0 && lab.Nmspinning() == before+1:
		right = 2
		why = conds + "It takes P1; P1's run queue is empty, and `handoffp` (proc.go:3131) finds nobody spinning and no P idle, " +
			"so it starts a spinning M on P1: someone must be looking for work while G5's M is blocked."
	case slices.Contains(lab.Idle(), 1):
		right = 3
		why = conds + "It takes P1; `handoffp` (proc.go:3131) finds no work for it and someone already looking " +
			"(a spinning M or an idle P), so P1 goes on the idle list until there is work for it."
	default:
		panic(fmt.Sprintf("sysmon: quiz next-handoff: P1 is %s, with M%d", lab.PStatus(1), lab.MOf(1)))
	}
	ring := "is empty"
	if queued > 0 {
		ring = "holds " + quiz.Count(queued, "G")
	}
	return quiz.Question{
		Text: fmt.Sprintf("GOMAXPROCS is %d. G5, on P1, is in a system call; P1's ring %s, and the global run queue is empty. "+
			"Of the other Ps: %d with a spinning M, %d idle, the rest running Gs. sysmon's look at t0 is the first to see P1 in "+
			"this call. What does its next look, at t0+%s, do with P1?",
			procs, ring, spinning, idle, time.Duration(after)),
		Answer:  quiz.Choice(right, options...),
		Explain: why,
	}
}
