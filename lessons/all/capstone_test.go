package all

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gmp-kata/gmp-kata/checker"
	"github.com/gmp-kata/gmp-kata/internal/longtest"
	"github.com/gmp-kata/gmp-kata/lessons"
)

// TestCapstoneAcceptsAlternates grades every alternate of every lesson (a
// correct implementation written differently) in the capstone, the run of
// every lesson's tests on all of a learner's files. An alternate scores
// full marks in its own lesson's grade (the self-check proves it); it must
// score full marks here too. If it does not, some other lesson's hidden
// tests demand of this lesson's file more than its contract says (or build
// a state the real scheduler is never in), and a learner with a correct
// file loses points in `kata check --all`.
//
// The alternates are graded together, as a learner's workspace holds
// them: the first alternate of every lesson in one run, the second ones
// (with the reference's files for lessons that have none) in the next. A
// run that loses points grades the reference (if it loses points too,
// nothing here means anything: the self-check, TestVerify in package
// checker, grades it lesson by lesson) and each of its alternates alone,
// with the reference's other files, to say whose file it is. Each
// alternate alone in its own lesson, as a learner's check grades it, is
// TestVerify's (package checker) with KATA_LONG=1. Each run grades the
// whole course as kata check --all does (the serial tests without the
// race detector, the others under it; TestVerify, with KATA_LONG=1,
// grades every alternate alone as kata grade does), so this is skipped under -short,
// and without KATA_LONG=1 only the first round runs (one alternate of
// every lesson, together).
func TestCapstoneAcceptsAlternates(t *testing.T) {
	if testing.Short() {
		t.Skip("grades the whole course at least three times; run without -short")
	}
	tmp := t.TempDir()
	ck, err := checker.New(checker.Options{CacheDir: filepath.Join(tmp, "cache"), SerialWithoutRace: true})
	if err != nil {
		t.Fatal(err)
	}
	grade := func(t *testing.T, what string, files map[string]string) bool {
		t.Helper()
		return capstoneFullMarks(t, ck, what, files)
	}

	var reference struct {
		once sync.Once
		ok   bool
	}
	referenceOK := func(t *testing.T) bool {
		t.Helper()
		reference.once.Do(func() { reference.ok = grade(t, "the reference", map[string]string{}) })
		return reference.ok
	}
	var rounds [][]alternate
	for _, l := range lessons.Default.All() {
		for i, name := range alternates(t, l) {
			if i == len(rounds) {
				rounds = append(rounds, nil)
			}
			rounds[i] = append(rounds[i], alternate{l, name, alternateFiles(t, tmp, l, name)})
		}
	}
	if !longtest.Enabled() && len(rounds) > 1 {
		t.Logf("grading the first alternate of every lesson; the %d other rounds run with %s=1", len(rounds)-1, longtest.Var)
		rounds = rounds[:1]
	}
	for i, round := range rounds {
		t.Run(fmt.Sprintf("together/%d", i+1), func(t *testing.T) {
			t.Parallel() // a grade mostly waits on its test binary
			files, names := map[string]string{}, []string{}
			for _, a := range round {
				maps.Copy(files, a.files)
				names = append(names, a.lesson.ID+"/"+a.name)
			}
			if grade(t, "alternates "+strings.Join(names, ", ")+" together", files) {
				return
			}
			if !referenceOK(t) {
				t.Fatal("the reference itself loses points in the capstone: fix that first")
			}
			for _, a := range round {
				t.Run(a.lesson.ID+"/"+a.name, func(t *testing.T) {
					grade(t, a.String(), a.files)
				})
			}
		})
	}
}

// capstoneFullMarks grades files in the capstone and reports whether they
// scored full marks; if not, t fails, saying what was lost.
func capstoneFullMarks(t *testing.T, ck *checker.Checker, what string, files map[string]string) bool {
	t.Helper()
	res := ck.Capstone(context.Background(), files)
	if res.Status == checker.StatusError {
		t.Fatalf("%s: the capstone could not run: %s", what, res.Error)
	}
	if res.Score == res.MaxScore {
		t.Logf("%s: capstone %d/%d", what, res.Score, res.MaxScore)
		return true
	}
	t.Errorf("%s: the capstone gave %d/%d, want full marks", what, res.Score, res.MaxScore)
	for _, tr := range res.Tests {
		if tr.Status != checker.StatusPass {
			t.Logf("    %s %s: %.400s", tr.Status, tr.Name, tr.Message)
		}
	}
	for _, e := range res.CompileErrors {
		t.Logf("    compile: %s", e)
	}
	return false
}

// An alternate is one of a lesson's alternates, its files written out.
type alternate struct {
	lesson *lessons.Lesson
	name   string
	files  map[string]string // base name → path
}

func (a alternate) String() string {
	return "alternate " + a.name + " of " + a.lesson.ID + ", the reference for every other file"
}

// alternateFiles writes alternate alt of lesson l under dir and returns
// its files (base name → path): only those it has, the reference's stand
// for the others.
func alternateFiles(t *testing.T, dir string, l *lessons.Lesson, alt string) map[string]string {
	t.Helper()
	files := map[string]string{}
	for _, f := range l.Files {
		data, err := fs.ReadFile(l.Alternates, path.Join(alt, f))
		if err != nil {
			continue // an alternate replaces only the files it has
		}
		p := filepath.Join(dir, l.ID, alt, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		files[f] = p
	}
	if len(files) == 0 {
		t.Fatalf("alternate %s of %s has none of the lesson's files %v", alt, l.ID, l.Files)
	}
	return files
}

// alternates lists the names of lesson l's alternates.
func alternates(t *testing.T, l *lessons.Lesson) []string {
	t.Helper()
	if l.Alternates == nil {
		return nil
	}
	entries, err := fs.ReadDir(l.Alternates, ".")
	if err != nil {
		t.Fatalf("%s: alternates: %v", l.ID, err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names
}
