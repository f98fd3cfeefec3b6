//go:build kata_interleave

package sched

import (
	"sync"
	"sync/atomic"
)

// What a goroutine did to rings' heads and tails, as it did it: a test
// judges a thief's steal by the head and tail the thief read, not by a
// state the test looked at before or after. On real threads a file cannot
// tell this test from another, and the recorder changes nothing it sees:
// a runqgrab that took the smaller half only when it saw other threads
// at work (a twenty-fifth red team's, 100 for a ring that earns 44) is
// caught where it does so.

// kitRingOp is one operation of a ring's head or tail (setRingIndexHook).
type kitRingOp struct {
	at       *atomicRingIndex
	op       ringOp
	old, new uint32
}

// kitRingLog is what one goroutine did, in order. Only that goroutine
// writes it (the hook runs on the goroutine that made the operation), so
// it reads it without a lock; it empties it with ops = ops[:0].
type kitRingLog struct{ ops []kitRingOp }

// kitRingLogs holds the recording goroutines (kitSelf) and their logs.
// The hook reads them without a lock: a table is published, never
// changed, and a new one replaces it under mu. A table is a short list,
// not a map: the hook runs before every operation of every goroutine on a
// ring's head or tail, and a look through a few entries costs the
// real-thread tests less than a map's lookup under the race detector
// (TestL01ConcurrentSteal 0.78 s with a map, against 0.60 s without the
// hook). Where kitSelf is the thread's ID (self_linux_test.go), a
// recording goroutine is locked to its thread (kitBind) and leaves the
// table before it unlocks it, so no other goroutine's operation is
// recorded in its log.
var kitRingLogs struct {
	mu    sync.Mutex
	table atomic.Pointer[[]kitRingRecorder]
	old   func(a *atomicRingIndex, op ringOp, old, new uint32)
}

type kitRingRecorder struct {
	id  uint64
	log *kitRingLog
}

// kitRecordRings records from now on what the calling goroutine does to
// rings' heads and tails, in the log it returns, until it calls stop.
func kitRecordRings() (log *kitRingLog, stop func()) {
	unbind := kitBind()
	log = &kitRingLog{}
	kitRingLogs.mu.Lock()
	id := kitSelf()
	var table []kitRingRecorder
	if old := kitRingLogs.table.Load(); old != nil {
		table = append(table, *old...)
	} else {
		kitRingLogs.old = setRingIndexHook(kitRingHook)
	}
	table = append(table, kitRingRecorder{id, log})
	kitRingLogs.table.Store(&table)
	kitRingLogs.mu.Unlock()
	return log, func() {
		kitRingLogs.mu.Lock()
		var table []kitRingRecorder
		for _, r := range *kitRingLogs.table.Load() {
			if r.id != id {
				table = append(table, r)
			}
		}
		if len(table) == 0 {
			kitRingLogs.table.Store(nil)
			setRingIndexHook(kitRingLogs.old)
			kitRingLogs.old = nil
		} else {
			kitRingLogs.table.Store(&table)
		}
		kitRingLogs.mu.Unlock()
		unbind()
	}
}

// kitRingHook is ringIndexHook while any goroutine records.
func kitRingHook(a *atomicRingIndex, op ringOp, old, new uint32) {
	if table := kitRingLogs.table.Load(); table != nil {
		self := kitSelf()
		for _, r := range *table {
			if r.id == self {
				r.log.ops = append(r.log.ops, kitRingOp{a, op, old, new})
				return
			}
		}
	}
}

// kitStealRead finds, in what a thief did, the steal it committed from
// victim's ring: the last CompareAndSwap of victim's head that succeeded
// (head is the value it replaced, took how far it moved the head), and
// the tails the thief read between its first read of that head and the
// CompareAndSwap, in order. Every read of the head in between returned
// the same value (a head only grows), so a thief that read it again, to
// check it had not moved, still read these tails with it. ok is false if
// no steal was committed.
func kitStealRead(ops []kitRingOp, victim *p) (head, took uint32, tails []uint32, ok bool) {
	cas := -1
	for i, o := range ops {
		if o.at == &victim.runqhead && o.op == ringCAS {
			cas = i
		}
	}
	if cas < 0 {
		return 0, 0, nil, false
	}
	head, took = ops[cas].old, ops[cas].new-ops[cas].old
	from := cas
	for i, o := range ops[:cas] {
		if o.at == &victim.runqhead && o.op == ringLoad && o.new == head {
			from = i + 1
			break
		}
	}
	for _, o := range ops[from:cas] {
		if o.at == &victim.runqtail && o.op == ringLoad {
			tails = append(tails, o.new)
		}
	}
	return head, took, tails, true
}
