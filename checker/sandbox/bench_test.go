package sandbox

import (
	"testing"
)

// BenchmarkStart measures what the sandbox costs a run: starting /bin/true
// in it and waiting for it, isolated or not.
func BenchmarkStart(b *testing.B) {
	for _, isolate := range []bool{false, true} {
		name := "subreaper"
		if isolate {
			name = "isolated"
			if ok, why := Available(); !ok {
				b.Skip(why)
			}
		}
		b.Run(name, func(b *testing.B) {
			for range b.N {
				p, err := Start(&Spec{Path: "/bin/true", Args: []string{"true"}, Dir: "/", Isolate: isolate})
				if err != nil {
					b.Fatal(err)
				}
				if err := p.Wait(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
