package checker

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/gmp-kata/gmp-kata/internal/longtest"
	"github.com/gmp-kata/gmp-kata/lessons"
	_ "github.com/gmp-kata/gmp-kata/lessons/all"
)

// sharedChecker is one Checker for the package's tests, its cache in a
// temporary directory.
func sharedChecker(t *testing.T) *Checker {
	t.Helper()
	checkerOnce.Do(func() {
		dir, err := os.MkdirTemp("", "kata-checker-test-")
		if err != nil {
			checkerErr = err
			return
		}
		checkerDir = dir
		testChecker, checkerErr = New(Options{CacheDir: filepath.Join(dir, "cache")})
	})
	if checkerErr != nil {
		t.Fatal(checkerErr)
	}
	return testChecker
}

// checkChecker is sharedChecker as kata check grades: the serial tests
// without the race detector (Options.SerialWithoutRace).
func checkChecker(t *testing.T) *Checker {
	base := sharedChecker(t)
	checkCheckerOnce.Do(func() {
		checkMode = &Checker{opts: base.opts, reg: base.reg, mod: base.mod, key: base.key}
		checkMode.opts.SerialWithoutRace = true
	})
	return checkMode
}

var (
	checkCheckerOnce sync.Once
	checkMode        *Checker
)

// TestVerify is the course's self-check (kata verify): for every lesson,
// the reference gets full marks, the skeleton zero, every mutant fails and
// every alternate passes. Run one lesson with -run 'TestVerify/02-runnext'.
// With KATA_LONG=1 (package longtest: CI) it grades as kata grade grades,
// every test under the race detector, and grades every alternate alone in
// its lesson; without, as kata check grades (the serial tests without the
// race detector, which finds nothing in them), and the
// alternates are left to TestCapstoneAcceptsAlternates (package
// lessons/all), which grades every one of them in the capstone, every
// lesson's tests on them all together, and each alone when a round loses
// points. CI's mutation run (kata verify --mutate --as-check) grades the
// machine-made mutants as kata check does: both ways are checked.
// Under -short only the reference and the skeleton are graded.
func TestVerify(t *testing.T) {
	c := sharedChecker(t)
	if !longtest.Enabled() {
		c = checkChecker(t)
	}
	verify := c.Verify
	if *updateHints {
		verify = c.VerifyWithoutHints
	}
	for _, l := range lessons.Default.All() {
		t.Run(l.ID, func(t *testing.T) {
			t.Parallel()
			if len(l.Tests) == 0 {
				t.Fatal("no hidden tests")
			}
			ll := *l
			if testing.Short() {
				ll.Mutants, ll.Alternates = nil, nil
			} else {
				if ms, err := l.ReadMutants(); err != nil || len(ms) < 5 {
					t.Errorf("%d mutants (%v), want at least 5", len(ms), err)
				}
				if n := countDirs(t, l.Alternates); n < 1 {
					t.Errorf("%d alternates, want at least 1", n)
				}
				if !longtest.Enabled() {
					ll.Alternates = nil
				}
			}
			verdicts, err := verify(context.Background(), &ll)
			if err != nil {
				t.Fatal(err)
			}
			if *updateHints {
				writeHints(t, l, verdicts)
			}
			for _, v := range verdicts {
				if v.OK {
					t.Log(v)
					continue
				}
				t.Error(v)
				for _, tr := range v.Result.Tests {
					t.Logf("    %s %s: %s", tr.Status, tr.Name, tr.Message)
				}
				for _, e := range v.Result.CompileErrors {
					t.Logf("    compile: %s", e)
				}
				if v.Result.Error != "" {
					t.Logf("    error: %s", v.Result.Error)
				}
			}
		})
	}
}

var updateHints = flag.Bool("update-hints", false, "TestVerify: grade every mutant from the lesson's first test on, and write the test that caught it into its file (# caught by:)")

// writeHints writes each caught mutant's first failing test into its
// file, lessons/ID/testdata/mutants/NAME.txt, as its "# caught by:" line.
func writeHints(t *testing.T, l *lessons.Lesson, verdicts []Verdict) {
	for _, v := range verdicts {
		if v.Kind != "mutant" || !v.OK || v.CaughtBy == "" {
			continue
		}
		p := filepath.Join("..", "lessons", l.ID, "testdata", "mutants", v.Name+".txt")
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, lessons.SetCaughtBy(data, v.CaughtBy), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// lesson01With is lesson 01 with only the tests named, in its order, and
// no alternates.
func lesson01With(t *testing.T, names ...string) lessons.Lesson {
	t.Helper()
	l, err := lessons.Default.Lookup("01")
	if err != nil {
		t.Fatal(err)
	}
	ll := *l
	ll.Alternates, ll.Tests = nil, nil
	for _, tt := range l.Tests {
		if slices.Contains(names, tt.Name) {
			ll.Tests = append(ll.Tests, tt)
		}
	}
	if len(ll.Tests) != len(names) {
		t.Fatalf("lesson 01 has %d of %q, want all", len(ll.Tests), names)
	}
	return ll
}

// TestVerifyRefusesAMutantThatDoesNotCompile: a mutant fails the lesson
// either way, but one that does not compile tests nothing, so verify calls
// its verdict wrong rather than count it as caught. Beside it, a "mutant"
// that changes nothing is a wrong verdict too (its grading, stopped at the
// first failure, never stops), and a real one is caught, its grading
// stopped at its first failing test: the tests after it did not run.
func TestVerifyRefusesAMutantThatDoesNotCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("grades the reference and the skeleton of lesson 01 too")
	}
	t.Parallel() // a copy of the shared checker, or the checker itself (safe for concurrent use); it mostly builds and waits on runs
	c := sharedChecker(t)
	// Two quick tests are enough to tell a caught mutant, one that does not
	// compile and one that changes nothing, and a grading stopped at its
	// first failure (the second test then does not run): the lesson's
	// other tests would only make each grading longer.
	ll := lesson01With(t, "TestL01FIFO", "TestL01WrapAround")
	ll.Mutants = fstest.MapFS{
		"unused-variable.txt": {Data: []byte("# an unused variable: the compiler refuses it\n=== runq.go\n<<<<<<<\n\tif !pp.runqhead.CompareAndSwap(h, h+n) { // cas-release, commits consume\n=======\n\tunused := 0\n\tif !pp.runqhead.CompareAndSwap(h, h+n) { // cas-release, commits consume\n>>>>>>>\n")},
		"changes-nothing.txt": {Data: []byte("# a comment: the reference, graded as a mutant\n=== runq.go\n<<<<<<<\n\tif !pp.runqhead.CompareAndSwap(h, h+n) { // cas-release, commits consume\n=======\n\t// nothing changed\n\tif !pp.runqhead.CompareAndSwap(h, h+n) { // cas-release, commits consume\n>>>>>>>\n")},
		"fifo-is-lifo.txt":    {Data: []byte("# runqget takes the newest G, not the oldest\n=== runq.go\n<<<<<<<\n\t\tgp := pp.runq[h%uint32(len(pp.runq))].Load()\n=======\n\t\tgp := pp.runq[(t-1)%uint32(len(pp.runq))].Load()\n>>>>>>>\n")},
	}
	verdicts, err := c.Verify(context.Background(), &ll)
	if err != nil {
		t.Fatal(err)
	}
	mutants := map[string]Verdict{}
	for _, v := range verdicts {
		if v.Kind == "mutant" {
			mutants[v.Name] = v
			t.Log(v)
		}
	}
	if v, ok := mutants["unused-variable"]; !ok || v.OK || !v.Result.NotCompiled {
		t.Errorf("mutant unused-variable: %v, NotCompiled = %v; want a wrong verdict for a mutant that does not compile", v, ok && v.Result.NotCompiled)
	}
	if v, ok := mutants["changes-nothing"]; !ok || v.OK || v.Result.Score != v.Result.MaxScore {
		t.Errorf("mutant changes-nothing: %v; want a wrong verdict and full marks: every test ran and passed", v)
	}
	v, ok := mutants["fifo-is-lifo"]
	if !ok || !v.OK {
		t.Fatalf("mutant fifo-is-lifo: %v; want it caught", v)
	}
	failed, notRun := 0, 0
	for _, tr := range v.Result.Tests {
		switch {
		case tr.Status == StatusPass:
		case tr.Message == didNotRun || strings.HasPrefix(tr.Message, notRunPrefix):
			notRun++
		default:
			failed++
		}
	}
	if failed != 1 || notRun == 0 {
		t.Errorf("mutant fifo-is-lifo: %d tests failed and %d did not run; want its grading stopped at its first failure", failed, notRun)
	}
}

// TestVerifyHints: a mutant's "# caught by:" test runs first, alone, and
// when it fails the mutant is caught with no other test run; a hint that
// no longer catches it costs a run and changes no verdict (the lesson is
// graded from its first test, as without a hint).
func TestVerifyHints(t *testing.T) {
	if testing.Short() {
		t.Skip("grades the reference and the skeleton of lesson 01 too")
	}
	t.Parallel() // a copy of the shared checker, or the checker itself (safe for concurrent use); it mostly builds and waits on runs
	c := sharedChecker(t)
	ll := lesson01With(t, "TestL01FIFO", "TestL01WrapAround", "TestL01DrainEdges") // the last passes on a LIFO ring
	lifo := "=== runq.go\n<<<<<<<\n\t\tgp := pp.runq[h%uint32(len(pp.runq))].Load()\n=======\n\t\tgp := pp.runq[(t-1)%uint32(len(pp.runq))].Load()\n>>>>>>>\n"
	ll.Mutants = fstest.MapFS{
		"hinted.txt": {Data: []byte("# runqget takes the newest G\n# caught by: TestL01WrapAround\n" + lifo)},
		"stale.txt":  {Data: []byte("# runqget takes the newest G\n# caught by: TestL01DrainEdges\n" + lifo)},
	}
	verdicts, err := c.Verify(context.Background(), &ll)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Verdict{}
	for _, v := range verdicts {
		got[v.Name] = v
		t.Log(v)
	}
	if v := got["hinted"]; !v.OK || v.CaughtBy != "TestL01WrapAround" || len(v.Result.Tests) != 1 {
		t.Errorf("hinted: %v with %d tests graded; want it caught by its hint, TestL01WrapAround, the only test run", v, len(v.Result.Tests))
	}
	if v := got["stale"]; !v.OK || v.Hint != "TestL01DrainEdges" || v.CaughtBy != "TestL01FIFO" || !strings.Contains(v.String(), "not by TestL01DrainEdges") {
		t.Errorf("stale: %v; want it caught by TestL01FIFO, the lesson's first test, and its stale hint named", v)
	}
}
