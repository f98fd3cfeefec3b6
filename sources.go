// Package gmpkata carries the course's sources inside the kata binary, so
// that kata can grade a learner's workspace anywhere, offline, and build
// the book without a clone of the repository: the reference scheduler
// (solutions/), the learner's starting point (skeleton/), the scenarios
// kata trace runs on the learner's code (internal/scenario/), and the
// book's chapters with the other files they include.
package gmpkata

import "embed"

// Sources holds solutions/*.go, skeleton/*.go and internal/scenario/*.go.
//
//go:embed solutions/*.go skeleton/*.go internal/scenario/*.go
var Sources embed.FS

// Book holds the book's sources as a tree rooted like the repository:
// book/src, every lesson's chapter, and every file a chapter includes
// (TestEmbeddedBookBuilds in package book checks that it is all here).
//
//go:embed book/src/*.md lessons/*/chapter.md solutions/*.go skeleton/*.go
//go:embed solutions/testdata/plainslots/main.go
//go:embed internal/workspace/classroom.yml checker/grade/testdata/pack
var Book embed.FS
