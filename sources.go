// Package gmpkata carries the course's Go sources inside the kata binary,
// so that kata can grade a learner's workspace anywhere, offline: the
// reference scheduler (solutions/), the learner's starting point
// (skeleton/), and the scenarios kata trace runs on the learner's code
// (internal/scenario/).
package gmpkata

import "embed"

// Sources holds solutions/*.go, skeleton/*.go and internal/scenario/*.go.
//
//go:embed solutions/*.go skeleton/*.go internal/scenario/*.go
var Sources embed.FS
