// Package blame tells a learner which of their functions is wrong, with
// the reference as the oracle.
//
// When a lesson's tests fail, the failure a learner reads first is often
// not about the function that is wrong: a gopark that calls unlockf too
// early fails a test whose message is about park_m; a wakep called before
// runqput fails "ready must call wakep". The tests' messages say what went
// wrong; they cannot know which of the learner's functions made it so. The
// reference can: if the learner's file, with the reference's version of
// one function F in place of theirs, passes every test that failed, the
// mistake is in F.
//
// Schema writes one file that holds both versions of every function the
// learner's file and the reference's declare alike (same name, same
// receiver, same parameter and result types): each such function F
// becomes a dispatcher that calls F__kataRef (the reference's body) when
// the package variable Selector names F, and F__kataMine (the learner's)
// otherwise. The reference's bodies call the dispatchers, so selecting F
// swaps F alone: the reference's F calls the learner's G. Everything else
// in the file is the learner's; the reference's declarations the learner's
// file lacks (a helper the learner inlined) are added as they are. One
// test binary, built once, then answers for every function, the test run
// again with KATA_BLAME=F (SelectorFile reads it), as kata's mutant
// schemata do (internal/mutate).
//
// A schema that does not compile (a learner who changed a type the
// reference's bodies use, say) gives no answer, and kata says nothing: the
// blame is a hint on top of the grade, never part of it. kata check runs
// it, on the learner's own machine, after a lesson has failed (not on the
// skeleton's untouched stubs); kata grade does not.
package blame
