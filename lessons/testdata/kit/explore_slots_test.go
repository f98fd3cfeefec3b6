//go:build kata_interleave

package sched

// How a scheduling point knows which explorer's worker made it, cheaply.
// kitInterleave binds its threads to OS threads and asks the thread's ID
// (gettid); the explorer cannot: a hand-over between two bound threads is
// two switches of the OS's, which on a busy machine were most of an
// exploration's time (lesson 01's explorations: 2.9 s bound, see below).
// The goroutine's ID (runtime.Stack) costs a traceback and the runtime's
// print lock at every point (24 s). So each worker goroutine starts in an
// entry function of its own, one per slot (kitSlotFuncs), and a point
// unwinds its stack (runtime.Callers: no printing, no lock) to the
// goroutine's first function: if it is a slot's entry, that slot's worker
// made the point. A goroutine that is not a worker (the test's, or a
// scheduler's left over from another test) starts elsewhere and goes on.
//
// A pool takes a free slot per worker, all at once, and gives them back at
// the end; when too few are free (more explorations at once than a small
// host runs), it waits.

import (
	"fmt"
	"reflect"
	"runtime"
	"sync"
)

var kitSlotFuncs [12]func(*kitExWorker)

func init() { // in init: the slots' functions lead back to kitSlotFuncs
	kitSlotFuncs = [...]func(*kitExWorker){
		kitSlot0, kitSlot1, kitSlot2, kitSlot3, kitSlot4, kitSlot5,
		kitSlot6, kitSlot7, kitSlot8, kitSlot9, kitSlot10, kitSlot11,
	}
}

//go:noinline
func kitSlot0(w *kitExWorker) { w.loop() }

//go:noinline
func kitSlot1(w *kitExWorker) { w.loop() }

//go:noinline
func kitSlot2(w *kitExWorker) { w.loop() }

//go:noinline
func kitSlot3(w *kitExWorker) { w.loop() }

//go:noinline
func kitSlot4(w *kitExWorker) { w.loop() }

//go:noinline
func kitSlot5(w *kitExWorker) { w.loop() }

//go:noinline
func kitSlot6(w *kitExWorker) { w.loop() }

//go:noinline
func kitSlot7(w *kitExWorker) { w.loop() }

//go:noinline
func kitSlot8(w *kitExWorker) { w.loop() }

//go:noinline
func kitSlot9(w *kitExWorker) { w.loop() }

//go:noinline
func kitSlot10(w *kitExWorker) { w.loop() }

//go:noinline
func kitSlot11(w *kitExWorker) { w.loop() }

var kitSlots struct {
	sync.Mutex
	free    sync.Cond
	workers [len(kitSlotFuncs)]*kitExWorker
	entries map[uintptr]int // entry PC of each slot's function -> slot
}

// kitSlotTake gives each of ws a free slot, all at once, waiting until
// there are enough: a pool that took some and waited for more could wait
// for ever on pools doing the same.
func kitSlotTake(ws []*kitExWorker) {
	kitSlots.Lock()
	defer kitSlots.Unlock()
	if kitSlots.entries == nil {
		kitSlots.free.L = &kitSlots.Mutex
		kitSlots.entries = map[uintptr]int{}
		for i, f := range kitSlotFuncs {
			kitSlots.entries[reflect.ValueOf(f).Pointer()] = i
		}
	}
	if len(ws) > len(kitSlots.workers) {
		panic(fmt.Sprintf("kitExplore: %d threads, more than its %s", len(ws), kitCount(int(len(kitSlots.workers)), "slot")))
	}
	for {
		var free []int
		for i, o := range kitSlots.workers {
			if o == nil {
				free = append(free, i)
			}
		}
		if len(free) >= len(ws) {
			for i, w := range ws {
				w.slot = free[i]
				kitSlots.workers[free[i]] = w
			}
			return
		}
		kitSlots.free.Wait()
	}
}

// kitSlotFree gives slot back.
func kitSlotFree(slot int) {
	kitSlots.Lock()
	kitSlots.workers[slot] = nil
	kitSlots.Unlock()
	kitSlots.free.Broadcast()
}

// kitExWorkerOf returns the explorer's worker whose goroutine calls it
// (through the hook), or nil.
func kitExWorkerOf() kitParticipant {
	var buf [64]uintptr
	pcs := buf[:runtime.Callers(1, buf[:])]
	for len(pcs) == len(buf) { // deeper than buf: unwind again, wider
		wide := make([]uintptr, 4*len(pcs))
		pcs = wide[:runtime.Callers(1, wide)]
	}
	// The last frame is runtime.goexit; the one before, the goroutine's
	// first function (the wrapper the go statement makes), then the slot's.
	kitSlots.Lock()
	defer kitSlots.Unlock()
	for i := len(pcs) - 2; i >= 0 && i >= len(pcs)-3; i-- {
		f := runtime.FuncForPC(pcs[i] - 1)
		if f == nil {
			continue
		}
		if slot, ok := kitSlots.entries[f.Entry()]; ok {
			if w := kitSlots.workers[slot]; w != nil {
				return w
			}
			return nil
		}
	}
	return nil
}
