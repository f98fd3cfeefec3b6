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

// cheapFirst is the first stage of a run that stops at its first failure
// (run.failFast) in one process: the tests whose weight is at most a tenth
// of the heaviest's, in the lesson's order, or all of them if that leaves
// none out. A test binary runs its tests in the order of its source files,
// not the lesson's, so without stages a mutant an exact test of 10 ms
// fails ran the exhaustive explorer's seconds first when its file sorted
// earlier; most mutants fail a cheap test, and the rest pay one more
// process start.
func cheapFirst(tests []string, weights map[string]time.Duration) []string {
	heaviest := time.Duration(0)
	for _, name := range tests {
		heaviest = max(heaviest, weights[name])
	}
	var cheap []string
	for _, name := range tests {
		if weights[name] <= heaviest/10 {
			cheap = append(cheap, name)
		}
	}
	if len(cheap) == 0 || len(cheap) == len(tests) {
		return tests
	}
	return cheap
}
