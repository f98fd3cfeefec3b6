package checker

import (
	"strings"
	"testing"
)

// TestStandaloneStream folds what test2json, run on a test binary itself,
// writes when the binary dies (cmd/internal/test2json: a test's end is
// held until the next test starts or the package ends, and the package's
// end names the last test seen): a test that printed its result keeps it,
// one that did not never finished.
func TestStandaloneStream(t *testing.T) {
	for _, c := range []struct {
		name   string
		events []string
		want   map[string]string // test → its action, "" if never finished
	}{
		{"dies in a test", []string{
			`{"Action":"run","Test":"TestA"}`,
			`{"Action":"output","Test":"TestA","Output":"--- PASS: TestA (0.00s)\n"}`,
			`{"Action":"pass","Test":"TestA","Elapsed":0}`,
			`{"Action":"run","Test":"TestB"}`,
			`{"Action":"output","Test":"TestB","Output":"panic: boom\n"}`,
			`{"Action":"fail","Test":"TestB","Elapsed":0.1}`,
		}, map[string]string{"TestA": "pass", "TestB": ""}},
		{"dies between tests", []string{
			`{"Action":"run","Test":"TestA"}`,
			`{"Action":"output","Test":"TestA","Output":"--- PASS: TestA (0.00s)\n"}`,
			`{"Action":"output","Test":"TestA","Output":"panic: boom\n"}`,
			`{"Action":"fail","Test":"TestA","Elapsed":0.1}`,
		}, map[string]string{"TestA": "pass"}},
		{"reaches its end", []string{
			`{"Action":"run","Test":"TestA"}`,
			`{"Action":"output","Test":"TestA","Output":"--- FAIL: TestA (0.00s)\n"}`,
			`{"Action":"fail","Test":"TestA","Elapsed":0}`,
			`{"Action":"output","Output":"FAIL\n"}`,
			`{"Action":"fail","Elapsed":0.1}`,
		}, map[string]string{"TestA": "fail"}},
	} {
		s := newStream()
		s.standalone = true
		for _, e := range c.events {
			s.add([]byte(e))
		}
		for name, want := range c.want {
			o := s.tests[name]
			if o == nil || !o.started || o.finished != (want != "") || o.action != want {
				t.Errorf("%s: %s: %+v, want started and finished with %q", c.name, name, o, want)
			}
		}
	}
}

// TestEmptyLinesCostOutput: a flood of empty lines is a flood of events,
// each one read and kept by kata, so it counts against the output limit
// as lines, not only as bytes (the red team's A28: 8 MiB of "\n", 8
// million events, 31 s and 270 MB of kata's memory before the limit hit).
func TestEmptyLinesCostOutput(t *testing.T) {
	const limit = 8 << 20
	s := newStream()
	s.standalone = true
	s.add([]byte(`{"Action":"run","Test":"TestA"}`))
	lines := 0
	for s.outputBytes <= limit {
		s.add([]byte(`{"Action":"output","Test":"TestA","Output":"\n"}`))
		lines++
		if lines > 1<<20 {
			t.Fatalf("%d empty lines counted %d bytes: still under the %d-byte limit", lines, s.outputBytes, limit)
		}
	}
	if lines > 200_000 {
		t.Errorf("the limit stopped the flood after %d empty lines; want it stopped after at most 200,000", lines)
	}
	// Honest output is counted by its bytes, as before.
	h := newStream()
	h.add([]byte(`{"Action":"output","Test":"TestA","Output":"` + strings.Repeat("x", 999) + `\n"}`))
	if h.outputBytes != 1000 {
		t.Errorf("a 1000-byte line counted %d bytes, want 1000", h.outputBytes)
	}
}

// TestLongTestNamesCostOutput: every line of a test with a 4 KB name (a
// framing line test2json believed) makes kata decode 4 KB: such lines
// count what kata reads, so that the limit stops the flood after 8 MiB of
// decoding, not 8 MiB of 64-byte charges (a red team's: 400 MB decoded a
// run, 9 times kata's CPU). The course's own test names cost nothing extra.
func TestLongTestNamesCostOutput(t *testing.T) {
	const limit = 8 << 20
	name := strings.Repeat("Z", 4000)
	s := newStream()
	s.standalone = true
	s.add([]byte(`{"Action":"run","Test":"` + name + `"}`))
	decoded, lines := 0, 0
	for s.outputBytes <= limit {
		line := []byte(`{"Time":"2026-11-28T22:00:00.000000000Z","Action":"output","Package":"gmpkata.grade/solutions","Test":"` + name + `","Output":"\n"}`)
		s.add(line)
		decoded += len(line)
		if lines++; lines > 1<<20 {
			t.Fatalf("%d lines counted %d bytes: still under the %d-byte limit", lines, s.outputBytes, limit)
		}
	}
	if decoded > 2*limit {
		t.Errorf("the limit stopped the flood after kata decoded %d MiB of events; want at most %d MiB", decoded>>20, 2*limit>>20)
	}
	h := newStream()
	h.add([]byte(`{"Time":"2026-11-28T22:00:00.000000000Z","Action":"output","Package":"gmpkata.grade/solutions","Test":"TestL01StealInterleavings/owner_drains","Output":"` + strings.Repeat("x", 99) + `\n"}`))
	if h.outputBytes != 100 {
		t.Errorf("a 100-byte line of a test named as the course's counted %d bytes, want 100", h.outputBytes)
	}
}
