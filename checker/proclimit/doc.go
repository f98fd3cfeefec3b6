// Package proclimit bounds a helper process that kata starts on untrusted
// input (git on a submission's repository): its memory and its CPU time,
// as the sandbox bounds a test run, so that a repository built to make
// git grow (a tree object that inflates to gigabytes) fails in git, with
// a message, instead of taking the machine's memory.
//
// What holds where:
//
//   - Linux: the limits are set on the process as soon as it has started
//     (prlimit(2)): RLIMIT_DATA (its heap and every private writable
//     mapping: what inflating an object allocates) to Limits.Memory,
//     RLIMIT_AS (its whole address space: libraries, stacks and the
//     read-only mappings of pack files as well) to Limits.Address (for
//     git, Limits.Memory plus AddressSlack; none for a Go program, which
//     reserves far more than it uses), and RLIMIT_CPU to Limits.CPU (SIGXCPU, then SIGKILL a
//     second later). What the process allocated in the microseconds
//     before the limits were set (its start-up, a few MB) stays; every
//     allocation after is held to them. Peak reads the largest resident
//     size the process reached (getrusage's ru_maxrss).
//   - Not for kata's own children (the vetter's, package vet): a program
//     built with the race detector, as kata's tests are, maps terabytes
//     of writable shadow memory, which RLIMIT_DATA counts, and dies at
//     its next mapping ("ThreadSanitizer failed to allocate"); the
//     vetter's child keeps its memory limit by watching itself.
//   - Other systems: nothing sets another process's limits (macOS and the
//     BSDs have no prlimit; Windows would need a job object), so Set does
//     nothing and Supported is false. There, what bounds a helper is kata's
//     wall-clock timeout and the bytes kata reads of its output; its
//     memory is bounded by the machine's. Appendix D of the book says so.
package proclimit
