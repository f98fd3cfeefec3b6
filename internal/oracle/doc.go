// Package oracle makes the reference's own copy of a lesson file, for the
// hidden tests to use as the oracle: a test runs the learner's function and
// the reference's on identical states and compares everything it can see.
//
// The copy is made from the reference's file with go/ast, never by hand.
// Every function and method the file declares is renamed with the prefix
// "ref_" (runqput becomes ref_runqput; a method keeps its receiver:
// func (sched *schedt) ref_globrunqput), and so is every call from one of
// them to another function of the same file, so the copy is self-contained.
// Calls to other files are left alone: they reach whatever the graded
// package holds there (the reference, in a lesson's grading). The file's
// package-level types, variables and constants are not copied: the
// learner's file declares them, and the copy uses those.
//
// The copies are checked in, one per lesson file, as
// lessons/NN-slug/testdata/hidden/ref_FILE_test.go: a newcomer finds
// ref_runqput where the hidden tests that call it live. A test of package
// lessons/all fails when one is stale; regenerate them with
//
//	go test ./lessons/all -run Oracle -update
//
// (the same command, with -run Skeleton, regenerates skeleton/). Being
// hidden test files, their names are test-only for kata's vetter: a
// learner's file that calls ref_runqput is refused before it is compiled.
package oracle
