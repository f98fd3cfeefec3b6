package bench

import (
	"fmt"
	"math"
	"slices"
)

// benchSide summarizes one side's samples.
func benchSide(samples []float64) Side {
	med := median(samples)
	spread := 0.0
	if med > 0 {
		lo, hi := slices.Min(samples), slices.Max(samples)
		spread = math.Max(hi-med, med-lo) / med
	}
	return Side{Samples: slices.Clone(samples), Median: med, Spread: spread}
}

// ratio is a / b, or 0 if b is not positive (a benchmark too fast to
// time reports 0 ns/op).
func ratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// mannWhitneyP is the exact two-sided p-value of the Mann-Whitney U test
// that xs and ys come from the same distribution (benchstat's test). Ties
// count half, and the p-value is then taken conservatively.
func mannWhitneyP(xs, ys []float64) float64 {
	n1, n2 := len(xs), len(ys)
	if n1 == 0 || n2 == 0 {
		return 1
	}
	twice := 0 // 2U, so that ties stay integral
	for _, x := range xs {
		for _, y := range ys {
			switch {
			case x > y:
				twice += 2
			case x == y:
				twice++
			}
		}
	}
	// dist[u] counts the orderings of n1 xs and n2 ys with U = u.
	dist := uDistribution(n1, n2)
	total := 0.0
	for _, c := range dist {
		total += c
	}
	// P(U <= u) and P(U >= u), with a tie's half rounded against
	// significance.
	lo, hi := twice/2, (twice+1)/2
	below, above := 0.0, 0.0
	for u, c := range dist {
		if u <= hi {
			below += c
		}
		if u >= lo {
			above += c
		}
	}
	return math.Min(1, 2*math.Min(below, above)/total)
}

// uDistribution returns, for U = 0 .. n1*n2, the number of arrangements of
// n1 and n2 distinct values in which U pairs have the first above the
// second.
func uDistribution(n1, n2 int) []float64 {
	// f[i][j] is the distribution for i and j values.
	f := make([][][]float64, n1+1)
	for i := range f {
		f[i] = make([][]float64, n2+1)
		for j := range f[i] {
			d := make([]float64, i*j+1)
			switch {
			case i == 0 || j == 0:
				d[0] = 1
			default:
				// The largest value is an x (above all j ys) or a y.
				for u, c := range f[i-1][j] {
					d[u+j] += c
				}
				for u, c := range f[i][j-1] {
					d[u] += c
				}
			}
			f[i][j] = d
		}
	}
	return f[n1][n2]
}

// minP is the smallest p-value the test can give with n runs a side.
func minP(n int) float64 {
	// 2 / C(2n, n)
	c := 1.0
	for k := 1; k <= n; k++ {
		c = c * float64(n+k) / float64(k)
	}
	return 2 / c
}

// benchReading puts a row into words.
func benchReading(r Row, count int) string {
	switch {
	case minP(count) >= alpha:
		return fmt.Sprintf("%s: yours is %.2f× the reference, but %d runs each cannot tell that from noise (use --count 5 or more)", r.Short, r.YoursVsReference, count)
	case !r.Significant:
		return fmt.Sprintf("%s: within noise of the reference (%.2f×, p=%.2f)", r.Short, r.YoursVsReference, r.P)
	case math.Abs(r.YoursVsReference-1) < sameWithin:
		return fmt.Sprintf("%s: the same as the reference, to within %d%% (%.2f×)", r.Short, int(sameWithin*100), r.YoursVsReference)
	case r.YoursVsReference > 1:
		return fmt.Sprintf("%s: yours is %.2f× the reference (slower)", r.Short, r.YoursVsReference)
	default:
		return fmt.Sprintf("%s: yours is %.2f× the reference (faster)", r.Short, r.YoursVsReference)
	}
}
