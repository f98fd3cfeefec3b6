package checker

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gmp-kata/gmp-kata/internal/threadcpu"
)

// fakeRaces is what a test can print before it crashes: a race report's
// header, then n access lines, each with a frame in no file of the
// learner's (kata reads on, looking for one), blank lines between them if
// blank (real reports have them).
func fakeRaces(n int, blank bool) []string {
	lines := []string{"==================", "WARNING: DATA RACE"}
	for i := range n {
		lines = append(lines,
			fmt.Sprintf("Write at 0x%012x by goroutine %d:", i, i),
			"  testing.tRunner()",
			"      /go/src/testing/testing.go:12 +0x44")
		if blank {
			lines = append(lines, "")
		}
	}
	return lines
}

// fakeDump is a goroutine dump, as the harness marks one, of n goroutines
// each stopped at a different line of the learner's file.
func fakeDump(n int) []string {
	lines := []string{dumpStart}
	for i := range n {
		lines = append(lines, fmt.Sprintf("goroutine %d [running]:", i+1),
			"gmpkata.grade/solutions.runqget(...)", fmt.Sprintf("\t/k/solutions/runq.go:%d +0x1", i+1), "")
	}
	return append(lines, dumpEnd)
}

var linearMod = &module{pkgDir: "/k/solutions"}

// best returns the least CPU time f took in five tries.
func best(f func()) time.Duration {
	b := time.Duration(1 << 62)
	for range 5 {
		runtime.GC()
		b = min(b, threadcpu.Of(f))
	}
	return b
}

// TestFakeRaceLinesAreReadInLinearTime: the red team's crashed test printed
// 120,000 race-report access lines (under the output limit) and held kata
// for minutes, each access read down to the end; with and without blank
// lines, 8 times the lines cost about 8 times as many lines read (bound:
// 12; the old reading read 64 times as many without blank lines).
func TestFakeRaceLinesAreReadInLinearTime(t *testing.T) {
	c := &Checker{}
	replace := map[string]string{"runq.go": "runq.go"}
	for _, blank := range []bool{false, true} {
		full := fakeRaces(120_000, blank)
		start := time.Now()
		out := c.condenseRaces(linearMod, full, replace)
		t.Logf("blank lines %v: 120,000 access lines condensed in %v", blank, time.Since(start))
		if len(out) != 1 || !strings.HasPrefix(out[0], "data race: code kata cannot place writes memory that code kata cannot place writes") {
			t.Fatalf("the report is not condensed: %.200q", out)
		}
		_, small := c.condenseRacesCounting(linearMod, fakeRaces(2_500, blank), replace)
		_, large := c.condenseRacesCounting(linearMod, fakeRaces(20_000, blank), replace)
		ratio := float64(large) / float64(small)
		t.Logf("blank lines %v: 2,500 accesses: %d lines read, 20,000 accesses: %d (%.1f×)", blank, small, large, ratio)
		if ratio > 12 {
			t.Errorf("blank lines %v: 8 times the lines cost %.1f times as many lines read: not linear", blank, ratio)
		}
	}
}

// TestHangDumpIsReadInLinearTime: a dump of many goroutines, each at its
// own line, is read in time linear in its length: 8 times the goroutines
// cost about 8 times the CPU time (bound: 32; the old list looked up with
// slices.Contains cost 64 times).
func TestHangDumpIsReadInLinearTime(t *testing.T) {
	c := &Checker{}
	replace := map[string]string{"runq.go": "runq.go"}
	where, _ := c.hangLocation(linearMod, fakeDump(3), replace)
	if where != "runqget (runq.go:1), runqget (runq.go:2) and 1 more were still running" {
		t.Fatalf("hangLocation said %q", where)
	}
	small := best(func() { c.hangLocation(linearMod, fakeDump(10_000), replace) })
	large := best(func() { c.hangLocation(linearMod, fakeDump(80_000), replace) })
	ratio := float64(large) / float64(small)
	t.Logf("10,000 goroutines %v, 80,000 goroutines %v (%.1f×)", small, large, ratio)
	if ratio > 32 {
		t.Errorf("8 times the goroutines cost %.1f times as much: not linear", ratio)
	}
}

// FuzzPanics: whatever a crashed test printed, the race reports, the
// panic and the hang dump in it are read, in work bounded by its length.
func FuzzPanics(f *testing.F) {
	for _, seed := range [][]string{
		fakeRaces(50, false), fakeRaces(50, true), fakeDump(20),
		{"panic: boom", "", "goroutine 1 [running]:", "gmpkata.grade/solutions.runqput(...)", "\t/k/solutions/runq.go:3 +0x1"},
		{"WARNING: DATA RACE", "Read at 0x1 by main goroutine:", "==================", "Previous write at 0x1 by goroutine 2:"},
	} {
		f.Add(strings.Join(seed, "\n"))
	}
	c := &Checker{}
	replace := map[string]string{"runq.go": "runq.go"}
	f.Fuzz(func(t *testing.T, text string) {
		lines := strings.Split(text, "\n")
		out := c.condenseRaces(linearMod, lines, replace)
		if len(out) > len(lines) {
			t.Fatalf("condensing made %d lines of %d", len(out), len(lines))
		}
		c.summarizePanicIn(linearMod, out, replace)
		c.hangLocation(linearMod, lines, replace)
		c.crashMessage(linearMod, lines, nil, replace)
	})
}

// FuzzTestJSON: any test2json stream is folded, and what it counts against
// the output limit is at least what it holds.
func FuzzTestJSON(f *testing.F) {
	f.Add([]byte(`{"Action":"run","Test":"TestA"}` + "\n" + `{"Action":"output","Test":"TestA","Output":"x\n"}` + "\n" + `{"Action":"pass","Test":"TestA"}`))
	f.Add([]byte(strings.Repeat("\n", 1000)))
	f.Add([]byte(`{"Action":"output","Test":"TestA/sub","Output":"--- FAIL: TestA (0.00s)\n"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, standalone := range []bool{false, true} {
			s := newStream()
			s.standalone = standalone
			lines := strings.Split(string(data), "\n")
			for _, l := range lines {
				s.add([]byte(l))
			}
			if s.outputBytes < 0 {
				t.Fatal("negative output count")
			}
		}
	})
}
