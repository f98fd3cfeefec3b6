// Command plainslots runs one thief against the owner of a run-queue ring
// built as the runtime builds it, to show what the race detector says of
// the ring's slots. With plain slots, as the runtime's runq [256]guintptr,
// the thief's read of a slot before its CAS (runqgrab does that) is a data
// race with the owner reusing the slot; with -atomic, slots of
// atomic.Pointer as the reference's, it is not. TestPlainSlotsAreARace in
// package sched runs it both ways under -race.
//
// The interleaving is forced, not hoped for: the thief loads the head and
// tail, tells the owner so, and reads the slot; the owner fills the ring,
// takes that G itself and puts one more, into the same slot. The
// thief releases nothing to the owner after its read (its CAS fails), so
// the read and the owner's rewrite are unordered by the memory model
// whichever comes first in time, and -race reports them every run.
//
// It is not the course's ring: no overflow, no batches, one G per steal.
package main

import (
	"flag"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// g stands for a goroutine.
type g struct{ id int }

// slots is the ring's array.
type slots interface {
	load(i uint32) *g
	store(i uint32, gp *g)
}

// plainSlots are the runtime's slots: plain words.
type plainSlots [256]*g

func (s *plainSlots) load(i uint32) *g      { return s[i%256] }
func (s *plainSlots) store(i uint32, gp *g) { s[i%256] = gp }

// atomicSlots are the reference's slots: atomic pointers.
type atomicSlots [256]atomic.Pointer[g]

func (s *atomicSlots) load(i uint32) *g      { return s[i%256].Load() }
func (s *atomicSlots) store(i uint32, gp *g) { s[i%256].Store(gp) }

// ring is a P's run queue: free-running counters and 256 slots.
type ring struct {
	head, tail atomic.Uint32
	slots      slots
}

// put is the owner's put at the tail: fill the slot, then publish it by
// storing the new tail. A thief that loads the tail and sees t+1 also sees
// what was stored in slot t.
func (r *ring) put(gp *g) {
	h := r.head.Load()
	t := r.tail.Load()
	if t-h == 256 {
		panic("put: the ring is full")
	}
	r.slots.store(t, gp)
	r.tail.Store(t + 1)
}

// take is the owner's take at the head: read the slot, then claim it by
// moving the head with a CAS; a failed CAS means someone else took it.
func (r *ring) take() *g {
	for {
		h := r.head.Load()
		t := r.tail.Load()
		if t == h {
			return nil
		}
		gp := r.slots.load(h)
		if r.head.CompareAndSwap(h, h+1) {
			return gp
		}
	}
}

// thief steals one G as runqgrab does: load the head and the tail, read
// the slot, and only then try to move the head past it. Here the owner is
// let in between the read and the CAS, so the CAS fails and the G read is
// thrown away, as in the runtime when the race goes the owner's way.
// It waits by sleeping, not spinning: the race detector reports a race
// only while it can still find the earlier access in that goroutine's
// recent history, and a spin of atomic loads pushes the read out of it
// (spinning, about one run in six reported nothing).
func thief(r *ring, loaded *atomic.Bool) (gp *g, took bool) {
	h := r.head.Load()
	if r.tail.Load() == h {
		return nil, false
	}
	loaded.Store(true)   // the owner may go on; nothing after this is released to it
	gp = r.slots.load(h) // the read runqgrab makes before its CAS
	for r.head.Load() == h {
		time.Sleep(50 * time.Microsecond)
	}
	return gp, r.head.CompareAndSwap(h, h+1)
}

// owner fills the rest of the ring (slots 1 to 255), takes the G the
// thief is reading, and puts one more G: it goes into slot 0, the slot the
// thief read, which the owner may reuse once the head has moved past it.
func owner(r *ring, loaded *atomic.Bool) {
	for !loaded.Load() {
		runtime.Gosched()
	}
	for i := range 255 {
		r.put(&g{id: 2 + i})
	}
	r.take()
	r.put(&g{id: 257})
}

func main() {
	useAtomic := flag.Bool("atomic", false, "slots of atomic.Pointer, as the reference's, instead of plain pointers")
	flag.Parse()
	r := &ring{slots: new(plainSlots)}
	if *useAtomic {
		r.slots = new(atomicSlots)
	}
	r.put(&g{id: 1})

	var (
		loaded atomic.Bool
		wg     sync.WaitGroup
		gp     *g
		took   bool
	)
	wg.Add(2)
	go func() { defer wg.Done(); gp, took = thief(r, &loaded) }()
	go func() { defer wg.Done(); owner(r, &loaded) }()
	wg.Wait()
	if took {
		fmt.Printf("the thief took G %d\n", gp.id)
	} else {
		fmt.Printf("the thief read G %d, lost its CAS and threw it away\n", gp.id)
	}
}
