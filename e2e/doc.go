// Package e2e holds end-to-end tests of the whole product: they build
// the kata binary and use it as a learner (or an instructor) would, with
// real go test subprocesses underneath.
package e2e
