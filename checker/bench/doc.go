// Package bench is the engine of kata bench: it times a lesson's code,
// the learner's against the reference's and against Go's own runtime.
//
// A lesson's benchmarks (its testdata/bench: BenchmarkLNN functions, each
// with a /sched sub-benchmark on the scheduler and, where Go has the same
// operation, a /native one) are built twice into test binaries of the
// grading module (package checker): once with the learner's files laid
// over the reference's, once with the reference alone (package program
// does the build). Both are built without the hidden tests' build tag, so
// the atomics are bare sync/atomic, as in a learner's own program, and
// neither runs in the grader's sandbox: this is the learner's own code on
// the learner's own machine, timed, not graded.
//
// The two binaries then run alternately, Options.Count times each, each
// going first half of the time, so that whatever else the machine is
// doing falls on both sides alike (bench.go). The table (Result, a Row a
// benchmark) reports medians, the spread of the runs, the ratios
// yours/reference and reference/native, and whether the difference
// between yours and the reference stands out from the noise: an exact
// Mann-Whitney U test, as benchstat does (stats.go). With fewer than 4
// runs a side no difference can, and the reading says so.
//
// When the learner's code does not compile, panics, fails a benchmark's
// own check or hangs past Options.Timeout, Run returns a
// *program.CodeFailure that says so in the learner's terms (the panic
// condensed to the learner's files, the benchmark it hung in); the
// reference failing is a bug of the course, and said to be one.
//
// cmd/kata/bench.go prints the table, or writes it as JSON.
package bench
