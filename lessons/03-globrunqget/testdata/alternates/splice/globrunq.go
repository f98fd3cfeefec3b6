package sched

// An alternate globrunq.go: the Gs are linked by hand instead of through
// gQueue's methods, a batch is cut off the head of the global queue in one
// splice, and each change is told by calling the queue's changed (which
// stores the size hint and emits the trace's EvGlobalRunq) by hand: a cut
// batch as one event, where the reference's pops tell one per G.

// globrunqput puts gp on the tail of the global run queue.
func (sched *schedt) globrunqput(gp *g) {
	sched.assertLockHeld("globrunqput")
	q := &sched.runq
	gp.schedlink = nil
	if q.tail == nil {
		q.head = gp
	} else {
		q.tail.schedlink = gp
	}
	q.tail = gp
	q.size++
	q.changed(gp, 1)
}

// globrunqputhead puts gp at the head of the global run queue.
func (sched *schedt) globrunqputhead(gp *g) {
	sched.assertLockHeld("globrunqputhead")
	q := &sched.runq
	gp.schedlink = q.head
	q.head = gp
	if q.tail == nil {
		q.tail = gp
	}
	q.size++
	q.changed(gp, 1)
}

// globrunqputbatch moves the Gs of batch, in order, to the tail of the
// global run queue, one at a time; popping them leaves batch empty.
func (sched *schedt) globrunqputbatch(batch *gQueue) {
	sched.assertLockHeld("globrunqputbatch")
	for !batch.empty() {
		sched.globrunqput(batch.pop())
	}
}

// globrunqget takes the head of the global run queue, or nil.
func (sched *schedt) globrunqget() *g {
	sched.assertLockHeld("globrunqget")
	gp, _ := globrunqcut(sched, 1)
	return gp
}

// globrunqgetbatch takes a fair share of the global run queue, at most n.
func (sched *schedt) globrunqgetbatch(n int32) (*g, gQueue) {
	sched.assertLockHeld("globrunqgetbatch")
	size := sched.runq.size
	take := size/sched.gomaxprocs.Load() + 1
	if take > size {
		take = size
	}
	if take > n {
		take = n
	}
	return globrunqcut(sched, take)
}

// globrunqcut cuts the first k Gs off the global queue: the first is
// returned alone, the others as a queue.
func globrunqcut(sched *schedt, k int32) (gp *g, rest gQueue) {
	q := &sched.runq
	if k <= 0 || q.head == nil {
		return nil, rest
	}
	gp = q.head
	last := gp
	for i := int32(1); i < k; i++ {
		last = last.schedlink
	}
	q.head = last.schedlink
	if q.head == nil {
		q.tail = nil
	}
	q.size -= k
	q.changed(gp, -k)
	if k > 1 {
		rest = gQueue{head: gp.schedlink, tail: last, size: k - 1}
	}
	last.schedlink = nil
	gp.schedlink = nil
	return gp, rest
}
