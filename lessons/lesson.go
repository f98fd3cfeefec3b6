// Package lessons is the course's table of contents: every lesson is a
// plugin, a directory lessons/NN-slug that registers itself here from its
// init function. lessons/all imports them all.
//
// A lesson owns whole files of the reference scheduler (solutions/): the
// learner rewrites those files, and the lesson's hidden tests grade them
// inside the otherwise-reference scheduler.
package lessons

import (
	"io/fs"
	"time"

	"github.com/gmp-kata/gmp-kata/internal/quiz"
)

// A Lesson is one step of the course.
type Lesson struct {
	// ID is "NN-slug": two digits giving the order, then a lower-case slug.
	ID    string
	Title string

	// Files are the files of solutions/ the learner writes in this lesson
	// (base names, e.g. "runq.go"). No two lessons own the same file.
	Files []string

	// Prereqs are the IDs of lessons to do first.
	Prereqs []string

	// Task is the task statement: what to implement, the contract, what the
	// tests check (Markdown).
	Task string

	// Chapter is the lesson's chapter of the book (Markdown, see book/):
	// the problem, the runtime's design and its reasons, the contract, the
	// traps, what Go 1.26 does differently, further reading.
	Chapter string

	// Hints are progressive: a nudge, then the idea, then the near-answer.
	// There are at least three.
	Hints []string

	// Tests are the hidden tests, in the order they are reported.
	Tests []Test

	// Hidden holds the hidden test files (*_test.go), added to the
	// reference package when grading.
	Hidden fs.FS

	// Bench holds the lesson's benchmarks (*_test.go, package sched,
	// functions BenchmarkLNN...), for `kata bench`: each times the code the
	// learner writes in this lesson, in a /sched sub-benchmark, with a
	// /native one beside it where Go's own runtime has a counterpart. They
	// are never part of a grading run.
	Bench fs.FS

	// Mutants and Alternates are the self-check corpus: each is a directory
	// per implementation holding replacements for the lesson's Files.
	// Every mutant must fail the lesson; every alternate must pass it.
	Mutants    fs.FS
	Alternates fs.FS

	// Quiz are the kinds of question `kata quiz` asks on the lesson, each
	// answered by the reference on a situation made from a seed (see
	// internal/quiz). There are at least three.
	Quiz []quiz.Kind

	// API is the lesson's api.txt (see ParseAPI): the names of the
	// reference package a file of the lesson may use besides its own
	// declarations, sorted. The vetter refuses a file that uses another
	// (checker/vet, rule 8).
	API []string

	// Mutation is testdata/mutation.txt: the lesson's minimum mutation
	// score and the machine-made mutants of its files (internal/mutate)
	// that behave as the reference in every run, each with the reason
	// (see ReadMutation).
	Mutation string
}

// A Test is one hidden test of a lesson.
type Test struct {
	Name    string        // the Go test function, e.g. "TestRunqFIFO"
	Points  int           // what passing it is worth
	Timeout time.Duration // how long it may take
	Kind    TestKind
	// About says in one line what it checks, for the learner's report.
	About string
	// Guarantee, when set, names the one property that this test and the
	// lesson's other tests of the same Guarantee judge from different
	// sides, e.g. one atomic operation at a time in chosen orders and on
	// real threads. They score together: when one of them fails, none of
	// them scores (checker: a test that passed on its own fails "with" the
	// one that failed). Code that behaves one way under a controlled
	// scheduler and another on real threads so gains nothing, and the
	// lesson's task says which tests share a guarantee.
	Guarantee string
	// Serial says the test runs the code under test one thread at a
	// time: on one goroutine, or in a controlled scheduler's turns, each
	// handed to the next through a channel. The race detector, which
	// reports accesses with nothing ordering them, can then report
	// nothing, so kata check runs the test in a build without it, about
	// ten times faster (checker.Options.SerialWithoutRace); kata grade
	// runs every test under it. TestSerialTestsRunOneThreadAtATime shows
	// it: with a racy write in every function of the scheduler, a serial
	// test reports no race.
	Serial bool
	// Private marks a test of an instructor's private pack (kata grade
	// --tests): it runs after every test of the course, so that what a
	// lesson file sees in it cannot reach the output of a test the
	// student is shown.
	Private bool
}

// A TestKind says how a hidden test examines the learner's code.
type TestKind string

const (
	// Exact: behaviour on constructed states, compared with the reference.
	Exact TestKind = "exact"
	// Stress: real threads; every G exactly once, invariants, -race clean.
	Stress TestKind = "stress"
	// Timing: timing behaviour under an injected clock.
	Timing TestKind = "timing"
)

// MaxScore is the sum of the lesson's test points.
func (l *Lesson) MaxScore() int {
	total := 0
	for _, t := range l.Tests {
		total += t.Points
	}
	return total
}

// Order is the lesson's position in the course, from its ID.
func (l *Lesson) Order() int {
	return int(l.ID[0]-'0')*10 + int(l.ID[1]-'0')
}
