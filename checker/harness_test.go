package checker

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// renameSource has one test go test would run under each form it accepts,
// and functions that look like tests and are not.
const renameSource = `package sched

import "testing"

// func TestInComment(t *testing.T) {}
var s = "func TestInString(t *testing.T) {}"

/*
func TestInBlockComment(t *testing.T) {}
*/
var raw = ` + "`" + `
func TestInRawString(t *testing.T) {}
` + "`" + `

func TestA(t *testing.T) {
	t.Log("TestA") // TestA
}

func Testb(t *testing.T) {} // lower case after Test: not a test

type x struct{}

func (x) TestC(t *testing.T) {}

func TestD(b *testing.B) {}

func TestE(t *testing.T) int { return 0 }

func TestF[P any](t *testing.T) {}

func TestG(t, u *testing.T) {}

func TestMain(m *testing.M) {}

func Test(*T) {}

func Test_x(t *testing.T) { TestA(t) }

func TestÉ(t *testing.T) {}

func Testé(t *testing.T) {}
`

// TestRenameTests: only the tests go test would run are renamed, each in
// place: every other line is the same bytes, and so every line keeps its
// number.
func TestRenameTests(t *testing.T) {
	out, names := renameTests([]byte(renameSource))
	if want := []string{"TestA", "Test", "Test_x", "TestÉ"}; !slices.Equal(names, want) {
		t.Errorf("renamed %q, want %q", names, want)
	}
	before, after := strings.Split(renameSource, "\n"), strings.Split(string(out), "\n")
	if len(after) != len(before) {
		t.Fatalf("%d lines after renaming, want %d:\n%s", len(after), len(before), out)
	}
	renamed := map[string]string{
		"func TestA(t *testing.T) {":             "func kataTest_TestA(t *testing.T) {",
		"func Test(*T) {}":                       "func kataTest_Test(*T) {}",
		"func Test_x(t *testing.T) { TestA(t) }": "func kataTest_Test_x(t *testing.T) { TestA(t) }",
		"func TestÉ(t *testing.T) {}":            "func kataTest_TestÉ(t *testing.T) {}",
	}
	for i := range before {
		want, ok := renamed[before[i]]
		if !ok {
			want = before[i]
		}
		if after[i] != want {
			t.Errorf("line %d: %q, want %q", i+1, after[i], want)
		}
	}

	bad := []byte("package sched\n\nfunc TestA(t *testing.T) {\n")
	if out, names := renameTests(bad); string(out) != string(bad) || names != nil {
		t.Errorf("a file that does not parse: renamed %q to\n%s\nwant it as it is, for the compiler to report", names, out)
	}
}

// miniModule is a grading module of its own, much smaller than the
// course's: one reference file and one hidden test file, whose line
// numbers the tests below know.
func miniModule(t *testing.T) *module {
	t.Helper()
	dir := t.TempDir()
	err := writeFiles(dir, map[string][]byte{
		"go.mod":                 []byte("module gmpkata.grade\n\ngo 1.26\n"),
		"solutions/sched.go":     []byte("package sched\n\nfunc crash() {}\n"),
		"hidden/kit/kit_test.go": []byte("package sched\n\nfunc kitNothing() {}\n"),
		"hidden/les/a_test.go": []byte(`package sched

import "testing"

func TestPass(t *testing.T) {}

func TestFail(t *testing.T) {
	t.Errorf("wrong") // line 8
}

func TestSkip(t *testing.T) { t.Skip("later") }

func TestPanic(t *testing.T) {
	crash() // line 14
}
`),
		"hidden/broken/b_test.go": []byte(`package sched

import "testing"

func TestBroken(t *testing.T) {
	undefinedThing() // line 6
}
`),
	})
	if err != nil {
		t.Fatal(err)
	}
	return moduleAt(dir)
}

// TestHarnessRecordsVerdicts runs go test with the harness on a module of
// its own: the verdicts come from the harness's report, the hidden test's
// lines are where they were (in its output, its tracebacks and the
// compiler's messages), and a panic names the test and the learner's
// line, never the renamed test nor the harness's wrapper.
func TestHarnessRecordsVerdicts(t *testing.T) {
	mod := miniModule(t)
	learner := lessonFile(t, "sched.go", []byte("package sched\n\nfunc crash() {\n\tpanic(\"boom in the learner's code\") // line 4\n}\n"))
	r := &run{mod: mod, replace: learner, hidden: []string{"les"}, timeouts: map[string]time.Duration{
		"TestPass": time.Minute, "TestFail": time.Minute, "TestSkip": time.Minute, "TestPanic": time.Minute}}

	defer r.cleanup()
	rr, err := execOne(r, []string{"TestPass", "TestFail", "TestSkip"})
	if err != nil {
		t.Fatal(err)
	}
	if rr.s.buildFailed {
		t.Fatalf("does not compile:\n%s", strings.Join(rr.s.buildOutput, "\n"))
	}
	if rr.harness == nil || !rr.harness.Honest {
		t.Fatalf("harness report %+v, want an honest one; package output:\n%s", rr.harness, strings.Join(rr.s.pkgOutput, "\n"))
	}
	want := map[string]string{"TestPass": "pass", "TestFail": "fail", "TestSkip": "skip"}
	for name, v := range want {
		if got := rr.harness.Verdicts[name]; got != v {
			t.Errorf("verdict of %s: %q, want %q", name, got, v)
		}
	}
	if len(rr.harness.Verdicts) != len(want) {
		t.Errorf("verdicts %v, want only %v", rr.harness.Verdicts, want)
	}
	if o := rr.s.tests["TestFail"]; o == nil || !slices.Contains(o.output, "    zz_les_a_test.go:8: wrong") {
		t.Errorf("TestFail's output %q, want its t.Errorf at zz_les_a_test.go:8", outputOf(o))
	}

	rr, err = execOne(r, []string{"TestPanic"})
	if err != nil {
		t.Fatal(err)
	}
	if rr.harness != nil {
		t.Fatalf("a run that panicked left a harness report: %+v", rr.harness)
	}
	o := rr.s.tests["TestPanic"]
	if o == nil || !o.started {
		t.Fatalf("TestPanic: %+v, want it started", o)
	}
	c := &Checker{mod: mod}
	msg := c.crashMessage(rr.mod, o.output, rr.s.pkgOutput, learner)
	wantMsg := "panic: boom in the learner's code\n    at crash (sched.go:4)\n    at TestPanic (hidden test:14)"
	if msg != wantMsg {
		t.Errorf("crash message:\n%s\nwant:\n%s", msg, wantMsg)
	}

	r.cleanup()
	r = &run{mod: mod, replace: learner, hidden: []string{"broken"}, timeouts: map[string]time.Duration{"TestBroken": time.Minute}}
	defer r.cleanup()
	rr, err = execOne(r, []string{"TestBroken"})
	if err != nil {
		t.Fatal(err)
	}
	errs := c.compileErrorsIn(rr.mod, rr.s.buildOutput, learner)
	if want := []string{"zz_broken_b_test.go (hidden test):6:2: undefined: undefinedThing"}; !rr.s.buildFailed || !slices.Equal(errs, want) {
		t.Errorf("compile errors %q, want %q", errs, want)
	}
}

// TestLearnerCannotDeclareARenamedTest: a learner's function with the name
// a hidden test is renamed to does not replace that test: the package does
// not compile, every test fails saying why, and the compiler's message
// points at both declarations, each at its own line. (The vetter refuses
// such a file first; this is the defence beneath it.)
func TestLearnerCannotDeclareARenamedTest(t *testing.T) {
	c := withoutVet(sharedChecker(t))
	l := lesson(t, "01-ringbuffer")
	src := strings.Replace(runqSource(t), `import "sync/atomic"`,
		"import (\n\t\"sync/atomic\"\n\t\"testing\"\n)\n\n// Passes, whatever runq.go does.\nfunc kataTest_TestL01FIFO(t *testing.T) {}", 1)
	files := lessonFile(t, "runq.go", []byte(src))
	res := c.Lesson(context.Background(), l, files)
	if res.Status != StatusFail || res.Score != 0 {
		t.Errorf("status %s, %d/%d: want a failure", res.Status, res.Score, res.MaxScore)
	}

	hidden, err := fs.ReadFile(l.Hidden, "ringbuffer_test.go")
	if err != nil {
		t.Fatal(err)
	}
	line := 1 + slices.Index(strings.Split(string(hidden), "\n"), "func TestL01FIFO(t *testing.T) {")
	want := []string{
		fmt.Sprintf("zz_01_ringbuffer_ringbuffer_test.go (hidden test):%d:6: kataTest_TestL01FIFO redeclared in this block", line),
		"\t" + files["runq.go"] + ":9:6: other declaration of kataTest_TestL01FIFO",
	}
	if line == 0 || !slices.Equal(res.CompileErrors, want) {
		t.Errorf("compile errors:\n%s\nwant:\n%s", strings.Join(res.CompileErrors, "\n"), strings.Join(want, "\n"))
	}
	for _, tr := range res.Tests {
		if tr.Status != StatusFail || tr.Message != "does not compile: "+want[0] {
			t.Errorf("%s: %s %q, want a failure to compile", tr.Name, tr.Status, tr.Message)
		}
	}
}

// TestHarnessRunsPrivateTestsLast: the harness runs the tests shortest
// limit first, and a private pack's after every course test whatever its
// limit (a red team's lesson file printed a private test's inputs in a
// course test that ran after it, which the student sees at once).
func TestHarnessRunsPrivateTestsLast(t *testing.T) {
	limits := map[string]time.Duration{"TestSlow": 9 * time.Second, "TestFast": time.Second, "TestPackQuick": time.Millisecond, "TestPackSlow": 5 * time.Second}
	harness, _ := harnessSource([]string{"TestSlow", "TestPackSlow", "TestPackQuick", "TestFast"}, "ID", true, limits, []string{"TestPackQuick", "TestPackSlow"})
	var order []string
	for _, line := range strings.Split(string(harness), "\n") {
		if name, ok := strings.CutPrefix(line, "func Test"); ok && strings.Contains(line, "kataRecord_ID(") {
			order = append(order, "Test"+name[:strings.Index(name, "(")])
		}
	}
	want := []string{"TestFast", "TestSlow", "TestPackQuick", "TestPackSlow"}
	if !slices.Equal(order, want) {
		t.Errorf("the harness runs %v, want %v", order, want)
	}
}

// TestPrivateTestCompileErrorsStayPrivate: a student who breaks a private
// test's build on purpose (runqlen made to return a string, a red team's)
// reads in the compiler's message only that a private test does not
// compile: not its file, its line, its expression, nor the have/want
// lines after it. The course's own hidden tests keep their messages.
func TestPrivateTestCompileErrorsStayPrivate(t *testing.T) {
	mod := moduleAt(filepath.FromSlash("/grading"))
	pkg := func(name string) string { return filepath.Join(mod.pkgDir, name) }
	lines := []string{
		"# gmpkata.grade/solutions [gmpkata.grade/solutions.test]",
		pkg("zz_01_ringbuffer_pack_secret_test.go") + ":9:28: invalid operation: n != 1 (mismatched types string and untyped int)",
		pkg("zz_01_ringbuffer_pack_secret_test.go") + ":12:9: cannot use runqlen(pp) (value of type string) as uint32 value in assignment",
		"\thave string",
		"\twant uint32",
		pkg("zz_01_ringbuffer_ringbuffer_test.go") + ":40:3: undefined: runqgethead",
		pkg("runq.go") + ":5:1: missing return",
	}
	c := &Checker{mod: mod}
	got := c.compileErrorsIn(mod, lines, map[string]string{"runq.go": "runq.go"})
	want := []string{
		privateNoCompile,
		"zz_01_ringbuffer_ringbuffer_test.go (hidden test):40:3: undefined: runqgethead",
		"runq.go (reference):5:1: missing return",
	}
	if !slices.Equal(got, want) {
		t.Errorf("compile errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestContractChangeIsExplained: a lesson 01 file written when the ring's
// slots were atomic.Pointer[g] fails to compile with a message about two
// array types; the learner is told first what changed and what to write.
// The compiler's line is the one a grading of such a file printed.
func TestContractChangeIsExplained(t *testing.T) {
	mod := moduleAt(filepath.FromSlash("/grading"))
	learner := filepath.Join(t.TempDir(), "runq.go")
	lines := []string{
		"# gmpkata.grade/solutions [gmpkata.grade/solutions.test]",
		learner + `:232:20: cannot use &pp.runq (value of type *[256]atomicRingSlot) as *[256]"sync/atomic".Pointer[g] value in argument to runqgrab`,
		filepath.Join(mod.pkgDir, "zz_01_ringbuffer_diff_test.go") + `:108:21: cannot use &batch (value of type *[256]atomicRingSlot) as *[256]"sync/atomic".Pointer[g] value in argument to runqgrab`,
	}
	c := &Checker{mod: mod}
	got := c.compileErrorsIn(mod, lines, map[string]string{"runq.go": learner})
	require.Len(t, got, 3, strings.Join(got, "\n"))
	assert.Contains(t, got[0], "Write runqgrab's batch as *[256]atomicRingSlot")
	assert.True(t, strings.HasPrefix(got[1], learner+":232:20: cannot use &pp.runq"), got[1])
	// Once, however many messages show it; and not for other errors.
	assert.Empty(t, contractHints([]string{"runq.go:5:1: missing return"}))
}
