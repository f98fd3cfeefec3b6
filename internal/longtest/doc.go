// Package longtest is the course's one switch for its long tests.
//
// `go test ./...` runs every test that says whether the course works,
// the self-check of every lesson against its whole corpus included. The
// tests that only say it again at length (soaks, stress loops,
// repeated runs, the big hostile and class corpora, the capstone of every
// alternate) run when the environment has KATA_LONG=1, as CI does:
//
//	KATA_LONG=1 go test -timeout 30m ./...
//
// A long test calls Skip first: without the switch it is skipped, and
// says why and how to run it, never silently. -short keeps its meaning
// (quicker still) and wins over KATA_LONG.
package longtest
