package sysmon

import (
	"fmt"
	"math/rand/v2"
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
