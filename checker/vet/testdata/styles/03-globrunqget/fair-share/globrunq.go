package sched

// The global run queue with the batch size in a function of its own
// (fairShare, a plain computation a reader can check against the
// formula), the lock check in one helper, and the batch taken by a
// range loop.

// held panics, as the reference does under Config.Debug, if sched.lock is
// not held by the caller of what.
func held(sched *schedt, what string) { sched.assertLockHeld(what) }

// fairShare is how many Gs a P takes from a global queue of size Gs
// shared by procs Ps, when it asks for at most n:
// min(n, size, size/procs + 1).
func fairShare(n, size, procs int32) int32 {
	share := size/procs + 1
	if size < share {
		share = size
	}
	if n < share {
		share = n
	}
	return share
}

func (sched *schedt) globrunqput(gp *g) {
	held(sched, "globrunqput")
	sched.runq.pushBack(gp)
}

func (sched *schedt) globrunqputhead(gp *g) {
	held(sched, "globrunqputhead")
	sched.runq.push(gp)
}

func (sched *schedt) globrunqputbatch(batch *gQueue) {
	held(sched, "globrunqputbatch")
	if batch.empty() {
		return
	}
	sched.runq.pushBackAll(*batch)
	*batch = gQueue{}
}

func (sched *schedt) globrunqget() *g {
	held(sched, "globrunqget")
	if sched.runq.empty() {
		return nil
	}
	return sched.runq.pop()
}

func (sched *schedt) globrunqgetbatch(n int32) (gp *g, q gQueue) {
	held(sched, "globrunqgetbatch")
	if sched.runq.empty() {
		return nil, gQueue{}
	}
	take := fairShare(n, sched.runq.size, sched.gomaxprocs.Load())
	gp = sched.runq.pop()
	for range take - 1 {
		q.pushBack(sched.runq.pop())
	}
	return gp, q
}
