// Package gopark is lesson 06: how a G blocks (gopark, park_m) and is woken
// (goready, ready).
package gopark

import (
	"embed"
	"time"

	"github.com/gmp-kata/gmp-kata/lessons"
)

//go:embed task.md chapter.md hints api.txt testdata
var content embed.FS

func init() {
	lessons.Register(lessons.Content(content, &lessons.Lesson{
		ID:      "06-gopark",
		Title:   "gopark and goready: blocking and waking",
		Files:   []string{"park.go"},
		Prereqs: []string{"02-runnext"},
		Quiz:    quizKinds,
		Tests: []lessons.Test{
			{Name: "TestL06UnlockfRunsAfterPark", Points: 8, Timeout: 20 * time.Second, Kind: lessons.Exact,
				About: "when unlockf runs, the G is _Gwaiting with its wait reason and off its M (mp.curg and gp.m nil)"},
			{Name: "TestL06DeclinedParkRunsAgain", Points: 10, Timeout: 20 * time.Second, Kind: lessons.Exact,
				About: "an unlockf that returns false makes the G run again at once, on the same M, before the G in runnext, and leaves the run queue as it was"},
			{Name: "TestL06ReadyRunnext", Points: 10, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "goready puts the G in runnext (the old runnext kicked to the ring) and wakes an idle P; ready(next=false) uses the tail; and goready again while another thread moves nmspinning and npidle"},
			{Name: "TestL06ReadyNotWaitingPanics", Points: 10, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "ready of a G that is not waiting (or readied twice) panics, naming the G and its status, and queues nothing; so does gopark by a G that is not running"},
			{Name: "TestL06ParkReadyInRuntime", Points: 5, Timeout: 30 * time.Second, Kind: lessons.Exact,
				About: "G.Park and G.Ready in a Runtime: runnext right after Ready; an idle P woken to run the readied G"},
			{Name: "TestL06DeadlockReported", Points: 9, Timeout: 20 * time.Second, Kind: lessons.Exact,
				About: "Gs blocked on a chan, a Mutex, a WaitGroup and Park: Wait reports the deadlock with each wait reason"},
			{Name: "TestL06Stress", Points: 8, Timeout: 40 * time.Second, Kind: lessons.Stress, Guarantee: l06Races,
				About: "channel ping-pong, a Mutex, a WaitGroup and a Park relay on 4 Ps: every G exactly once, every value delivered"},
			{Name: "TestL06TraceEvents", Points: 5, Timeout: 20 * time.Second, Kind: lessons.Exact,
				About: "GoPark (Arg: the wait reason), GoUnpark (Arg 0) for a declined park and for ready, and GoStart Arg 1: a declined park keeps its time slice"},
			{Name: "TestL06UnlockfRunsOnTheM", Points: 5, Timeout: 20 * time.Second, Kind: lessons.Exact,
				About: "unlockf is called by the M once the G has stopped (park_m), never by the G itself inside gopark"},
			{Name: "TestL06ParkForgetsItsLock", Points: 5, Timeout: 20 * time.Second, Kind: lessons.Exact,
				About: "once unlockf has run, the M keeps neither the lock nor the unlockf alive (mp.waitlock, mp.waitunlockf cleared)"},
			{Name: "TestL06ReadyQueuesBeforeWake", Points: 5, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "ready queues the G before its wakep can wake an M to look for it"},
			{Name: "TestL06ParkWithoutUnlockf", Points: 5, Timeout: 20 * time.Second, Kind: lessons.Exact,
				About: "gopark with a nil unlockf just parks the G until it is readied"},
			{Name: "TestL06Explore", Points: 5, Timeout: 30 * time.Second, Kind: lessons.Stress, Serial: true, Guarantee: l06Races,
				About: "a G parking on a lock-protected queue while another G takes the lock, finds it and readies it, in EVERY order with at most two preemptions: the G queued only once _Grunnable, both locks free at the end, an end state the reference reaches"},
			{Name: "TestL06Differential", Points: 10, Timeout: 20 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "on 80 generated states, parks and readies do what the reference's do: what park_m returns, statuses, what unlockf sees, queues, idle Ps and Ms woken, the trace"},
		},
	}))
}

// l06Races is the guarantee (lessons.Test.Guarantee) the lesson's race
// tests judge together: one atomic operation at a time in orders a
// controlled scheduler picks, every order up to a bound, and real threads.
const l06Races = "a parked G is readied exactly once, and every value delivered, while Gs race"
