package sched

// This file is the global run queue: lesson 03-globrunqget. It mirrors
// globrunqput, globrunqputhead, globrunqputbatch, globrunqget and
// globrunqgetbatch (proc.go, Go 1.26: 7249-7310).
//
// The global queue is a plain FIFO under sched.lock. Gs arrive there from
// Gosched and preemption, from a full local ring (runqputslow), from Ms
// leaving a system call without finding a P, and from destroyed Ps. Every P
// looks at it when its own queue is empty, and once every 61 schedule ticks
// even when it is not (findRunnable), so that nothing waits there forever.

// globrunqput puts gp on the tail of the global run queue.
//
// Mirrors globrunqput (proc.go:7249). sched.lock must be held.
func (sched *schedt) globrunqput(gp *g) {
	// TODO(03-globrunqget): write globrunqput as its comment above says.
	// Stuck? Run: kata hint 03-globrunqget
	panic("not implemented: globrunqput")
}

// globrunqputhead puts gp at the head of the global run queue, to run
// before everything already there (procresize uses it for the Gs of a
// destroyed P).
//
// Mirrors globrunqputhead (proc.go:7260). sched.lock must be held.
func (sched *schedt) globrunqputhead(gp *g) {
	// TODO(03-globrunqget): write globrunqputhead as its comment above says.
	// Stuck? Run: kata hint 03-globrunqget
	panic("not implemented: globrunqputhead")
}

// globrunqputbatch puts a batch of Gs on the tail of the global run queue
// and empties batch.
//
// Mirrors globrunqputbatch (proc.go:7272). sched.lock must be held.
func (sched *schedt) globrunqputbatch(batch *gQueue) {
	// TODO(03-globrunqget): write globrunqputbatch as its comment above says.
	// Stuck? Run: kata hint 03-globrunqget
	panic("not implemented: globrunqputbatch")
}

// globrunqget takes one G from the head of the global run queue, or returns
// nil if it is empty. The every-61-ticks fairness check uses it: one G is
// enough to stop the global queue starving.
//
// Mirrors globrunqget (proc.go:7281). sched.lock must be held.
func (sched *schedt) globrunqget() *g {
	// TODO(03-globrunqget): write globrunqget as its comment above says.
	// Stuck? Run: kata hint 03-globrunqget
	panic("not implemented: globrunqget")
}

// globrunqgetbatch takes a batch from the head of the global run queue: gp
// to run now, and q for the caller's local ring. The batch is a fair share
// of the queue, never more than n:
//
//	min(n, size, size/gomaxprocs + 1)
//
// size/gomaxprocs so that one P does not take what the others would find;
// + 1 so that a P always takes something from a non-empty queue. Callers
// pass n = len(runq)/2 so the batch fits in their ring with room to spare.
//
// Mirrors globrunqgetbatch (proc.go:7293); Go 1.25 had globrunqget(pp, max)
// instead. sched.lock must be held.
func (sched *schedt) globrunqgetbatch(n int32) (gp *g, q gQueue) {
	// TODO(03-globrunqget): write globrunqgetbatch as its comment above says.
	// Stuck? Run: kata hint 03-globrunqget
	panic("not implemented: globrunqgetbatch")
}
