//go:build !kata_interleave

package sched

import "sync"

// schedPoint is a scheduling point of the hidden tests' controlled
// scheduler, which exists only in their builds (interleave.go, build tag
// kata_interleave). Here it is nothing: the atomics' methods (atomics.go)
// inline to the bare sync/atomic operation.
func schedPoint() {}

// slotPoint is the scheduling point of a ring's slot: nothing here either.
func slotPoint() {}

// pointHooks are the hidden tests' hooks of the atomics (interleave.go):
// here there are none, and pointHooksNow's nil makes every call on them
// nothing, inlined away.
type pointHooks struct{}

func pointHooksNow() *pointHooks                                 { return nil }
func (*pointHooks) at()                                          {}
func (*pointHooks) did(*atomicRingIndex, ringOp, uint32, uint32) {}

// A mutex is a sync.Mutex here: its methods inline to sync.Mutex's.

func (l *mutex) Lock()         { (*sync.Mutex)(l).Lock() }
func (l *mutex) Unlock()       { (*sync.Mutex)(l).Unlock() }
func (l *mutex) TryLock() bool { return (*sync.Mutex)(l).TryLock() }
