package checker

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

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

// TestVerify is the course's self-check (kata verify): for every lesson,
// the reference gets full marks, the skeleton zero, every mutant fails and
// every alternate passes. Run one lesson with -run 'TestVerify/02-runnext'.
// Under -short only the reference and the skeleton are graded.
func TestVerify(t *testing.T) {
	c := sharedChecker(t)
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
			}
			verdicts, err := c.Verify(context.Background(), &ll)
			if err != nil {
				t.Fatal(err)
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

// TestVerifyRefusesAMutantThatDoesNotCompile: a mutant fails the lesson
// either way, but one that does not compile tests nothing, so verify calls
// its verdict wrong rather than count it as caught.
func TestVerifyRefusesAMutantThatDoesNotCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("grades the reference and the skeleton of lesson 01 too")
	}
	c := sharedChecker(t)
	l, err := lessons.Default.Lookup("01")
	if err != nil {
		t.Fatal(err)
	}
	ll := *l
	ll.Alternates = nil
	ll.Mutants = fstest.MapFS{"unused-variable.txt": {Data: []byte("# an unused variable: the compiler refuses it\n=== runq.go\n<<<<<<<\n\tif !pp.runqhead.CompareAndSwap(h, h+n) { // cas-release, commits consume\n=======\n\tunused := 0\n\tif !pp.runqhead.CompareAndSwap(h, h+n) { // cas-release, commits consume\n>>>>>>>\n")}}
	verdicts, err := c.Verify(context.Background(), &ll)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, v := range verdicts {
		if v.Kind != "mutant" {
			continue
		}
		found = true
		if v.OK || !v.Result.NotCompiled {
			t.Errorf("mutant %s: OK = %v, NotCompiled = %v; want a wrong verdict for a mutant that does not compile (%s)", v.Name, v.OK, v.Result.NotCompiled, v.Result.CompileErrors)
		}
	}
	if !found {
		t.Fatal("no mutant was graded")
	}
}
