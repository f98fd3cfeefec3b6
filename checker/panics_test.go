package checker

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/gmp-kata/gmp-kata/lessons"
)

// TestRaceReportIsOneLine grades, under the race detector, a lesson 01
// file that shares a plain variable between the owner's put and a thief's
// grab. The failing tests say so in one line per race that names both
// accesses in the learner's file, with no race report and no path of
// kata's. The lesson's interleavings run side by side, so the same global
// is also written by two puts at once: a test may report that race too,
// on its own line; one of the lines names the put and the grab.
func TestRaceReportIsOneLine(t *testing.T) {
	if testing.Short() {
		t.Skip("builds lesson 01 with the race detector")
	}
	c := withoutVet(sharedChecker(t)) // a variable of the file's own, which the vetter refuses, makes the race
	l, err := lessons.Default.Lookup("01-ringbuffer")
	if err != nil {
		t.Fatal(err)
	}
	src := runqSource(t)
	racy := strings.Replace(src, "\nfunc runqputtail(pp *p, gp *g) {\n", "\nvar lastPut *g\n\nfunc runqputtail(pp *p, gp *g) {\n\tlastPut = gp\n", 1)
	racy = strings.Replace(racy, "\tfor {\n\t\th := pp.runqhead.Load() // load-acquire, synchronize with other consumers\n\t\tt := pp.runqtail.Load() // load-acquire, synchronize with the producer\n",
		"\tfor {\n\t\tif lastPut == nil && batchHead == 1<<31 {\n\t\t\tbatchHead++ // never: the read is the point\n\t\t}\n\t\th := pp.runqhead.Load() // load-acquire, synchronize with other consumers\n\t\tt := pp.runqtail.Load() // load-acquire, synchronize with the producer\n", 1)
	if strings.Count(racy, "lastPut") != 3 {
		t.Fatal("runq.go has changed: the edits do not apply")
	}
	// Two of the lesson's tests: one where a put and a grab run on two
	// threads, and the interleavings, run side by side, where two puts
	// race too (a message of several races, one a line). Every test of
	// the lesson races, and each one that does is run again alone: all
	// fifteen took most of two minutes.
	focus := regexp.MustCompile(`^TestL01(ConcurrentSteal|Interleavings)$`)
	res := c.LessonWith(context.Background(), l, lessonFile(t, "runq.go", []byte(racy)), CheckOptions{Run: focus})
	line := regexp.MustCompile(`^data race: (runqputtail|runqgrab) \(runq\.go:\d+\) (reads|writes) memory that (runqputtail|runqgrab) \(runq\.go:\d+\) (read|wrote) on another thread, with nothing ordering the two: share it through an atomic \(Load, Store, CompareAndSwap\), or only under a lock$`)
	putGrab := regexp.MustCompile(`^data race: (runqputtail \(runq\.go:\d+\) writes memory that runqgrab \(runq\.go:\d+\) read|runqgrab \(runq\.go:\d+\) reads memory that runqputtail \(runq\.go:\d+\) wrote) `)
	found, named := false, false
	for _, tr := range res.Tests {
		if tr.Status == StatusPass || !strings.Contains(tr.Message, "data race") {
			continue
		}
		found = true
		t.Logf("%s: %s", tr.Name, tr.Message)
		for _, l := range strings.Split(tr.Message, "\n") {
			if !line.MatchString(l) {
				t.Errorf("%s: line %q is not one race in one line: want %s", tr.Name, l, line)
			}
			named = named || putGrab.MatchString(l)
		}
		for _, raw := range []string{"WARNING: DATA RACE", "==================", "race detected during execution", "Previous read at", c.mod.dir} {
			if strings.Contains(tr.Message, raw) {
				t.Errorf("%s: the message has %q of the raw report: %q", tr.Name, raw, tr.Message)
			}
		}
	}
	if !found {
		for _, tr := range res.Tests {
			if tr.Status != StatusPass {
				t.Logf("%s: %s", tr.Name, tr.Message)
			}
		}
		t.Fatalf("no test reported the data race: %s %d/%d", res.Status, res.Score, res.MaxScore)
	}
	if !named {
		t.Errorf("no line names the put and the grab, the race the file was written to have")
	}
}
