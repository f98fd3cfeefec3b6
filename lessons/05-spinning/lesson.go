// Package spinning is lesson 05: spinning Ms, the few threads that look for
// work without sleeping, and wakep, which starts one when work arrives.
package spinning

import (
	"embed"
	"time"

	"github.com/gmp-kata/gmp-kata/lessons"
)

//go:embed task.md chapter.md hints api.txt testdata
var content embed.FS

func init() {
	lessons.Register(lessons.Content(content, &lessons.Lesson{
		ID:      "05-spinning",
		Title:   "Spinning Ms and wakep",
		Files:   []string{"spinning.go"},
		Prereqs: []string{"04-findrunnable"},
		Quiz:    quizKinds,
		Tests: []lessons.Test{
			{Name: "TestL05ShouldSpin", Points: 8, Timeout: 10 * time.Second, Kind: lessons.Exact,
				About: "the gate: mp.spinning || 2*nmspinning < GOMAXPROCS - npidle, as a table, and again while another thread moves nmspinning and npidle"},
			{Name: "TestL05BecomeAndStopSpinning", Points: 9, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "becomeSpinning counts the M and clears needspinning; stopSpinning uncounts it and panics below zero"},
			{Name: "TestL05WakepNoIdleP", Points: 9, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "with no idle P, wakep leaves nmspinning at 0 and sets needspinning; with a spinner already, it does nothing"},
			{Name: "TestL05WakepStartsOneM", Points: 9, Timeout: 10 * time.Second, Kind: lessons.Exact,
				About: "wakep starts exactly one spinning M on an idle P, even when called 16 times at once"},
			{Name: "TestL05ResetSpinning", Points: 9, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "resetspinning stops spinning, then wakep hands the spinning over to another M"},
			{Name: "TestL05CheckRunqsNoP", Points: 9, Timeout: 10 * time.Second, Kind: lessons.Exact,
				About: "checkRunqsNoP returns an idle P (off the idle list) when a busy P in the snapshot has work, else nil"},
			{Name: "TestL05NoLeakedSpinners", Points: 7, Timeout: 60 * time.Second, Kind: lessons.Stress, Guarantee: l05Races,
				About: "after a burst of 600 Gs on 4 Ps, when every M is idle, nmspinning is 0 and every P idle"},
			{Name: "TestL05Parallelism", Points: 7, Timeout: 60 * time.Second, Kind: lessons.Stress, Guarantee: l05Races,
				About: "4 CPU-bound Gs on 4 Ps all run at once, started together or each by the previous one"},
			{Name: "TestL05WakepInterleavings", Points: 5, Timeout: 30 * time.Second, Kind: lessons.Stress, Serial: true, Guarantee: l05Races,
				About: "wakep, resetspinning, becomeSpinning and stopSpinning raced one atomic operation at a time in orders a controlled scheduler picks: exactly one M started, nmspinning exact"},
			{Name: "TestL05Explore", Points: 8, Timeout: 30 * time.Second, Kind: lessons.Stress, Serial: true, Guarantee: l05Races,
				About: "wakep, resetspinning, becomeSpinning and stopSpinning raced in EVERY order with at most two preemptions, sched.lock included: nmspinning never negative and counting the spinning Ms exactly, an end state the reference reaches; and an M uncounted twice makes its stopSpinning panic, whatever another M counts meanwhile"},
			{Name: "TestL05SpinTraceEvents", Points: 5, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "becomeSpinning and stopSpinning emit one event each: G 0, the M's P (or -1), the M, Arg 0"},
			{Name: "TestL05SchedLockReleased", Points: 5, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "wakep and checkRunqsNoP take the idle P under sched.lock and release it on every path"},
			{Name: "TestL05Differential", Points: 10, Timeout: 30 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "on 400 generated states, wakep, resetspinning, becomeSpinning, stopSpinning, shouldSpin and checkRunqsNoP do what the reference's do: same counts, flags, Ps taken, Ms started and trace"},
		},
	}))
}

// l05Races is the guarantee (lessons.Test.Guarantee) the lesson's race
// tests judge together: one atomic operation at a time in orders a
// controlled scheduler picks, every order up to a bound, and real threads.
const l05Races = "nmspinning counts the spinning Ms exactly, and wakep starts an M whenever work waits for one, never two, while Ms race"
