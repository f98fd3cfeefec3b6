package sched

import "strconv"

// The global run queue taking its batch into a slice first, then linking
// it into the caller's queue; the count of Gs is checked against the
// queue's size, with a message that says both (strconv).

func (sched *schedt) globrunqput(gp *g) {
	sched.assertLockHeld("globrunqput")
	sched.runq.pushBack(gp)
}

func (sched *schedt) globrunqputhead(gp *g) {
	sched.assertLockHeld("globrunqputhead")
	sched.runq.push(gp)
}

func (sched *schedt) globrunqputbatch(batch *gQueue) {
	sched.assertLockHeld("globrunqputbatch")
	b := *batch
	*batch = gQueue{}
	sched.runq.pushBackAll(b)
}

func (sched *schedt) globrunqget() *g {
	sched.assertLockHeld("globrunqget")
	if sched.runq.size > 0 {
		return sched.runq.pop()
	}
	return nil
}

func (sched *schedt) globrunqgetbatch(n int32) (*g, gQueue) {
	sched.assertLockHeld("globrunqgetbatch")
	size := sched.runq.size
	if size == 0 {
		return nil, gQueue{}
	}
	n = min(n, size, size/sched.gomaxprocs.Load()+1)
	gs := make([]*g, 0, max(n, 1))
	gs = append(gs, sched.runq.pop())
	for int32(len(gs)) < n {
		gp := sched.runq.pop()
		if gp == nil {
			panic("globrunqgetbatch: the global queue said " + strconv.Itoa(int(size)) + " Gs but ran out after " + strconv.Itoa(len(gs)))
		}
		gs = append(gs, gp)
	}
	var q gQueue
	for _, gp := range gs[1:] {
		q.pushBack(gp)
	}
	return gs[0], q
}
