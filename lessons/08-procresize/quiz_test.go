package procresize

import (
	"testing"

	"github.com/gmp-kata/gmp-kata/internal/quiz/quiztest"
)

// The lesson's questions against answers worked out by hand from the rules
// in the chapter.
func TestQuizWorkedByHand(t *testing.T) {
	quiztest.Check(t, quizKinds, []quiztest.Case{
		// P3: G31 pushed at the head, then runnext G39 in front of it.
		{Seed: 0, Kind: "shrink-global", Says: []string{"from 4 to 3", "P3's ring holds G31 and its runnext G39", "global run queue holds G1 G2"},
			Answer: "G39 G31 G1 G2", Because: []string{"destroys P3, in that order"}},
		{Seed: 3, Kind: "shrink-global", Says: []string{"from 5 to 4", "P4's ring holds G41;", "holds G1 G2"}, Answer: "G41 G1 G2"},
		// P2: G29 G21; P3 in front: G31 G32; P4's runnext in front of all.
		{Seed: 6, Kind: "shrink-global", Says: []string{"from 5 to 2", "P2's ring holds G21 and its runnext G29", "P3's ring holds G31 G32", "P4's ring holds nothing and its runnext G49"},
			Answer: "G49 G31 G32 G29 G21", Because: []string{"destroys P2 P3 P4"}},
		// Only P3 has work; new P5 is empty.
		{Seed: 1, Kind: "idle-after", Says: []string{"from 5 to 6", "P3's ring holds G31 G32"},
			Answer: "P0 P1 P2 P4 P5", Because: []string{"(P3 here)"}},
		// P1 has work; P3 and P4 are destroyed and their Gs go to the global queue.
		{Seed: 4, Kind: "idle-after", Says: []string{"from 5 to 3", "P1's ring holds nothing and its runnext G19", "P3's ring holds G31"},
			Answer: "P2 P0"},
		{Seed: 7, Kind: "idle-after", Says: []string{"from 4 to 1", "P1's ring holds G11 G12"}, Answer: "P0"},
		// P1's M is in a syscall: P1 waits; P0 gets M0 back; then P1 takes the head, M2.
		{Seed: 2, Kind: "which-m", Says: []string{"GOMAXPROCS is 3", "G99 on P1", "reads M2 M0", "procresize(2)", "Which M is P0"},
			Answer: "M0", Because: []string{"P1 → M2, P0 → M0"}},
		{Seed: 5, Kind: "which-m", Says: []string{"GOMAXPROCS is 4", "G99 on P1", "reads M3 M2 M0", "procresize(3)", "Which M is P0"},
			Answer: "M0", Because: []string{"P1 → M3"}},
		// P1 gets M1 back; P0's M0 is in the call, so P0 takes the head, M2.
		{Seed: 8, Kind: "which-m", Says: []string{"G99 on P0", "reads M2 M1", "procresize(2)", "Which M is P0"},
			Answer: "M2", Because: []string{"P0 → M2, P1 → M1"}},
		// What happens next. P4 alone: G41 pushed at the head, then G49 in front of it.
		{Seed: 3, Kind: "next-runnext", Says: []string{"from 5 to 4", "P4's ring holds G41 and its runnext G49", "holds G1 G2"},
			Answer: "c", Because: []string{"reads G49 G41 G1 G2"}},
		// P1, then P2, then P3 push in front: G19 ends up behind P2's and P3's Gs.
		{Seed: 7, Kind: "next-runnext", Says: []string{"from 4 to 1", "P1's ring holds G11 G12 and its runnext G19", "P3's ring holds G31 and its runnext G39"},
			Answer: "d", Because: []string{"reads G39 G31 G29 G21 G22 G19 G11 G12 G1"}},
		// P4, destroyed after P3, has nothing: G39 is at the head.
		{Seed: 19, Kind: "next-runnext", Says: []string{"from 5 to 2", "P3's ring holds nothing and its runnext G39", "P4's ring holds nothing;"},
			Answer: "c", Because: []string{"reads G39 G29 G21 G22"}},
		{Seed: 15, Kind: "next-runnext", Says: []string{"from 3 to 1", "P2's ring holds G21 and its runnext G29", "G19, in P1's runnext"},
			Answer: "d"},
	})
}
