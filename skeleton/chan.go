package sched

import (
	"sync"
	"unsafe"
)

// This file is channels, built on gopark and goready: a simplified chan.go
// (no select). What it keeps of the runtime's is what the scheduler sees:
// waiters queue as sudogs; a send to a waiting receiver copies the value
// straight into the receiver and readies it into the sender's runnext (the
// ping-pong that runnext exists for); a G that must wait parks with the
// channel lock released by park_m, not before.

// A sudog is a G waiting on a wait queue (runtime2.go sudog).
type sudog struct {
	g          *g
	next, prev *sudog
	elem       unsafe.Pointer // the value to send, or where to receive
	success    bool           // woken by a value delivered, not by close
	inUse      bool
}

// acquireSudog returns gp's sudog. The runtime keeps per-P sudog caches
// because select makes one G wait on many channels; without select a G waits
// on one thing at a time, so one sudog per G is enough.
func acquireSudog(gp *g) *sudog {
	sg := &gp.sg
	if sg.inUse {
		panic("acquireSudog: G already waiting")
	}
	sg.inUse = true
	sg.g = gp
	return sg
}

// releaseSudog returns gp's sudog.
func releaseSudog(sg *sudog) {
	if sg.next != nil || sg.prev != nil {
		panic("releaseSudog: sudog still on a wait queue")
	}
	*sg = sudog{}
}

// A waitq is a FIFO of waiting Gs.
type waitq struct {
	first, last *sudog
}

func (q *waitq) enqueue(sg *sudog) {
	sg.next = nil
	sg.prev = q.last
	if q.last == nil {
		q.first = sg
	} else {
		q.last.next = sg
	}
	q.last = sg
}

func (q *waitq) dequeue() *sudog {
	sg := q.first
	if sg == nil {
		return nil
	}
	q.first = sg.next
	if q.first == nil {
		q.last = nil
	} else {
		q.first.prev = nil
	}
	sg.next, sg.prev = nil, nil
	return sg
}

// parkunlock is the unlockf of a G that parks holding a sync.Mutex: the
// mutex is released only once the G is _Gwaiting.
//
// Mirrors parkunlock_c (proc.go:4247).
func parkunlock(gp *g, lock unsafe.Pointer) bool {
	(*sync.Mutex)(lock).Unlock()
	return true
}

// chanCell returns gp's cell for values of type T, making it the first time
// gp blocks on a Chan[T]. A G blocks on one channel at a time, so one cell
// (of the last type used) is enough.
func chanCell[T any](gp *g) *T {
	if p, ok := gp.cell.(*T); ok {
		return p
	}
	p := new(T)
	gp.cell = p
	return p
}

// A Chan is a channel between Gs of one Runtime. Make it with NewChan.
type Chan[T any] struct {
	lock   sync.Mutex
	buf    []T // circular buffer of len == capacity
	qcount int // values in buf
	sendx  int
	recvx  int
	closed bool
	recvq  waitq // blocked receivers
	sendq  waitq // blocked senders
}

// NewChan returns a channel with room for size buffered values (0:
// unbuffered).
func NewChan[T any](size int) *Chan[T] {
	if size < 0 {
		panic("sched: NewChan: size out of range")
	}
	return &Chan[T]{buf: make([]T, size)}
}

// Len returns the number of values buffered in c.
func (c *Chan[T]) Len() int {
	c.lock.Lock()
	defer c.lock.Unlock()
	return c.qcount
}

// Cap returns c's buffer size.
func (c *Chan[T]) Cap() int {
	return len(c.buf)
}

// Send sends v on c, blocking the calling G until a receiver takes it or
// there is room in the buffer. Sending on a closed channel panics.
//
// Mirrors chansend (chan.go). gp must be the calling G.
func (c *Chan[T]) Send(gp *G, v T) {
	gp.checkRunning("Chan.Send")
	gp.Safepoint()
	c.lock.Lock()
	if c.closed {
		c.lock.Unlock()
		panic("send on closed channel")
	}
	if sg := c.recvq.dequeue(); sg != nil {
		// Found a waiting receiver. Pass the value directly to it,
		// bypassing the buffer, and run it next on this P.
		*(*T)(sg.elem) = v
		sg.success = true
		c.lock.Unlock()
		goready(gp.m, sg.g)
		return
	}
	if c.qcount < len(c.buf) {
		c.buf[c.sendx] = v
		c.sendx = (c.sendx + 1) % len(c.buf)
		c.qcount++
		c.lock.Unlock()
		return
	}

	// Block on the channel. Some receiver will complete our operation for
	// us.
	cell := chanCell[T](gp)
	*cell = v
	mysg := acquireSudog(gp)
	mysg.elem = unsafe.Pointer(cell)
	gp.waiting = mysg
	c.sendq.enqueue(mysg)
	gopark(gp, parkunlock, unsafe.Pointer(&c.lock), waitReasonChanSend)

	// Someone woke us up.
	closed := !mysg.success
	gp.waiting = nil
	releaseSudog(mysg)
	var zero T
	*cell = zero // don't keep the value alive
	if closed {
		panic("send on closed channel")
	}
}

// Recv receives a value from c, blocking the calling G until one is there.
// ok is false if c is closed and drained.
//
// Mirrors chanrecv (chan.go). gp must be the calling G.
func (c *Chan[T]) Recv(gp *G) (v T, ok bool) {
	gp.checkRunning("Chan.Recv")
	gp.Safepoint()
	c.lock.Lock()
	if c.closed && c.qcount == 0 {
		c.lock.Unlock()
		return v, false
	}
	if sg := c.sendq.dequeue(); sg != nil {
		// Found a waiting sender. If the buffer is size 0, receive the
		// value directly from the sender. Otherwise, receive from the head
		// of the queue and add the sender's value to the tail (both map to
		// the same buffer slot because the queue is full).
		if len(c.buf) == 0 {
			v = *(*T)(sg.elem)
		} else {
			v = c.buf[c.recvx]
			c.buf[c.recvx] = *(*T)(sg.elem)
			c.recvx = (c.recvx + 1) % len(c.buf)
			c.sendx = c.recvx
		}
		sg.success = true
		c.lock.Unlock()
		goready(gp.m, sg.g)
		return v, true
	}
	if c.qcount > 0 {
		var zero T
		v = c.buf[c.recvx]
		c.buf[c.recvx] = zero
		c.recvx = (c.recvx + 1) % len(c.buf)
		c.qcount--
		c.lock.Unlock()
		return v, true
	}

	// No sender available: block on this channel.
	cell := chanCell[T](gp)
	mysg := acquireSudog(gp)
	mysg.elem = unsafe.Pointer(cell)
	gp.waiting = mysg
	c.recvq.enqueue(mysg)
	gopark(gp, parkunlock, unsafe.Pointer(&c.lock), waitReasonChanReceive)

	// Someone woke us up.
	ok = mysg.success
	gp.waiting = nil
	releaseSudog(mysg)
	v = *cell
	var zero T
	*cell = zero // don't keep the value alive
	return v, ok
}

// Close closes c: blocked receivers get the zero value and ok == false,
// blocked senders panic. Closing a closed channel panics.
//
// Mirrors closechan (chan.go). gp must be the calling G.
func (c *Chan[T]) Close(gp *G) {
	gp.checkRunning("Chan.Close")
	c.lock.Lock()
	if c.closed {
		c.lock.Unlock()
		panic("close of closed channel")
	}
	c.closed = true

	var glist gList
	// Release all readers.
	for sg := c.recvq.dequeue(); sg != nil; sg = c.recvq.dequeue() {
		var zero T
		*(*T)(sg.elem) = zero
		sg.success = false
		glist.push(sg.g)
	}
	// Release all writers (they will panic).
	for sg := c.sendq.dequeue(); sg != nil; sg = c.sendq.dequeue() {
		sg.success = false
		glist.push(sg.g)
	}
	c.lock.Unlock()

	// Ready all Gs now that we've dropped the channel lock.
	for !glist.empty() {
		goready(gp.m, glist.pop())
	}
}
