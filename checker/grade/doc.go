// Package grade grades a class: many submissions, every lesson of each,
// with the checker's engine, and returns the gradebook (package report)
// that `kata grade` writes in the format an instructor's tools import.
//
// Words used here:
//
//   - a submission is one student's work: a workspace directory, an
//     archive of one, a git repository at a ref (submission.go, archive.go);
//   - a cell is one submission's grade in one lesson;
//   - a run is one grading of one lesson's files by the checker: one go
//     test of the reference with those files in place (and, after a crash
//     or a hang, the same test binary run again for the tests left);
//   - a key is the hash of everything a cell's grade depends on
//     (cache.go); cells with the same key share one run.
//
// The design, in the order a grading goes:
//
//  1. Find reads every submission up front and keeps only the lesson
//     files: each is listed first (tree.go), the workspace found in the
//     list, and only its lesson files read; archives are read in memory
//     (nothing of theirs is ever written under its own name), a zip's
//     directory checked before it is parsed (archive.go), a commit read
//     with git plumbing in a bare repository of kata's own holding a copy
//     of the submission's objects, so nothing of the submission's
//     repository runs, and git reads nothing outside it (git.go); links
//     are followed only inside the submission, sizes and path lengths
//     are bounded, and each git is limited in memory and CPU time
//     (gitrun.go, package proclimit). Names are cleaned for display
//     (report.Name) and kept as handed in; names a reader could take for
//     one another are flagged (flagLookalikes, report.Lookalike), never
//     renamed. A submission that cannot be
//     read is not an error of the grading: it is graded, as a failure
//     with its reason.
//  2. Grade turns cells into keys. A key already in the result cache, with
//     a MAC that verifies (cache.go), is a grade; keys seen before in the
//     same grading share its run; the rest are runs, handed to a pool of
//     Jobs workers.
//  3. Each run is the checker's Lesson with Isolate on: a private copy of
//     the grading module, a private temporary directory, a scrubbed
//     environment, time, output and memory limits, and the harness that
//     proves a pass (see checker/harness.go). Its grade is stored the
//     moment it is known, so a killed grading resumes.
//  4. The report is assembled from the cells in submission and lesson
//     order; it holds no timings, so the same grades give the same bytes.
//
// Private test packs (pack.go) add tests to lessons; they change the
// grading module, and so every key. The threat model, what code under
// test can still do, is in the book's appendix D (book/src/grading.md).
package grade
