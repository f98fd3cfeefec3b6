package sched

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// Tests of the coprime steal order (findrunnable.go randomOrder), after the
// runtime's RunStealOrderTest (proc_runtime_test.go).

// enumerate returns the positions ord.start(i) visits, stopping after
// 2*count steps if done never becomes true.
func enumerate(ord *randomOrder, i uint32) []uint32 {
	var pos []uint32
	for enum := ord.start(i); !enum.done() && len(pos) < 2*int(ord.count); enum.next() {
		pos = append(pos, enum.position())
	}
	return pos
}

// TestStealOrderPermutation: for count 1..64, the enumeration from any start
// value visits every position 0..count-1 exactly once and then is done.
func TestStealOrderPermutation(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var ord randomOrder
	for count := uint32(1); count <= 64; count++ {
		ord.reset(count)
		// Every (pos, inc) pair, plus start values near the top of the
		// uint32 range and random ones.
		var starts []uint32
		for i := uint32(0); i < count*uint32(len(ord.coprimes)); i++ {
			starts = append(starts, i)
		}
		starts = append(starts, math.MaxUint32, math.MaxUint32-1, 1<<31, 1<<31-1)
		for range 20 {
			starts = append(starts, rng.Uint32())
		}
		for _, i := range starts {
			pos := enumerate(&ord, i)
			seen := make([]int, count)
			for _, x := range pos {
				if x >= count {
					t.Fatalf("count %d, start(%d): position %d out of range 0..%d (enumeration %v)", count, i, x, count-1, pos)
				}
				seen[x]++
			}
			for x, n := range seen {
				if n != 1 {
					t.Fatalf("count %d, start(%d): position %d visited %d times, want once (enumeration %v)", count, i, x, n, pos)
				}
			}
			if len(pos) != int(count) {
				t.Fatalf("count %d, start(%d): %d steps before done, want %d (enumeration %v)", count, i, len(pos), count, pos)
			}
		}
	}
}

// TestStealOrderCoprimes: reset(count) lists exactly the numbers in
// 1..count that are coprime with count, in increasing order.
func TestStealOrderCoprimes(t *testing.T) {
	var ord randomOrder
	for count := uint32(1); count <= 64; count++ {
		var want []uint32
		for i := uint32(1); i <= count; i++ {
			coprime := true
			for d := uint32(2); d <= i; d++ {
				if i%d == 0 && count%d == 0 {
					coprime = false
					break
				}
			}
			if coprime {
				want = append(want, i)
			}
		}
		ord.reset(count)
		require.Equalf(t, count, ord.count, "randomOrder.count after reset(%d)", count)
		require.Equalf(t, want, ord.coprimes, "coprimes after reset(%d): want the numbers in 1..%d coprime with %d", count, count, count)
		if count >= 3 && len(ord.coprimes) < 2 {
			t.Fatalf("count %d: only %d coprimes, want at least 2", count, len(ord.coprimes))
		}
	}
	// reset must not keep coprimes of an earlier count.
	ord.reset(12)
	ord.reset(4)
	require.Equalf(t, []uint32{1, 3}, ord.coprimes, "coprimes after reset(12) then reset(4)")
}

// TestStealOrderExample: the worked example of RUNTIME-NOTES.md: with 8 Ps,
// start value 2 begins at P 2 and steps by coprimes[2/8 % 4] = coprimes[0]
// = 1; start value 10 begins at P 2 too but steps by coprimes[1] = 3.
func TestStealOrderExample(t *testing.T) {
	var ord randomOrder
	ord.reset(8)
	require.Equalf(t, []uint32{1, 3, 5, 7}, ord.coprimes, "coprimes of 8")

	enum := ord.start(2)
	require.Equalf(t, uint32(2), enum.position(), "count 8, start(2): first position")
	require.Equalf(t, uint32(1), enum.inc, "count 8, start(2): inc, want coprimes[2/8 %% 4] = coprimes[0] = 1")
	require.Equalf(t, []uint32{2, 3, 4, 5, 6, 7, 0, 1}, enumerate(&ord, 2), "count 8, start(2): enumeration")

	enum = ord.start(10)
	require.Equalf(t, uint32(2), enum.position(), "count 8, start(10): first position (10 %% 8)")
	require.Equalf(t, uint32(3), enum.inc, "count 8, start(10): inc, want coprimes[10/8 %% 4] = coprimes[1] = 3")
	require.Equalf(t, []uint32{2, 5, 0, 3, 6, 1, 4, 7}, enumerate(&ord, 10), "count 8, start(10): enumeration")
}

// TestStealOrderDistinctStarts: the first count*len(coprimes) start values
// give distinct (pos, inc) pairs, so thieves spread out before repeating.
func TestStealOrderDistinctStarts(t *testing.T) {
	var ord randomOrder
	for count := uint32(2); count <= 64; count++ {
		ord.reset(count)
		type pair struct{ pos, inc uint32 }
		seen := make(map[pair]uint32)
		for i := uint32(0); i < count*uint32(len(ord.coprimes)); i++ {
			enum := ord.start(i)
			k := pair{enum.pos, enum.inc}
			if j, dup := seen[k]; dup {
				t.Fatalf("count %d: start(%d) and start(%d) both give pos %d, inc %d; want distinct pairs for the first %d start values",
					count, j, i, k.pos, k.inc, count*uint32(len(ord.coprimes)))
			}
			seen[k] = i
		}
	}
}

// TestStealOrderResetByProcresize: procresize resets the steal order for
// the new number of Ps.
func TestStealOrderResetByProcresize(t *testing.T) {
	sched := newTestSched(t, 6, Config{Debug: true})
	require.Equalf(t, uint32(6), sched.stealOrder.count, "stealOrder.count with 6 Ps")
	require.Equalf(t, []uint32{1, 5}, sched.stealOrder.coprimes, "stealOrder.coprimes with 6 Ps")

	stopTestWorld(sched)
	startTestWorld(t, sched, 9)
	require.Equalf(t, uint32(9), sched.stealOrder.count, "stealOrder.count after procresize(9)")
	require.Truef(t, slices.Equal([]uint32{1, 2, 4, 5, 7, 8}, sched.stealOrder.coprimes), "stealOrder.coprimes after procresize(9): got %v, want [1 2 4 5 7 8]", sched.stealOrder.coprimes)
}
