// Package gopark is lesson 06: how a G blocks (gopark, park_m) and is woken
// (goready, ready).
package gopark

import (
	"embed"
	"time"

	"github.com/gmp-kata/gmp-kata/lessons"
)

//go:embed task.md chapter.md hints testdata
var content embed.FS

func init() {
	lessons.Register(lessons.Content(content, &lessons.Lesson{
		ID:      "06-gopark",
		Title:   "gopark and goready: blocking and waking",
		Files:   []string{"park.go"},
		Prereqs: []string{"02-runnext"},
		Tests: []lessons.Test{
			{Name: "TestL06UnlockfRunsAfterPark", Points: 20, Timeout: 20 * time.Second, Kind: lessons.Exact,
				About: "when unlockf runs, the G is _Gwaiting with its wait reason and off its M (mp.curg and gp.m nil)"},
			{Name: "TestL06DeclinedParkRunsAgain", Points: 15, Timeout: 20 * time.Second, Kind: lessons.Exact,
				About: "an unlockf that returns false makes the G run again at once, on the same M, before the G in runnext"},
			{Name: "TestL06ReadyRunnext", Points: 15, Timeout: 10 * time.Second, Kind: lessons.Exact,
				About: "goready puts the G in runnext (the old runnext kicked to the ring) and wakes an idle P; ready(next=false) uses the tail"},
			{Name: "TestL06ReadyNotWaitingPanics", Points: 10, Timeout: 10 * time.Second, Kind: lessons.Exact,
				About: "ready of a G that is not waiting (or readied twice) panics, naming the G and its status, and queues nothing; so does gopark by a G that is not running"},
			{Name: "TestL06ParkReadyInRuntime", Points: 10, Timeout: 30 * time.Second, Kind: lessons.Exact,
				About: "G.Park and G.Ready in a Runtime: runnext right after Ready; an idle P woken to run the readied G"},
			{Name: "TestL06DeadlockReported", Points: 10, Timeout: 20 * time.Second, Kind: lessons.Exact,
				About: "Gs blocked on a chan, a Mutex, a WaitGroup and Park: Wait reports the deadlock with each wait reason"},
			{Name: "TestL06Stress", Points: 20, Timeout: 40 * time.Second, Kind: lessons.Stress,
				About: "channel ping-pong, a Mutex, a WaitGroup and a Park relay on 4 Ps: every G exactly once, every value delivered"},
		},
	}))
}
