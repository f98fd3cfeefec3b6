package sched

// This file is runnext, the one-G slot in front of each P's ring: lesson
// 02-runnext. It mirrors the runnext halves of runqput, runqget, runqempty
// and runqgrab (proc.go, Go 1.26: 7478, 7598, 7447, 7662).
//
// Why runnext exists: when a G readies another and then blocks (a channel
// ping-pong), the readied G should run at once, on the same P, inheriting the
// rest of the time slice: the pair then behaves like one goroutine and never
// waits behind the whole queue. Only the owner P sets runnext to a G; anyone
// may take it, always with a CAS.

// runqput tries to put gp on pp's local run queue. If next is false, it adds
// gp to the tail of the ring. If next is true, gp goes into pp.runnext and
// the G it displaces, if any, is kicked to the tail of the ring.
//
// Mirrors runqput (proc.go:7478). Executed only by the owner P.
func runqput(pp *p, gp *g, next bool) {
	// TODO(02-runnext): write runqput as its comment above says.
	// Stuck? Run: kata hint 02-runnext
	panic("not implemented: runqput")
}

// runqget gets a G from pp's local run queue: runnext first, then the head
// of the ring. inheritTime is true if gp came from runnext and should
// inherit the current time slice; false if it should start a new one.
//
// Mirrors runqget (proc.go:7598). Executed only by the owner P.
func runqget(pp *p) (gp *g, inheritTime bool) {
	// TODO(02-runnext): write runqget as its comment above says.
	// Stuck? Run: kata hint 02-runnext
	panic("not implemented: runqget")
}

// runqempty reports whether pp has no Gs on its local run queue, runnext
// included. It never returns true falsely.
//
// Mirrors runqempty (proc.go:7447). Can be called by any P.
func runqempty(pp *p) bool {
	// TODO(02-runnext): write runqempty as its comment above says.
	// Stuck? Run: kata hint 02-runnext
	panic("not implemented: runqempty")
}

// runqgrabnext is runqgrab's last resort when pp's ring is empty: take
// pp.runnext. If pp is running, it first backs off for ~3µs: the usual case
// is a G that has just readied runnext and is about to block, and stealing
// in that window would bounce the pair between Ps. It returns retry = true
// if the CAS lost (the owner ran it, or another thief took it), so that the
// caller re-reads the ring.
//
// Mirrors the runnext branch of runqgrab (proc.go:7669-7709). Executed by a
// thief.
func runqgrabnext(pp *p) (next *g, retry bool) {
	// TODO(02-runnext): write runqgrabnext as its comment above says.
	// Stuck? Run: kata hint 02-runnext
	panic("not implemented: runqgrabnext")
}
