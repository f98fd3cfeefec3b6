package checker

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	gmpkata "github.com/gmp-kata/gmp-kata"
	"github.com/gmp-kata/gmp-kata/internal/longtest"
	"github.com/gmp-kata/gmp-kata/lessons"
)

// probed is src with a write to one shared variable, kataSerialProbe,
// at the start of every function and function literal: a data race for
// the race detector wherever two of the scheduler's functions run with
// nothing ordering them.
func probed(t *testing.T, name string, src []byte) []byte {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var at []int
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			if n.Body != nil {
				at = append(at, int(n.Body.Lbrace))
			}
		case *ast.FuncLit:
			at = append(at, int(n.Body.Lbrace))
		}
		return true
	})
	slices.Sort(at)
	var b strings.Builder
	last := 0
	for _, pos := range at { // token.Pos of a file parsed alone: offset+1
		b.Write(src[last:pos])
		b.WriteString(" kataSerialProbe++;")
		last = pos
	}
	b.Write(src[last:])
	return []byte(b.String())
}

// unprobed are the files of the scheduler whose functions get no probe:
// the scheduling points themselves (the atomics' and the locks' methods
// call the controlled scheduler's hook, where a thread waits for its
// turn, after their entry: a probe there would run before the wait).
var unprobed = map[string]bool{"atomics.go": true, "interleave.go": true, "nointerleave.go": true}

// TestSerialTestsRunOneThreadAtATime shows that the tests a lesson marks
// Serial (lessons.Test.Serial) give the race detector nothing to find,
// which is why kata check runs them without it: every function of the
// scheduler but the scheduling points writes one shared variable on
// entry, and each of those tests, alone in its process under the race
// detector, reports no race. The tests that run the scheduler on real
// threads do (at least one per lesson): the probe finds concurrency where
// there is some. The run has one P (GOMAXPROCS=1), so that a test that
// runs several executions side by side, each on a scheduler of its own
// (kitEach), runs them one after another: what is serial is each
// execution. (A lesson file's package-level variable, shared by two
// executions, is the one thing a serial test's race build could see and
// kata check's does not; the lesson's tests on real threads run under
// the race detector, and kata grade runs every test under it.)
func TestSerialTestsRunOneThreadAtATime(t *testing.T) {
	longtest.Skip(t, "runs every hidden test alone under the race detector, with a racy write in every function of the scheduler (about a minute and a half)")
	c := withoutVet(sharedChecker(t))
	dir := t.TempDir()
	replace := map[string]string{}
	entries, err := fs.ReadDir(gmpkata.Sources, "solutions")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || unprobed[name] {
			continue
		}
		src, err := fs.ReadFile(gmpkata.Sources, path.Join("solutions", name))
		if err != nil {
			t.Fatal(err)
		}
		src = probed(t, name, src)
		if name == "runtime2.go" {
			src = append(src, "\n// kataSerialProbe is TestSerialTestsRunOneThreadAtATime's.\nvar kataSerialProbe int\n"...)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, src, 0o644); err != nil {
			t.Fatal(err)
		}
		replace[name] = p
	}
	all := lessons.Default.All()
	r := c.runOf(replace, all)
	r.trusted, r.noVet = true, true
	// One P: the tests that run several executions side by side, each on
	// its own scheduler (kitEach), run them one after another, so that a
	// race the probe reports is one within an execution.
	r.env = []string{"GOMAXPROCS=1"}
	if err := r.makeWork(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.cleanup)
	if rr, err := c.compileOnly(context.Background(), r); err != nil || rr != nil {
		t.Fatalf("the probed scheduler did not build: %v %q", err, rr.s.buildOutput)
	}
	for _, l := range all {
		t.Run(l.ID, func(t *testing.T) {
			var serialClean, realRaced, unmarkedClean []string
			for _, tt := range l.Tests {
				rr, err := execOne(r, []string{tt.Name})
				if err != nil {
					t.Fatal(err)
				}
				raced := rr.raced()
				switch {
				case tt.Serial && raced:
					t.Errorf("%s is marked Serial, but two of the scheduler's functions ran in it with nothing ordering them:\n%s",
						tt.Name, strings.Join(firstLines(rr, 40), "\n"))
				case tt.Serial:
					serialClean = append(serialClean, tt.Name)
				case raced:
					realRaced = append(realRaced, tt.Name)

				default:
					unmarkedClean = append(unmarkedClean, tt.Name)
				}
			}
			if len(realRaced) == 0 {
				t.Error("no test raced, on real threads either: the probe is not where it should be")
			}
			t.Logf("serial, no race: %v", serialClean)
			t.Logf("not serial, raced: %v", realRaced)
			if len(unmarkedClean) > 0 {
				t.Logf("not marked Serial, yet no race here (they could be): %v", unmarkedClean)
			}
		})
	}
}

// firstLines is up to n lines of what rr's run printed, for a message.
func firstLines(rr *runResult, n int) []string {
	var out []string
	out = append(out, rr.s.pkgOutput...)
	for _, o := range rr.s.tests {
		out = append(out, o.output...)
	}
	return out[:min(n, len(out))]
}
