// Package liveprocs finds the processes a test started and must not have
// left behind: those whose environment holds a marker the test set. The
// containment tests of the checker, the grader and the sandbox look for
// survivors with it, and kill them so that one failure does not leak
// into the next test.
//
// It reads /proc: where there is none (macOS, Windows), no process is
// found.
package liveprocs
