// Package buildtag names the build tag of the hidden tests' builds and
// says which of a package's files such a build compiles.
//
// The reference's atomics (solutions/atomics.go) are scheduling points of
// the hidden tests' controlled scheduler only in a build with the tag
// Interleave (solutions/interleave.go); elsewhere a scheduling point is an
// empty function (solutions/nointerleave.go), so the reference runs at
// the speed of bare sync/atomic. kata sets the tag where it builds the
// hidden tests (GoArgs), and nowhere else: kata bench and kata trace
// measure and draw the untagged build. What reads the reference's files
// as one package (the vetter, the mutants' type check) keeps only the
// files of one build (Match), or it would see schedPoint twice.
package buildtag
