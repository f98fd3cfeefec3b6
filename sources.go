// Package gmpkata carries the course's Go sources inside the kata binary,
// so that kata can grade a learner's workspace anywhere, offline: the
// reference scheduler (solutions/) and the learner's starting point
// (skeleton/).
package gmpkata

import "embed"

// Sources holds solutions/*.go and skeleton/*.go.
//
//go:embed solutions/*.go skeleton/*.go
var Sources embed.FS
