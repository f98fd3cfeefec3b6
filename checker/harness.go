package checker

import (
	"bytes"
	"cmp"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// The harness is a TestMain kata adds to every graded package. The test
// binary's standard output is shared with the code under test, which can
// print anything there, including the lines test2json takes for a test's
// result (framed by the \x16 byte or not), and then leave with os.Exit or
// syscall.Exit. So kata does not take a pass from that stream alone: the
// harness records every test's verdict when it ends, and after m.Run
// sends the verdicts to kata, with a nonce only that run knows. A run
// that does not send them (it exited, crashed or was killed) proves no
// pass; its failures still count, its passes are run again.
//
// The harness also tells kata, as they happen, when each test starts and
// ends, on the same channel and with the same nonce (kataEvent): kata's
// deadlines follow those signals and its own clock, never the test
// binary's output, where the code under test can print a "=== RUN" line
// for any test it likes. And a report is a grade only from a run that
// ended as the harness ends it: the test binary exited on its own, with
// the status the report implies (0 if no test failed, 1 if one did, as
// the testing package's m.Run returns), and the race detector reported no
// race in it (see checker.go's gradeRun). A report written by code that
// then crashed the process, or that tore memory with a data race to find
// the nonce, is not taken.
//
// To see every test end, the harness must stand between go test and the
// test functions. The testing package offers no hook for that, so kata
// makes one in the sources, which it controls: each hidden test file is
// overlaid with its tests renamed (TestXxx becomes kataTest_TestXxx, in
// place, so no line moves), and the harness declares a TestXxx of its own
// for each that records the verdict and calls the renamed one. Messages
// shown to the learner map the names back (see unrenameTests).
//
// The nonce never is in the test binary's environment, where code of the
// package could read it. On Unix kata hands the binary two pipes, as its
// file descriptors 3 and 4: the nonce comes on the first, the harness's
// events and report go out on the second, and kata takes the report only
// once every process of the run is dead. The
// harness reads the nonce in the initialiser of the package's first
// variable (secretFile sorts before every other file of the package, and
// the go command hands the compiler the package's files sorted: so that
// variable is initialised before any of the package's other code runs)
// and closes that pipe at once. On Windows, which has no such pipes to
// hand down, the nonce and the path of a file for the report are in the
// environment, read and unset by that same initialiser (harness_windows.go),
// and kata reads the file as it grows.
//
// Every identifier the harness declares ends with a suffix no learner can
// know before the build (harnessID), so code written against the harness
// (kataVerdicts) does not compile. This raises the bar; it does not make the harness safe
// from code that sets out to defeat it (that code runs in the same
// process, and can read its memory): see the threat model in
// book/src/grading.md.

// harnessVersion changes whenever the harness's protocol or the way a
// grade is read from it does; it is part of every Checker's fingerprint.
const harnessVersion = 5

// harnessFile is the name the harness gets in the graded package, and
// secretFile the name of the part of it that reads the nonce: a file that
// is not a test, whose name sorts before every other Go file's (digits
// sort before letters; a name starting with "_" or "." is ignored).
const (
	harnessFile = "zz_kata_harness_test.go"
	secretFile  = "0_kata_harness.go"
)

// dumpStart and dumpEnd frame the goroutine dump the harness prints when
// a test nears its time limit (hangLocation reads it).
const (
	dumpStart = "kata: goroutines near the time limit:"
	dumpEnd   = "kata: end of goroutines"
)

// renamedPrefix is put before the name of every test of a hidden test
// file. It is unusual enough that no test or learner's code uses it by
// chance; a learner's function of that name clashes with the renamed test
// and the package does not compile.
const renamedPrefix = "kataTest_"

// harnessHead is the harness up to its wrappers, which harnessSource adds.
// "_ID" in it becomes the build's suffix.
const harnessHead = `package sched

// Added by kata when grading: see checker/harness.go.

import (
	"encoding/json"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var (
	kataHarnessEntered_ID atomic.Bool
	kataMu_ID             sync.Mutex
	kataVerdicts_ID       = map[string]string{}
	kataRunning_ID        string    // the test running, under kataMu_ID
	kataStarted_ID        time.Time // when it started
	kataSendMu_ID         sync.Mutex
)

// kataEvent_ID tells kata, as it happens, that a test started or ended:
// kata's deadlines follow these lines, not the test binary's output.
func kataEvent_ID(event map[string]string) {
	event["nonce"] = kataSecret_ID.nonce
	data, _ := json.Marshal(event)
	kataSendMu_ID.Lock()
	kataSend_ID(data)
	kataSendMu_ID.Unlock()
}

// kataRecord_ID records t's verdict under name once t and its subtests
// have ended (its cleanup, registered first, runs after the test's own).
func kataRecord_ID(t *testing.T, name string) {
	kataMu_ID.Lock()
	kataRunning_ID, kataStarted_ID = name, time.Now()
	kataMu_ID.Unlock()
	kataEvent_ID(map[string]string{"start": name})
	t.Cleanup(func() {
		v := "pass"
		switch {
		case t.Failed():
			v = "fail"
		case t.Skipped():
			v = "skip"
		}
		kataMu_ID.Lock()
		kataVerdicts_ID[name] = v
		if kataRunning_ID == name {
			kataRunning_ID = ""
		}
		kataMu_ID.Unlock()
		kataEvent_ID(map[string]string{"end": name, "verdict": v})
	})
}

// kataWatch_ID prints every goroutine's stack, once per test, when a test
// has run nine tenths of its time limit (kataLimits_ID, in ms): kata kills
// it at the limit, and reads in the dump where the learner's code was.
func kataWatch_ID() {
	dumped := map[string]bool{}
	for {
		time.Sleep(50 * time.Millisecond)
		kataMu_ID.Lock()
		name, started := kataRunning_ID, kataStarted_ID
		kataMu_ID.Unlock()
		limit, ok := kataLimits_ID[name]
		if name == "" || !ok || dumped[name] || time.Since(started) < time.Duration(limit)*time.Millisecond*9/10 {
			continue
		}
		dumped[name] = true
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		os.Stdout.Write([]byte("\n" + kataDumpStart_ID + "\n"))
		os.Stdout.Write(buf)
		os.Stdout.Write([]byte("\n" + kataDumpEnd_ID + "\n"))
	}
}

func TestMain(m *testing.M) {
	honest := kataHarnessEntered_ID.CompareAndSwap(false, true)
	if pc, _, _, ok := runtime.Caller(1); !ok || runtime.FuncForPC(pc) == nil || runtime.FuncForPC(pc).Name() != "main.main" {
		honest = false // TestMain called by the code under test
	}
	if len(kataLimits_ID) > 0 {
		go kataWatch_ID()
	}
	code := m.Run()
	kataMu_ID.Lock()
	data, _ := json.Marshal(map[string]any{"nonce": kataSecret_ID.nonce, "honest": honest, "verdicts": kataVerdicts_ID})
	kataMu_ID.Unlock()
	kataSendMu_ID.Lock() // and kept: nothing is sent after the report
	kataSend_ID(data)
	kataDone_ID()
	os.Exit(code)
}

// The hidden tests, each recorded, then run under its renamed name.
`

// harnessSource returns the harness for a package whose hidden tests,
// renamed by renameTests, are tests: the test file (harnessFile) and the
// file that reads the nonce (secretFile), with id as the suffix of every
// identifier. Without report the harness reports nothing (Repeat). A test
// with a limit gets its goroutines dumped near it (kataWatch_ID). The tests
// named in last (a private pack's) run after all the others.
func harnessSource(tests []string, id string, report bool, limits map[string]time.Duration, last []string) (harness, secret []byte) {
	var b strings.Builder
	b.WriteString(harnessHead)
	fmt.Fprintf(&b, "\nconst (\n\tkataDumpStart_ID = %q\n\tkataDumpEnd_ID   = %q\n)\n", dumpStart, dumpEnd)
	b.WriteString("\nvar kataLimits_ID = map[string]int64{")
	for _, name := range tests {
		if d, ok := limits[name]; ok {
			fmt.Fprintf(&b, "\n\t%q: %d,", name, d.Milliseconds())
		}
	}
	b.WriteString("\n}\n")
	// The tests run in the order their wrappers are declared: the shortest
	// limit first, so that a file that loops is found by the test that
	// waits least for it (the others then do not run: MaxTimeouts); a
	// private pack's tests after all the course's, whatever their limits:
	// a lesson file keeps state from test to test, and a red team's
	// printed a private test's inputs in a course test that ran after it,
	// which the student sees at once.
	tests = slices.Clone(tests)
	slices.SortStableFunc(tests, func(a, b string) int {
		return cmp.Or(cmp.Compare(b2i(slices.Contains(last, a)), b2i(slices.Contains(last, b))), cmp.Compare(limits[a], limits[b]))
	})
	for _, name := range tests {
		fmt.Fprintf(&b, "\nfunc %s(t *testing.T) { kataRecord_ID(t, %q); %s(t) }\n", name, name, renamedPrefix+name)
	}
	src := secretHead
	if report {
		src += secretChannel + secretSend
	} else {
		src += secretNone
	}
	return []byte(strings.ReplaceAll(b.String(), "_ID", "_"+id)), []byte(strings.ReplaceAll(src, "_ID", "_"+id))
}

// secretHead starts secretFile; secretChannel (harness_unix.go,
// harness_windows.go: kataReadSecret_ID) then secretSend, or secretNone,
// end it, declaring kataReadSecret_ID, kataSend_ID (which sends kata one
// line) and kataDone_ID (which ends what the harness sends).
const secretHead = `package sched

// Added by kata when grading: see checker/harness.go. This file's name
// sorts first, so that kataSecret_ID is the first variable the package
// initialises, before any other code of the package can run.

import "os"

var kataSecret_ID = kataReadSecret_ID()

type kataChannel_ID struct {
	nonce  string
	report *os.File
	path   string
}
`

// secretSend writes to the channel kataReadSecret_ID opened, on every
// system.
const secretSend = `
func kataSend_ID(line []byte) {
	if kataSecret_ID.report != nil {
		kataSecret_ID.report.Write(append(line, '\n'))
	}
}

func kataDone_ID() {
	if kataSecret_ID.report != nil {
		kataSecret_ID.report.Close()
	}
}
`

// secretNone is a harness with nowhere to report: Repeat's.
const secretNone = `
func kataReadSecret_ID() kataChannel_ID { return kataChannel_ID{} }

func kataSend_ID(line []byte) {}

func kataDone_ID() {}
`

// newHarnessID returns a fresh suffix for the harness's identifiers.
func newHarnessID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// harnessID returns the suffix of the harness's identifiers for a build
// of the learner's files (base name → path) with the hidden tests of
// hidden: an HMAC of their content under key, a secret of this kata's
// (harnessKey). Nobody who does not have the key can know it before the
// build, as with a fresh suffix; but the same files get the same suffix,
// and so the go command's cache spares a kata check of unchanged files
// compiling them again. Without a key, or if a file cannot be read, the
// suffix is fresh.
func harnessID(key []byte, files map[string]string, hidden []string) string {
	if len(key) == 0 {
		return newHarnessID()
	}
	mac := hmac.New(sha256.New, key)
	names := make([]string, 0, len(files))
	for base := range files {
		names = append(names, base)
	}
	sort.Strings(names)
	for _, base := range names {
		data, err := os.ReadFile(files[base])
		if err != nil {
			return newHarnessID()
		}
		fmt.Fprintf(mac, "file %q %d\n", base, len(data))
		mac.Write(data)
	}
	fmt.Fprintf(mac, "hidden %q\n", hidden)
	return hex.EncodeToString(mac.Sum(nil))[:12]
}

// harnessKey returns this kata's secret for harnessID, kept in dir (the
// cache directory: the sandbox hides it from the code under test) and
// made the first time; nil if it can be neither read nor made.
func harnessKey(dir string) []byte {
	path := filepath.Join(dir, "harness-key")
	if key, err := os.ReadFile(path); err == nil && len(key) >= 32 {
		return key
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil
	}
	// Written aside and renamed, so that concurrent katas agree on one.
	tmp, err := os.CreateTemp(dir, "harness-key-")
	if err != nil {
		return nil
	}
	_, err = tmp.Write(key)
	tmp.Close()
	if err == nil {
		err = os.Link(tmp.Name(), path) // fails if another kata made it first
	}
	os.Remove(tmp.Name())
	if got, err := os.ReadFile(path); err == nil && len(got) >= 32 {
		return got
	}
	return nil
}

// renameTests renames, in the source of a test file, every function go
// test would run as a test to renamedPrefix+name, and returns the new
// source and the tests' original names, in order. Only those identifiers
// change, within their lines, so every line keeps its number (and compile
// errors and tracebacks their positions). A file that does not parse is
// returned as it is, for the compiler to report.
func renameTests(src []byte) ([]byte, []string) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
	if err != nil {
		return src, nil
	}
	var out []byte
	var names []string
	last := 0
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		// TestMain is go test's own, and the harness's: left as it is, a
		// hidden one clashes with the harness's.
		if !ok || fn.Recv != nil || fn.Name.Name == "TestMain" || !isTestName(fn.Name.Name) || !takesT(fn.Type) {
			continue
		}
		off := fset.File(fn.Name.Pos()).Offset(fn.Name.Pos())
		out = append(out, src[last:off]...)
		out = append(out, renamedPrefix...)
		last = off
		names = append(names, fn.Name.Name)
	}
	return append(out, src[last:]...), names
}

// isTestName reports whether go test takes a function of this name for a
// test: "Test", then nothing or a rune that is not lower case (as
// cmd/go/internal/load's isTest).
func isTestName(name string) bool {
	rest, ok := strings.CutPrefix(name, "Test")
	if !ok {
		return false
	}
	if rest == "" {
		return true
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return !unicode.IsLower(r)
}

// takesT reports whether a function has a test's signature: no type
// parameters, no results, one parameter of type *T or *x.T (as
// cmd/go/internal/load's isTestFunc: go test cannot know how testing was
// imported either). go test refuses a function named like a test with
// another signature: it is left alone, for go test to say so.
func takesT(ft *ast.FuncType) bool {
	if ft.TypeParams != nil || ft.Results != nil && len(ft.Results.List) > 0 ||
		ft.Params == nil || len(ft.Params.List) != 1 || len(ft.Params.List[0].Names) > 1 {
		return false
	}
	star, ok := ft.Params.List[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	switch x := star.X.(type) {
	case *ast.Ident:
		return x.Name == "T"
	case *ast.SelectorExpr:
		return x.Sel.Name == "T"
	}
	return false
}

// unrenameTests gives the renamed tests back their names in a line the
// test binary printed (a traceback's frames, a race report), for the
// learner, who knows them by those.
func unrenameTests(line string) string {
	return strings.ReplaceAll(line, renamedPrefix+"Test", "Test")
}

// harnessReport is what the harness wrote at its end.
type harnessReport struct {
	Nonce    string            `json:"nonce"`
	Honest   bool              `json:"honest"`
	Verdicts map[string]string `json:"verdicts"`
}

// exitCode is the status the test binary exits with once the harness has
// sent r: m.Run's, which is 1 if a test failed and 0 if none did. (Under
// the race detector, a run that would exit 0 exits 66 if it reported a
// race: then the report is not taken anyway.)
func (h *harnessReport) exitCode() int {
	for _, v := range h.Verdicts {
		if v == "fail" {
			return 1
		}
	}
	return 0
}

// newNonce returns a fresh random nonce. (A variable: a test plays a run
// whose code under test found the nonce, as code that reads the
// process's memory can.)
var newNonce = func() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// parseHarnessReport reads what the harness sent: nil if it sent nothing
// (the test binary did not run to its end); a report that does not parse,
// or whose nonce is wrong, is returned with Honest false.
func parseHarnessReport(data []byte, nonce string) *harnessReport {
	if len(data) == 0 {
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

// maxReport bounds what kata reads of what the harness sends: the events
// and report of a few hundred tests are a few tens of KiB.
const maxReport = 1 << 20

// A harnessFeed folds what the harness sends, one JSON object a line, as
// kata reads it: an event as each test starts ({"start": name}) and ends
// ({"end": name}), then the report ({"verdicts": ...}); every line with
// the run's nonce. It is what kata's deadlines follow (state): the test
// binary's output, which the code under test shares, decides nothing of
// the time a run gets.
//
// A test starts once in a run: a second "start" of a test is ignored, so
// not even a forger with the nonce can start a test's clock again. A line
// that does not parse, lacks the nonce, or comes after the report, and
// more than maxReport bytes, taint the feed: the run is stopped, and its
// report is not honest. A last line the run did not end (it was killed as
// it wrote) is left out. It does not make the harness safe from code that
// reads the nonce in the process's memory: such code can send what the
// harness would (see gradeRun for what kata then still checks).
type harnessFeed struct {
	nonce string

	mu      sync.Mutex
	partial []byte
	size    int
	started map[string]bool
	ended   map[string]string // test → the verdict its end said
	state   harnessState
	final   []byte
}

// harnessState is where a run is, as its harness said.
type harnessState struct {
	running string    // the test running now, "" if none
	last    string    // the test that started last, "" if none has
	since   time.Time // when kata heard the last event (running's start, or last's end)
	tainted bool      // a line that is not the harness's came
}

func newHarnessFeed(nonce string) *harnessFeed {
	return &harnessFeed{nonce: nonce, started: map[string]bool{}, ended: map[string]string{}}
}

// write folds what was read of the channel.
func (f *harnessFeed) write(data []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.state.tainted {
		return
	}
	if f.size += len(data); f.size > maxReport {
		f.state.tainted = true
		return
	}
	f.partial = append(f.partial, data...)
	for {
		i := bytes.IndexByte(f.partial, '\n')
		if i < 0 {
			return
		}
		line := f.partial[:i]
		f.partial = f.partial[i+1:]
		f.line(line)
	}
}

// line folds one line; f.mu is held.
func (f *harnessFeed) line(line []byte) {
	var ev struct {
		Nonce    string          `json:"nonce"`
		Start    string          `json:"start"`
		End      string          `json:"end"`
		Verdict  string          `json:"verdict"`
		Verdicts json.RawMessage `json:"verdicts"`
	}
	if json.Unmarshal(line, &ev) != nil || ev.Nonce != f.nonce || f.final != nil {
		f.state.tainted = true
		return
	}
	now := time.Now()
	switch {
	case ev.Verdicts != nil:
		f.final = slices.Clone(line)
	case ev.Start != "":
		if !f.started[ev.Start] {
			f.started[ev.Start] = true
			f.state.running, f.state.last, f.state.since = ev.Start, ev.Start, now
		}
	case ev.End != "":
		if f.state.running == ev.End {
			f.state.running, f.state.since = "", now
			f.ended[ev.End] = ev.Verdict
		}
	default:
		f.state.tainted = true
	}
}

// current returns the run's state as the harness told it so far.
func (f *harnessFeed) current() harnessState {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.state
}

// endings returns the verdict of every test whose end the harness told
// so far: what a run that is not trusted says of a test, that the output
// of the code under test did not.
func (f *harnessFeed) endings() map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.ended)
}

// report returns the harness's report, once the run is over: nil if it
// sent none, one that is not honest if the feed was tainted.
func (f *harnessFeed) report() *harnessReport {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.state.tainted {
		return &harnessReport{Honest: false}
	}
	return parseHarnessReport(f.final, f.nonce)
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
