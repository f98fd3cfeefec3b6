package all

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmp-kata/gmp-kata/internal/oracle"
	"github.com/gmp-kata/gmp-kata/lessons"
)

// TestOracleIsFresh fails when a lesson's copy of the reference (its
// testdata/hidden/ref_*_test.go, see package oracle) is not what the
// reference's files make. Run `go test ./lessons/all -run Oracle -update`
// to regenerate them after changing solutions/.
//
// Only a lesson whose hidden tests call a ref_ function gets the copies: a
// copy compiles against the learner's declarations of the file's types
// and constants (lesson 04's randomOrder), so one that no test uses could
// only fail a learner who renamed a field.
func TestOracleIsFresh(t *testing.T) {
	const fix = " (run: go test ./lessons/all -run Oracle -update)"
	for _, l := range lessons.Default.All() {
		dir := filepath.Join("..", l.ID, "testdata", "hidden")
		want, err := oracle.Copies(os.DirFS("../../solutions"), l.Files)
		if err != nil {
			t.Fatal(err)
		}
		if !usesOracle(t, dir) {
			want = nil
		}
		have, _ := filepath.Glob(filepath.Join(dir, oracle.Prefix+"*_test.go"))
		for _, f := range have {
			if _, ok := want[filepath.Base(f)]; !ok {
				if *update {
					os.Remove(f)
					continue
				}
				t.Errorf("%s is the copy of no file lesson %s owns, or no hidden test of the lesson calls a %s function"+fix, f, l.ID, oracle.Prefix)
			}
		}
		for name, data := range want {
			p := filepath.Join(dir, name)
			if *update {
				if err := os.WriteFile(p, data, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if got, err := os.ReadFile(p); err != nil || !bytes.Equal(got, data) {
				t.Errorf("%s is stale"+fix, p)
			}
		}
	}
}

// TestOracleRenamesEveryFunction checks the copies name what the hidden
// tests call: every function and method of a lesson's file has its ref_
// twin, and no copy calls a function of its own file by the learner's name.
func TestOracleRenamesEveryFunction(t *testing.T) {
	for _, l := range lessons.Default.All() {
		if !usesOracle(t, filepath.Join("..", l.ID, "testdata", "hidden")) {
			continue
		}
		for _, f := range l.Files {
			data, err := os.ReadFile(filepath.Join("..", l.ID, "testdata", "hidden", oracle.FileName(f)))
			if err != nil {
				t.Fatalf("lesson %s has no copy of the reference's %s"+" (run: go test ./lessons/all -run Oracle -update)", l.ID, f)
			}
			src, _ := os.ReadFile(filepath.Join("../../solutions", f))
			for _, line := range strings.Split(string(src), "\n") {
				name, ok := funcName(line)
				if !ok {
					continue
				}
				if !strings.Contains(string(data), ") "+oracle.Prefix+name+"(") && !strings.Contains(string(data), "func "+oracle.Prefix+name+"(") {
					t.Errorf("%s: no %s%s in the copy of lesson %s", f, oracle.Prefix, name, l.ID)
				}
			}
		}
	}
}

// usesOracle reports whether a hidden test in dir, other than the copies
// themselves, calls a ref_ function.
func usesOracle(t *testing.T, dir string) bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), oracle.Prefix) {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), oracle.Prefix) {
			return true
		}
	}
	return false
}

// funcName returns the name a line declaring a function or method
// declares.
func funcName(line string) (string, bool) {
	rest, ok := strings.CutPrefix(line, "func ")
	if !ok {
		return "", false
	}
	if strings.HasPrefix(rest, "(") {
		_, rest, _ = strings.Cut(rest, ") ")
	}
	name, _, ok := strings.Cut(rest, "(")
	return name, ok && name != ""
}
