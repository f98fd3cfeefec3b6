//go:build kata_interleave

package sched

import "sync/atomic"

// This file is compiled only with the build tag kata_interleave, which
// kata sets when it builds the hidden tests (and no other build): the
// scheduling points of the atomics (atomics.go) and the hook the hidden
// tests' controlled scheduler installs. A hidden test built without the
// tag does not compile (undefined: setInterleaveHook); it cannot pass
// without the interleavings it asks for. Build them with
// go test -tags kata_interleave, as kata does.

// interleaveHook, if set, is called before every operation of the atomics
// of atomics.go, on the goroutine making it.
var interleaveHook atomic.Pointer[func()]

// setInterleaveHook installs hook (nil: none) and returns the one before.
func setInterleaveHook(hook func()) (old func()) {
	var p *func()
	if hook != nil {
		p = &hook
	}
	if prev := interleaveHook.Swap(p); prev != nil {
		return *prev
	}
	return nil
}

// schedPoint is a scheduling point: see interleaveHook. Without a hook it
// costs one atomic load.
func schedPoint() {
	if h := interleaveHook.Load(); h != nil {
		(*h)()
	}
}
