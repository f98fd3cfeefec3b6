package sysmon

import (
	"testing"

	"github.com/gmp-kata/gmp-kata/internal/quiz/quiztest"
)

// The lesson's questions against answers worked out by hand from the rules
// in the chapter.
func TestQuizWorkedByHand(t *testing.T) {
	quiztest.Check(t, quizKinds, []quiztest.Case{
		// The sleep before round k follows k-1 idle rounds: 20µs for idle 0..50 (51 sleeps), then
		// 40, 80, ... 5120 for idle 51..58, and 10240 capped at 10ms from idle 59; idle is 60 now.
		{Seed: 0, Kind: "sysmon-delay", Says: []string{"run 60 rounds", "None of its rounds took a P"},
			Answer: "10000", Because: []string{"20µs ×51, 40µs, 80µs, 160µs", "5120µs, 10000µs; the next is 10000µs"}},
		// idle 50: not yet more than 50.
		{Seed: 6, Kind: "sysmon-delay", Says: []string{"run 50 rounds", "None of its rounds"}, Answer: "20"},
		// idle 54: 20 × 2^4.
		{Seed: 12, Kind: "sysmon-delay", Says: []string{"run 54 rounds", "None of its rounds"}, Answer: "320"},
		// The retake in round 3 resets idle: rounds 4..59 make idle 56, 20 × 2^6.
		{Seed: 15, Kind: "sysmon-delay", Says: []string{"run 59 rounds", "In round 3 it took P1 back"},
			Answer: "1280", Because: []string{"resets the count"}},
		// The retake in round 15: idle 43 after round 58.
		{Seed: 9, Kind: "sysmon-delay", Says: []string{"run 58 rounds", "In round 15 it took P1 back"}, Answer: "20"},
		// First seen at t0; 10ms later at the earliest: t0+12ms is look 4.
		{Seed: 1, Kind: "preempt-look", Says: []string{"every 4ms"},
			Answer: "4", Because: []string{"look 4, at t0+12ms"}},
		{Seed: 4, Kind: "preempt-look", Says: []string{"every 9ms"}, Answer: "3", Because: []string{"at t0+18ms"}},
		{Seed: 7, Kind: "preempt-look", Says: []string{"every 7ms"}, Answer: "3"},
		// Nobody spinning, nobody idle: nobody would notice work, take it.
		{Seed: 2, Kind: "syscall-retake", Says: []string{"ring is empty", "0 with a spinning M, 0 idle", "t0+5ms"},
			Answer: "yes", Because: []string{"(0 spinning, 0 idle)"}},
		// An idle P, no work, 5ms: none of the three.
		{Seed: 5, Kind: "syscall-retake", Says: []string{"ring is empty", "0 with a spinning M, 1 idle", "t0+5ms"},
			Answer: "no", Because: []string{"None of them holds"}},
		// A spinner, no work, 20µs: none of the three.
		{Seed: 14, Kind: "syscall-retake", Says: []string{"GOMAXPROCS is 2", "ring is empty", "1 with a spinning M, 0 idle", "t0+20µs"},
			Answer: "no"},
		// Work queued: taken at the second sighting, however young the call.
		{Seed: 17, Kind: "syscall-retake", Says: []string{"ring holds 2 Gs", "t0+20µs"}, Answer: "yes"},
		// What happens next. Work queued: taken, and handoffp starts an M to run it.
		{Seed: 3, Kind: "next-handoff", Says: []string{"ring holds 1 G", "0 with a spinning M, 3 idle", "t0+10ms"},
			Answer: "b", Because: []string{"sees work on P1's run queue"}},
		// Nobody spins, nobody idle: taken; no work, so handoffp starts a spinning M.
		{Seed: 11, Kind: "next-handoff", Says: []string{"ring is empty", "0 with a spinning M, 0 idle", "t0+1ms"},
			Answer: "c", Because: []string{"(0 spinning, 0 idle)", "starts a spinning M on P1"}},
		// 15ms: taken; no work and a spinner, so the idle list.
		{Seed: 23, Kind: "next-handoff", Says: []string{"GOMAXPROCS is 2", "ring is empty", "1 with a spinning M, 0 idle", "t0+15ms"},
			Answer: "d", Because: []string{"P1 goes on the idle list"}},
		// No work, an idle P, 1ms: none of the three.
		{Seed: 27, Kind: "next-handoff", Says: []string{"ring is empty", "0 with a spinning M, 1 idle", "t0+1ms"},
			Answer: "a", Because: []string{"None holds"}},
		{Seed: 35, Kind: "next-handoff", Says: []string{"ring is empty", "1 with a spinning M, 0 idle", "t0+20µs"}, Answer: "a"},
	})
}
