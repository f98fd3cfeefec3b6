package checker

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestBlameNamesTheWrongFunction: a lesson 06 file with one planted
// mistake fails tests whose messages are about other functions (a gopark
// that calls unlockf itself fails "park_m must casgstatus the G ..."; a
// ready that wakes before it queues fails tests of goready too); Blame
// runs the failing tests again with one function at a time from the
// reference, and names the one at fault. The reference's own file fails
// nothing, and gets no blame.
func TestBlameNamesTheWrongFunction(t *testing.T) {
	t.Parallel() // a copy of the shared checker, or the checker itself (safe for concurrent use); it mostly builds and waits on runs
	// As kata check grades, which blames.
	c := checkChecker(t)
	l := lesson(t, "06")
	ref := string(embedded(t, "solutions/park.go"))
	plant := func(t *testing.T, old, new string) map[string]string {
		t.Helper()
		if !strings.Contains(ref, old) {
			t.Fatalf("solutions/park.go has no %q", old)
		}
		return lessonFile(t, "park.go", []byte(strings.Replace(ref, old, new, 1)))
	}
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"unlockf-inside-gopark", "\tmp.waitlock = lock\n\tmp.waitunlockf = unlockf\n",
			"\tif unlockf != nil && !unlockf(gp, lock) {\n\t\treturn\n\t}\n\tmp.waitlock, mp.waitunlockf = nil, nil\n", "gopark"},
		{"wakep-before-runqput", "\trunqput(mp.p, gp, next)\n\twakep(mp.sched)\n",
			"\twakep(mp.sched)\n\trunqput(mp.p, gp, next)\n", "ready"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := plant(t, tc.old, tc.new)
			res := c.Lesson(context.Background(), l, files)
			if res.Status != StatusFail {
				t.Fatalf("the planted mistake scored %d/%d (%s), want a failure", res.Score, res.MaxScore, res.Error)
			}
			b, err := c.Blame(context.Background(), l, files, res)
			if err != nil || b == nil {
				t.Fatalf("Blame: %+v, %v", b, err)
			}
			if !slices.Equal(b.Culprits, []string{tc.want}) {
				t.Errorf("Blame names %v (fixed %v of %d failing: %v), want %s", b.Culprits, b.Fixed, len(b.Failing), b.Failing, tc.want)
			}
		})
	}
	t.Run("reference", func(t *testing.T) {
		files := lessonFile(t, "park.go", []byte(ref))
		res := c.Lesson(context.Background(), l, files)
		if b, err := c.Blame(context.Background(), l, files, res); b != nil || err != nil {
			t.Errorf("the reference (%d/%d) gets a blame: %+v, %v", res.Score, res.MaxScore, b, err)
		}
	})
}
