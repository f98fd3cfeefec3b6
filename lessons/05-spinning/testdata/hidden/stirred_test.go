package sched

// Stirred questions of wakep, resetspinning and checkRunqsNoP (see the
// kit's stir_test.go). Each of these changes the scheduler it is asked in
// (it takes an idle P, wakes an M), so every question gets a world of its
// own, built afresh, and the stirrer moves whichever world the asker
// published last.

import (
	"fmt"
	"sync/atomic"
	"testing"
)

// An l05world is one question's world and the stir that moves what its
// answer does not depend on.
type l05world struct {
	sched *schedt
	step  func()
}

// l05stirWorlds is the stir of a stirred question whose asker publishes
// its worlds in cur: a step of the current world's stir, if there is one.
func l05stirWorlds(cur *atomic.Pointer[l05world]) func() {
	return func() {
		if w := cur.Load(); w != nil {
			w.step()
		}
	}
}

// l05newWorld returns sched's world, stirred: G id put on ring's ring and
// taken back (as ring's owner does; its ring must be empty), mask's P's bit
// of the live idle mask flipped and back, a G pushed onto the global queue
// and taken off, and every P's ticks, one step at a time.
func l05newWorld(sched *schedt, ring *p, mask int32, id int64) *l05world {
	gp := kitG(sched, id)
	put := func() { runqputtail(ring, gp) }
	get := func() { runqgethead(ring) }
	flip := kitStirMask(sched.idlepMask, mask)
	global := kitNewGlobalStir(sched, id+1)
	ticks := kitStirTicks(sched.allp...)
	return &l05world{sched: sched, step: kitStirCycle(
		put, flip[0], global.step, ticks[0],
		get, flip[1], global.step, ticks[1%len(ticks)],
		ticks[2%len(ticks)],
	)}
}

// l05stirWhat says, for a failure, what the stirrer moved.
func l05stirWhat(ring, mask string) string {
	return fmt.Sprintf("another thread put a G on %s and took it back, flipped %s bit of the live idle mask and back, pushed a G onto the global queue and took it off (under sched.lock, when it was free), and moved every P's ticks", ring, mask)
}

// l05stirredWakep is TestL05WakepStartsOneM's stirred question: wakep and
// resetspinning, on 3 Ps (P0 busy, P1 and P2 idle, two idle Ms), while
// another thread moves busy P0's ring, P0's bit of the idle mask, the
// global queue and the ticks. Whether wakep starts an M depends on
// nmspinning and on there being an idle P, and on nothing else.
func l05stirredWakep(t *testing.T) {
	t.Helper()
	var cur atomic.Pointer[l05world]
	kitStirred(t, l05, l05stirWhat("busy P0's ring", "P0's"), 120, l05stirWorlds(&cur), func(i int) string {
		sched := kitSched(3, Config{})
		var spinner *m // the M whose resetspinning is asked, on P0
		if i%3 == 2 {
			spinner = l05m(sched, 0)
			spinner.spinning = true
		} else {
			l05take(sched, 0)
		}
		m1, m2 := l05idleM(sched), l05idleM(sched)
		others := int32(i % 2) // another M already spinning, or none
		nmspinning := others
		if spinner != nil {
			nmspinning++
		}
		sched.nmspinning.Store(nmspinning)
		setup := fmt.Sprintf("P0 busy, P1 and P2 idle, two idle Ms, nmspinning = %d", nmspinning)
		cur.Store(l05newWorld(sched, sched.allp[0], 0, 700000+int64(i)*2))
		call := "wakep(sched)"
		if spinner != nil {
			call = "resetspinning of the spinning M on P0"
			resetspinning(spinner)
			if spinner.spinning {
				return fmt.Sprintf("%s: %s left mp.spinning true", setup, call)
			}
		} else {
			wakep(sched)
		}
		woken := 0
		var started *m
		for _, mp := range []*m{m1, m2} {
			if l05woken(mp) {
				woken++
				started = mp
			}
		}
		if others == 1 {
			// Someone else spins: nobody is started.
			if woken != 0 || sched.nmspinning.Load() != 1 || sched.npidle.Load() != 2 || sched.needspinning.Load() != 0 {
				return fmt.Sprintf("%s: after %s, %s were woken and %s; want none woken, nmspinning 1, npidle 2, needspinning 0 (another M already spins, and it will find the work)", setup, call, kitCount(woken, "M"), l05state(sched))
			}
			return ""
		}
		if woken != 1 || !started.spinning || sched.nmspinning.Load() != 1 || sched.npidle.Load() != 1 {
			return fmt.Sprintf("%s: after %s, %s were woken (spinning: %v) and %s; want exactly one woken, spinning, with nmspinning 1 and npidle 1", setup, call, kitCount(woken, "M"), started != nil && started.spinning, l05state(sched))
		}
		if pp := started.nextp; pp == nil || pp.id == 0 || sched.idlepMask.read(pp.id) {
			return fmt.Sprintf("%s: after %s, the woken M got nextp = P%d; want P1 or P2, taken off the idle list and out of the idle mask", setup, call, pidOf(started.nextp))
		}
		return ""
	})
}

// l05stirredNoP is TestL05CheckRunqsNoP's stirred question: on 3 Ps (P0
// and P1 busy, P2 idle), with snapshots of allp and of the idle mask as
// its caller takes them, while another thread moves what the answer does
// not depend on: busy P0's ring while P1 holds work (the answer is P2
// either way), idle P2's ring while nobody does (P2 is idle in the
// snapshot: its ring is not looked at), P0's bit of the live idle mask
// (only the snapshot counts), the global queue and the ticks.
func l05stirredNoP(t *testing.T) {
	t.Helper()
	var cur atomic.Pointer[l05world]
	what := l05stirWhat("busy P0's ring (when P1 had work) or idle P2's ring (when nobody had)", "P0's")
	kitStirred(t, l05, what, 120, l05stirWorlds(&cur), func(i int) string {
		sched := kitSched(3, Config{})
		l05take(sched, 0)
		l05take(sched, 1)
		where := []string{"P1's ring", "P1's runnext", "no queue"}[i%3]
		ring := sched.allp[0]
		switch where {
		case "P1's ring":
			runqputtail(sched.allp[1], kitG(sched, 1))
		case "P1's runnext":
			sched.allp[1].runnext.Store(kitG(sched, 1))
		default:
			ring = sched.allp[2]
		}
		allpSnapshot := append([]*p(nil), sched.allp...)
		idlepMaskSnapshot := make(pMask, len(sched.idlepMask))
		for id := range int32(len(sched.allp)) {
			if sched.idlepMask.read(id) {
				idlepMaskSnapshot.set(id)
			}
		}
		cur.Store(l05newWorld(sched, ring, 0, 710000+int64(i)*2))
		pp := checkRunqsNoP(sched, allpSnapshot, idlepMaskSnapshot)
		setup := "P0 and P1 busy, P2 idle, G 1 in " + where
		if where == "no queue" {
			setup = "P0 and P1 busy, P2 idle, no G queued on P0 or P1"
			if pp != nil || sched.npidle.Load() != 1 || sched.needspinning.Load() != 0 {
				return fmt.Sprintf("%s: checkRunqsNoP returned P%d and left %s; want nil, the idle P left on the idle list", setup, pidOf(pp), l05state(sched))
			}
			return ""
		}
		if pp == nil || pp.id != 2 || sched.npidle.Load() != 0 || sched.idlepMask.read(2) {
			return fmt.Sprintf("%s: checkRunqsNoP returned P%d and left %s; want P2, taken off the idle list (pidlegetSpinning)", setup, pidOf(pp), l05state(sched))
		}
		return ""
	})
}
