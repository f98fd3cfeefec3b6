//go:build !windows

package checker

import (
	"testing"
	"time"
)

// forgedReport is a report of every test passing, with the run's nonce,
// as code that found the nonce writes it on the harness's pipe (file
// descriptor 4): the red team's A30 did, through a torn interface value.
const forgedReport = `os.NewFile(4, "").Write([]byte("{\"nonce\":\"` + forgedNonce + `\",\"honest\":true,\"verdicts\":{\"TestPass\":\"pass\",\"TestFail\":\"pass\",\"TestPanic\":\"pass\"}}\n"))`

var oneMinuteEach = map[string]time.Duration{"TestPass": time.Minute, "TestFail": time.Minute, "TestPanic": time.Minute}

// TestForgedReportThenCrash (the end of the red team's A30): code that
// found the nonce writes a report of every test passing, then crashes the
// process before the harness can write its own. kata took the report of
// a run that crashed. A report is a grade only from a run that ended as
// the harness ends it (it exits with the status the report implies); this
// one ended in a panic: its passes are run again, its crash is the
// crash's.
func TestForgedReportThenCrash(t *testing.T) {
	knownNonce(t)
	res := gradeMini(t, `package sched

import (
	"os"
	"time"
)

func crash() {
	`+forgedReport+`
	go func() { panic("forged, and gone") }()
	time.Sleep(time.Minute)
}
`, false, 1, oneMinuteEach)
	wantTests(t, res, map[string][2]string{
		"TestPass":  {StatusPass, ""},
		"TestFail":  {StatusFail, "wrong"},
		"TestPanic": {StatusFail, "crashed: panic: forged, and gone"},
	})
}

// TestRaceThenForgedReport (A30 under -race): code that tears memory
// with a data race (here, a plain one), writes a report of every test
// passing and leaves with status 0, as the harness would after all passed
// (syscall.Exit skips the race detector's own exit status). A run in
// which the race detector reported a race is not trusted after the race:
// its tests are graded again, the racing one in a process of its own.
func TestRaceThenForgedReport(t *testing.T) {
	knownNonce(t)
	res := gradeMini(t, `package sched

import (
	"os"
	"syscall"
)

var shared int

func crash() {
	done := make(chan bool)
	go func() { shared++; done <- true }()
	shared++
	<-done
	`+forgedReport+`
	syscall.Exit(0)
}
`, true, 1, oneMinuteEach)
	wantTests(t, res, map[string][2]string{
		"TestPass":  {StatusPass, ""},
		"TestFail":  {StatusFail, "wrong"},
		"TestPanic": {StatusFail, "data race: "},
	})
}

// TestRaceGradedAlone: an honest race, in one test: that test fails with
// the race detector's report, condensed; the tests beside it are graded
// as they are.
func TestRaceGradedAlone(t *testing.T) {
	res := gradeMini(t, `package sched

var shared int

func crash() {
	done := make(chan bool)
	go func() { shared++; done <- true }()
	shared++
	<-done
}
`, true, 1, oneMinuteEach)
	wantTests(t, res, map[string][2]string{
		"TestPass":  {StatusPass, ""},
		"TestFail":  {StatusFail, "wrong"},
		"TestPanic": {StatusFail, "data race: "},
	})
}
