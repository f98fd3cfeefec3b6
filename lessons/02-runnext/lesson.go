// Package runnext is lesson 02: runnext, the one-G slot in front of each
// P's ring, where a G that was just readied waits to run next.
package runnext

import (
	"embed"
	"time"

	"github.com/gmp-kata/gmp-kata/lessons"
)

//go:embed task.md chapter.md hints api.txt testdata
var content embed.FS

func init() {
	lessons.Register(lessons.Content(content, &lessons.Lesson{
		ID:      "02-runnext",
		Title:   "runnext: the G that runs next",
		Files:   []string{"runnext.go"},
		Prereqs: []string{"01-ringbuffer"},
		Quiz:    quizKinds,
		Tests: []lessons.Test{
			{Name: "TestL02PutNext", Points: 10, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "runqput(next=true) puts the G in runnext and kicks the old runnext to the ring's tail; next=false uses the ring"},
			{Name: "TestL02GetOrder", Points: 6, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "runqget returns runnext first with inheritTime = true, then the ring in order with false"},
			{Name: "TestL02NoSysmon", Points: 8, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "with Config{NoSysmon: true} runnext is never used"},
			{Name: "TestL02Randomize", Points: 8, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "with RandomizeScheduler, next=true uses runnext about half the time, next=false never, and no G is lost"},
			{Name: "TestL02Empty", Points: 8, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "runqempty is false while a G is in runnext or on the ring, true otherwise"},
			{Name: "TestL02EmptyWhileKicked", Points: 9, Timeout: 30 * time.Second, Kind: lessons.Stress, Guarantee: l02Races,
				About: "runqempty never says empty while the owner kicks runnext to the ring on another thread (the runtime's RunSchedLocalQueueEmptyTest, then half a second without pause; every order of it is in TestL02Explore)"},
			{Name: "TestL02GrabNext", Points: 9, Timeout: 10 * time.Second, Kind: lessons.Timing,
				About: "runqgrabnext backs off with Usleep(3) only for a running P (also while its owner works its ring), takes runnext by CAS, and says retry when the CAS loses"},
			{Name: "TestL02PingPong", Points: 8, Timeout: 30 * time.Second, Kind: lessons.Stress,
				About: "a channel ping-pong on 1 P: each readied G runs next, before the ring, inheriting the time slice"},
			{Name: "TestL02RunnextStolen", Points: 3, Timeout: 30 * time.Second, Kind: lessons.Stress,
				About: "a G left in the runnext of a P that never yields is stolen and run by another P"},
			{Name: "TestL02Stress", Points: 4, Timeout: 30 * time.Second, Kind: lessons.Stress, Guarantee: l02Races,
				About: "ping-pong pairs and spawn chains on 4 Ps, randomized: every message arrives, every G runs exactly once"},
			{Name: "TestL02Interleavings", Points: 8, Timeout: 30 * time.Second, Kind: lessons.Stress, Serial: true, Guarantee: l02Races,
				About: "the owner and a thief race for runnext one atomic operation at a time (a controlled scheduler): every G once, a put with next=true lands in runnext, runqempty never lies"},
			{Name: "TestL02Explore", Points: 7, Timeout: 30 * time.Second, Kind: lessons.Stress, Serial: true, Guarantee: l02Races,
				About: "the owner of a running P and a thief race for runnext in EVERY order with at most two (three for two puts) preemptions: no G lost or taken twice, inheritTime only for the G taken from runnext, an end state the reference reaches"},
			{Name: "TestL02ControlledSteal", Points: 4, Timeout: 30 * time.Second, Kind: lessons.Stress, Serial: true, Guarantee: l02Races,
				About: "a running P's owner puts and runs Gs while two thieves steal, under a controlled scheduler that switches at random (a world like TestL02Stress's: same Gs, same states): every G once, inheritTime only from runnext, runqget never nil while the P holds a G, a steal that finds nothing met an empty ring, then an empty runnext"},
			{Name: "TestL02Differential", Points: 8, Timeout: 20 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "on 80 generated states, runqput, runqget, runqempty and runqgrabnext do what the reference's do: same results, same runnext, rings and back-offs"},
		},
	}))
}

// l02Races is the guarantee (lessons.Test.Guarantee) the lesson's race
// tests judge together: one atomic operation at a time in orders a
// controlled scheduler picks, every order up to a bound, and real threads.
const l02Races = "every G comes out of runnext and the ring exactly once, runqempty never lies, and a steal finds nothing only in an empty P, while the owner and thieves race"
