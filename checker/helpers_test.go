package checker

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	gmpkata "github.com/gmp-kata/gmp-kata"
	"github.com/gmp-kata/gmp-kata/lessons"
)

// lessonFile writes src as the learner's file name in a fresh directory,
// as a workspace holds it, and returns the files map a Checker takes.
func lessonFile(t *testing.T, name string, src []byte) map[string]string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, src, 0o644); err != nil {
		t.Fatal(err)
	}
	return map[string]string{name: p}
}

// embedded is a file of kata's own sources (gmpkata.Sources): the
// reference's or the skeleton's.
func embedded(t *testing.T, path string) []byte {
	t.Helper()
	data, err := fs.ReadFile(gmpkata.Sources, path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func lesson(t *testing.T, id string) *lessons.Lesson {
	t.Helper()
	l, err := lessons.Default.Lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// execOne is one run of r's test binary for tests (run.exec of one batch).
func execOne(r *run, tests []string) (*runResult, error) {
	rrs, err := r.exec(context.Background(), tests)
	if err != nil {
		return nil, err
	}
	return rrs[0], nil
}
