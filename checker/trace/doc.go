// Package trace is the engine of kata trace (with the learner's files,
// or the reference's alone): it runs one of internal/scenario's named
// workloads on the reference scheduler with some of the learner's files
// in place of the reference's, and returns the scheduler's events for
// the renderer (internal/diagram) and the judge (scenario.Judge).
//
// The scenario runs in a program of its own, not in kata's process: a
// learner's scheduler may panic, deadlock or spin forever. The program is
// built in the grading module (package checker) with -overlay (package
// program does the build): the learner's files replace the reference's
// in solutions/, and two packages that are not on disk are added,
// internal/scenario (kata's own scenario sources, embedded, with their
// import of the scheduler pointed at the grading module's) and
// cmd/kata-trace (tracemain.go), a main that runs one scenario and prints
// the events as JSON lines, a few milliseconds at a time, then what
// Runtime.Wait returned. It is built without the hidden tests' build tag:
// a trace shows the scheduler as it runs outside them.
//
// Build builds the program once; Program.Run runs it, as often as
// wanted, each run with its seed and time limit: Ms are threads, so runs
// differ, and kata trace --runs and --compare time several. Once does
// both for one run. A run's phases are each a function: the run itself
// (Program.Run), reading its output (readOutput), and judging it
// (crashed, for a program that died before Wait returned; judge, for
// what Wait returned against what the scenario expects).
//
// When the learner's code fails — it does not compile, panics, runs past
// the limit, deadlocks in a scenario that should not (or does not in the
// one that should) — the error is a *program.CodeFailure in the learner's
// terms, returned with the run if it got far enough to draw: a crashed
// run keeps the events written before it died, and the G its panic names
// (Run.DispatchedTwice, Run.Stranded).
//
// cmd/kata/trace.go draws the page and prints the verdicts.
package trace
