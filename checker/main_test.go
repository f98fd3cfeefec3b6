package checker

import (
	"io/fs"
	"os"
	"sync"
	"testing"
)

var (
	checkerOnce sync.Once
	testChecker *Checker
	checkerErr  error
	checkerDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if checkerDir != "" {
		os.RemoveAll(checkerDir)
	}
	os.Exit(code)
}

func countDirs(t *testing.T, fsys fs.FS) int {
	t.Helper()
	if fsys == nil {
		return 0
	}
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if e.IsDir() {
			n++
		}
	}
	return n
}
