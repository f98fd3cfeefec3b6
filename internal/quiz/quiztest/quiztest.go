// Package quiztest checks a lesson's questions against answers worked out
// by hand: for each case, the question a kind makes from a seed must
// describe the situation the case was worked from, take the worked answer
// as right, and explain it with the case's reasons. A broken generator, a
// wrong answer or an explanation that no longer fits fails the lesson's
// test.
//
// A case names its kind and its seed (Kind.MakeSeed), not the kind a seed
// takes its turn at (quiz.Make, seed % the number of kinds): a kind added
// to a lesson leaves every case worked before it as it was.
//
// It does not check that every seed makes a valid question; cmd/kata's
// tests do, for every lesson.
package quiztest

import (
	"slices"
	"strings"
	"testing"

	"github.com/gmp-kata/gmp-kata/internal/quiz"
)

// A Case is one question, worked out by hand. `kata quiz NN --seed S`
// asks it when Kind is S's turn (S % the number of kinds); a case worked
// after the lesson's last kind was added can pick such a seed.
type Case struct {
	Seed    uint64
	Kind    string   // the kind of question asked with the seed
	Says    []string // the facts of the situation, as the question states them
	Answer  string   // the answer, worked out from those facts, as a learner types it
	Because []string // what the explanation must say
}

// Check checks each case against the questions of kinds.
func Check(t *testing.T, kinds []quiz.Kind, cases []Case) {
	t.Helper()
	worked := map[string]int{}
	for _, c := range cases {
		i := slices.IndexFunc(kinds, func(k quiz.Kind) bool { return k.Name == c.Kind })
		if i < 0 {
			t.Errorf("seed %d: the lesson has no kind of question %s", c.Seed, c.Kind)
			continue
		}
		q := kinds[i].MakeSeed(c.Seed)
		worked[c.Kind]++
		for _, s := range c.Says {
			if !strings.Contains(q.Text, s) {
				t.Errorf("seed %d (%s): the question does not say %q:\n%s", c.Seed, c.Kind, s, q.Text)
			}
		}
		if right, err := q.Answer.Judge(c.Answer); !right || err != nil {
			t.Errorf("seed %d (%s): the answer worked out by hand, %q, is judged wrong (%v); the quiz says %q:\n%s",
				c.Seed, c.Kind, c.Answer, err, q.Answer.String(), q.Text)
		}
		for _, s := range c.Because {
			if !strings.Contains(q.Explain, s) {
				t.Errorf("seed %d (%s): the explanation does not say %q:\n%s", c.Seed, c.Kind, s, q.Explain)
			}
		}
		checkChoices(t, c, q)
	}
	for _, k := range kinds {
		if worked[k.Name] < 2 {
			t.Errorf("kind %s has %d case(s) worked out by hand, want at least 2", k.Name, worked[k.Name])
		}
		for seed := range uint64(100) {
			checkChoices(t, Case{Seed: seed, Kind: k.Name}, k.MakeSeed(seed))
		}
	}
}

// checkChoices checks that a choice question offers each option once: two
// options alike would make the right one ambiguous, or a wrong one right.
// (That the right one is among them, quiz.Choice checks when it is made.)
func checkChoices(t *testing.T, c Case, q quiz.Question) {
	t.Helper()
	seen := map[string]bool{}
	for _, ch := range q.Answer.Choices() {
		if seen[ch] {
			t.Errorf("seed %d (%s): the choice %q is offered twice:\n%s", c.Seed, c.Kind, ch, q.Text)
		}
		seen[ch] = true
	}
}
