package checker

import (
	"cmp"
	"slices"
	"time"
)

// shards spreads tests over at most n batches, one per test process, all
// run at once (run.processes): a check of a correct file in about half the
// time on two cores. Each test goes to the batch with the least weight so
// far, the heaviest first (a weight: the test's time at the last check,
// or its time limit, which says roughly which are long); each batch keeps
// the lesson's order. n of 1 or less, or fewer than two tests: one batch.
func shards(tests []string, n int, limits map[string]time.Duration) [][]string {
	n = min(n, len(tests))
	if n <= 1 {
		return [][]string{tests}
	}
	byWeight := slices.Clone(tests)
	slices.SortStableFunc(byWeight, func(a, b string) int { return cmp.Compare(limits[b], limits[a]) })
	load := make([]time.Duration, n)
	of := map[string]int{}
	for _, name := range byWeight {
		i := slices.Index(load, slices.Min(load))
		of[name] = i
		load[i] += limits[name]
	}
	batches := make([][]string, n)
	for _, name := range tests {
		batches[of[name]] = append(batches[of[name]], name)
	}
	return batches
}
