package checker

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCompileHints: a lesson-01 file of the contract before the slots
// became atomicPointer[g] gets the hint first; other errors get none.
func TestCompileHints(t *testing.T) {
	old := []string{
		`runq.go:232:20: cannot use &pp.runq (value of type *[256]atomicPointer[g]) as *[256]"sync/atomic".Pointer[g] value in argument to runqgrab`,
		`zz_01_ringbuffer_diff_test.go (hidden test):108:21: cannot use &batch (value of type *[256]atomicPointer[g]) as *[256]"sync/atomic".Pointer[g] value in argument to runqgrab`,
	}
	got := withCompileHints(old)
	if assert.Len(t, got, 3) {
		assert.Contains(t, got[0], "write runqgrab's batch as *[256]atomicPointer[g]")
		assert.Equal(t, old, got[1:])
	}
	slot := []string{`runq.go:12:9: cannot use &pp.runq[i] (value of type *atomicPointer[g]) as *"sync/atomic".Pointer[g] value in return statement`}
	assert.Len(t, withCompileHints(slot), 2, "a pointer to one slot, of the old type")
	other := []string{`runq.go:3:2: undefined: x`, `runq.go:9:2: cannot use n (variable of type int) as uint32 value in assignment`}
	assert.Equal(t, other, withCompileHints(other))
}
