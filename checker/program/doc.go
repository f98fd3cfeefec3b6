// Package program builds and runs the programs of kata's engines other
// than the grader: kata bench's benchmark binaries (package bench) and
// kata trace's scenario program (package trace). Each is a program of
// the grading module (package checker: a copy of the reference
// scheduler, with every lesson's hidden tests beside it) with some of the
// learner's files laid over the reference's by the go command's -overlay,
// so that the learner's code runs inside the reference scheduler as it
// does when graded, but without the hidden tests' harness, their build
// tag or the grader's sandbox: these programs time and draw a learner's
// own code, on the learner's own machine, and grade nothing.
//
// What the engines share is here:
//
//   - LearnerOverlay makes the -overlay map (checker.WriteOverlay writes it): the
//     learner's files over the module's package, and whatever the engine
//     adds (the benchmarks, the scenario program);
//   - Go runs the go command (go build, go test -c) in the grading
//     module, within checker.BuildAllowance, in a process group killed
//     when it ends, with none of the user's GOFLAGS or go.work;
//   - Run and CappedBuffer run the program built, killed at its time
//     limit, its output bounded;
//   - CodeFailure is the learner's code failing (it does not compile,
//     panics, gives a wrong result or hangs), in the learner's terms:
//     CompileFailure puts the compiler's errors that way, and
//     checker.Checker.CondensePanic a panic. Every other error of an
//     engine means kata could not do its job.
//
// The grading module's paths and the reading of its output in the
// learner's terms are package checker's (engines.go); this package and
// the engines import it, never the other way round.
package program
