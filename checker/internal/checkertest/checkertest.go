package checkertest

import (
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	gmpkata "github.com/gmp-kata/gmp-kata"
	"github.com/gmp-kata/gmp-kata/checker"
	"github.com/gmp-kata/gmp-kata/lessons"
	_ "github.com/gmp-kata/gmp-kata/lessons/all" // the lessons Lesson and the Checker know
)

var (
	once    sync.Once
	shared  *checker.Checker
	sharedE error
	dir     string
)

// Main runs the tests, then removes the shared Checker's grading module,
// and exits: a test package's TestMain.
func Main(m *testing.M) {
	code := m.Run()
	if dir != "" {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// Checker is one Checker for the whole test binary, with a cache
// directory of its own (Main removes it).
func Checker(t *testing.T) *checker.Checker {
	t.Helper()
	once.Do(func() {
		d, err := os.MkdirTemp("", "kata-checker-test-")
		if err != nil {
			sharedE = err
			return
		}
		dir = d
		shared, sharedE = checker.New(checker.Options{CacheDir: filepath.Join(d, "cache")})
	})
	if sharedE != nil {
		t.Fatal(sharedE)
	}
	return shared
}

// LessonFile writes src as the learner's file name in a fresh directory,
// as a workspace holds it, and returns the files map the engines take.
func LessonFile(t *testing.T, name string, src []byte) map[string]string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, src, 0o644); err != nil {
		t.Fatal(err)
	}
	return map[string]string{name: p}
}

// Embedded is a file of kata's own sources (gmpkata.Sources): the
// reference's or the skeleton's.
func Embedded(t *testing.T, path string) []byte {
	t.Helper()
	data, err := fs.ReadFile(gmpkata.Sources, path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// Lesson is the lesson id names in lessons.Default.
func Lesson(t *testing.T, id string) *lessons.Lesson {
	t.Helper()
	l, err := lessons.Default.Lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	return l
}
