package checker

import "strings"

// A contractChange is a change of the course that a file written before it
// no longer compiles with: the words every compiler message about it
// holds, and what to tell the learner, once, after those messages.
type contractChange struct {
	says []string
	tell string
}

// contractChanges are the course's changes of a lesson's contract that
// break a file's build, newest last.
var contractChanges = []contractChange{{
	says: []string{"atomicRingSlot", `"sync/atomic".Pointer[g]`},
	tell: "the ring's slots changed type: they are atomicRingSlot now, not atomic.Pointer[g] " +
		"(the same methods, Load, Store, CompareAndSwap and Swap, each a scheduling point of the hidden tests: see 'kata task 01'). " +
		"Write runqgrab's batch as *[256]atomicRingSlot, and drop the import of sync/atomic if nothing else uses it. " +
		"Your workspace's other files (runtime2.go...) are older than this kata: make a fresh workspace ('kata init NEWDIR') and copy your lesson files into it",
}}

// contractHints returns what to tell about the contract changes the
// compiler's messages show.
func contractHints(messages []string) []string {
	var out []string
	for _, ch := range contractChanges {
		for _, m := range messages {
			if containsAll(m, ch.says) {
				out = append(out, ch.tell)
				break
			}
		}
	}
	return out
}

func containsAll(s string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}
