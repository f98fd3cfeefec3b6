package sample

// add returns the sum of a and b.
func add(a, b int) int { return a + b }

// A Ring is a toy.
type Ring struct{ buf []int }

// Push adds v, as runqput (proc.go:7478) adds a G.
func (r *Ring) Push(v int) {
	// ANCHOR: loop
	for i := range r.buf {
		r.buf[i] += v
	}
	// ANCHOR_END: loop
}
