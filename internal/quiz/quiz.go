// Package quiz is what `kata quiz` asks: exercises beyond a lesson's
// contract, after the homework simulators of OSTEP (its scheduler.py makes
// a problem from -s SEED and computes the answer with -c). A lesson
// declares kinds of question (lessons.Lesson.Quiz). Given a seed, a kind
// builds a small situation in the reference scheduler (sched.Lab), asks
// one question about it with a short answer, and has the reference compute
// that answer, then says why in a few sentences that cite the runtime.
//
// This package holds what the lessons share: what a kind and a question
// are, which question a seed makes, and the forms an answer takes, with how
// a typed answer is read and judged (answer.go). It computes no answer and
// knows nothing of the scheduler; it neither reads input nor prints
// (cmd/kata/quiz.go does).
package quiz

import (
	"math/rand/v2"
	"strconv"
)

// A Kind is one kind of question a lesson asks.
type Kind struct {
	// Name is short and lower case, like "batch-size".
	Name string
	// Make builds a question from r, which the seed fixes: the same seed
	// makes the same question.
	Make func(r *rand.Rand) Question
}

// A Question is a situation, a question about it, and its answer.
type Question struct {
	Text    string // the situation and the question, plain text
	Answer  Answer // computed by the reference
	Explain string // why, in two or three sentences that cite the runtime
}

// Make returns the question seed makes among kinds: the kind is seed's
// turn (seed % len(kinds)), so that consecutive seeds go through every
// kind, and the numbers come from a generator seeded with seed.
func Make(kinds []Kind, seed uint64) (Kind, Question) {
	k := kinds[seed%uint64(len(kinds))]
	return k, k.MakeSeed(seed)
}

// MakeSeed returns the question seed makes of kind k: the one Make returns
// for seed when k is seed's turn. The numbers depend on seed alone, not on
// k's place among the lesson's kinds, so that adding a kind changes which
// kind a seed asks but not the question a kind makes from a seed (the
// cases worked by hand in quiztest name both).
func (k Kind) MakeSeed(seed uint64) Question {
	return k.Make(rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)))
}

// Count writes n and noun, plural unless n is 1: "1 G", "3 Gs", "0 Ms".
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
