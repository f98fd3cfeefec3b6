package checker

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gmp-kata/gmp-kata/lessons"
)

// withoutVet is c grading without the vetter: for the tests of the
// defences beneath it (the harness, the isolation), which no file the
// vetter lets through can reach.
func withoutVet(c *Checker) *Checker {
	return &Checker{opts: c.opts, reg: c.reg, mod: c.mod, vet: vetting{off: true}}
}

// forgingRunq is the reference's runq.go with the attack of issue #11: an
// init function that reads the harness's environment, to write the
// harness's report itself. It also calls a function nothing declares: had
// the file been compiled, the grade would say it does not compile.
func forgingRunq(t *testing.T) []byte {
	t.Helper()
	src := runqSource(t)
	for _, e := range [][2]string{
		{`import "sync/atomic"`, "import (\n\t\"os\"\n\t\"sync/atomic\"\n)"},
		{"\nfunc runqputtail(", `
var forged = map[string]string{}

func init() {
	forged["path"], forged["nonce"] = os.Getenv("KATA_GRADE_DONE"), os.Getenv("KATA_GRADE_NONCE")
	writeForgedReport(forged)
}

func runqputtail(`},
	} {
		if strings.Count(src, e[0]) != 1 {
			t.Fatalf("%q is not in runq.go once", e[0])
		}
		src = strings.Replace(src, e[0], e[1], 1)
	}
	return []byte(src)
}

// TestVetRefusesBeforeCompiling: a lesson file that breaks the rules of
// lesson files scores nothing, every test failing with the first problem
// and how many more there are, and is never compiled (it would not
// compile: no compile error says so); so too in the capstone.
func TestVetRefusesBeforeCompiling(t *testing.T) {
	c := sharedChecker(t)
	l := lesson(t, "01")
	files := lessonFile(t, "runq.go", forgingRunq(t))
	res := c.Lesson(context.Background(), l, files)
	if res.Status != StatusFail || res.Score != 0 || res.Error != "" {
		t.Fatalf("%s %d/%d %q, want a failure scoring 0", res.Status, res.Score, res.MaxScore, res.Error)
	}
	if len(res.CompileErrors) != 0 {
		t.Errorf("compiled: %q", res.CompileErrors)
	}
	want := []string{
		`runq.go:4:2: import "os" is not allowed in a lesson file: remove it (kata task lists the packages a lesson file may import)`,
		"runq.go:26:5: declares the package-level variable forged: a lesson file keeps no state of its own between calls",
		"runq.go:28:6: a lesson file may not declare an init function",
	}
	if len(res.VetProblems) != len(want) {
		t.Fatalf("vet problems %q, want %d", res.VetProblems, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(res.VetProblems[i], w) {
			t.Errorf("vet problem %d: %q, want %q", i, res.VetProblems[i], w)
		}
	}
	if len(res.Tests) != len(l.Tests) {
		t.Errorf("%d tests, want %d", len(res.Tests), len(l.Tests))
	}
	for _, tr := range res.Tests {
		if tr.Status != StatusFail || tr.Message != "breaks a rule of lesson files: "+res.VetProblems[0]+" (and 2 more problems)" {
			t.Errorf("%s: %s %q", tr.Name, tr.Status, tr.Message)
		}
	}

	all := map[string]string{}
	for _, l := range c.reg.All() {
		for _, f := range l.Files {
			all[f] = lessonFile(t, f, embedded(t, "solutions/"+f))[f]
		}
	}
	all["runq.go"] = files["runq.go"]
	capstone := c.Capstone(context.Background(), all)
	if capstone.Status != StatusFail || capstone.Score != 0 || len(capstone.VetProblems) != 3 || len(capstone.CompileErrors) != 0 {
		t.Errorf("capstone: %s %d/%d, vet problems %q, compile errors %q: want it refused", capstone.Status, capstone.Score, capstone.MaxScore, capstone.VetProblems, capstone.CompileErrors)
	}
}

// TestVetKnowsTheHarness: the vetter of a Checker knows the real harness's
// names, and the hidden tests' and kit's, as names a lesson file may not
// use, and so too what only the hidden tests' build of the reference
// declares (the controlled scheduler's hook: a file that names it would
// not compile in a learner's own build); and a correct file passes it
// quickly.
func TestVetKnowsTheHarness(t *testing.T) {
	c := withoutVet(sharedChecker(t))
	c.vet.off = false // a Checker of its own, to time its vetter's loading
	start := time.Now()
	v, err := c.vetter()
	if err != nil {
		t.Fatal(err)
	}
	loaded := time.Since(start)
	ref := lessonFile(t, "runq.go", []byte(runqSource(t)))
	start = time.Now()
	probs, err := v.Files(context.Background(), ref)
	if err != nil || len(probs) != 0 {
		t.Fatalf("the reference's runq.go: %v %v", probs, err)
	}
	t.Logf("vetting: %s to load (once per Checker), %s for runq.go", loaded.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))

	src := strings.Replace(runqSource(t), "func runqputtail(pp *p, gp *g) {", `func runqputtail(pp *p, gp *g) {
	kataMu.Lock()
	kataVerdicts["TestL01FIFO"] = "pass"
	kataMu.Unlock()
	kataHarnessEntered.Store(false)
	_ = kitG
	setInterleaveHook(nil)
	_ = interleaveHook.Load()
	schedPoint()`, 1)
	probs, err = v.Files(context.Background(), lessonFile(t, "runq.go", []byte(src)))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range probs {
		got = append(got, p.String())
	}
	want := []string{
		"runq.go:24:2: refers to kataMu, which only kata's tests declare",
		"runq.go:25:2: refers to kataVerdicts, which only kata's tests declare",
		"runq.go:26:2: refers to kataMu, which only kata's tests declare",
		"runq.go:27:2: refers to kataHarnessEntered, which only kata's tests declare",
		"runq.go:28:6: refers to kitG, which only kata's tests declare",
		"runq.go:29:2: refers to setInterleaveHook, which only kata's tests declare",
		"runq.go:30:6: refers to interleaveHook, which only kata's tests declare",
		// Declared in both builds (an empty function outside the hidden
		// tests'), but in no lesson's API.
		"runq.go:31:2: uses schedPoint, which is not in lesson 01-ringbuffer's API",
	}
	if len(got) != len(want) {
		t.Fatalf("problems:\n%s\nwant %d", strings.Join(got, "\n"), len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d: %q, want %q", i, got[i], want[i])
		}
	}
}

// runqWith is lesson 01's runq.go, base, with imports and, before
// runqputtail, decls.
func runqWith(t *testing.T, base string, imports []string, decls string) map[string]string {
	t.Helper()
	block := "import (\n"
	for _, imp := range imports {
		block += "\t\"" + imp + "\"\n"
	}
	src := strings.Replace(base, `import "sync/atomic"`, block+"\t\"sync/atomic\"\n)", 1)
	src = strings.Replace(src, "\nfunc runqputtail(", "\n"+decls+"\nfunc runqputtail(", 1)
	if src == base {
		t.Fatal("runq.go has changed: the edits do not apply")
	}
	return lessonFile(t, "runq.go", []byte(src))
}

// refuse checks res is a failure scoring 0, not vetted, and that every
// test's message matches pattern.
func refuse(t *testing.T, res *LessonResult, pattern string) {
	t.Helper()
	if res.Status != StatusFail || res.Score != 0 || len(res.VetProblems) != 0 {
		t.Errorf("%s %d/%d, vet problems %q: want a failure scoring 0, not vetted", res.Status, res.Score, res.MaxScore, res.VetProblems)
	}
	re := regexp.MustCompile(pattern)
	for _, tr := range res.Tests {
		if !re.MatchString(tr.Message) {
			t.Errorf("%s: %q, want %s", tr.Name, tr.Message, pattern)
		}
	}
}

// TestDefencesBeneathTheVetter: the run's own defences still hold for
// files the vetter refuses, were it wrong or off. Code that exits in an
// init function proves nothing; code that writes beside the graded package
// fails the lesson (Options.Isolate); and, on Linux, PASS lines printed
// with the real results hidden do not change the grade. (These were
// cases of the hostile corpus, checker/grade/corpus_test.go, before the
// vetter refused them there.) Under -short, the first three.
func TestDefencesBeneathTheVetter(t *testing.T) {
	t.Parallel() // a copy of the shared checker, or the checker itself (safe for concurrent use); it mostly builds and waits on runs
	c := withoutVet(sharedChecker(t))
	c.opts.Isolate = true
	l := lesson(t, "01")
	ref := runqSource(t)

	t.Run("exit-in-init", func(t *testing.T) {
		res := c.Lesson(context.Background(), l, runqWith(t, ref, []string{"os"}, "func init() { os.Exit(0) }\n"))
		refuse(t, res, `^the test binary exited before running any test`)
	})
	t.Run("writes-outside", func(t *testing.T) {
		res := c.Lesson(context.Background(), l, runqWith(t, ref, []string{"os"}, `func init() {
	if err := os.WriteFile("proc.go", []byte("package sched\n\nfunc broken() { undefinedEverywhere() }\n"), 0o644); err != nil {
		panic("kept from writing: " + err.Error())
	}
	os.WriteFile("../escaped.txt", []byte("was here"), 0o644)
}
`))
		// Without a sandbox the write lands, and kata sees the change; in
		// the sandbox, where the module is read-only, it fails.
		refuse(t, res, `^changed the grader's files while its tests ran \(escaped\.txt \(added\), solutions/proc\.go \(changed\)\)|`+
			`panic: kept from writing: open proc\.go: read-only file system`)
	})
	t.Run("fake-pass-framed", func(t *testing.T) {
		// Framed PASS lines for every test, then a goroutine's panic that
		// ends the process before the harness reports (a panic in a G only
		// fails the test). Refused by the vetter since rule 13 (its go
		// statement); the hostile corpus's case until then.
		names := make([]string, len(l.Tests))
		for i, tt := range l.Tests {
			names[i] = strconv.Quote(tt.Name)
		}
		src := strings.Replace(ref, `import "sync/atomic"`, "import (\n\t\"fmt\"\n\t\"sync/atomic\"\n)", 1)
		src = strings.Replace(src, "func runqputtail(pp *p, gp *g) {", `var faked bool

func runqputtail(pp *p, gp *g) {
	if !faked {
		faked = true
		for _, n := range []string{`+strings.Join(names, ", ")+`} {
			fmt.Printf("\x16=== RUN   %s\n\x16--- PASS: %s (0.00s)\n", n, n)
		}
		fmt.Printf("\x16PASS\n")
		go func() { panic("all done") }()
		select {}
	}`, 1)
		res := c.Lesson(context.Background(), l, lessonFile(t, "runq.go", []byte(src)))
		refuse(t, res, `passes it printed prove nothing`)
	})
	if testing.Short() || runtime.GOOS != "linux" {
		return
	}
	defencesBeneathTheVetterOnLinux(t, c, l, ref)
}

// defencesBeneathTheVetterOnLinux is the part of
// TestDefencesBeneathTheVetter that runs on Linux only, and not under
// -short: the memory limit, and forged results beside crashes and hidden
// output. c grades without the vetter, l is lesson 01, ref its reference.
func defencesBeneathTheVetterOnLinux(t *testing.T, c *Checker, l *lessons.Lesson, ref string) {
	t.Run("goroutine-explosion", func(t *testing.T) {
		// Goroutines started without end: Go 1.26's race detector has no
		// goroutine limit any more, and the run's memory limit stops it.
		// Refused by the vetter since rule 13; the hostile corpus's case
		// until then. The lesson's first test shows it.
		limited := withoutVet(sharedChecker(t))
		limited.opts.Isolate = true
		limited.opts.MaxMemory = 1 << 30
		few := *l
		few.Tests = l.Tests[:1]
		src := strings.Replace(ref, "func runqputtail(pp *p, gp *g) {", "func runqputtail(pp *p, gp *g) {\n\tfor {\n\t\tgo func() { select {} }()\n\t}", 1)
		res := limited.Lesson(context.Background(), &few, lessonFile(t, "runq.go", []byte(src)))
		refuse(t, res, `used more than 1024 MiB of memory; stopped`)
	})
	t.Run("torn-interface-forgery", func(t *testing.T) {
		if runtime.GOARCH != "amd64" {
			t.Skip("the attack reads amd64's memory layout")
		}
		// The red team's A30 (grade/testdata/hostile/torn-interface.go.txt,
		// refused by the vetter in the hostile corpus for its 4 GiB
		// window): a data race tears an interface value, and through it
		// the stubs read the test process's memory, find the nonce, write
		// a report of every test passing on the harness's pipe and crash
		// the process. It once scored 100/100, under -race and the sandbox.
		attack, err := os.ReadFile(filepath.Join("grade", "testdata", "hostile", "torn-interface.go.txt"))
		if err != nil {
			t.Fatal(err)
		}
		// Three of the lesson's tests show what seventeen would: each
		// pass forged, each crashed or raced; a test the crash takes down
		// runs again alone, and the attack starts again in every one.
		few := *l
		few.Tests = l.Tests[:3]
		names := make([]string, len(few.Tests))
		for i, tt := range few.Tests {
			names[i] = strconv.Quote(tt.Name)
		}
		src := strings.Replace(withAtomicImport(t, embedded(t, "skeleton/runq.go")), `import "sync/atomic"`, "import (\n\t\"fmt\"\n\t\"sync\"\n\t\"sync/atomic\"\n)", 1)
		src = strings.ReplaceAll(src, "\tpanic(\"not implemented", "\trtOnce.Do(rtTry)\n\tpanic(\"not implemented")
		src += "\n" + strings.Replace(string(attack), "RT_TESTS", strings.Join(names, ", "), 1)
		res := c.Lesson(context.Background(), &few, lessonFile(t, "runq.go", []byte(src)))
		refuse(t, res, `^(crashed: |data race: )`)
		if len(res.Tests) != len(few.Tests) {
			t.Errorf("%d tests graded, want %d", len(res.Tests), len(few.Tests))
		}
	})
	t.Run("fake-pass-framed-hidden-output", func(t *testing.T) {
		ms, err := l.ReadMutants()
		if err != nil {
			t.Fatal(err)
		}
		var mutant string
		for _, m := range ms {
			if m.Name == "full-at-255" {
				edited, err := m.Apply(map[string][]byte{"runq.go": []byte(ref)})
				if err != nil {
					t.Fatal(err)
				}
				mutant = string(edited["runq.go"])
			}
		}
		// The lesson's first four tests (full-at-255 fails the third)
		// show what all of them would, in a quarter of the time.
		few := *l
		few.Tests = l.Tests[:4]
		honest := c.Lesson(context.Background(), &few, lessonFile(t, "runq.go", []byte(mutant)))
		names := make([]string, len(few.Tests))
		for i, tt := range few.Tests {
			names[i] = strconv.Quote(tt.Name)
		}
		// (full-at-255 fails tests without crashing the test binary: a crash
		// with the output hidden cannot be pinned on one test, so every
		// test after it fails, which costs the hider points, never earns
		// any; grab-takes-all now crashes in lesson 01's newer tests.)
		// Framed PASS lines for every test, then standard output and error
		// pointed at /dev/null so that the real results never reach
		// test2json; the tests then run (and the mistake fails some).
		res := c.Lesson(context.Background(), &few, runqWith(t, mutant, []string{"fmt", "os", "syscall"}, `func init() {
	for _, n := range []string{`+strings.Join(names, ", ")+`} {
		fmt.Printf("\x16=== RUN   %s\n\x16--- PASS: %s (0.00s)\n", n, n)
	}
	fmt.Printf("\x16PASS\n")
	os.Stdout.Sync()
	null, _ := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	syscall.Dup3(int(null.Fd()), 1, 0)
	syscall.Dup3(int(null.Fd()), 2, 0)
}
`))
		if honest.Score == honest.MaxScore || res.Score != honest.Score || len(res.VetProblems) != 0 {
			t.Errorf("the mutant scored %d/%d alone, %d/%d hiding its results (vet problems %q): want the same, and less than full marks",
				honest.Score, honest.MaxScore, res.Score, res.MaxScore, res.VetProblems)
		}
	})
}

// typeBomb is the reference's runq.go with the red team's A25: a generic
// call nested n deep, each level doubling the type inferred, so that the
// type checker's time and memory grow as 2^n (n=23: 1.6 GB).
func typeBomb(t *testing.T, n int) []byte {
	t.Helper()
	src := runqSource(t)
	bomb := `
type rtPair[A, B any] struct {
	a A
	b B
}

func rtMk[T any](x T) rtPair[T, T] { return rtPair[T, T]{x, x} }

func rtBomb() { _ = ` + strings.Repeat("rtMk(", n) + "0" + strings.Repeat(")", n) + ` }
`
	if !strings.Contains(src, "\nfunc runqputtail(") {
		t.Fatal("runq.go has changed: the bomb does not apply")
	}
	return []byte(strings.Replace(src, "\nfunc runqputtail(", bomb+"\nfunc runqputtail(", 1))
}

// TestVetGivesUp: a file that makes the type checker exhaust time or
// memory is refused, every test failing with one line that says so, and
// costs kata's own process nothing: the vetter runs in a child process,
// under the run's memory limit and a deadline (A25 took kata itself to
// 1.6 GB under --max-memory 64, and at n=26 killed it, and the class's
// report with it).
func TestVetGivesUp(t *testing.T) {
	base := sharedChecker(t)
	c := &Checker{opts: base.opts, reg: base.reg, mod: base.mod, key: base.key}
	c.opts.MaxMemory = 256 << 20
	l := lesson(t, "01")
	before := peakRSS()
	start := time.Now()
	res := c.Lesson(context.Background(), l, lessonFile(t, "runq.go", typeBomb(t, 30)))
	took := time.Since(start)
	if res.Status != StatusFail || res.Score != 0 || res.Error != "" || len(res.CompileErrors) != 0 || len(res.VetProblems) != 1 {
		t.Fatalf("%s %d/%d %q, compile errors %q, vet problems %q: want it refused, not compiled", res.Status, res.Score, res.MaxScore, res.Error, res.CompileErrors, res.VetProblems)
	}
	want := regexp.MustCompile(`^runq\.go: the type checker gave up: it used more than 256 MiB of memory: `)
	if !want.MatchString(res.VetProblems[0]) {
		t.Errorf("vet problem %q, want %s", res.VetProblems[0], want)
	}
	for _, tr := range res.Tests {
		if tr.Status != StatusFail || !strings.Contains(tr.Message, res.VetProblems[0]) || strings.Contains(tr.Message, "\n") {
			t.Errorf("%s: %s %q", tr.Name, tr.Status, tr.Message)
		}
	}
	if after := peakRSS(); before > 0 && after-before > 100<<20 {
		t.Errorf("kata's own peak memory grew by %d MiB", (after-before)>>20)
	}
	if took > time.Minute {
		t.Errorf("took %s", took)
	}
	t.Logf("refused in %s: %s", took.Round(time.Millisecond), res.VetProblems[0])
}

// TestVetFailsClosed: a file the vetter cannot read whole is never let
// through unvetted. A01 nests an expression deeper than go/parser allows,
// so that the vetter returned no problem and the file, which imports os
// and declares an init function, went on to the compiler: now what the
// vetter can read of it (its imports) is vetted, and refused. A plain
// syntax or type error reads as it always has: the compiler's message,
// with no vet problem.
func TestVetFailsClosed(t *testing.T) {
	c := sharedChecker(t)
	l := lesson(t, "01")
	src := runqSource(t)
	deep := strings.Replace(src, `import "sync/atomic"`, "import (\n\t\"os\"\n\t\"sync/atomic\"\n)", 1)
	deep = strings.Replace(deep, "\nfunc runqputtail(", "\nvar deepNesting = "+strings.Repeat("(", 100_010)+"1"+strings.Repeat(")", 100_010)+
		"\n\nfunc init() { os.Exit(0) }\n\nfunc runqputtail(", 1)
	res := c.Lesson(context.Background(), l, lessonFile(t, "runq.go", []byte(deep)))
	if res.Status != StatusFail || res.Score != 0 || len(res.CompileErrors) != 0 || len(res.VetProblems) != 1 ||
		!strings.HasPrefix(res.VetProblems[0], `runq.go:4:2: import "os" is not allowed in a lesson file`) {
		t.Errorf("nested too deep: %s %d/%d, compile errors %q, vet problems %q: want it refused for its import", res.Status, res.Score, res.MaxScore, res.CompileErrors, res.VetProblems)
	}

	for _, tc := range []struct{ name, old, new, want string }{
		{"syntax error", "func runqputtail(pp *p, gp *g) {", "func runqputtail(pp *p, gp *g) {\n\tif {", `^does not compile: .*runq\.go:\d+:\d+: syntax error: `},
		{"type error", "func runqputtail(pp *p, gp *g) {", "func runqputtail(pp *p, gp *g) {\n\tundefinedThing()", `^does not compile: .*runq\.go:\d+:\d+: undefined: undefinedThing$`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := c.Lesson(context.Background(), l, lessonFile(t, "runq.go", []byte(strings.Replace(src, tc.old, tc.new, 1))))
			if res.Status != StatusFail || !res.NotCompiled || len(res.VetProblems) != 0 || len(res.CompileErrors) == 0 {
				t.Fatalf("%s %d/%d, compile errors %q, vet problems %q: want it not compiled, as ever", res.Status, res.Score, res.MaxScore, res.CompileErrors, res.VetProblems)
			}
			re := regexp.MustCompile(tc.want)
			for _, tr := range res.Tests {
				if !re.MatchString(tr.Message) {
					t.Errorf("%s: %q, want %s", tr.Name, tr.Message, re)
				}
			}
		})
	}
}

// TestVetUncheckedNeverRuns: a file the vetter could not read whole is
// compiled, for the compiler's messages, and never run, even if it
// compiles: here go test's own vet, which reads files as the vetter does
// and refuses the same, is off, and the compiler reads a nesting deeper
// than go/parser's limit. The file is refused with what the vetter said.
func TestVetUncheckedNeverRuns(t *testing.T) {
	c := sharedChecker(t)
	l := lesson(t, "01")
	src := strings.Replace(runqSource(t), "\nfunc runqputtail(",
		"\nvar deepNesting = "+strings.Repeat("(", 100_010)+"1"+strings.Repeat(")", 100_010)+"\n\nfunc runqputtail(", 1)
	r, err := c.newRun(lessonFile(t, "runq.go", []byte(src)), []*lessons.Lesson{l})
	if err != nil {
		t.Fatal(err)
	}
	defer r.cleanup()
	r.noVet = true
	res := &LessonResult{}
	var order []string
	for _, tt := range l.Tests {
		order = append(order, tt.Name)
	}
	recorded := map[string]string{}
	pending, _, err := c.vetFirst(context.Background(), res, r, order, func(name, status, msg string, _ float64) {
		recorded[name] = status + " " + msg
	})
	if err != nil || pending != nil {
		t.Fatalf("vetFirst: %v, %+v: want the build to succeed, and nothing to report of it", err, pending)
	}
	if !r.built {
		t.Fatal("not compiled: the compiler was to read it")
	}
	want := regexp.MustCompile(`^runq\.go:\d+:\d+: go/parser cannot parse it \(exceeded max nesting depth\): `)
	if len(res.VetProblems) != 1 || !want.MatchString(res.VetProblems[0]) {
		t.Fatalf("vet problems %q, want one matching %s", res.VetProblems, want)
	}
	for _, name := range order {
		if recorded[name] != "fail breaks a rule of lesson files: "+res.VetProblems[0] {
			t.Errorf("%s: %q", name, recorded[name])
		}
	}
}

// TestVetProblemsCapped: a file that breaks a rule on every line lists
// the first maxVetProblems problems, and says how many there are.
func TestVetProblemsCapped(t *testing.T) {
	c := sharedChecker(t)
	src := strings.Replace(runqSource(t), "\nfunc runqputtail(",
		"\nfunc flood() {\n"+strings.Repeat("_ = kataX\n", 20_000)+"}\n\nfunc runqputtail(", 1)
	res := c.Lesson(context.Background(), lesson(t, "01"), lessonFile(t, "runq.go", []byte(src)))
	if len(res.VetProblems) != maxVetProblems+1 || res.VetProblems[maxVetProblems] != "... and 19900 more" {
		t.Fatalf("%d vet problems, the last %q", len(res.VetProblems), res.VetProblems[len(res.VetProblems)-1])
	}
	if !strings.HasSuffix(res.Tests[0].Message, "(and 19999 more problems)") {
		t.Errorf("%q", res.Tests[0].Message)
	}
}
