// Package sched is the reference G-M-P scheduler of gmp-kata: a second
// goroutine scheduler, written in Go, that mirrors runtime/proc.go function
// by function. The course's learners rebuild it one lesson at a time; this
// is the answer they are graded against, and the engine their code runs in.
//
// # Glossary
//
// The names are the runtime's (runtime2.go, proc.go):
//
//	G  a goroutine: a function to run, and where it stopped (type g).
//	M  a worker thread (type m). It runs Gs, one at a time.
//	P  a processor (type p): the right to run Gs. An M must hold a P to run
//	   one; GOMAXPROCS is the number of Ps. Each P has a local run queue.
//
// An M without a P is idle (on sched.midle), in a system call, or sysmon. A
// P without an M is idle (on sched.pidle), in a system call (_Psyscall), or
// stopped for stop-the-world.
//
// # Why P exists
//
// Go 1.0 had Gs and Ms only, and one global run queue under one lock. At 8
// threads, that lock was held for over 30% of the time (Dmitry Vyukov,
// "Scalable Go Scheduler Design", 2012). Adding P gave each processor its own
// lock-free queue (runq.go) and its own caches (free Gs here), made work
// stealing possible (findrunnable.go), and let an M blocked in a system call
// hand its P to another M instead of holding the right to run Go code while
// doing nothing with it (syscall.go, sysmon.go).
//
// # The scheduling loop
//
// Each M runs schedule (proc.go): findRunnable picks a G — local queue,
// global queue, stealing, else park the M — and execute runs it until the G
// gives control back. The G gives it back by mcall, naming a handler the M
// runs on its own stack: park_m (blocked), goschedImpl (yielded or
// preempted), goexit0 (finished), exitsyscall0 (back from a system call with
// no P). Submitting work calls wakep, which starts a spinning M if a P is
// idle and nobody is spinning yet (spinning.go).
//
// # How it runs on real threads
//
// An M is a Go goroutine running the scheduling loop; Go's own scheduler maps
// those goroutines onto OS threads, so the Ms run in parallel as far as the
// host's GOMAXPROCS allows. An M parks on a note (note.go): a channel with
// room for one token, portable to every OS Go runs on.
//
// A G is a coroutine (iter.Pull, coro.go): resuming it switches the M's
// goroutine straight to the G's stack and back, ~70ns for the round trip,
// where handing control between two goroutines costs ~250ns. Any M may
// resume any G. Ms are deliberately not locked to OS threads
// (runtime.LockOSThread): a coroutine created on a locked thread cannot be
// resumed from another one (runtime/coro.go), which is exactly what work
// stealing does, and a locked hand-off costs ~30µs.
//
// Preemption is cooperative: sysmon sets a G's preempt flag, and the G yields
// at its next safe point — any call into this package's API (Safepoint, Go,
// channel operations, ...). The runtime checks the same flag in every
// function prologue, and since Go 1.14 also interrupts tight loops with a
// signal; a G here that loops without a safe point is never preempted.
//
// # Which scheduler it models
//
// The model is Go 1.25's, which the course's sources describe: during a
// system call the P goes _Psyscall and sysmon takes it back with a CAS. Go
// 1.26 removed _Psyscall: the P stays _Prunning, wired to its M, and sysmon
// and stop-the-world take it back through the G's status instead
// (setBlockOnExitSyscall). Everything else mirrors Go 1.26.8, and comments
// cite its source by line ("Mirrors runqput (proc.go:7478)"); a test checks
// the citations. Go 1.26's split of globrunqget into globrunqget and
// globrunqgetbatch, and runqputbatch leaving its overflow to the caller, are
// followed.
//
// # Locks and memory order
//
// sched.lock guards the idle M and P lists, the global run queue and the
// counts checkdead reads. Each P's ring is lock-free: the owner writes the
// tail with a store-release, anyone advances the head with a CAS, and the
// ring's slots are atomic pointers — the runtime's plain slots are a data
// race (a thief may read a slot the owner is overwriting, and then loses its
// CAS); the runtime is not race-instrumented, this package is, and the course
// makes a lesson of it. Where the runtime reads a field racily as a hint
// (the global queue's size, a P's status from sysmon), this package uses an
// atomic.
//
// # What differs from the runtime, and why
//
//   - Several Runtimes can exist in one process, so the runtime's globals
//     (sched, allp, allm, gomaxprocs, ...) live in schedt.
//   - A G's panic ends Wait with a *PanicError instead of crashing the
//     process; a deadlock ends it with a *DeadlockError. A broken scheduler
//     invariant still panics, as the runtime throws.
//   - Timers live in one heap, not one per P; the M waiting for the next one
//     stands where the runtime blocks in netpoll.
//   - A G owns one sudog (there is no select), and channels, Mutex and
//     WaitGroup are simplified versions of chan.go and sema.go.
//   - No GC, no LockOSThread, no async preemption, no cgo.
package sched
