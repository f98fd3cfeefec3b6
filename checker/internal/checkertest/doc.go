// Package checkertest is what the tests of the engines built on package
// checker (checker/bench, checker/trace) share: one Checker per test
// binary, with a grading module of its own that Main removes at the end,
// and the learner's files written as a workspace holds them. (Package
// checker's own tests have their copies: they are inside the package
// this one imports.)
package checkertest
