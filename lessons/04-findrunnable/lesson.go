// Package findrunnable is lesson 04: how an M that holds a P finds the next
// G to run — local queue, global queue, stealing — and when it gives up.
package findrunnable

import (
	"embed"
	"time"

	"github.com/gmp-kata/gmp-kata/lessons"
)

//go:embed task.md chapter.md hints api.txt testdata
var content embed.FS

func init() {
	lessons.Register(lessons.Content(content, &lessons.Lesson{
		ID:      "04-findrunnable",
		Title:   "findRunnable and work stealing",
		Files:   []string{"findrunnable.go"},
		Prereqs: []string{"01-ringbuffer", "02-runnext", "03-globrunqget"},
		Quiz:    quizKinds,
		Tests: []lessons.Test{
			{Name: "TestL04LocalBeforeGlobal", Points: 5, Timeout: 30 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "runnext (inheriting the time slice), then the ring, and only then the global queue"},
			{Name: "TestL04GlobalBatch", Points: 5, Timeout: 30 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "from the global queue a batch of min(128, size, size/GOMAXPROCS+1): run the first, the rest go on the local ring"},
			{Name: "TestL04Fairness61", Points: 6, Timeout: 30 * time.Second, Kind: lessons.Exact,
				About: "when schedtick % 61 == 0, one G from the global queue comes before the local queue (also while another thread works another P's ring)"},
			{Name: "TestL04StealHalf", Points: 6, Timeout: 30 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "a thief takes the oldest half of a busy P's ring, leaves its runnext, and is counted as spinning"},
			{Name: "TestL04RunnextOnlyOnLastPass", Points: 5, Timeout: 30 * time.Second, Kind: lessons.Timing, Serial: true,
				About: "a victim's runnext is stolen only on the last of the 4 passes, after one Usleep back-off"},
			{Name: "TestL04IdlePsSkipped", Points: 5, Timeout: 30 * time.Second, Kind: lessons.Exact,
				About: "Ps in idlepMask are never stolen from, and only they are skipped: a _Pidle P being handed off (retaken from a system call) is stolen from"},
			{Name: "TestL04SpinningGate", Points: 5, Timeout: 30 * time.Second, Kind: lessons.Exact,
				About: "no stealing when shouldSpin says no; an M already spinning is not counted twice"},
			{Name: "TestL04NeedSpinning", Points: 5, Timeout: 30 * time.Second, Kind: lessons.Exact,
				About: "with needspinning set, the M about to release its P spins instead; an M already spinning does not answer it (it would be counted twice)"},
			{Name: "TestL04RecheckAfterSpinning", Points: 5, Timeout: 30 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "work that appears on a P's ring or on the global queue at the moment the M stops spinning is not lost: nobody else was woken for it"},
			{Name: "TestL04RecheckGlobalUnderLock", Points: 5, Timeout: 30 * time.Second, Kind: lessons.Timing, Serial: true,
				About: "the global queue is looked at again under sched.lock before the P is released"},
			{Name: "TestL04SleepAndStopTheWorld", Points: 3, Timeout: 30 * time.Second, Kind: lessons.Stress,
				About: "Gs sleep (timers run and waited for by findRunnable) while GOMAXPROCS stops the world (gcstopm): every sleep ends"},
			{Name: "TestL04StealOrder", Points: 5, Timeout: 30 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "for 1..64 Ps every steal order is a permutation, and every start P and coprime step is reachable"},
			{Name: "TestL04Parallelism", Points: 5, Timeout: 60 * time.Second, Kind: lessons.Stress,
				About: "4 CPU-bound Gs started by one G on 4 Ps all run at once (the others are stolen)"},
			{Name: "TestL04ProducerStolen", Points: 5, Timeout: 60 * time.Second, Kind: lessons.Stress,
				About: "a producer that never yields spawns 1800 Gs: each runs exactly once, on the other Ps"},
			{Name: "TestL04GlobalBeforeSteal", Points: 3, Timeout: 30 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "with Gs both on the global queue and on another P's ring, the global queue comes first (every 61st tick even before the local queue), and only under sched.lock"},
			{Name: "TestL04ParkAndWake", Points: 3, Timeout: 30 * time.Second, Kind: lessons.Exact,
				About: "the M stops for stop-the-world (gcwaiting seen at the top or under the lock before releasing the P) and goes on when the world restarts; an M woken with a P looks again"},
			{Name: "TestL04GiveUpGlobal", Points: 3, Timeout: 30 * time.Second, Kind: lessons.Exact,
				About: "Gs that reach the global queue while the M gives up are found, whenever they arrive, and taken as a batch onto the P taken for them (not the one just released)"},
			{Name: "TestL04GiveUpSpinning", Points: 3, Timeout: 30 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "needspinning is answered under sched.lock; work found by checkRunqsNoP makes the M spin again even while another M spins"},
			{Name: "TestL04Snapshots", Points: 3, Timeout: 30 * time.Second, Kind: lessons.Exact,
				About: "once the P is released, sched.allp and sched.idlepMask are read only through snapshots taken before, or under sched.lock: GOMAXPROCS changes at each release of sched.lock after it, and a read without the lock is a data race with procresize"},
			{Name: "TestL04Timers", Points: 3, Timeout: 30 * time.Second, Kind: lessons.Timing,
				About: "with a G asleep on a timer, the M waits for it if no other M does, after its last looks at the queues (and spins again after the wait if it was spinning), or wakes the one that would sleep past it"},
			{Name: "TestL04OneTimerWaiter", Points: 3, Timeout: 30 * time.Second, Kind: lessons.Exact,
				About: "another M claiming the timer wait at any moment of this M's give-up: only one of them waits (sched.lastpoll.Swap(0), one atomic step)"},
			{Name: "TestL04StealPasses", Points: 2, Timeout: 30 * time.Second, Kind: lessons.Exact,
				About: "exactly 4 passes, each in a fresh random order, runnext on the 4th; a steal is traced (EvSteal) with the number of Gs taken"},
			{Name: "TestL04Differential", Points: 7, Timeout: 30 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "on 240 generated states, findRunnable does what the reference's does: the G returned, queues, idle Ps, spinning, the M parked or not, timers, stop-the-world, back-offs and the trace"},
		},
	}))
}
