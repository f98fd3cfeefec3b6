package sched

// This file mirrors the runtime's gQueue and gList (proc.go): intrusive
// queues of Gs linked through g.schedlink. A G can be on only one of them at
// a time. Neither is safe for concurrent use: the owner's lock guards them.

// A gQueue is a FIFO of Gs linked through g.schedlink.
type gQueue struct {
	head *g
	tail *g
	size int32
}

// empty reports whether q is empty.
func (q *gQueue) empty() bool {
	return q.head == nil
}

// push adds gp to the head of q.
func (q *gQueue) push(gp *g) {
	gp.schedlink = q.head
	q.head = gp
	if q.tail == nil {
		q.tail = gp
	}
	q.size++
}

// pushBack adds gp to the tail of q.
func (q *gQueue) pushBack(gp *g) {
	gp.schedlink = nil
	if q.tail != nil {
		q.tail.schedlink = gp
	} else {
		q.head = gp
	}
	q.tail = gp
	q.size++
}

// pushBackAll adds all Gs of q2 to the tail of q. q2 must not be used
// afterwards.
func (q *gQueue) pushBackAll(q2 gQueue) {
	if q2.tail == nil {
		return
	}
	q2.tail.schedlink = nil
	if q.tail != nil {
		q.tail.schedlink = q2.head
	} else {
		q.head = q2.head
	}
	q.tail = q2.tail
	q.size += q2.size
}

// pop removes and returns the head of q, or nil if q is empty.
func (q *gQueue) pop() *g {
	gp := q.head
	if gp != nil {
		q.head = gp.schedlink
		if q.head == nil {
			q.tail = nil
		}
		gp.schedlink = nil
		q.size--
	}
	return gp
}

// A gList is a LIFO stack of Gs linked through g.schedlink.
type gList struct {
	head *g
	size int32
}

// empty reports whether l is empty.
func (l *gList) empty() bool {
	return l.head == nil
}

// push adds gp to the head of l.
func (l *gList) push(gp *g) {
	gp.schedlink = l.head
	l.head = gp
	l.size++
}

// pop removes and returns the head of l, or nil if l is empty.
func (l *gList) pop() *g {
	gp := l.head
	if gp != nil {
		l.head = gp.schedlink
		gp.schedlink = nil
		l.size--
	}
	return gp
}

// globalRunq is the global run queue: a gQueue guarded by sched.lock, plus a
// copy of its size that may be read without the lock. The runtime reads
// sched.runq.size unlocked, as a hint, and accepts the data race; here the
// hint is atomic so that the race detector has nothing to report. Decisions
// are always re-made under the lock.
//
// Every change is also traced (EvGlobalRunq), so that a timeline can draw
// the queue's length: the global queue is where overflowing rings,
// yielding and preempted Gs, and the Gs of destroyed Ps all meet.
type globalRunq struct {
	gQueue
	sizeHint atomicInt32
	sched    *schedt // for the trace; nil in tests that build a bare schedt
}

// emptyHint reports whether the queue looked empty; call without the lock.
func (q *globalRunq) emptyHint() bool {
	return q.sizeHint.Load() == 0
}

func (q *globalRunq) push(gp *g) {
	q.gQueue.push(gp)
	q.changed(gp, 1)
}

func (q *globalRunq) pushBack(gp *g) {
	q.gQueue.pushBack(gp)
	q.changed(gp, 1)
}

func (q *globalRunq) pushBackAll(q2 gQueue) {
	q.gQueue.pushBackAll(q2)
	q.changed(q2.head, q2.size)
}

func (q *globalRunq) pop() *g {
	gp := q.gQueue.pop()
	if gp != nil {
		q.changed(gp, -1)
	}
	return gp
}

// changed publishes the new size after n Gs (gp first) came or went.
func (q *globalRunq) changed(gp *g, n int32) {
	q.sizeHint.Store(q.size)
	if n != 0 && q.sched != nil && q.sched.trace != nil {
		var goid int64
		if gp != nil {
			goid = gp.goid
		}
		q.sched.emit(Event{Kind: EvGlobalRunq, G: goid, P: -1, M: -1, Arg: int64(q.size), N: int64(n)})
	}
}
