package main

import (
	"fmt"
	"sync"
	"sync/atomic"
)

type ring struct {
	mu   sync.Mutex
	head atomic.Uint32
	n    int
}

// take claims one slot, retrying when another taker got there first.
func (r *ring) take(t uint32) bool {
	for {
		h := r.head.Load()
		if t-h == 0 {
			return false
		}
		if !r.head.CompareAndSwap(h, h+1) {
			continue
		}
		return true
	}
}

func (r *ring) add(k int, _ string) int {
	r.mu.Lock()
	r.n += k
	r.mu.Unlock()
	return r.n
}

func clamp(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi && hi >= 0 {
		return hi
	}
	return v
}

//kata:given
func given(x int) int { return x + 1 }

func main() {
	var r ring
	fmt.Println(r.take(3), r.take(3), r.head.Load(), r.add(2, ""), r.add(3, "x"))
	fmt.Println(clamp(5, 0, 3), clamp(-1, 0, 3), clamp(2, 0, 3), clamp(7, 0, -1), given(1))
}
