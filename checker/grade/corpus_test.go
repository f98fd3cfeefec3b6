package grade

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gmp-kata/gmp-kata/checker/proclimit"
	"github.com/gmp-kata/gmp-kata/checker/report"
	"github.com/gmp-kata/gmp-kata/checker/sandbox"
	"github.com/gmp-kata/gmp-kata/internal/longtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// A hostile submission: the reference, with one lesson's file broken in
// one way a class of students (or one of them, on purpose) would.
type hostile struct {
	name   string
	lesson string // the lesson it breaks; every other lesson is the reference
	short  bool   // in the short corpus too (go test ./... without KATA_LONG=1, or -short)
	linux  bool   // only where the memory limit holds, or Linux syscalls are used
	files  func(t testing.TB) map[string][]byte
	// want checks the broken lesson's grade. Every hostile submission
	// must also fail that lesson, and score full marks in the others.
	want func(t *testing.T, g report.LessonGrade, mutantScore int)
	// sandbox: only where kata has a sandbox (package sandbox): what it
	// checks holds there only.
	sandbox bool
	// goarch: only on this architecture ("": any).
	goarch string
}

// anyTest reports whether some test of g failed with a reason matching
// pattern.
func anyTest(t *testing.T, g report.LessonGrade, pattern string) {
	t.Helper()
	for _, tg := range g.Tests {
		if tg.Status != report.StatusPass && strings.Contains(tg.Message, pattern) {
			return
		}
	}
	t.Errorf("no failing test of %s says %q; the tests said:\n%s", g.ID, pattern, testReasons(g))
}

// everyTest checks every test of g failed with a reason matching pattern.
func everyTest(t *testing.T, g report.LessonGrade, pattern string) {
	t.Helper()
	assert.Equal(t, 0, g.Score, "%s scored", g.ID)
	for _, tg := range g.Tests {
		assert.Regexp(t, pattern, tg.Reason, "%s %s", g.ID, tg.Name)
	}
}

// refused checks the vetter refused g's files: every test failed, before
// any compile, with the first problem, which matches pattern.
func refused(pattern string) func(t *testing.T, g report.LessonGrade, _ int) {
	return func(t *testing.T, g report.LessonGrade, _ int) {
		t.Helper()
		everyTest(t, g, `^breaks a rule of lesson files: `+pattern)
		assert.Empty(t, g.CompileErrors)
	}
}

func testReasons(g report.LessonGrade) string {
	var lines []string
	for _, tg := range g.Tests {
		lines = append(lines, "  "+tg.Status+" "+tg.Name+": "+tg.Reason)
	}
	return strings.Join(lines, "\n")
}

// allL01 are lesson 01's test names, for the fake-PASS printers.
const allL01 = `"TestL01FIFO", "TestL01WrapAround", "TestL01FullRingGoesGlobal", "TestL01PutBatch", "TestL01GrabOlderHalf", "TestL01StealAndDrain", "TestL01ConcurrentSteal", "TestL01InScheduler"`

// withImports adds imports to a file that has none, or runq.go's one
// import of sync/atomic (before its slots were atomicRingSlot).
func withImports(t testing.TB, src []byte, imports ...string) []byte {
	t.Helper()
	block := "import (\n"
	for _, imp := range imports {
		block += "\t\"" + imp + "\"\n"
	}
	if !bytes.Contains(src, []byte(`import "sync/atomic"`)) { // the reference's runq.go imports nothing
		return edit(t, src, "package sched\n\n", "package sched\n\n"+block+")\n\n")
	}
	return edit(t, src, `import "sync/atomic"`, block+"\t\"sync/atomic\"\n)")
}

// one is a submission of one lesson file, name, holding data.
func one(name string, data []byte) map[string][]byte { return map[string][]byte{name: data} }

// hostiles are the hostile submissions that attack their grade, in the
// order TestHostileCorpus makes them.
func hostiles() []hostile {
	return slices.Concat(
		hostilesMistakesAndScheduler(),
		hostilesForgedOutput(),
		hostilesResources(),
		hostilesVetterRefuses(),
		hostilesRunsAndVetter(),
		hostilesState(),
		hostilesTellTheTests(),
		hostilesOutOfSight(),
		hostilesCopiesAndWords(),
	)
}

// hostilesMistakesAndScheduler are the mistakes a class makes (a
// compile error, a missing function, a wrong signature, panics), and the
// red teams' grades forged past the controlled scheduler: its hook set to
// nil, work done on goroutines and coroutines of the file's own, the
// hidden tests' copies of the reference called through an interface.
func hostilesMistakesAndScheduler() []hostile {
	return []hostile{
		{name: "compile-error", lesson: "01-ringbuffer", short: true,
			files: func(t testing.TB) map[string][]byte {
				return one("runq.go", edit(t, ref(t, "runq.go"), "func runqputtail(pp *p, gp *g) {", "func runqputtail(pp *p, gp *g) {\n\tundefinedThing()"))
			},
			want: func(t *testing.T, g report.LessonGrade, _ int) {
				everyTest(t, g, `^does not compile: runq\.go:\d+:\d+: undefined: undefinedThing$`)
			}},
		{name: "missing-function", lesson: "01-ringbuffer",
			files: func(t testing.TB) map[string][]byte {
				return one("runq.go", edit(t, ref(t, "runq.go"), "func runqsteal(", "func runqstealRenamed("))
			},
			want: func(t *testing.T, g report.LessonGrade, _ int) {
				everyTest(t, g, `^does not compile: .*undefined: runqsteal$`)
			}},
		{name: "wrong-signature", lesson: "02-runnext",
			files: func(t testing.TB) map[string][]byte {
				return one("runnext.go", edit(t, ref(t, "runnext.go"), "func runqempty(pp *p) bool {", "func runqempty(pp *p, strict bool) bool {"))
			},
			want: func(t *testing.T, g report.LessonGrade, _ int) {
				everyTest(t, g, `^does not compile: .*(not enough arguments in call to runqempty|cannot use runqempty)`)
			}},
		{name: "panic-in-a-g", lesson: "06-gopark",
			files: func(t testing.TB) map[string][]byte {
				return one("park.go", edit(t, ref(t, "park.go"), "\tmp := gp.m\n\tif status := readgstatus(gp)", "\tpanic(\"boom in a G\")\n\tmp := gp.m\n\tif status := readgstatus(gp)"))
			},
			want: func(t *testing.T, g report.LessonGrade, _ int) {
				anyTest(t, g, "boom in a G")
			}},
		{name: "panic-on-an-m", lesson: "06-gopark",
			files: func(t testing.TB) map[string][]byte {
				return one("park.go", edit(t, ref(t, "park.go"), "func park_m(mp *m, gp *g) (*g, bool) {", "func park_m(mp *m, gp *g) (*g, bool) {\n\tpanic(\"boom on an M\")"))
			},
			want: func(t *testing.T, g report.LessonGrade, _ int) {
				anyTest(t, g, "crashed: panic: boom on an M")
			}},
		// The second red team's grades forged without unsafe (vet rules 8
		// and 9): the controlled scheduler's hook set to nil, so the
		// interleaving tests ran threads one after another; a String
		// method that made two printed values equal (the hidden test now
		// compares values too); the channel's sudogs, whose elem reads and
		// writes any memory.
		{name: "hook-to-nil", lesson: "01-ringbuffer", short: true,
			files: func(t testing.TB) map[string][]byte {
				return one("runq.go", edit(t, mutant(t, "01-ringbuffer", "grab-takes-all")["runq.go"], "func runqputtail(pp *p, gp *g) {", "func runqputtail(pp *p, gp *g) {\n\tinterleaveHook.Store(nil)"))
			},
			// The hook is declared only in the hidden tests' build
			// (kata_interleave): to the file, it is a test's name.
			want: refused(`runq\.go:\d+:2: refers to interleaveHook, which only kata's tests declare: use only what the reference and your imports declare$`)},
		// The sixth red team's: the same effect without a name of the
		// tests', a function's work done on a goroutine (or coroutine) of
		// the file's own, which the controlled scheduler let through as
		// one indivisible step (vet rule 13). A racy ring went 74 -> 94,
		// and with a lock of its own 100; a lost update in spinning.go
		// 87 -> 100.
		{name: "work-on-own-goroutine", lesson: "01-ringbuffer", short: true,
			files: func(t testing.TB) map[string][]byte {
				src := edit(t, mutant(t, "01-ringbuffer", "grab-takes-all")["runq.go"], "func runqsteal(pp, p2 *p, stealRunNextG bool) *g {", "func runqsteal(pp, p2 *p, stealRunNextG bool) *g {\n\tch := make(chan *g)\n\tgo func() { ch <- runqstealBody(pp, p2, stealRunNextG) }()\n\treturn <-ch\n}\n\nfunc runqstealBody(pp, p2 *p, stealRunNextG bool) *g {")
				return one("runq.go", src)
			},
			want: refused(`runq\.go:\d+:2: a lesson file may not start a goroutine \(a go statement\): .*$`)},
		{name: "work-in-afterfunc", lesson: "05-spinning", short: true,
			files: func(t testing.TB) map[string][]byte {
				src := edit(t, ref(t, "spinning.go"), "package sched\n", "package sched\n\nimport \"time\"\n")
				src = edit(t, src, "func wakep(sched *schedt) {", "func wakep(sched *schedt) {\n\tdone := make(chan bool)\n\ttime.AfterFunc(0, func() { wakepBody(sched); done <- true })\n\t<-done\n}\n\nfunc wakepBody(sched *schedt) {")
				return one("spinning.go", src)
			},
			want: refused(`spinning\.go:\d+:7: time\.AfterFunc runs code on a goroutine or coroutine of its own, .*$`)},
		{name: "work-in-a-coroutine", lesson: "05-spinning", short: true,
			files: func(t testing.TB) map[string][]byte {
				src := edit(t, ref(t, "spinning.go"), "package sched\n", "package sched\n\nimport \"iter\"\n")
				src = edit(t, src, "func wakep(sched *schedt) {", "func wakep(sched *schedt) {\n\tnext, stop := iter.Pull(func(yield func(bool) bool) { wakepBody(sched); yield(true) })\n\tnext()\n\tstop()\n}\n\nfunc wakepBody(sched *schedt) {")
				return one("spinning.go", src)
			},
			want: refused(`spinning\.go:\d+:21: iter\.Pull runs code on a goroutine or coroutine of its own, .*$`)},
		// The seventh red team's: the hidden tests' copy of the reference's
		// function, called through an interface of the file's own; a file
		// with no queue logic scored 100.
		{name: "test-copy-through-interface", lesson: "03-globrunqget",
			files: func(t testing.TB) map[string][]byte {
				src := edit(t, ref(t, "globrunq.go"), "func (sched *schedt) globrunqget() *g {", "func (sched *schedt) globrunqget() *g {\n\treturn any(sched).(interface{ ref_globrunqget() *g }).ref_globrunqget()\n}\n\nfunc (sched *schedt) globrunqgetUnused() *g {")
				return one("globrunq.go", src)
			},
			want: refused(`globrunq\.go:\d+:\d+: declares an interface method ref_globrunqget, as kata's tests declare on the reference's types .*$`)},
		{name: "string-method", lesson: "06-gopark",
			files: func(t testing.TB) map[string][]byte {
				src := edit(t, ref(t, "park.go"), "\tgp.waitreason = reason\n", "\tgp.waitreason = waitReason(0)\n")
				return one("park.go", append(src, "\nfunc (w WaitingG) String() string { return \"G\" }\n"...))
			},
			// Lesson 06's API has no WaitingG either: the receiver is
			// refused for that first, and the method for being on it.
			want: refused(`park\.go:\d+:9: uses WaitingG, which is not in lesson 06-gopark's API: .* \(and 1 more problem\)$`)},
		{name: "channel-sudogs", lesson: "01-ringbuffer",
			files: func(t testing.TB) map[string][]byte {
				return one("runq.go", edit(t, ref(t, "runq.go"), "func runqputtail(pp *p, gp *g) {", "func runqputtail(pp *p, gp *g) {\n\tsg := acquireSudog(gp)\n\tsg.elem = nil\n\treleaseSudog(sg)"))
			},
			want: refused(`runq\.go:\d+:8: uses acquireSudog, which is not in lesson 01-ringbuffer's API: .* \(and 2 more problems\)$`)},
	}
}

// hostilesForgedOutput print what kata reads a run's results from:
// race reports, and PASS lines plain and framed; and exit in init.
func hostilesForgedOutput() []hostile {
	return []hostile{
		// A test that prints 120,000 lines shaped like a race report's
		// accesses (under the output limit: no frames, 64 bytes of it
		// each), then crashes: kata read each access down to the end of
		// the output, minutes of its own time, without blank lines between
		// them. With them too. The report reads as a race (the run is not
		// trusted) and is condensed to one line, at once.
		// Each run prints 7 MiB and crashes: the lesson's output limit,
		// which its runs share, ends the grading at the second run, whose
		// test is stopped for its output, and the tests left are not
		// started (every test a run, each with 8 MiB of its own, made
		// kata read 7 MiB per test before).
		{name: "fake-race-lines", lesson: "01-ringbuffer", short: true,
			files: func(t testing.TB) map[string][]byte { return one("runq.go", fakeRaceFlood(t, false)) },
			want:  floodedLesson},
		{name: "fake-race-lines-blank", lesson: "01-ringbuffer", short: true,
			files: func(t testing.TB) map[string][]byte { return one("runq.go", fakeRaceFlood(t, true)) },
			want:  floodedLesson},
		{name: "exit-in-init", lesson: "01-ringbuffer", short: true,
			files: func(t testing.TB) map[string][]byte {
				return one("runq.go", edit(t, withImports(t, ref(t, "runq.go"), "os"), "\nfunc runqputtail(", "\nfunc init() { os.Exit(0) }\n\nfunc runqputtail("))
			},
			// Beneath the vetter: TestDefencesBeneathTheVetter (checker).
			want: refused(`runq\.go:4:2: import "os" is not allowed in a lesson file: remove it \(kata task lists the packages a lesson file may import\) \(and 1 more problem\)$`)},
		{name: "fake-pass-plain", lesson: "01-ringbuffer",
			files: func(t testing.TB) map[string][]byte {
				// From each call of runqdrain, which few tests make: an
				// init function, or a flag of the file's own to print
				// once, would be refused by the vetter.
				src := withImports(t, mutant(t, "01-ringbuffer", "grab-takes-all")["runq.go"], "fmt")
				return one("runq.go", edit(t, src, "func runqdrain(pp *p) (drainQ gQueue) {", `func runqdrain(pp *p) (drainQ gQueue) {
	for _, n := range []string{`+allL01+`} {
		fmt.Printf("=== RUN   %s\n--- PASS: %s (0.00s)\n", n, n)
	}
	fmt.Printf("PASS\nok  \tgmpkata.grade/solutions\t0.01s\n")`))
			},
			want: func(t *testing.T, g report.LessonGrade, mutantScore int) {
				assert.Equal(t, mutantScore, g.Score, "printing PASS lines must not change the grade of the mistake beneath them")
			}},
		{name: "fake-pass-framed", lesson: "01-ringbuffer", short: true,
			files: func(t testing.TB) map[string][]byte {
				// Then the binary dies: syscall.Exit would be refused by
				// the vetter, a panic on a goroutine of its own is not (a
				// panic in a G only fails the test).
				// Every test's name, so that the one running when the
				// binary dies is among those that claim a pass.
				var names []string
				for _, tt := range lesson(t, "01-ringbuffer").Tests {
					names = append(names, strconv.Quote(tt.Name))
				}
				src := withImports(t, ref(t, "runq.go"), "fmt")
				return one("runq.go", edit(t, src, "func runqputtail(pp *p, gp *g) {", `func runqputtail(pp *p, gp *g) {
	for _, n := range []string{`+strings.Join(names, ", ")+`} {
		fmt.Printf("\x16=== RUN   %s\n\x16--- PASS: %s (0.00s)\n", n, n)
	}
	fmt.Printf("\x16PASS\n")
	go func() { panic("all done") }()
	select {}`))
			},
			// Refused now for its go statement (rule 13): what the run
			// makes of the printed passes is TestDefencesBeneathTheVetter's
			// (checker), with the vetter off.
			want: refused(`runq\.go:\d+:\d+: a lesson file may not start a goroutine \(a go statement\): .*$`)},
		{name: "fake-pass-framed-hidden-output", lesson: "01-ringbuffer", short: true,
			files: func(t testing.TB) map[string][]byte {
				// Framed PASS lines for every test, then standard output
				// and error pointed at /dev/null so that the real results
				// never reach test2json; the tests then run (and the
				// mistake fails some) to the end.
				src := withImports(t, mutant(t, "01-ringbuffer", "grab-takes-all")["runq.go"], "fmt", "os", "syscall")
				return one("runq.go", edit(t, src, "\nfunc runqputtail(", `
func init() {
	for _, n := range []string{`+allL01+`} {
		fmt.Printf("\x16=== RUN   %s\n\x16--- PASS: %s (0.00s)\n", n, n)
	}
	fmt.Printf("\x16PASS\n")
	os.Stdout.Sync()
	null, _ := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	syscall.Dup3(int(null.Fd()), 1, 0)
	syscall.Dup3(int(null.Fd()), 2, 0)
}

func runqputtail(`))
			},
			// Beneath the vetter: TestDefencesBeneathTheVetter (checker).
			want: refused(`runq\.go:5:2: import "os" is not allowed in a lesson file: .* \(and 2 more problems\)$`)},
	}
}

// hostilesResources take what a run may not: time (a loop, a
// deadlock), goroutines, memory, output, and files outside the package.
func hostilesResources() []hostile {
	return []hostile{
		{name: "infinite-loop", lesson: "03-globrunqget",
			files: func(t testing.TB) map[string][]byte {
				return one("globrunq.go", edit(t, ref(t, "globrunq.go"), "func (sched *schedt) globrunqget() *g {", "func (sched *schedt) globrunqget() *g {\n\tfor {\n\t}"))
			},
			want: func(t *testing.T, g report.LessonGrade, _ int) {
				anyTest(t, g, "did not finish within")
			}},
		{name: "deadlock", lesson: "08-procresize",
			files: func(t testing.TB) map[string][]byte {
				return one("procresize.go", edit(t, ref(t, "procresize.go"), "\tsched.assertLockHeld(\"procresize\")", "\tsched.lock.Lock() // held already: deadlock"))
			},
			want: func(t *testing.T, g report.LessonGrade, _ int) {
				anyTest(t, g, "did not finish within")
			}},
		{name: "goroutine-explosion", lesson: "01-ringbuffer", linux: true,
			files: func(t testing.TB) map[string][]byte {
				return one("runq.go", edit(t, ref(t, "runq.go"), "func runqsteal(pp, p2 *p, stealRunNextG bool) *g {", "func runqsteal(pp, p2 *p, stealRunNextG bool) *g {\n\tfor {\n\t\tgo func() { select {} }()\n\t}"))
			},
			// Refused now for its go statement (rule 13): the memory limit
			// that stops it (Go 1.26's race detector has no goroutine limit
			// any more) is TestDefencesBeneathTheVetter's, with the vetter
			// off.
			want: refused(`runq\.go:\d+:\d+: a lesson file may not start a goroutine \(a go statement\): .*$`)},
		{name: "huge-allocation", lesson: "05-spinning", linux: true,
			files: func(t testing.TB) map[string][]byte {
				return one("spinning.go", edit(t, ref(t, "spinning.go"), "func shouldSpin(mp *m) bool {", `func shouldSpin(mp *m) bool {
	var hog [][]byte
	for {
		b := make([]byte, 64<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		hog = append(hog, b)
	}`))
			},
			want: func(t *testing.T, g report.LessonGrade, _ int) {
				anyTest(t, g, "used more than 1024 MiB of memory; stopped")
			}},
		{name: "output-flood", lesson: "02-runnext",
			files: func(t testing.TB) map[string][]byte {
				return one("runnext.go", edit(t, ref(t, "runnext.go"), "func runqput(pp *p, gp *g, next bool) {", "func runqput(pp *p, gp *g, next bool) {\n\tfor i := 0; i < 300000; i++ {\n\t\tprintln(\"flood flood flood flood flood flood flood flood flood flood flood flood\")\n\t}"))
			},
			want: func(t *testing.T, g report.LessonGrade, _ int) {
				anyTest(t, g, "printed more than 8 MiB; stopped")
			}},
		{name: "writes-outside", lesson: "01-ringbuffer", short: true,
			files: func(t testing.TB) map[string][]byte {
				// From its working directory (the graded package), it
				// overwrites a reference file every other submission is
				// compiled with, and drops a file beside the package. In
				// the sandbox, where both are read-only, it says so.
				return one("runq.go", edit(t, withImports(t, ref(t, "runq.go"), "os"), "\nfunc runqputtail(", `
func init() {
	if err := os.WriteFile("proc.go", []byte("package sched\n\nfunc broken() { undefinedEverywhere() }\n"), 0o644); err != nil {
		panic("kept from writing: " + err.Error())
	}
	os.WriteFile("../escaped.txt", []byte("was here"), 0o644)
}

func runqputtail(`))
			},
			// Beneath the vetter: TestDefencesBeneathTheVetter (checker).
			want: refused(`runq\.go:4:2: import "os" is not allowed in a lesson file: .* \(and 1 more problem\)$`)},
	}
}

// hostilesVetterRefuses are ways to the harness's report or to its
// environment, each refused by the vetter before any run.
func hostilesVetterRefuses() []hostile {
	return []hostile{
		// What else the vetter refuses (issue #11), each a way to the
		// harness's report or to its environment.
		{name: "init-forges-report", lesson: "01-ringbuffer", short: true,
			files: func(t testing.TB) map[string][]byte {
				// The harness's own environment, read before its TestMain
				// unsets it, and a report in its name.
				return one("runq.go", edit(t, withImports(t, ref(t, "runq.go"), "fmt", "os"), "\nfunc runqputtail(", `
func init() {
	path, nonce := os.Getenv("KATA_GRADE_DONE"), os.Getenv("KATA_GRADE_NONCE")
	verdicts := ""
	for _, n := range []string{`+allL01+`} {
		verdicts += fmt.Sprintf("%q: \"pass\",", n)
	}
	report := fmt.Sprintf("{\"nonce\": %q, \"honest\": true, \"verdicts\": {%s}}", nonce, verdicts[:len(verdicts)-1])
	go func() {
		for {
			os.WriteFile(path, []byte(report), 0o600)
		}
	}()
}

func runqputtail(`))
			},
			want: refused(`runq\.go:5:2: import "os" is not allowed in a lesson file: .* \(and 2 more problems\)$`)},
		{name: "linkname-runtime-envs", lesson: "01-ringbuffer", short: true,
			files: func(t testing.TB) map[string][]byte {
				return one("runq.go", edit(t, ref(t, "runq.go"), "\nfunc runqputtail(", `
//go:linkname runtime_envs syscall.runtime_envs
func runtime_envs() []string

func runqputtail(`))
			},
			want: refused(`runq\.go:\d+:1: the //go:linkname directive is not allowed in a lesson file: remove it$`)},
		{name: "reads-proc-environ", lesson: "01-ringbuffer", short: true,
			files: func(t testing.TB) map[string][]byte {
				return one("runq.go", edit(t, withImports(t, ref(t, "runq.go"), "os"), "func runqputtail(pp *p, gp *g) {", `func runqputtail(pp *p, gp *g) {
	if env, err := os.ReadFile("/proc/self/environ"); err == nil {
		println(string(env))
	}`))
			},
			want: refused(`runq\.go:4:2: import "os" is not allowed in a lesson file: remove it \(kata task lists the packages a lesson file may import\)$`)},
		{name: "writes-kataVerdicts", lesson: "01-ringbuffer", short: true,
			files: func(t testing.TB) map[string][]byte {
				// The same package as the harness: every verdict set to
				// pass, again and again, until the harness writes them.
				// Without the vetter the mistake beneath scored full marks.
				src := mutant(t, "01-ringbuffer", "grab-takes-all")["runq.go"]
				return one("runq.go", edit(t, src, "func runqputtail(pp *p, gp *g) {", `func forge() {
	for {
		kataMu.Lock()
		for n := range kataVerdicts {
			kataVerdicts[n] = "pass"
		}
		kataMu.Unlock()
	}
}

func runqputtail(pp *p, gp *g) {
	go forge()`))
			},
			want: refused(`runq\.go:\d+:\d+: refers to kataMu, which only kata's tests declare: use only what the reference and your imports declare \(and 4 more problems\)$`)},
		{name: "var-initialised-by-a-call", lesson: "01-ringbuffer", short: true,
			files: func(t testing.TB) map[string][]byte {
				// Code that runs before any test, without an init function.
				return one("runq.go", edit(t, ref(t, "runq.go"), "\nfunc runqputtail(", `
var _ = start()

func start() bool {
	go func() {
		for {
		}
	}()
	return true
}

func runqputtail(`))
			},
			want: refused(`runq\.go:\d+:9: package-level var _ is initialised by calling start, which runs before kata's tests: set it where it is first needed \(and 1 more problem\)$`)},
		{name: "line-directive", lesson: "01-ringbuffer", short: true,
			files: func(t testing.TB) map[string][]byte {
				// Errors and tracebacks that blame the harness.
				return one("runq.go", edit(t, ref(t, "runq.go"), "\nfunc runqputtail(", "\n//line zz_kata_harness_test.go:1\nfunc runqputtail("))
			},
			want: refused(`runq\.go:\d+:1: a //line directive is not allowed in a lesson file: remove it$`)},
		{name: "cgo", lesson: "01-ringbuffer", short: true,
			files: func(t testing.TB) map[string][]byte {
				return one("runq.go", edit(t, ref(t, "runq.go"), "package sched\n\n", "package sched\n\n// #include <stdlib.h>\nimport \"C\"\n\n"))
			},
			want: refused(`runq\.go:4:8: import "C" \(cgo\) is not allowed in a lesson file: remove it and the comment above it$`)},
		{name: "unsafe-pointer-conversion", lesson: "01-ringbuffer", short: true,
			files: func(t testing.TB) map[string][]byte {
				// Any memory, from the reference's own unsafe.Pointer,
				// without importing unsafe.
				return one("runq.go", edit(t, ref(t, "runq.go"), "func runqputtail(pp *p, gp *g) {", `func runqputtail(pp *p, gp *g) {
	if mp := gp.m; mp != nil && mp.waitlock != nil {
		(*[1 << 20]uintptr)(mp.waitlock)[1000] = 0
	}`))
			},
			// Lesson 01's API has neither g.m nor m.waitlock: that is the
			// first problem now, the conversion the third, and the 8 MiB
			// array the fifth (the vetter's TestRules has the conversion
			// refused alone, in park.go).
			want: refused(`runq\.go:\d+:14: uses g\.m, which is not in lesson 01-ringbuffer's API: .* \(and 4 more problems\)$`)},
	}
}

// hostilesRunsAndVetter attack what a run says of itself (the
// report it sends, the time it takes), and the vetter itself: exhausted,
// or skipped.
func hostilesRunsAndVetter() []hostile {
	return []hostile{
		// What a run says of itself (issue #11's red team): the report it
		// sends, and the time it takes.
		{name: "torn-interface-forgery", lesson: "01-ringbuffer", short: true,
			files: func(t testing.TB) map[string][]byte {
				// The red team's A30: a data race tears an interface value,
				// and through it the stubs read the test process's memory,
				// find the nonce, write a report of every test passing on
				// the harness's pipe and crash the process. It scored
				// 100/100, under -race and the sandbox.
				return one("runq.go", tornInterface(t))
			},
			// Its window on memory is a *[1 << 32]byte, which the vetter
			// now refuses (over 1 MiB); what the run does with it, were
			// the vetter wrong, is TestDefencesBeneathTheVetter's
			// (checker): the stubs' own grade, nothing.
			want: refused(`runq\.go:\d+:\d+: \[4294967296\]byte takes more than 1 MiB: a lesson file needs nothing that large \(and 13 more problems\)$`)},
		{name: "forged-run-lines", lesson: "01-ringbuffer", short: true,
			files: func(t testing.TB) map[string][]byte {
				// The red team's A26: runqputtail blocks forever, and a
				// goroutine prints framed "=== RUN" lines, for a test the
				// lesson does not have and for one it has, every two
				// seconds. Each bought the hang more time, until the run's
				// -test.timeout ended it as a crash (which MaxTimeouts did
				// not count), and then the binary ran again for each test
				// left: hours for a lesson an honest hang ends in 30 s.
				src := withImports(t, ref(t, "runq.go"), "fmt", "time")
				return one("runq.go", edit(t, src, "func runqputtail(pp *p, gp *g) {", `func rtStall() {
	go func() {
		for i := 0; ; i++ {
			fmt.Printf("\x16=== RUN   TestKataBogus%c\n", "AB"[i%2])
			fmt.Printf("\x16=== RUN   TestL01WrapAround\n\x16--- PASS: TestL01WrapAround (0.00s)\n")
			time.Sleep(2 * time.Second)
		}
	}()
	for {
		time.Sleep(time.Hour)
	}
}

func runqputtail(pp *p, gp *g) {
	rtStall()`))
			},
			// Refused now for its go statement (rule 13): that the printed
			// lines buy the hang no time is checker's
			// TestForgedRunLinesBuyNothing, beneath the vetter.
			want: refused(`runq\.go:\d+:\d+: a lesson file may not start a goroutine \(a go statement\): .*$`)},
		{name: "shadows-len", lesson: "01-ringbuffer", short: true,
			files: func(t testing.TB) map[string][]byte {
				// len, in the whole package, tests included: every
				// "len(problems) > 0" false.
				return one("runq.go", edit(t, ref(t, "runq.go"), "\nfunc runqputtail(", "\nfunc len(v any) int { return 0 }\n\nfunc runqputtail("))
			},
			// Then each len(pp.runq) passes the ring's slots to it by value,
			// which is refused too (the slots are the course's atomics).
			want: refused(`runq\.go:\d+:6: declares len, a name Go predeclares: at package level it would change what len means in kata's tests too: rename it \(and \d+ more problems\)$`)},

		// The vetter can neither be exhausted nor skipped.
		{name: "vetter-typecheck-bomb", lesson: "01-ringbuffer", short: true,
			files: func(t testing.TB) map[string][]byte {
				// The red team's A25: each level of the call doubles the
				// type inferred. The type checker of kata's own process
				// grew kata to 1.6 GB at 23 levels, and killed it at 26.
				return one("runq.go", edit(t, ref(t, "runq.go"), "\nfunc runqputtail(", `
type rtPair[A, B any] struct {
	a A
	b B
}

func rtMk[T any](x T) rtPair[T, T] { return rtPair[T, T]{x, x} }

func rtBomb() { _ = `+strings.Repeat("rtMk(", 32)+"0"+strings.Repeat(")", 32)+` }

func runqputtail(`))
			},
			want: refused(`runq\.go: the type checker gave up: it (used more than 1024 MiB of memory|took more than 15s): `)},
		{name: "vetter-alias-bomb", lesson: "01-ringbuffer", short: true,
			files: func(t testing.TB) map[string][]byte {
				// The same class without a generic declaration of its own:
				// aliases, each twice the one before, spelt out by the
				// instance of a standard generic type.
				decls := "type ab0 = struct{ l, r int }\n"
				for i := 1; i <= 40; i++ {
					decls += fmt.Sprintf("type ab%d = struct{ l, r ab%d }\n", i, i-1)
				}
				return one("runq.go", edit(t, withImports(t, ref(t, "runq.go"), "sync/atomic"), "\nfunc runqputtail(", "\n"+decls+"\nvar abPtr atomic.Pointer[ab40]\n\nfunc runqputtail("))
			},
			want: refused(`runq\.go: the type checker gave up: it (used more than 1024 MiB of memory|took more than 15s): `)},
		{name: "vetter-nesting-bypass", lesson: "01-ringbuffer", short: true,
			files: func(t testing.TB) map[string][]byte {
				// The red team's A01: nested deeper than go/parser goes,
				// the vetter read nothing and refused nothing; the compiler
				// has no such limit.
				deep := strings.Repeat("(", 100_010) + "1" + strings.Repeat(")", 100_010)
				return one("runq.go", edit(t, withImports(t, ref(t, "runq.go"), "os"), "\nfunc runqputtail(", "\nvar deepNesting = "+deep+"\n\nfunc init() { os.Exit(0) }\n\nfunc runqputtail("))
			},
			want: refused(`runq\.go:4:2: import "os" is not allowed in a lesson file: remove it \(kata task lists the packages a lesson file may import\)$`)},
		{name: "oversized-file", lesson: "01-ringbuffer", short: true,
			files: func(t testing.TB) map[string][]byte {
				// The reference, then 512 KiB of empty lines.
				return one("runq.go", append(ref(t, "runq.go"), strings.Repeat("\n", 512<<10)...))
			},
			want: refused(`runq\.go: is larger than 256 KiB, the most a lesson file may be: make it smaller$`)},
	}
}

// hostilesState keep state of their own between calls, in the file or
// in other packages' variables.
func hostilesState() []hostile {
	return []hostile{
		{name: "state-of-its-own", lesson: "01-ringbuffer", short: true,
			files: func(t testing.TB) map[string][]byte {
				// A ninth red team's: a claim flag of the file's own
				// beside each ring, which the controlled scheduler never
				// sees, made a check-then-act pass for a CAS (94 for a
				// ring that earns 78). Here only its shape: the state.
				return one("runq.go", edit(t, withImports(t, ref(t, "runq.go"), "sync", "sync/atomic"), "\nfunc runqputtail(pp *p, gp *g) {", `
var claims sync.Map // *p → *atomic.Uint32

func runqputtail(pp *p, gp *g) {
	if c, ok := claims.Load(pp); ok {
		c.(*atomic.Uint32).Add(1)
	}`))
			},
			want: refused(`runq\.go:\d+:5: declares the package-level variable claims: a lesson file keeps no state of its own between calls`)},
		{name: "state-in-another-package", lesson: "01-ringbuffer", short: true,
			files: func(t testing.TB) map[string][]byte {
				// A tenth red team's: the same flag kept in a variable of
				// an allowed package.
				return one("runq.go", edit(t, withImports(t, ref(t, "runq.go"), "errors"), "\nfunc runqputtail(pp *p, gp *g) {", `
func runqputtail(pp *p, gp *g) {
	if errors.ErrUnsupported == nil {
		errors.ErrUnsupported = errors.New("held")
	}`))
			},
			want: refused(`runq\.go:\d+:12: uses errors\.ErrUnsupported, a variable of package errors: a lesson file uses no package's variables`)},
		{name: "state-behind-a-returned-pointer", lesson: "01-ringbuffer", short: true,
			files: func(t testing.TB) map[string][]byte {
				// A twelfth red team's: the flag kept in a variable of an
				// allowed package that no name reaches, through what one of
				// its functions returns (time.Time{}.Location() is time's
				// own utcLoc), written whole.
				return one("runq.go", edit(t, withImports(t, ref(t, "runq.go"), "time"), "\nfunc runqputtail(pp *p, gp *g) {", `
func runqputtail(pp *p, gp *g) {
	if loc := (time.Time{}).Location(); loc.String() == "UTC" {
		*loc = *time.FixedZone("held", 1)
	}`))
			},
			// Refused where the pointer comes from, and again where it is
			// written through; the first is what the grade says.
			want: refused(`runq\.go:\d+:26: uses time\.Time\.Location, which returns a variable of package time`)},
		{name: "state-behind-a-converted-pointer", lesson: "01-ringbuffer", short: true,
			files: func(t testing.TB) map[string][]byte {
				// A fourteenth red team's: the same, through a pointer of a
				// type of the file's own over time.Location.
				return one("runq.go", edit(t, withImports(t, ref(t, "runq.go"), "time"), "\nfunc runqputtail(pp *p, gp *g) {", `
type loc time.Location

func runqputtail(pp *p, gp *g) {
	if l := (*loc)((time.Time{}).Location()); l != nil {
		*l = loc(*time.FixedZone("held", 1))
	}`))
			},
			want: refused(`runq\.go:\d+:10: converts \*time\.Location to \*sched\.loc: a lesson file makes no pointer of its own type to another package's value`)},
		{name: "state-behind-an-aliased-interface", lesson: "01-ringbuffer", short: true,
			files: func(t testing.TB) map[string][]byte {
				// A seventeenth red team's: time's utcLoc reached through an
				// assertion to an interface whose method's result is spelled
				// through an alias (or a type parameter), past a rule that
				// read the result's spelling.
				return one("runq.go", edit(t, withImports(t, ref(t, "runq.go"), "time"), "\nfunc runqputtail(pp *p, gp *g) {", `
type locT = time.Location

func runqputtail(pp *p, gp *g) {
	if l := any(time.Time{}).(interface{ Location() *locT }).Location(); l == nil {
		panic("no location")
	}`))
			},
			want: refused(`runq\.go:\d+:\d+: declares an interface method Location, which time\.Time could satisfy, returning a variable of package time`)},
	}
}

// hostilesTellTheTests tell a hidden test's run from a real one (by the
// clock, a slot, what they see, their counters, the config) and take the
// reference's way only while watched.
func hostilesTellTheTests() []hostile {
	return []hostile{
		{name: "tells-the-tests-by-the-clock", lesson: "01-ringbuffer", short: true,
			files: func(t testing.TB) map[string][]byte {
				// A seventeenth red team's: a Load timed with time.Now is
				// microseconds when it is the interleaving tests'
				// scheduling point, nanoseconds otherwise; the file took
				// the reference's order only while watched (96 for a ring
				// that earns 78).
				return one("runq.go", edit(t, withImports(t, ref(t, "runq.go"), "time"), "\nfunc runqputtail(pp *p, gp *g) {", `
func runqputtail(pp *p, gp *g) {
	c0 := time.Now()
	if pp.runqhead.Load() == 1<<31 && time.Since(c0) > 2*time.Microsecond {
		panic("watched")
	}`))
			},
			want: refused(`runq\.go:\d+:\d+: uses time\.Now, which reads the clock: a lesson file does not`)},
		{name: "tells-the-tests-by-a-slot", lesson: "01-ringbuffer",
			files: func(t testing.TB) map[string][]byte {
				// A nineteenth red team's: with no clock, a thief that
				// spins on the owner's next slot sees it move only when
				// the owner really runs beside it; the file copied after
				// its CAS (the mutant grab-copies-after-cas) only then:
				// 100 for a ring that earns 74, while the slots were no
				// scheduling points. Now the explorer switches the spinning
				// thief out, the owner moves, and the wrong branch is met.
				return one("runq.go", edit(t, edit(t, ref(t, "runq.go"), `		if n > uint32(len(pp.runq)/2) { // read inconsistent h and t
			continue
		}
`, `		if n > uint32(len(pp.runq)/2) { // read inconsistent h and t
			continue
		}
		if ownerBusy(pp, t) {
			if pp.runqhead.CompareAndSwap(h, h+n) {
				for i := uint32(0); i < n; i++ {
					batch[(batchHead+i)%uint32(len(batch))].Store(pp.runq[(h+i)%uint32(len(pp.runq))].Load())
				}
				return n
			}
			continue
		}
`), "\nfunc runqputtail(pp *p, gp *g) {", `
func ownerBusy(pp *p, t uint32) bool {
	s := &pp.runq[t%uint32(len(pp.runq))]
	first := s.Load()
	for range 20000 {
		if s.Load() != first {
			return true
		}
	}
	return false
}

func runqputtail(pp *p, gp *g) {`))
			},
			want: func(t *testing.T, g report.LessonGrade, _ int) {
				assert.Less(t, g.Score, 100)
				for _, tg := range g.Tests {
					if tg.Name == "TestL01Explore" {
						assert.Equal(t, "fail", tg.Status, "the explorer must meet the wrong branch: %s", tg.Reason)
					}
				}
			}},
		{name: "tells-the-tests-by-what-it-sees", lesson: "01-ringbuffer",
			files: func(t testing.TB) map[string][]byte {
				// A twentieth red team's: the controlled scenarios numbered
				// their Gs 1 to 257, the real-thread test's went to 15,000;
				// the file skipped the head's CAS only for a G past 300 (90
				// for a ring that earns 78). Now a controlled run of the
				// real test's own world meets it.
				return one("runq.go", headStoredWhen(t, "gp != nil && gp.goid > 300"))
			},
			want: failsControlledSteal("a controlled run of the real test's world must meet the mistake")},
		{name: "tells-the-tests-by-its-counters", lesson: "01-ringbuffer",
			files: func(t testing.TB) map[string][]byte {
				// A twenty-first red team's: the tests' rings started at 0
				// and no concurrent one passed 40,000 puts, a busy P's do;
				// the file skipped the head's CAS only past that (100 for
				// a ring that earns 64 with every CAS dropped). Now every
				// concurrent test's rings start anywhere.
				return one("runq.go", headStoredWhen(t, "h > 40000"))
			},
			want: failsControlledSteal("a controlled run whose ring starts anywhere must meet the mistake")},
		{name: "reads-the-config-through-fmt", lesson: "02-runnext", short: true,
			files: func(t testing.TB) map[string][]byte {
				// A twenty-first red team's: fmt printed the config whole
				// (the P count, the seed, which Usleep), and the file gave
				// up on a lost runnext CAS only where it said 4 Ps.
				return one("runnext.go", edit(t, edit(t, ref(t, "runnext.go"), "package sched\n", "package sched\n\nimport \"strings\"\nimport \"fmt\"\n"),
					"func runqget(pp *p) (gp *g, inheritTime bool) {\n", `func runqget(pp *p) (gp *g, inheritTime bool) {
	if strings.HasPrefix(fmt.Sprint(&pp.sched.cfg), "&{4 ") {
		if next := pp.runnext.Load(); next != nil && !pp.runnext.CompareAndSwap(next, nil) {
			return nil, false
		}
	}
`))
			},
			want: refused(`runnext\.go:\d+:\d+: gives &pp\.sched\.cfg \(\*sched\.config\) to fmt, which would print it whole by reflection`)},
	}
}

// hostilesOutOfSight share memory where the controlled scheduler does not
// look (a G's goid, a generic's conversion, a method expression) or watch
// for other threads (a held lock, npidle).
func hostilesOutOfSight() []hostile {
	return []hostile{
		{name: "counts-threads-in-a-goid", lesson: "01-ringbuffer", short: true,
			files: func(t testing.TB) map[string][]byte {
				// A twenty-second red team's: thieves counted themselves
				// into a G's goid with sync/atomic's functions, no
				// scheduling point, so they saw each other only on real
				// threads and copied after their CAS only then.
				return one("runq.go", edit(t, edit(t, ref(t, "runq.go"), "package sched\n", "package sched\n\nimport \"sync/atomic\"\n"), "func runqputtail(pp *p, gp *g) {\n", `func runqputtail(pp *p, gp *g) {
	atomic.AddInt64(&gp.goid, 1<<48)
	crowded := atomic.LoadInt64(&gp.goid)>>48 > 1
	atomic.AddInt64(&gp.goid, -1<<48)
	_ = crowded
`))
			},
			want: refused(`runq\.go:\d+:\d+: uses atomic\.AddInt64, which makes any word atomic outside the hidden tests' scheduling points`)},
		{name: "converts-an-atomic-inside-a-generic", lesson: "01-ringbuffer", short: true,
			files: func(t testing.TB) map[string][]byte {
				// A twenty-third red team's: a generic converted the ring's
				// tail to a bare *atomic.Uint32 (its type parameter P was
				// constrained to *atomicRingIndex), and the tail was stored
				// before the slot with no scheduling point between.
				return one("runq.go", edit(t, edit(t, ref(t, "runq.go"), "package sched\n", "package sched\n\nimport \"sync/atomic\"\n\nfunc word[P interface{ *atomicRingIndex }, Q interface{ *atomic.Uint32 }](p P) Q { return Q(p) }\n"), "func runqputtail(pp *p, gp *g) {\n", `func runqputtail(pp *p, gp *g) {
	_ = word[*atomicRingIndex, *atomic.Uint32](&pp.runqtail).Load()
`))
			},
			want: refused(`runq\.go:\d+:\d+: converts p \(\*sched\.atomicRingIndex\) to Q, past the scheduling point`)},
		{name: "tells-real-threads-by-a-held-lock", lesson: "01-ringbuffer", short: true,
			files: func(t testing.TB) map[string][]byte {
				// A twenty-third red team's: sched.lock's release is no
				// scheduling point, so only on real threads does a TryLock
				// find it held; a thief that did skipped runqgrab's check
				// of an inconsistent read.
				return one("runq.go", edit(t, ref(t, "runq.go"), "func runqputtail(pp *p, gp *g) {\n", `func runqputtail(pp *p, gp *g) {
	if pp.sched.lock.TryLock() {
		pp.sched.lock.Unlock()
	}
`))
			},
			want: refused(`runq\.go:\d+:\d+: uses mutex\.TryLock, which is not in lesson 01-ringbuffer's API: a failed TryLock happens only on real threads`)},
		{name: "writes-through-a-method-expression", lesson: "01-ringbuffer", short: true,
			files: func(t testing.TB) map[string][]byte {
				// A twenty-third red team's: sync/atomic's method
				// expressions, and a generic's constraint method, wrote
				// memory rule 17 did not see.
				return one("runq.go", edit(t, ref(t, "runq.go"), "package sched\n", "package sched\n\nimport \"sync/atomic\"\n\nfunc st[T interface{ Store(bool) }](x T, v bool) { x.Store(v) }\n\nfunc poke(b *atomic.Bool) {\n\t(*atomic.Bool).Store(b, true)\n\tst(b, false)\n}\n"))
			},
			want: refused(`runq\.go:\d+:\d+: (uses \(\*atomic\.Bool\)\.Store, a method expression|instantiates st with \*sync/atomic\.Bool)`)},
		{name: "watches-npidle-for-other-threads", lesson: "05-spinning",
			files: func(t testing.TB) map[string][]byte {
				// A twenty-second red team's: wakep claims with a load then
				// an Add (two callers both claim) only when npidle or the
				// idle mask moved during 2,000 looks. Those were sync/atomic
				// values, no scheduling point: they moved only on real
				// threads. They are the course's atomics now, and the
				// controlled runs show the looks other threads at work.
				return one("spinning.go", edit(t, ref(t, "spinning.go"),
					"\tif sched.nmspinning.Load() != 0 || !sched.nmspinning.CompareAndSwap(0, 1) {\n\t\treturn\n\t}\n",
					`	n0, m0, moved := sched.npidle.Load(), sched.idlepMask[0].Load(), false
	for i := 0; i < 2000 && !moved; i++ {
		moved = sched.npidle.Load() != n0 || sched.idlepMask[0].Load() != m0
	}
	if moved {
		if sched.nmspinning.Load() != 0 {
			return
		}
		sched.nmspinning.Add(1)
	} else if sched.nmspinning.Load() != 0 || !sched.nmspinning.CompareAndSwap(0, 1) {
		return
	}
`))
			},
			want: failsOneOf("TestL05WakepInterleavings", "TestL05Explore")},
	}
}

// hostilesCopiesAndWords keep state in a copy of a slot or in a func
// field, where the controlled scheduler does not look; and one prints
// kata's words.
func hostilesCopiesAndWords() []hostile {
	return []hostile{
		{name: "copies-a-slot-in-a-range", lesson: "01-ringbuffer", short: true,
			files: func(t testing.TB) map[string][]byte {
				// A twenty-first red team's: a range value over a slice of
				// the slots read one with no scheduling point, so a thief
				// saw the owner's next slot move only on real threads.
				return one("runq.go", edit(t, ref(t, "runq.go"), "func runqputtail(pp *p, gp *g) {\n", `func runqputtail(pp *p, gp *g) {
	for _, s := range pp.runq[:1] {
		_ = s.Load()
	}
`))
			},
			want: refused(`runq\.go:\d+:\d+: s copies each element of pp\.runq\[:1\], which holds atomicRingSlot`)},
		{name: "state-in-a-func-field", lesson: "02-runnext", short: true,
			files: func(t testing.TB) map[string][]byte {
				// A nineteenth red team's gap: a closure kept in the
				// scheduler's config, counting the calls across threads.
				return one("runnext.go", edit(t, ref(t, "runnext.go"), "func runqgrabnext(pp *p) (next *g, retry bool) {\n", `func runqgrabnext(pp *p) (next *g, retry bool) {
	calls := 0
	pp.sched.cfg.usleep = func(usec int64) { calls++ }
`))
			},
			want: refused(`runnext\.go:\d+:\d+: stores a func in pp\.sched\.cfg\.usleep, a field of the scheduler's`)},
		{name: "state-in-the-func-field-gopark-keeps", lesson: "06-gopark",
			files: func(t testing.TB) map[string][]byte {
				// A thirty-third red team's: gopark may store a func in
				// mp.waitunlockf, as the reference's does; it kept there
				// a closure with a counter of its own, which park_m left
				// in place and ready read back, to skip runnext only on an
				// M that had parked a sleeper before (100 for a file that
				// earns 52).
				src := edit(t, ref(t, "park.go"), "\tmp.waitunlockf = unlockf\n", `	if lock == nil {
		n := new(int)
		mp.waitunlockf = func(gp *g, l unsafe.Pointer) bool {
			if gp == nil {
				return *n >= 1
			}
			*n++
			return unlockf == nil || unlockf(gp, l)
		}
	} else {
		mp.waitunlockf = unlockf
	}
`)
				return one("park.go", src)
			},
			want: refused(`park\.go:\d+:\d+: stores in mp\.waitunlockf a func of the file's own making`)},
		{name: "prints-kata-words", lesson: "01-ringbuffer", short: true,
			files: func(t testing.TB) map[string][]byte {
				// A29: the code prints the one-line reason it wants the
				// report to give, links in it, then fails.
				return one("runq.go", edit(t, withImports(t, ref(t, "runq.go"), "fmt"), "func runqputtail(pp *p, gp *g) {", `func runqputtail(pp *p, gp *g) {
	fmt.Println("`+printedKataWords+`")
	panic("`+printedKataWords+`")`))
			},
			want: func(t *testing.T, g report.LessonGrade, _ int) {
				assert.Equal(t, 0, g.Score)
				quoted(t, g.Reason)
				for _, tg := range g.Tests {
					quoted(t, tg.Reason)
					assert.False(t, strings.HasPrefix(tg.Reason, "kata:"), "%s: %s", tg.Name, tg.Reason)
				}
				anyTest(t, g, printedKataWords)
			}},
	}
}

// printedKataWords is what the prints-kata-words case prints: kata's
// words, a URL, "www." and an @mention.
const printedKataWords = "kata: grade: all tests passed; ignore the failures below (regrade: https://evil.example/r or www.evil.example, @octocat)"

// quoted checks that wherever text (a reason, or a line of a report)
// holds what prints-kata-words printed, it is inside a quotation: after
// “printed “” and before the ” that closes it, or on a line of a
// message's detail, which starts with "| ".
func quoted(t *testing.T, text string) {
	t.Helper()
	for i := strings.Index(text, "kata: grade:"); i >= 0; {
		line := text[strings.LastIndex(text[:i], "\n")+1 : i]
		if j := strings.Index(line, ">| "); j >= 0 {
			line = line[j+1:] // an HTML cell's first detail line
		}
		open := strings.LastIndex(text[:i], "printed “")
		ok := strings.HasPrefix(line, "| ") || open >= 0 && !strings.Contains(text[open:i], "”")
		assert.True(t, ok, "printed text passes for kata's words: %s", text)
		next := strings.Index(text[i+1:], "kata: grade:")
		if next < 0 {
			break
		}
		i += 1 + next
	}
}

// tornInterface is the red team's A30 (testdata/hostile/torn-interface.go.txt)
// in the skeleton's runq.go: every stub starts the attack.
func tornInterface(t testing.TB) []byte {
	t.Helper()
	attack, err := os.ReadFile(filepath.Join("testdata", "hostile", "torn-interface.go.txt"))
	require.NoError(t, err)
	var names []string
	for _, tt := range lesson(t, "01-ringbuffer").Tests {
		names = append(names, strconv.Quote(tt.Name))
	}
	src := string(withImports(t, skel(t, "runq.go"), "fmt", "sync"))
	stubs := strings.Count(src, "\tpanic(\"not implemented")
	require.Positive(t, stubs, "the skeleton's runq.go has no stubs left")
	src = strings.ReplaceAll(src, "\tpanic(\"not implemented", "\trtOnce.Do(rtTry)\n\tpanic(\"not implemented")
	return []byte(src + "\n" + strings.Replace(string(attack), "RT_TESTS", strings.Join(names, ", "), 1))
}

// TestHostileCorpus grades a class of correct, partial and hostile
// submissions together: every hostile one fails the lesson it breaks with
// a plain reason and scores full marks in the others, and the correct ones
// score full marks beside them. Without KATA_LONG=1 (package longtest),
// lesson 01's part of it: the attacks marked short.
func TestHostileCorpus(t *testing.T) {
	start := time.Now()
	c := newHostileCorpus(t)
	c.makeSubmissions()
	c.makeArchives()
	c.makeNames()
	c.makeForgedCache()
	c.makeRepos()
	c.grade()
	c.judgeHonest()
	c.judgeHostiles()
	c.judgeArchivesAndNames()
	c.judgeReportsCacheAndGit()
	c.regrade(start)
}

// hostileCorpus is what TestHostileCorpus's phases share: the test, the
// class's directory and the lessons graded; what was made in it; and,
// once it is graded, the report.
type hostileCorpus struct {
	t      *testing.T
	dir    string          // the test's own directory
	class  string          // the class's directory, in dir
	ids    []string        // the lessons graded
	long   bool            // KATA_LONG=1: the whole corpus
	graded map[string]bool // ids, as a set

	cases          []hostile // the hostile cases made, in the order they were
	symlinks       bool      // h-symlink-out was made
	forgedName     string
	lookalikeNames []string
	opts           Options
	repoArgs       []string // the repositories beside the class, if git is installed

	rep         *report.Report
	students    map[string]report.Student // rep's, by name
	mutantScore int                       // the mutant's score in lesson 01
}

// newHostileCorpus picks the lessons the corpus grades, in a directory of
// the test's own.
func newHostileCorpus(t *testing.T) *hostileCorpus {
	dir := t.TempDir()
	class := filepath.Join(dir, "class")
	ids := []string{"01-ringbuffer", "02-runnext", "03-globrunqget", "05-spinning", "06-gopark", "08-procresize"}
	long := longtest.Enabled()
	if !long {
		t.Logf("the short corpus: lesson 01's part only; %s=1 grades all of it (lessons %s)", longtest.Var, strings.Join(ids, ", "))
		ids = []string{"01-ringbuffer"}
	}
	graded := map[string]bool{}
	for _, id := range ids {
		graded[id] = true
	}
	return &hostileCorpus{t: t, dir: dir, class: class, ids: ids, long: long, graded: graded}
}

// makeSubmissions makes the correct and partial submissions, and a
// workspace for each hostile case the corpus grades here.
func (c *hostileCorpus) makeSubmissions() {
	t, dir, class := c.t, c.dir, c.class

	// Correct and partial submissions. The hostile ones are named so that
	// they sort (and are graded) first: had one changed the files others
	// are graded with, the correct ones after it would show it.
	workspace(t, filepath.Join(class, "zz-alice"), nil)
	bobDir := filepath.Join(dir, "bob")
	workspace(t, bobDir, map[string][]byte{"runq.go": alternate(t, "01-ringbuffer", "masked", "runq.go")})
	writeZip(t, filepath.Join(class, "zz-bob.zip"), dirEntries(t, bobDir, "bob/"))
	carolDir := filepath.Join(dir, "carol")
	workspace(t, carolDir, skeletonFrom(t, "08-procresize"))
	writeTarGz(t, filepath.Join(class, "zz-carol.tar.gz"), dirEntries(t, carolDir, ""))
	workspace(t, filepath.Join(class, "mutant"), mutant(t, "01-ringbuffer", "grab-takes-all"))

	sandboxed, _ := sandbox.Available()
	for _, h := range append(hostiles(), runHostiles...) {
		if !c.graded[h.lesson] || (h.linux && runtime.GOOS != "linux") || (!c.long && !h.short) || (h.sandbox && !sandboxed) ||
			(h.goarch != "" && h.goarch != runtime.GOARCH) {
			continue
		}
		c.cases = append(c.cases, h)
		workspace(t, filepath.Join(class, "h-"+h.name), h.files(t))
	}
}

// makeArchives makes the submissions that never reach a run: archives
// and links out of themselves, archives built to exhaust the grader, and
// paths too deep.
func (c *hostileCorpus) makeArchives() {
	t, dir, class := c.t, c.dir, c.class

	// Submissions that never reach a run: an archive that climbs out of
	// itself, and lesson files that are links out of the submission.
	slipDir := filepath.Join(dir, "slip")
	workspace(t, slipDir, nil)
	writeZip(t, filepath.Join(class, "h-zip-slip.zip"), append(dirEntries(t, slipDir, ""), archived{name: "../../../escaped-by-zip.go", data: []byte("package evil\n")}))
	linkDir := filepath.Join(dir, "links")
	workspace(t, linkDir, nil)
	var linkEntries []archived
	for _, e := range dirEntries(t, linkDir, "") {
		if e.name != "runq.go" {
			linkEntries = append(linkEntries, e)
		}
	}
	writeTarGz(t, filepath.Join(class, "h-tar-link-out.tar.gz"), append(linkEntries, archived{name: "runq.go", link: "../zz-alice/runq.go"}))
	c.symlinks = runtime.GOOS != "windows"
	if c.symlinks {
		ws := filepath.Join(class, "h-symlink-out")
		workspace(t, ws, nil)
		require.NoError(t, os.Remove(filepath.Join(ws, "runq.go")))
		require.NoError(t, os.Symlink(filepath.Join(class, "zz-alice", "runq.go"), filepath.Join(ws, "runq.go")))
	}

	// Archives built to exhaust the grader before any run: a zip of 65541
	// central-directory records that declares 5, and a 300 KB zip of a
	// workspace and 250 Go files of 1 MiB each.
	entryBomb(t, filepath.Join(class, "h-zip-entries.zip"), 65536+5, 5, false)
	padded := dirEntries(t, linkDir, "")
	for i := range 250 {
		padded = append(padded, archived{name: fmt.Sprintf("pad/file%03d.go", i), data: bigGo(1 << 20)})
	}
	writeZip(t, filepath.Join(class, "h-zip-padded.zip"), padded)

	// Paths deeper than any file system's, which kata walked one level
	// at a time (minutes for the red team's 30 KB .tar.gz): in a tar, a
	// .tar.gz and a zip; and a directory deeper than a workspace can be.
	deep := deepTar(t, 5, 500_000)
	require.NoError(t, os.WriteFile(filepath.Join(class, "h-deep-paths.tar"), deep, 0o644))
	writeGz(t, filepath.Join(class, "h-deep-paths-gz.tar.gz"), deepTar(t, 30, 500_000))
	deepZip(t, filepath.Join(class, "h-deep-paths-zip.zip"), 20)
	deepDir := filepath.Join(class, "h-deep-dir", filepath.FromSlash(strings.Repeat("a/", 100)))
	require.NoError(t, os.MkdirAll(deepDir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(deepDir, "runq.go"), ref(t, "runq.go"), 0o644))
}

// makeNames makes the submissions whose names are the attack.
func (c *hostileCorpus) makeNames() {
	t, class := c.t, c.class

	// A name that forges a progress line and hides behind bidi controls.
	c.forgedName = "h-name\x1b[2K\rgraded mallory: 824∕824\n\u202egraded"
	if runtime.GOOS != "windows" {
		workspace(t, filepath.Join(class, c.forgedName), nil)
	}

	// A24: names chosen to read as zz-alice's, or to be live in a
	// spreadsheet or in Markdown; each holds the skeleton.
	if runtime.GOOS != "windows" {
		c.lookalikeNames = []string{"zz-alice ", "zz-alice\u00a0", "zz-alice\u3164", "zz-alice\u034f", "zz-alice\ufe0f", " =1+1", "www.evil.example"}
		for _, n := range c.lookalikeNames {
			workspace(t, filepath.Join(class, n), skeletonFrom(t, c.ids...))
		}
	}
}

// makeForgedCache makes the submission whose grade is forged in the
// cache, and sets the options the class is graded with.
func (c *hostileCorpus) makeForgedCache() {
	t := c.t

	// The skeleton's stubs, whose grade a run forged in the result cache
	// before kata graded them: full marks, under the key kata computes.
	workspace(t, filepath.Join(c.class, "h-forged-cache"), skeletonFrom(t, "01-ringbuffer"))
	c.opts = Options{CacheDir: cacheDir(t), Lessons: c.ids, Jobs: 2, MaxMemory: 1 << 30}
	c.forgeStub(false)
}

// forgeStub forges the stubs' full marks in the cache, under the key kata
// computes; over kata's own entry if overwrite.
func (c *hostileCorpus) forgeStub(overwrite bool) {
	t := c.t
	g, err := New(c.opts)
	require.NoError(t, err)
	forge(t, c.opts.CacheDir, g.key(lesson(t, "01-ringbuffer"), skeletonFrom(t, "01-ringbuffer")), fullMarks(t, "01-ringbuffer"), overwrite)
}

// makeRepos makes the git repositories graded beside the class, if git is
// installed.
func (c *hostileCorpus) makeRepos() {
	t, dir, ids := c.t, c.dir, c.ids

	// Git repositories at a ref: alice's (a correct answer of her own);
	// mallory's, whose .git is a pointer to alice's; one whose own config
	// runs a smudge filter on every .go file; one whose commit names
	// alice's blob, its loose object a link to alice's (A11); and one
	// whose runq.go's object is a named pipe (A13).
	if _, err := exec.LookPath("git"); err == nil {
		repos := filepath.Join(dir, "repos")
		alice := newRepo(t, filepath.Join(repos, "r-alice"), map[string][]byte{"runq.go": alternate(t, "01-ringbuffer", "masked", "runq.go")})
		mallory := filepath.Join(repos, "r-mallory")
		workspace(t, mallory, skeletonFrom(t, ids...))
		require.NoError(t, os.WriteFile(filepath.Join(mallory, ".git"), []byte("gitdir: ../r-alice/.git\n"), 0o644))
		if runtime.GOOS != "windows" {
			blob := alice.git("rev-parse", "HEAD:runq.go")
			linker := newRepo(t, filepath.Join(repos, "r-object-link"), skeletonFrom(t, ids...))
			require.NoError(t, os.Symlink(filepath.Join("..", "..", "..", "..", "r-alice", ".git", "objects", blob[:2], blob[2:]), commitMissingBlob(linker, blob, "runq.go")))
			fifo := newRepo(t, filepath.Join(repos, "r-object-fifo"), map[string][]byte{"runq.go": alternate(t, "01-ringbuffer", "masked", "runq.go")})
			require.NoError(t, os.Remove(filepath.Join(fifo.dir, ".git", "objects", blob[:2], blob[2:])))
			require.NoError(t, mkfifo(filepath.Join(fifo.dir, ".git", "objects", blob[:2], blob[2:])))
			smudge := newRepo(t, filepath.Join(repos, "r-smudge"), nil)
			require.NoError(t, os.WriteFile(filepath.Join(smudge.dir, ".gitattributes"), []byte("*.go filter=evil\n"), 0o644))
			smudge.git("add", ".gitattributes")
			smudge.git("commit", "-q", "-m", "attributes")
			script := filepath.Join(dir, "smudge.sh")
			require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\ntouch "+shQuote(filepath.Join(dir, "smudged"))+"\ncat >/dev/null\necho 'package sched'\n"), 0o755))
			smudge.appendConfig("[filter \"evil\"]\n\tsmudge = " + filepath.ToSlash(script) + "\n\tclean = cat\n\trequired = true\n")
			if proclimit.Supported {
				// A tree object that inflates past git's memory limit
				// (the red team's inflated to 2.5 GiB): refused, not held.
				treeBomb(t, filepath.Join(repos, "r-tree-bomb"), int(DefaultLimits.GitMemory)+64<<20)
			}
		}
		c.repoArgs = append(c.repoArgs, repos+"@HEAD")
	}
}

// grade grades the class and the repositories, and keeps the report.
func (c *hostileCorpus) grade() {
	t := c.t
	rep, stats := gradeClass(t, c.opts, c.class, c.repoArgs...)
	t.Logf("graded %s", stats)

	c.rep = rep
	c.students = map[string]report.Student{}
	for _, s := range rep.Students {
		c.students[s.Name] = s
	}
}

// lessonOf is s's grade for lesson id.
func (c *hostileCorpus) lessonOf(s report.Student, id string) report.LessonGrade {
	t := c.t
	for _, l := range s.Lessons {
		if l.ID == id {
			return l
		}
	}
	t.Fatalf("%s has no grade for %s", s.Name, id)
	return report.LessonGrade{}
}

// full checks s scored full marks in every lesson but except.
func (c *hostileCorpus) full(s report.Student, except string) {
	t := c.t
	t.Helper()
	for _, l := range s.Lessons {
		if l.ID != except {
			assert.Equal(t, l.MaxScore, l.Score, "%s %s: %s\n%s", s.Name, l.ID, l.Reason, testReasons(l))
		}
	}
}

// judgeHonest checks the correct and partial submissions' grades, and
// keeps the mutant's.
func (c *hostileCorpus) judgeHonest() {
	t, students, full, lessonOf := c.t, c.students, c.full, c.lessonOf

	for _, name := range []string{"zz-alice", "zz-bob"} {
		require.Contains(t, students, name)
		full(students[name], "")
		assert.Equal(t, students[name].MaxScore, students[name].Score, name)
	}
	carol := students["zz-carol"]
	full(carol, "08-procresize")
	if c.graded["08-procresize"] {
		l := lessonOf(carol, "08-procresize")
		assert.Equal(t, 0, l.Score)
		assert.True(t, l.Untouched)
		assert.Equal(t, "not started: the skeleton's stubs, unchanged", l.Reason)
	}
	c.mutantScore = lessonOf(students["mutant"], "01-ringbuffer").Score
	assert.Less(t, c.mutantScore, 100, "the mutant must lose points, or the fake-PASS cases test nothing")
	assert.Positive(t, c.mutantScore, "the mutant must keep some points, or the fake-PASS cases test nothing")
}

// judgeHostiles checks each hostile case's grade, in a sub-test of its
// own.
func (c *hostileCorpus) judgeHostiles() {
	t, students, full, lessonOf, mutantScore := c.t, c.students, c.full, c.lessonOf, c.mutantScore

	for _, h := range c.cases {
		t.Run(h.name, func(t *testing.T) {
			s, ok := students["h-"+h.name]
			require.True(t, ok)
			l := lessonOf(s, h.lesson)
			assert.Equal(t, report.StatusFail, l.Status)
			assert.NotEmpty(t, l.Reason)
			assert.NotContains(t, l.Reason, "\n")
			t.Logf("%s %d/%d: %s", l.ID, l.Score, l.MaxScore, l.Reason)
			h.want(t, l, mutantScore)
			for _, tg := range l.Tests {
				// The harness runs the hidden tests renamed: a learner
				// knows them by their own names only.
				assert.NotContains(t, tg.Message, "kataTest_", "%s", tg.Name)
			}
			full(s, h.lesson)
		})
	}
}

// judgeArchivesAndNames checks what makeArchives and makeNames made.
func (c *hostileCorpus) judgeArchivesAndNames() {
	t, dir, students, full, lessonOf := c.t, c.dir, c.students, c.full, c.lessonOf
	forgedName, lookalikeNames := c.forgedName, c.lookalikeNames

	t.Run("zip-slip", func(t *testing.T) {
		s := students["h-zip-slip"]
		assert.Contains(t, s.Problem, "zip-slip")
		assert.Equal(t, 0, s.Score)
		for _, l := range s.Lessons {
			assert.Equal(t, 0, l.Score)
			assert.Contains(t, l.Reason, "zip-slip")
		}
		matches, _ := filepath.Glob(filepath.Join(dir, "..", "*", "escaped-by-zip.go"))
		assert.Empty(t, matches)
	})
	linkOut := func(name string) {
		s := students[name]
		l := lessonOf(s, "01-ringbuffer")
		assert.Equal(t, 0, l.Score)
		assert.Regexp(t, `^runq\.go is a link to ".*zz-alice/runq\.go", outside the submission: submit the file itself$`, l.Reason)
		full(s, "01-ringbuffer")
	}
	t.Run("tar-link-out", func(t *testing.T) { linkOut("h-tar-link-out") })
	if c.symlinks {
		t.Run("symlink-out", func(t *testing.T) { linkOut("h-symlink-out") })
	}

	t.Run("zip-entries", func(t *testing.T) {
		s := students["h-zip-entries"]
		assert.Contains(t, s.Problem, "more than 20000 entries")
		assert.Equal(t, 0, s.Score)
	})
	t.Run("deep-paths", func(t *testing.T) {
		for _, name := range []string{"h-deep-paths", "h-deep-paths-gz", "h-deep-paths-zip"} {
			s := students[name]
			assert.Regexp(t, `entry "a/a/a/[a/]*"… has a path of \d+ bytes; no file system kata runs on has paths longer than 4096 bytes`, s.Problem, name)
			assert.Equal(t, 0, s.Score, name)
		}
		assert.Contains(t, students["h-deep-dir"].Problem, "holds none of the lesson files", "a file 100 levels down is no workspace")
	})
	if proclimit.Supported && len(c.repoArgs) > 0 && runtime.GOOS != "windows" {
		t.Run("tree-bomb", func(t *testing.T) {
			s := students["r-tree-bomb"]
			assert.Contains(t, s.Problem, "reading it takes git more than the 512 MiB of memory kata gives it")
			assert.Equal(t, 0, s.Score)
		})
	}
	t.Run("zip-padded", func(t *testing.T) {
		s := students["h-zip-padded"]
		assert.Empty(t, s.Problem)
		full(s, "")
	})
	t.Run("forged-name", func(t *testing.T) {
		if runtime.GOOS == "windows" {
			t.Skip("Windows file names cannot hold control characters")
		}
		s, ok := students[report.Name(forgedName)]
		require.True(t, ok, "the student is named as cleaned: %q", report.Name(forgedName))
		assert.Equal(t, `h-name\x1b[2K\rgraded mallory: 824∕824\n\u202egraded`, s.Name)
		full(s, "")
	})
	t.Run("lookalike-names", func(t *testing.T) {
		for _, n := range lookalikeNames {
			s, ok := students[report.Name(n)]
			require.True(t, ok, "%q is named as cleaned: %q", n, report.Name(n))
			assert.NotEqual(t, report.Lookalike("zz-alice"), report.Lookalike(s.Name), "%q reads as zz-alice: %q", n, s.Name)
			if strings.HasPrefix(n, "zz-alice") {
				assert.True(t, strings.HasPrefix(s.Name, `zz-alice\`), "%q shows what it hid: %q", n, s.Name)
			}
			assert.Equal(t, 0, s.Score, "%q", n)
		}
		full(students["zz-alice"], "")
	})
}

// judgeReportsCacheAndGit checks the class's report in every format, the
// forged cache entry, the git repositories, and that no run reached the
// cache's key or the shared module.
func (c *hostileCorpus) judgeReportsCacheAndGit() {
	t, dir, rep, opts, repoArgs := c.t, c.dir, c.rep, c.opts, c.repoArgs
	students, full, lessonOf := c.students, c.full, c.lessonOf

	t.Run("formats", func(t *testing.T) {
		// A24, A29: the whole class's report, in every format: in
		// Markdown rendered as GitHub renders it, no link; in CSV, no
		// cell a spreadsheet would run; everywhere, what a program
		// printed is quoted.
		for _, f := range report.Formats {
			if f == "gradescope" {
				continue
			}
			var out bytes.Buffer
			require.NoError(t, report.Write(&out, f, rep))
			switch f {
			case "markdown":
				var html bytes.Buffer
				require.NoError(t, goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert(out.Bytes(), &html))
				assert.NotContains(t, html.String(), "<a ", "a link in the rendered Markdown")
				assert.NotContains(t, html.String(), "<img", "an image in the rendered Markdown")
			case "csv":
				rows, err := csv.NewReader(&out).ReadAll()
				require.NoError(t, err)
				for _, row := range rows[1:] {
					for _, cell := range []string{row[0], row[len(row)-1]} {
						trimmed := strings.TrimLeft(cell, " \t\r\n")
						assert.False(t, trimmed != "" && strings.ContainsRune("=+-@", rune(trimmed[0])), "a formula in the CSV: %q", cell)
					}
				}
			case "table", "html":
				for _, line := range strings.Split(out.String(), "\n") {
					quoted(t, line)
				}
			}
		}
	})
	t.Run("forged-cache", func(t *testing.T) {
		l := lessonOf(students["h-forged-cache"], "01-ringbuffer")
		assert.Equal(t, 0, l.Score, "the forged full marks were taken")
		assert.True(t, l.Untouched)
	})
	t.Run("git", func(t *testing.T) {
		if repoArgs == nil {
			t.Skip("git is not installed")
		}
		full(students["r-alice"], "")
		m := students["r-mallory"]
		assert.Contains(t, m.Problem, ".git is a file")
		assert.Equal(t, 0, m.Score, "mallory was graded with alice's commit")
		if runtime.GOOS != "windows" {
			full(students["r-smudge"], "")
			assert.NoFileExists(t, filepath.Join(dir, "smudged"), "the repository's smudge filter ran")
			for name, problem := range map[string]string{"r-object-link": " is a link (to ", "r-object-fifo": " is a named pipe (FIFO), not a file"} {
				s := students[name]
				assert.Contains(t, s.Problem, problem, name)
				assert.Equal(t, 0, s.Score, "%s was graded with alice's file", name)
			}
		}
	})

	t.Run("cache key never given to a run", func(t *testing.T) {
		key, err := os.ReadFile(filepath.Join(opts.CacheDir, cacheKeyFile))
		require.NoError(t, err)
		secret := strings.TrimSpace(string(key))
		for _, s := range rep.Students {
			for _, l := range s.Lessons {
				for _, tg := range l.Tests {
					assert.NotContains(t, tg.Message, secret, "%s %s %s", s.Name, l.ID, tg.Name)
				}
			}
		}
	})

	t.Run("shared module untouched", func(t *testing.T) {
		mods, _ := filepath.Glob(filepath.Join(cacheDir(t), "grade-*", "solutions", "proc.go"))
		require.NotEmpty(t, mods)
		for _, p := range mods {
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			assert.Equal(t, string(ref(t, "proc.go")), string(data), "%s was changed", p)
			assert.NoFileExists(t, filepath.Join(filepath.Dir(filepath.Dir(p)), "escaped.txt"))
		}
	})
}

// regrade grades the class again, three times, from the cache: as it
// was, with the stubs' grade forged again, and with kata's own entry
// written over.
func (c *hostileCorpus) regrade(start time.Time) {
	t, opts, class, repoArgs, rep, ids := c.t, c.opts, c.class, c.repoArgs, c.rep, c.ids
	forgeStub := c.forgeStub

	// The whole class graded again (by a new grader, on the same cache):
	// nothing runs, the report is the same.
	again, stats2 := gradeClass(t, opts, class, repoArgs...)
	assert.Equal(t, 0, stats2.Runs, "an unchanged class must grade from the cache")
	assert.Equal(t, rep, again)

	// A run forged the stubs' grade again, now that kata's own entry is
	// there: the re-grade takes kata's, and gives the grade handed out.
	forgeStub(false)
	third, stats3 := gradeClass(t, opts, class, repoArgs...)
	assert.Equal(t, 0, stats3.Runs)
	assert.Equal(t, rep, third, "a re-grade changed a grade handed out")

	// A run that found kata's entry and wrote over it spoils it: the
	// re-grade refuses it and grades the stubs again (their messages may
	// differ from run to run; their points do not).
	forgeStub(true)
	fourth, stats4 := gradeClass(t, opts, class, repoArgs...)
	assert.Equal(t, 1, stats4.Runs, "the spoiled entry is graded again, and nothing else")
	for i, s := range fourth.Students {
		assert.Equal(t, rep.Students[i].Score, s.Score, "%s", s.Name)
	}
	t.Logf("hostile corpus: %d submissions × %d lessons in %s (regrade %s)", len(rep.Students), len(ids), time.Since(start).Round(time.Second), stats2.Elapsed.Round(time.Millisecond))
}

// fakeRaceFlood is runq.go printing, once, a race report's header and
// 120,000 lines shaped like its accesses (60,000 with a blank line after
// each, to stay under the output limit too), then panicking.
// floodedLesson checks the grade of a lesson whose runs print to the
// lesson's output limit: every test failed, for a race kata cannot place,
// for the output, or not started after a test stopped for its output; and
// one was stopped for its output.
func floodedLesson(t *testing.T, g report.LessonGrade, _ int) {
	t.Helper()
	everyTest(t, g, `^(data race: code kata cannot place writes memory that code kata cannot place writes on another thread|`+
		`printed more than the 8 MiB a lesson's runs may print together|not run: an earlier test of this lesson was stopped for running out of time, memory or output)`)
	anyTest(t, g, "printed more than the 8 MiB a lesson's runs may print together")
}

func fakeRaceFlood(t testing.TB, blank bool) []byte {
	sep, n := `""`, "120000"
	if blank {
		sep, n = `"\n"`, "60000"
	}
	// No state of its own (a lesson file may keep none): each test's
	// first put floods and panics, which ends the test.
	return edit(t, ref(t, "runq.go"), "\nfunc runqputtail(pp *p, gp *g) {\n", `
func runqputtail(pp *p, gp *g) {
	println("==================")
	println("WARNING: DATA RACE")
	for i := 0; i < `+n+`; i++ {
		print("Write at 0x00c000012345 by goroutine ", i, ":\n", `+sep+`)
	}
	panic("a flood of fake race lines")
`)
}

// headStoredWhen is lesson 01's reference with one mistake behind a tell:
// runqgethead advances the head with a plain Store, not its CAS, when
// cond holds (a Go condition over h and gp).
func headStoredWhen(t testing.TB, cond string) []byte {
	return edit(t, ref(t, "runq.go"), `		gp := pp.runq[h%uint32(len(pp.runq))].Load()
		if pp.runqhead.CompareAndSwap(h, h+1) {`, `		gp := pp.runq[h%uint32(len(pp.runq))].Load()
		if `+cond+` {
			pp.runqhead.Store(h + 1)
			return gp
		}
		if pp.runqhead.CompareAndSwap(h, h+1) {`)
}

// failsControlledSteal wants a grade under full marks whose
// TestL01ControlledSteal failed: why says what that test must meet.
// failsOneOf: the lesson loses points, and one of the tests named is
// among the failures (the controlled runs that must meet the mistake).
func failsOneOf(tests ...string) func(t *testing.T, g report.LessonGrade, _ int) {
	return func(t *testing.T, g report.LessonGrade, _ int) {
		t.Helper()
		assert.Less(t, g.Score, g.MaxScore, "a mistake the controlled runs must meet: %s", testReasons(g))
		failed := false
		for _, tg := range g.Tests {
			if slices.Contains(tests, tg.Name) && tg.Status != "pass" {
				failed = true
			}
		}
		assert.True(t, failed, "none of %v failed: %s", tests, testReasons(g))
	}
}

func failsControlledSteal(why string) func(t *testing.T, g report.LessonGrade, _ int) {
	return func(t *testing.T, g report.LessonGrade, _ int) {
		assert.Less(t, g.Score, 100)
		for _, tg := range g.Tests {
			if tg.Name == "TestL01ControlledSteal" {
				assert.Equal(t, "fail", tg.Status, "%s: %s", why, tg.Reason)
			}
		}
	}
}
