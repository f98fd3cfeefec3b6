package globrunqget

import (
	"testing"

	"github.com/gmp-kata/gmp-kata/internal/quiz/quiztest"
)

// The lesson's questions against answers worked out by hand from the rules
// in the chapter.
func TestQuizWorkedByHand(t *testing.T) {
	quiztest.Check(t, quizKinds, []quiztest.Case{
		// min(128, 289, 289/3 + 1 = 97)
		{Seed: 0, Kind: "batch-size", Says: []string{"holds 289 Gs", "GOMAXPROCS is 3"},
			Answer: "97", Because: []string{"min(128, 289, 289/3 + 1)", "runs G1 and puts the other 96"}},
		// min(128, 14, 14/6 + 1 = 3)
		{Seed: 3, Kind: "batch-size", Says: []string{"holds 14 Gs", "GOMAXPROCS is 6"}, Answer: "3"},
		// min(128, 156, 156/8 + 1 = 20)
		{Seed: 6, Kind: "batch-size", Says: []string{"holds 156 Gs", "GOMAXPROCS is 8"}, Answer: "20"},
		// 228/5+1 = 46 → 182; 182/5+1 = 37 → 145; 145/5+1 = 30.
		{Seed: 1, Kind: "batch-turns", Says: []string{"holds 228 Gs", "GOMAXPROCS is 5", "does P2 take"},
			Answer: "30", Because: []string{"P0 takes 46, leaving 182; P1 takes 37, leaving 145; P2 takes 30, leaving 115"}},
		// 112 → 23, 18, 15, 12, then 44/5+1 = 9.
		{Seed: 4, Kind: "batch-turns", Says: []string{"holds 112 Gs", "GOMAXPROCS is 5", "does P4 take"}, Answer: "9"},
		// 10 → 3, then 7/4+1 = 2, then 5/4+1 = 2.
		{Seed: 7, Kind: "batch-turns", Says: []string{"holds 10 Gs", "GOMAXPROCS is 4", "does P2 take"}, Answer: "2"},
		{Seed: 2, Kind: "queue-order", Says: []string{"globrunqputhead(G1), globrunqput(G2), globrunqput(G3), globrunqput(G4), globrunqput(G5), globrunqputhead(G6)."},
			Answer: "G6 G1 G2 G3 G4 G5", Because: []string{"reads G6 G1 G2 G3 G4 G5"}},
		{Seed: 5, Kind: "queue-order", Says: []string{"globrunqputhead(G1), globrunqput(G2), globrunqputhead(G3), globrunqput(G4), globrunqput(G5), globrunqputhead(G6)."},
			Answer: "G6 G3 G1 G2 G4 G5"},
		{Seed: 8, Kind: "queue-order", Says: []string{"globrunqput(G1), globrunqputhead(G2), globrunqput(G3), globrunqput(G4), globrunqput(G5), globrunqputhead(G6)."},
			Answer: "G6 G2 G1 G3 G4 G5"},
		// What happens next. 148 = 2 × 61 + 26: P0 runs its runnext G1; empty P1 takes the batch, G10 first.
		{Seed: 3, Kind: "next-global", Says: []string{"P0's schedtick is 148", "runnext holds G1", "holds G10 G11"},
			Answer: "b", Because: []string{"148, is no multiple of 61", "P0 runs its own G1"}},
		// 122 = 2 × 61: P0's fairness check takes the head, G10.
		{Seed: 7, Kind: "next-global", Says: []string{"P0's schedtick is 122", "holds G10,"},
			Answer: "a", Because: []string{"122, is a multiple of 61"}},
		// 164 = 2 × 61 + 42: P0 runs its ring's head, G2.
		{Seed: 19, Kind: "next-global", Says: []string{"P0's schedtick is 164", "runnext is empty and its ring holds G2 G3"},
			Answer: "b", Because: []string{"P0 runs its own G2"}},
		{Seed: 15, Kind: "next-global", Says: []string{"P0's schedtick is 183"}, Answer: "a"},
	})
}
