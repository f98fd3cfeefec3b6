package checker

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gmp-kata/gmp-kata/checker/sandbox"
	"github.com/gmp-kata/gmp-kata/checker/vet"
)

// The tests below grade hostile code in a module of their own
// (miniModule: one reference file, whose crash() the learner's file
// replaces, and the hidden tests of "les"), with real go test builds and
// test binaries, each in the sandbox and, where the defence does not
// depend on it, without.

// hostileRun is a run of the learner's sched.go (which must declare
// crash) against the hidden tests of les.
func hostileRun(t *testing.T, src string) *run {
	t.Helper()
	r := &run{mod: miniModule(t), replace: lessonFile(t, "sched.go", []byte(src)), hidden: []string{"les"},
		timeouts: map[string]time.Duration{"TestPass": time.Minute, "TestFail": time.Minute, "TestSkip": time.Minute}}
	t.Cleanup(r.cleanup)
	return r
}

// withoutSandbox runs the test with the test binary outside the sandbox,
// as kata does where there is none.
func withoutSandbox(t *testing.T) {
	saved := sandboxed
	sandboxed = func() bool { return false }
	t.Cleanup(func() { sandboxed = saved })
}

// modes runs f in the sandbox (if this system has one) and without.
func modes(t *testing.T, f func(t *testing.T)) {
	t.Run("sandbox", func(t *testing.T) {
		if ok, why := sandbox.Available(); !ok {
			t.Skip(why)
		}
		f(t)
	})
	t.Run("no-sandbox", func(t *testing.T) {
		withoutSandbox(t)
		f(t)
	})
}

func execOK(t *testing.T, r *run, tests ...string) *runResult {
	t.Helper()
	rr, err := execOne(r, tests)
	if err != nil {
		t.Fatal(err)
	}
	if rr.s.buildFailed {
		t.Fatalf("does not compile:\n%s", strings.Join(rr.s.buildOutput, "\n"))
	}
	return rr
}

// TestHarnessSecretOutOfReach: code of the package that runs before any
// test (a variable's initialiser) finds the harness's nonce nowhere: not
// in its environment, not in /proc/self/environ, not on the file
// descriptor it came on; and the harness's report still reaches kata.
// (Before, the nonce was in the environment until TestMain unset it.)
func TestHarnessSecretOutOfReach(t *testing.T) {
	modes(t, func(t *testing.T) {
		r := hostileRun(t, `package sched

import (
	"fmt"
	"os"
	"strings"
)

var stolen = steal()

func steal() string {
	var found []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "KATA") {
			found = append(found, "env "+kv)
		}
	}
	if b, err := os.ReadFile("/proc/self/environ"); err == nil && strings.Contains(string(b), "KATA") {
		found = append(found, "/proc/self/environ "+string(b))
	}
	b := make([]byte, 64)
	if n, _ := os.NewFile(3, "").Read(b); n > 0 {
		found = append(found, fmt.Sprintf("fd 3 %q", b[:n]))
	}
	fmt.Printf("stolen: %q\n", found)
	return ""
}

func crash() {}
`)
		rr := execOK(t, r, "TestPass", "TestFail")
		out := strings.Join(rr.s.pkgOutput, "\n")
		if !strings.Contains(out, "stolen: []") {
			t.Errorf("the code under test found:\n%s", out)
		}
		if rr.harness == nil || !rr.harness.Honest || rr.harness.Verdicts["TestPass"] != "pass" || rr.harness.Verdicts["TestFail"] != "fail" {
			t.Errorf("harness report %+v, want an honest one", rr.harness)
		}
	})
}

// TestHarnessNamesAreFresh: code written against the harness's variables
// does not compile: their names change with every build.
func TestHarnessNamesAreFresh(t *testing.T) {
	r := hostileRun(t, `package sched

func forge() {
	kataMu.Lock()
	for n := range kataVerdicts {
		kataVerdicts[n] = "pass"
	}
	kataMu.Unlock()
}

func crash() { forge() }
`)
	rr, err := execOne(r, []string{"TestPass"})
	if err != nil {
		t.Fatal(err)
	}
	if !rr.s.buildFailed || !strings.Contains(strings.Join(rr.s.buildOutput, "\n"), "undefined: kataMu") {
		t.Errorf("code using kataMu and kataVerdicts compiled (build output %q)", rr.s.buildOutput)
	}
}

// TestInputsCheckedAfterARun: a run that changes one of its inputs (here
// the overlay, beside the test binary) fails; in the sandbox it cannot.
func TestInputsCheckedAfterARun(t *testing.T) {
	modes(t, func(t *testing.T) {
		r := hostileRun(t, `package sched

import (
	"fmt"
	"os"
	"path/filepath"
)

func crash() {}

func init() {
	err := os.WriteFile(filepath.Join(filepath.Dir(os.Args[0]), "overlay.json"), []byte("{}"), 0o644)
	fmt.Println("writing the overlay:", err)
}
`)
		rr := execOK(t, r, "TestPass")
		out := strings.Join(rr.s.pkgOutput, "\n")
		switch {
		case strings.Contains(out, "writing the overlay: <nil>"):
			if want := []string{"kata's overlay.json (changed)"}; !slicesEqual(rr.changed, want) {
				t.Errorf("changed %q, want %q", rr.changed, want)
			}
		case strings.Contains(out, "read-only file system") && sandboxed():
			if len(rr.changed) > 0 {
				t.Errorf("changed %q, want nothing", rr.changed)
			}
		default:
			t.Errorf("unexpected:\n%s", out)
		}
	})
}

func slicesEqual(a, b []string) bool {
	return strings.Join(a, "\x00") == strings.Join(b, "\x00")
}

// TestBuildHasItsOwnDeadline: building the test binary is stopped at
// buildAllowance, whatever the tests' own limits.
func TestBuildHasItsOwnDeadline(t *testing.T) {
	saved := buildAllowance
	buildAllowance = 200 * time.Millisecond
	t.Cleanup(func() { buildAllowance = saved })
	r := hostileRun(t, "package sched\n\nfunc crash() {}\n")
	r.timeouts = map[string]time.Duration{"TestPass": time.Hour}
	start := time.Now()
	rr, err := execOne(r, []string{"TestPass"})
	if err != nil {
		t.Fatal(err)
	}
	if rr.killed != "(build)" || time.Since(start) > 30*time.Second {
		t.Errorf("killed %q after %s, want the build stopped after %s", rr.killed, time.Since(start), buildAllowance)
	}
}

// TestHarnessID: the harness's suffix is the same for the same files
// under the same key (so that the go command's cache serves a check of
// unchanged files), and no one without the key can tell it.
func TestHarnessID(t *testing.T) {
	a := lessonFile(t, "runq.go", []byte("package sched\n"))
	b := lessonFile(t, "runq.go", []byte("package sched // changed\n"))
	key, other := []byte("0123456789abcdef0123456789abcdef"), []byte("fedcba9876543210fedcba9876543210")
	id := harnessID(key, a, []string{"01"})
	if len(id) != 12 || harnessID(key, a, []string{"01"}) != id {
		t.Errorf("%q, then %q: want the same 12 hex digits", id, harnessID(key, a, []string{"01"}))
	}
	for name, other := range map[string]string{
		"another file":    harnessID(key, b, []string{"01"}),
		"other tests":     harnessID(key, a, []string{"02"}),
		"another key":     harnessID(other, a, []string{"01"}),
		"no key (random)": harnessID(nil, a, []string{"01"}),
	} {
		if other == id {
			t.Errorf("%s: the same suffix %q", name, id)
		}
	}
	dir := t.TempDir()
	k := harnessKey(dir)
	if len(k) != 32 || string(harnessKey(dir)) != string(k) {
		t.Errorf("harnessKey: %x, then %x: want the same 32 bytes", k, harnessKey(dir))
	}
}

// TestCrashInATest: a panic on a goroutine of its own kills the test
// binary in the middle of a test: the test crashed, it did not finish
// (test2json, run on the binary, ends the stream with a "fail" that names
// it; before, only the runs after the first, which went through test2json
// too, said so).
func TestCrashInATest(t *testing.T) {
	r := hostileRun(t, "package sched\n\nfunc crash() { go func() { panic(\"boom on an M\") }(); select {} }\n")
	r.timeouts["TestPanic"] = time.Minute
	rr := execOK(t, r, "TestPass", "TestPanic")
	o := rr.s.tests["TestPanic"]
	if rr.harness != nil || o == nil || !o.started || o.finished {
		t.Errorf("TestPanic: %+v (harness %+v), want started and never finished", o, rr.harness)
	}
	if p := rr.s.tests["TestPass"]; p == nil || !p.finished || p.action != "pass" {
		t.Errorf("TestPass: %+v, want a pass", p)
	}
}

// TestSnapshotTakesTheCoursesOwnFilesWhole: a learner's file is read into
// the snapshot only as far as the vetter needs to refuse it as too large,
// but the course's own files (kata verify --mutate's schemata, every
// mutant of a lesson file in one, lesson 04's over 256 KiB) are taken
// whole: cut short, the reference with its mutants did not compile and
// the mutation run stopped.
func TestSnapshotTakesTheCoursesOwnFilesWhole(t *testing.T) {
	big := "package sched\n\n" + strings.Repeat("// a line of the schemata, long enough to fill a file quickly.\n", 2*vet.MaxFileSize/64)
	for _, trusted := range []bool{false, true} {
		r := &run{replace: lessonFile(t, "sched.go", []byte(big)), trusted: trusted}
		if err := r.makeWork(); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(r.snapshot["sched.go"])
		r.cleanup()
		if err != nil {
			t.Fatal(err)
		}
		want := len(big)
		if !trusted {
			want = vet.MaxFileSize + 1 // enough for the vetter to refuse it
		}
		if len(got) != want {
			t.Errorf("trusted=%v: the snapshot has %d bytes of the %d-byte file, want %d", trusted, len(got), len(big), want)
		}
	}
}

// TestRunEnvironmentIsPinned: a run's test binary gets the same time zone,
// locale and race detector settings whatever kata's environment says, so a
// grade depends only on what its cache key holds. (Before, TZ, LANG,
// GORACE and GOTRACEBACK were passed on: a grader in Tokyo with
// GORACE=halt_on_error=1 graded differently, from the same cache key.)
func TestRunEnvironmentIsPinned(t *testing.T) {
	t.Setenv("TZ", "Asia/Tokyo")
	t.Setenv("LANG", "zh_CN.UTF-8")
	t.Setenv("LC_ALL", "zh_CN.UTF-8")
	t.Setenv("GORACE", "halt_on_error=1 history_size=1")
	t.Setenv("GOTRACEBACK", "crash")
	r := hostileRun(t, `package sched

import (
	"fmt"
	"os"
)

var seen = show()

func show() string {
	for _, name := range []string{"TZ", "LANG", "LC_ALL", "GORACE", "GOTRACEBACK"} {
		fmt.Printf("env %s=%q\n", name, os.Getenv(name))
	}
	return ""
}

func crash() {}
`)
	rr := execOK(t, r, "TestPass")
	out := strings.Join(rr.s.pkgOutput, "\n")
	for _, want := range []string{`env TZ="UTC"`, `env LANG="C"`, `env LC_ALL="C"`,
		`env GORACE="log_path=stderr exitcode=66 atexit_sleep_ms=50"`, `env GOTRACEBACK=""`} {
		if !strings.Contains(out, want) {
			t.Errorf("the test binary's environment lacks %s; it printed:\n%s", want, out)
		}
	}
}
