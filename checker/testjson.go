package checker

import (
	"encoding/json"
	"strings"
)

// testEvent is one line of `go test -json` (cmd/test2json's TestEvent, plus
// the build events go test adds).
type testEvent struct {
	Action     string
	Package    string
	Test       string
	Output     string
	Elapsed    float64
	ImportPath string // build-output, build-fail
}

// outcome is what the stream said about one top-level test.
type outcome struct {
	started  bool
	action   string // "pass", "fail", "skip" or "" if it never finished
	elapsed  float64
	output   []string // its own lines (t.Log, t.Error, panics), framework lines left out
	finished bool
}

// stream folds `go test -json` events into per-test outcomes.
type stream struct {
	tests       map[string]*outcome
	running     string   // the top-level test running now, if any
	lastStarted string   // the top-level test that started last
	buildOutput []string // compiler messages
	buildFailed bool
	pkgOutput   []string // output outside any test (a crash in init, the final FAIL)
	outputBytes int
	// standalone: the stream is test2json's, on a test binary's output
	// (runTests). When the binary dies in the middle of a test after a
	// line that sets the package's result (a "FAIL" the code under test
	// printed), test2json's last event, the package's result, names that
	// test (the last it saw: go test, which prints a line that ends the
	// package first, does not). So a test's end is held until another
	// line comes: the last line of the stream is never a test's end (a
	// test binary that reaches its end prints PASS or FAIL after its
	// last test).
	standalone bool
	held       []byte
	// known, if set, are the tests the run asked for: the events of any
	// other top-level test are lines the code under test printed (a
	// framed "=== RUN" for a test the lesson does not have), and count as
	// package output, and for nothing else.
	known map[string]bool
}

func newStream() *stream {
	return &stream{tests: map[string]*outcome{}}
}

// top returns the top-level test of a (sub)test name.
func top(name string) string {
	if i := strings.IndexByte(name, '/'); i >= 0 {
		return name[:i]
	}
	return name
}

// add folds one line of go test -json output. Lines that are not JSON
// (the go command's own complaints) count as package output. What the
// test binary printed gets the hidden tests' names back (tracebacks and
// race reports name the renamed functions); the go command's and the
// compiler's messages are left as they are, to name what the code
// declared.
func (s *stream) add(line []byte) {
	if s.standalone {
		if held := s.held; held != nil {
			s.held = nil
			s.fold(held)
		}
		var ev testEvent
		if json.Unmarshal(line, &ev) == nil && ev.Test != "" && top(ev.Test) == ev.Test &&
			(ev.Action == "pass" || ev.Action == "fail" || ev.Action == "skip") {
			s.held = line
			return
		}
	}
	s.fold(line)
}

// minLineCost is what a line of output costs against the output limit at
// the least: each line is an event that test2json encodes and kata reads,
// whatever it holds, so 8 MiB of empty lines (8 million events: 31 s and
// 270 MB of kata's memory, the red team's A28) cost as much as 8 MiB of
// 64-byte lines, and the limit stops the run after 131,072 of them.
const minLineCost = 64

// eventFraming is what an event's line may hold besides its output for
// free: the time, the action, the package and a test name as long as the
// course's (about 120 bytes). The rest of the line costs what it is long:
// kata decodes all of it, and a red team named a test 4 KB long (a framing
// line test2json believed), so that each of its empty lines made kata
// decode 4 KB while costing 64 bytes (9 times kata's own CPU, bounded).
// JSON's escapes of the output count the same way.
const eventFraming = 160

// fold folds one line into the outcomes.
func (s *stream) fold(line []byte) {
	var ev testEvent
	if err := json.Unmarshal(line, &ev); err != nil || ev.Action == "" {
		s.outputBytes += max(len(line), minLineCost)
		s.pkgOutput = append(s.pkgOutput, string(line))
		return
	}
	if ev.Action == "output" {
		s.outputBytes += max(len(ev.Output), len(line)-eventFraming, minLineCost)
	} else {
		s.outputBytes += max(len(ev.Output), len(line)-eventFraming)
	}
	switch ev.Action {
	case "build-output":
		s.buildOutput = append(s.buildOutput, strings.TrimRight(ev.Output, "\n"))
		return
	case "build-fail":
		s.buildFailed = true
		return
	}
	if ev.Test == "" {
		if ev.Action == "output" {
			s.pkgOutput = append(s.pkgOutput, unrenameTests(strings.TrimRight(ev.Output, "\n")))
		}
		return
	}
	name := top(ev.Test)
	if s.known != nil && !s.known[name] {
		if ev.Action == "output" {
			s.pkgOutput = append(s.pkgOutput, unrenameTests(strings.TrimRight(ev.Output, "\n")))
		}
		return
	}
	o := s.tests[name]
	if o == nil {
		o = &outcome{}
		s.tests[name] = o
	}
	switch ev.Action {
	case "run":
		if ev.Test == name {
			o.started = true
			s.running = name
			s.lastStarted = name
		}
	case "output":
		if !isFrameworkLine(ev.Output) {
			o.output = append(o.output, unrenameTests(strings.TrimRight(ev.Output, "\n")))
		} else if action := resultOf(ev.Output, name); s.standalone && ev.Test == name && action != "" {
			// The test's end, as the binary printed it. test2json holds
			// its event until the next test starts or the package ends:
			// should the binary die meanwhile, it never comes.
			o.action, o.finished = action, true
			if s.running == name {
				s.running = ""
			}
		}
	case "pass", "fail", "skip":
		if ev.Test == name {
			o.action = ev.Action
			o.elapsed = ev.Elapsed
			o.finished = true
			if s.running == name {
				s.running = ""
			}
		}
	}
}

// isFrameworkLine reports whether a line of a test's output was written by
// the testing package itself (=== RUN, --- PASS, ...), not by the test.
func isFrameworkLine(line string) bool {
	t := strings.TrimSpace(line)
	for _, prefix := range []string{"=== RUN", "=== PAUSE", "=== CONT", "=== NAME", "--- PASS", "--- FAIL", "--- SKIP"} {
		if strings.HasPrefix(t, prefix) {
			return true
		}
	}
	return false
}

// resultOf returns the result ("pass", "fail" or "skip") that line, the
// testing package's result line of test name ("--- PASS: name (0.00s)"),
// gives; "" if line is not one.
func resultOf(line, name string) string {
	t := strings.TrimSpace(line)
	for prefix, action := range map[string]string{"--- PASS: ": "pass", "--- FAIL: ": "fail", "--- SKIP: ": "skip"} {
		if rest, ok := strings.CutPrefix(t, prefix); ok && strings.HasPrefix(rest, name+" ") {
			return action
		}
	}
	return ""
}
