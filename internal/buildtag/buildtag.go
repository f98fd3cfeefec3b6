package buildtag

import (
	"bytes"
	"go/build"
	"io"
)

// Interleave is the build tag of the hidden tests' builds: with it, every
// operation of the reference's atomics is a scheduling point that a test
// can hook (setInterleaveHook).
const Interleave = "kata_interleave"

// GoArgs are the go command's arguments that build with Interleave: for
// go test of the hidden tests.
func GoArgs() []string { return []string{"-tags", Interleave} }

// Match reports whether a build for this host, with the tag Interleave if
// interleave, compiles the Go file name whose source is src (its
// //go:build line and its name's _GOOS and _GOARCH suffixes).
func Match(name string, src []byte, interleave bool) (bool, error) {
	ctx := build.Default
	ctx.BuildTags = nil
	if interleave {
		ctx.BuildTags = []string{Interleave}
	}
	ctx.OpenFile = func(string) (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(src)), nil
	}
	return ctx.MatchFile(".", name)
}
