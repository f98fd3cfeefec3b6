package checker

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
)

// The harness is a TestMain kata adds to every graded package. The test
// binary's standard output is shared with the code under test, which can
// print anything there, including the lines test2json takes for a test's
// result (framed by the \x16 byte or not), and then leave with os.Exit or
// syscall.Exit. So kata does not take a pass from that stream alone: the
// harness wraps every test function, records its verdict when it ends, and
// after m.Run writes the verdicts to a file named in the environment,
// with a nonce only that run knows. A run that does not leave that file
// (it exited, crashed or was killed) proves no pass; its failures still
// count, its passes are run again.
//
// This raises the bar; it does not make the harness safe from code that
// sets out to defeat it: see the threat model in book/src/grading.md.

// harnessVersion changes whenever the harness's protocol or the way a
// grade is read from it does; it is part of every Checker's fingerprint.
const harnessVersion = 1

// Environment variables the harness reads (and unsets before any test
// runs).
const (
	envDoneFile = "KATA_GRADE_DONE"
	envNonce    = "KATA_GRADE_NONCE"
)

// harnessFile is the name the harness gets in the graded package.
const harnessFile = "zz_kata_harness_test.go"

// harnessSource is the harness. It reaches the test functions through the
// unexported tests field of testing.M (stable since Go 1.4); if a future Go
// renames it, the harness still reports completion and the exit code, and
// the checker falls back to the stream's verdicts checked against that
// code.
const harnessSource = `package sched

// Added by kata when grading: see checker/harness.go.

import (
	"encoding/json"
	"os"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"
)

var kataHarnessEntered atomic.Bool

func TestMain(m *testing.M) {
	path, nonce := os.Getenv("` + envDoneFile + `"), os.Getenv("` + envNonce + `")
	os.Unsetenv("` + envDoneFile + `")
	os.Unsetenv("` + envNonce + `")
	honest := kataHarnessEntered.CompareAndSwap(false, true)
	if pc, _, _, ok := runtime.Caller(1); !ok || runtime.FuncForPC(pc) == nil || runtime.FuncForPC(pc).Name() != "main.main" {
		honest = false // TestMain called by the code under test
	}
	var mu sync.Mutex
	verdicts := map[string]string{}
	wrapped := false
	if f := reflect.ValueOf(m).Elem().FieldByName("tests"); f.IsValid() && f.Type() == reflect.TypeFor[[]testing.InternalTest]() {
		tests := *(*[]testing.InternalTest)(unsafe.Pointer(f.UnsafeAddr()))
		for i := range tests {
			name, fn := tests[i].Name, tests[i].F
			tests[i].F = func(t *testing.T) {
				t.Cleanup(func() {
					v := "pass"
					switch {
					case t.Failed():
						v = "fail"
					case t.Skipped():
						v = "skip"
					}
					mu.Lock()
					verdicts[name] = v
					mu.Unlock()
				})
				fn(t)
			}
		}
		wrapped = true
	}
	code := m.Run()
	if path != "" {
		mu.Lock()
		data, _ := json.Marshal(map[string]any{"nonce": nonce, "code": code, "honest": honest, "wrapped": wrapped, "verdicts": verdicts})
		mu.Unlock()
		_ = os.WriteFile(path, data, 0o600)
	}
	os.Exit(code)
}
`

// harnessReport is what the harness wrote.
type harnessReport struct {
	Nonce    string            `json:"nonce"`
	Code     int               `json:"code"`
	Honest   bool              `json:"honest"`
	Wrapped  bool              `json:"wrapped"`
	Verdicts map[string]string `json:"verdicts"`
}

// newNonce returns a fresh random nonce.
func newNonce() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// readHarnessReport reads the harness's report: nil if there is none (the
// test binary did not run to its end), forged reports included: a report
// with the wrong nonce is returned with Honest false.
func readHarnessReport(path, nonce string) *harnessReport {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var rep harnessReport
	if err := json.Unmarshal(data, &rep); err != nil {
		return &harnessReport{Honest: false}
	}
	if rep.Nonce != nonce {
		rep.Honest = false
	}
	return &rep
}
