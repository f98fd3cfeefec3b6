// Package importuse says which of a Go file's imports a piece of code
// taken from it still uses: the code kata generates from a lesson's file
// (the oracle's renamed ref_ copies, blame's schema of the learner's and
// the reference's functions side by side) carries only the imports its
// bodies refer to, since Go refuses an unused one.
//
// An import is used when the code names it as the X of a selector (fmt in
// fmt.Sprintf): that is the only way Go code refers to an imported package.
// Its name is the one the import gives it, or else the last element of its
// path, or the one before a major version's (math/rand/v2 is rand).
package importuse
