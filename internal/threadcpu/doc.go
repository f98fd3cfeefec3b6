// Package threadcpu measures the CPU time one piece of work costs, for the
// tests that show kata's parsers of untrusted input stay linear: they
// compare the cost of two sizes of input, and a busy machine's wait for a
// core must not count as work.
//
// On Linux, Of reads the calling thread's CPU clock (CLOCK_THREAD_CPUTIME_ID)
// around f, on a locked thread; elsewhere the wall clock stands for it.
package threadcpu
