package all

import (
	"context"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gmp-kata/gmp-kata/checker"
	"github.com/gmp-kata/gmp-kata/lessons"
)

// TestCapstoneAcceptsAlternates grades every alternate of every lesson (a
// correct implementation written differently) in the capstone, the run of
// every lesson's tests on all of a learner's files, with the reference's
// files for the other lessons. An alternate scores full marks in its own
// lesson's grade (the self-check proves it); it must score full marks here
// too. If it does not, some other lesson's hidden tests demand of this
// lesson's file more than its contract says (or build a state the real
// scheduler is never in), and a learner with a correct file loses points
// in `kata check --all`.
//
// The reference itself is graded first: if it loses points, nothing below
// means anything. Each run grades the whole course under the race
// detector, so this is skipped under -short. Run one lesson's alternates
// with -run 'TestCapstoneAcceptsAlternates/02-runnext'.
func TestCapstoneAcceptsAlternates(t *testing.T) {
	if testing.Short() {
		t.Skip("grades the whole course once per alternate; run without -short")
	}
	tmp := t.TempDir()
	ck, err := checker.New(checker.Options{CacheDir: filepath.Join(tmp, "cache")})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	grade := func(t *testing.T, what string, files map[string]string) {
		t.Helper()
		res := ck.Capstone(ctx, files)
		if res.Status == checker.StatusError {
			t.Fatalf("%s: the capstone could not run: %s", what, res.Error)
		}
		if res.Score == res.MaxScore {
			t.Logf("%s: capstone %d/%d", what, res.Score, res.MaxScore)
			return
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
	}

	t.Run("reference", func(t *testing.T) {
		grade(t, "the reference", map[string]string{})
	})
	for _, l := range lessons.Default.All() {
		for _, alt := range alternates(t, l) {
			t.Run(l.ID+"/"+alt, func(t *testing.T) {
				files := map[string]string{}
				for _, f := range l.Files {
					data, err := fs.ReadFile(l.Alternates, path.Join(alt, f))
					if err != nil {
						continue // an alternate replaces only the files it has
					}
					p := filepath.Join(tmp, l.ID, alt, f)
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
				grade(t, "alternate "+alt+" of "+l.ID+", the reference for every other file", files)
			})
		}
	}
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
