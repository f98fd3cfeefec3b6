// Package mutate makes mutants of a Go file by machine: small, plausible
// mistakes derived from the file's syntax tree, not written by anyone who
// knows which tests exist. The self-check grades every mutant of each
// lesson's reference file with the lesson's hidden tests; a mutant the
// tests do not fail is a mistake a learner could hand in and pass with.
//
// # Operators
//
// Besides the classic operators of go-mutesting, gremlins and PIT (flip a
// comparison, change an arithmetic operator, ±1 on an integer constant,
// negate a condition, && for ||, drop a statement or a call), it has the
// concurrency operators of Bradbury, Cordy and Dingel ("Mutation operators
// for concurrent Java", 2006), in the forms a Go learner writes them:
//
//   - cas-to-store: X.CompareAndSwap(old, new) becomes X.Store(new), as if
//     the write could not lose a race;
//   - cas-check-then-store: it becomes "if X.Load() == old { X.Store(new) }",
//     the check-then-act that loses a race only in a window a few
//     instructions wide;
//   - cas-ignore-result: the CAS is made, and the code goes on as if it had
//     won;
//   - reread: a value loaded once (v := X.Load()) is loaded again where it
//     is used, so the two reads can disagree;
//   - drop-retry: a retry's continue is dropped, or an endless retry loop
//     runs once;
//   - swap: two adjacent statements change places (a publish before the
//     write it publishes);
//   - drop-lock: a Lock and its Unlock are both removed.
//
// Functions marked //kata:given (code the lessons give the learner) and
// calls to panic (the reference's own assertions) are not mutated.
//
// # Mutant schemata
//
// Compiling every mutant on its own costs a compile and a link each, with
// the race detector; a lesson has a hundred mutants. So Schemata writes
// them all into one file, after Untch, Offutt and Harrold's mutant schemata:
// each mutated function F becomes a dispatcher that calls F's original
// body, or one mutant's, by the value of a variable the caller sets from
// the environment (KATA_MUTANT). One test binary then runs every mutant.
//
// # What it does not do
//
// It does not decide which mutants are equivalent (behave as the original
// in every run): the lesson lists those, each with a reason a reviewer can
// check, and the self-check fails when a listed one no longer matches a
// mutant. It makes no mutant that does not type-check: Check drops those.
// It makes one change per mutant (first-order mutants only).
package mutate
