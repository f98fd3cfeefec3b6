package lessons

import (
	"fmt"
	"strconv"
	"strings"
)

// An Equivalence says that a machine-made mutant of a lesson's file (see
// internal/mutate) behaves as the reference in every run, and why: no test
// can fail it, so it does not count against the lesson's mutation score.
//
// testdata/mutation.txt holds them, one a line, after # comments and
// blank lines, and the lesson's minimum mutation score:
//
//	minimum score: 92%
//	runqputslow/constant/4 | 0 → 1 | batch[0] is overwritten before it is read
//
// The minimum is what the self-check fails under (it only goes up). An
// equivalence line is the mutant's key, its change as the mutation report prints it (so a
// reviewer sees what is claimed, and a reference change that gives the key
// to another mutant is caught), and the reason.
type Equivalence struct {
	Key, Change, Why string
	Line             int
}

// ReadMutation parses l.Mutation: the minimum score (0 to 1) and the
// equivalent mutants.
func (l *Lesson) ReadMutation() (minimum float64, equiv []Equivalence, err error) {
	seen := map[string]bool{}
	for i, line := range strings.Split(l.Mutation, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if v, ok := strings.CutPrefix(line, "minimum score:"); ok {
			pct, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), "%"), 64)
			if err != nil || pct < 0 || pct > 100 {
				return 0, nil, fmt.Errorf("lesson %s: testdata/mutation.txt:%d: want \"minimum score: N%%\"", l.ID, i+1)
			}
			minimum = pct / 100
			continue
		}
		parts := strings.SplitN(line, " | ", 3)
		if len(parts) != 3 || strings.TrimSpace(parts[2]) == "" {
			return 0, nil, fmt.Errorf("lesson %s: testdata/mutation.txt:%d: want \"KEY | CHANGE | WHY\"", l.ID, i+1)
		}
		e := Equivalence{Key: strings.TrimSpace(parts[0]), Change: strings.TrimSpace(parts[1]), Why: strings.TrimSpace(parts[2]), Line: i + 1}
		if seen[e.Key] {
			return 0, nil, fmt.Errorf("lesson %s: testdata/mutation.txt:%d: %s listed twice", l.ID, i+1, e.Key)
		}
		seen[e.Key] = true
		equiv = append(equiv, e)
	}
	return minimum, equiv, nil
}
