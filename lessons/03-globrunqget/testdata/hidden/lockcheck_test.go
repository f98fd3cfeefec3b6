package sched

// Hidden test of lesson 03-globrunqget: the lock assertion. Every function
// of the lesson requires sched.lock; with Config.Debug, each must say so
// (sched.assertLockHeld) before it touches the queue, so that a caller that
// forgot the lock is stopped before it can corrupt anything.

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestL03AssertLockFirst calls each function without sched.lock, with
// Config.Debug: it must panic (assertLockHeld), and leave the global queue
// as it was.
func TestL03AssertLockFirst(t *testing.T) {
	cases := []struct {
		fn, call string
		do       func(sched *schedt)
	}{
		{"globrunqput", "globrunqput(G 9)", func(sched *schedt) { sched.globrunqput(kitG(sched, 9)) }},
		{"globrunqputhead", "globrunqputhead(G 9)", func(sched *schedt) { sched.globrunqputhead(kitG(sched, 9)) }},
		{"globrunqputbatch", "globrunqputbatch([9 10])", func(sched *schedt) { sched.globrunqputbatch(l03batch(sched, 9, 2)) }},
		{"globrunqget", "globrunqget()", func(sched *schedt) { sched.globrunqget() }},
		{"globrunqgetbatch", "globrunqgetbatch(128)", func(sched *schedt) { sched.globrunqgetbatch(128) }},
	}
	// The empty queue too: a shortcut for "nothing to take" or "nothing
	// to put" taken before the assertion hides a caller without the lock
	// whenever the queue happens to be empty.
	empty := []struct {
		fn, call string
		do       func(sched *schedt)
	}{
		{"globrunqputbatch", "globrunqputbatch of an empty batch", func(sched *schedt) { sched.globrunqputbatch(&gQueue{}) }},
		{"globrunqget", "globrunqget()", func(sched *schedt) { sched.globrunqget() }},
		{"globrunqgetbatch", "globrunqgetbatch(128)", func(sched *schedt) { sched.globrunqgetbatch(128) }},
	}
	for _, c := range empty {
		sched := kitSched(1, Config{Debug: true})
		setup := fmt.Sprintf("with Config.Debug and the global queue EMPTY, %s was called WITHOUT sched.lock (a caller's bug)", c.call)
		r := func() (r any) {
			defer func() { r = recover() }()
			c.do(sched)
			return nil
		}()
		if r == nil || !strings.Contains(fmt.Sprint(r), "sched.lock not held") {
			what := "returned normally"
			if r != nil {
				what = fmt.Sprintf("panicked with %q", fmt.Sprint(r))
			}
			t.Fatalf("%s: it %s; want the panic of sched.assertLockHeld(%q). Call sched.assertLockHeld first, before any early return: a check of the queue's size is a read of the queue, which needs the lock too"+kitHint(l03),
				setup, what, c.fn)
		}
	}
	for _, c := range cases {
		sched := kitSched(1, Config{Debug: true})
		l03put(sched, kitGs(sched, 1, 3))
		setup := fmt.Sprintf("with Config.Debug and the global queue holding G 1, G 2, G 3, %s was called WITHOUT sched.lock (a caller's bug)", c.call)
		r := func() (r any) {
			defer func() { r = recover() }()
			c.do(sched)
			return nil
		}()
		if r == nil || !strings.Contains(fmt.Sprint(r), "sched.lock not held") {
			what := "returned normally"
			if r != nil {
				what = fmt.Sprintf("panicked with %q", fmt.Sprint(r))
			}
			t.Fatalf("%s: it %s; want the panic of sched.assertLockHeld(%q) (\"%s: sched.lock not held\"). Begin each function with sched.assertLockHeld: in debug mode it catches the caller that forgot the lock"+kitHint(l03),
				setup, what, c.fn, c.fn)
		}
		sched.lock.Lock()
		got := l03global(t, sched, c.call+" without the lock", true)
		sched.lock.Unlock()
		if !slices.Equal(got, []int64{1, 2, 3}) {
			t.Fatalf("%s: it panicked (good), but only after changing the global queue to %v; want [1 2 3] untouched: call sched.assertLockHeld first, before the queue is read or changed, so that a caller without the lock changes nothing"+kitHint(l03),
				setup, got)
		}
	}
}
