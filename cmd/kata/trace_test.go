package main

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	gmpkata "github.com/gmp-kata/gmp-kata"
	"github.com/gmp-kata/gmp-kata/internal/scenario"
	"github.com/stretchr/testify/require"
)

// TestTracePageSaysWhatARunDidNotShow: a run that does not bear out its
// scenario's story gets a note saying what it did not show, and the page
// opens each timeline on its own run's view.
func TestTracePageSaysWhatARunDidNotShow(t *testing.T) {
	s, err := scenario.Lookup("syscall")
	require.NoError(t, err)
	r, view, err := scenario.RunStory(s, 0, 1, scenario.Tries)
	require.NoError(t, err)
	require.False(t, view.IsZero())
	page := func(runs ...tracedRun) string {
		var b bytes.Buffer
		require.NoError(t, tracePage(s, 1, runs).Write(&b))
		return b.String()
	}

	has := func(page, want, why string) {
		t.Helper()
		require.True(t, strings.Contains(page, want), "%s: the page lacks %s", why, want)
	}

	good := page(tracedRun{who: "the reference", result: r, view: view})
	require.False(t, strings.Contains(good, `class="note"`), "a run that bears out its story has no note")
	has(good, `data-v0="0" data-v1="`+itoa(view.To-r.Events[0].When)+`"`, "the timeline opens on the story's window")

	bad := page(tracedRun{who: "your scheduler", result: r, story: errors.New("scenario syscall: sysmon did not retake P0 while G2 was in its system call")})
	has(bad, `<p class="note">This run does not show all that the scenario is about: sysmon did not retake P0 while G2 was in its system call.`, "the note says what the run did not show")
	has(bad, `data-v0="0" data-v1="`+itoa(r.Events[len(r.Events)-1].When-r.Events[0].When)+`"`, "without a story, the whole run")
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// traceWorkspaceWith makes a workspace whose runq.go is the reference's,
// edited by edit, and returns its directory.
func traceWorkspaceWith(t *testing.T, edit func(src string) string) string {
	t.Helper()
	src, err := fs.ReadFile(gmpkata.Sources, "solutions/runq.go")
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "ws")
	_, errOut, code := kata(t, "", "init", dir)
	require.Equal(t, exitOK, code, errOut)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "runq.go"), []byte(edit(string(src))), 0o644))
	return dir
}

// loseGs edits runqgethead to move the head past two Gs now and then and
// return one: the other is lost.
func loseGs(t *testing.T) func(string) string {
	return func(src string) string {
		const take = "\t\tgp := pp.runq[h%uint32(len(pp.runq))].Load()\n\t\tif pp.runqhead.CompareAndSwap(h, h+1) {"
		require.Contains(t, src, take, "solutions/runq.go changed: update the test")
		return strings.Replace(src, take, "\t\tgp := pp.runq[h%uint32(len(pp.runq))].Load()\n\t\tnext := h + 1\n\t\tif t-h >= 2 && h%16 == 15 {\n\t\t\tnext = h + 2\n\t\t}\n\t\tif pp.runqhead.CompareAndSwap(h, next) {", 1)
	}
}

// TestTraceVerdictFailsALossyRunq: a runqget that loses Gs gets a verdict
// naming the lost Gs and exit status 1; the same workspace with the
// reference's runq.go gets every G run once and 0.
func TestTraceVerdictFailsALossyRunq(t *testing.T) {
	page := filepath.Join(t.TempDir(), "trace.html")
	dir := traceWorkspaceWith(t, loseGs(t))
	out, errOut, code := kata(t, dir, "trace", "imbalance", "--lessons", "01", "-o", page)
	t.Log(out, errOut)
	require.Equal(t, exitFailed, code)
	require.Regexp(t, `FAIL +\d+ Gs? lost: made runnable, never ran again \(G\d+`, out)
	require.Contains(t, errOut, "broke what every correct scheduler keeps")
	html, err := os.ReadFile(page)
	require.NoError(t, err, "the page is written for a run that went wrong")
	require.Contains(t, string(html), "lost: made runnable")

	// Beside the reference, a broken run is judged, and its times are not
	// compared: they say nothing.
	out, errOut, code = kata(t, dir, "trace", "imbalance", "--lessons", "01", "-o", page, "--compare", "--runs", "2")
	require.Equal(t, exitFailed, code, out+errOut)
	require.Contains(t, out, "== the reference")
	require.NotContains(t, out, "== over", "no comparison with a broken run")

	dir = traceWorkspaceWith(t, func(src string) string { return src })
	out, errOut, code = kata(t, dir, "trace", "imbalance", "--lessons", "01", "-o", page, "--runs", "3")
	require.Equal(t, exitOK, code, out+errOut)
	require.Len(t, regexp.MustCompile(`(?m)^[123] +\S+ +\d+ +\S+ +\d+ +\d+  ok`).FindAllString(out, -1), 3, "a line per run, each ok:\n%s", out)
	require.Contains(t, out, "every G ran to its end exactly once (201 Gs)")
	require.NotContains(t, out, "FAIL")
}

// TestTraceOwnFilesTellEveryStory: every scenario, run on a learner's
// workspace that holds the reference's own runq.go, passes as the
// reference does: what a scenario judges comes out of the learner's
// program whole (a blind set's right files failed the deadlock scenario,
// and so did the reference's file: its run came back with checkdead's
// error as text, and the story looks for the list of blocked Gs).
func TestTraceOwnFilesTellEveryStory(t *testing.T) {
	dir := traceWorkspaceWith(t, func(src string) string { return src })
	for _, name := range scenario.Names() {
		out, errOut, code := kata(t, dir, "trace", name, "--lessons", "01", "-o", filepath.Join(t.TempDir(), name+".html"))
		if code != exitOK || strings.Contains(out, "FAIL") {
			t.Errorf("kata trace %s --lessons 01 with the reference's runq.go: exit %d\n%s%s", name, code, out, errOut)
		}
	}
}

// TestTraceReferenceNeverFails: 20 runs of the reference, each judged;
// none breaks what every correct scheduler keeps.
func TestTraceReferenceNeverFails(t *testing.T) {
	for _, name := range []string{"imbalance", "overflow"} {
		out, errOut, code := kata(t, t.TempDir(), "trace", "--reference", name, "--runs", "20", "-o", "t.html")
		require.Equal(t, exitOK, code, out+errOut)
		require.Regexp(t, `(?m)^20 +\S+ +\d+ +\S+ +\d+ +\d+  ok`, out, "run 20 has its line")
		require.NotContains(t, out, "FAIL")
	}
}

// TestTraceCompareShowsTheSpread: --compare runs each side --runs times,
// prints the median and range of each measure, and the page says which
// run it draws and what the seed cannot fix.
func TestTraceCompareShowsTheSpread(t *testing.T) {
	page := filepath.Join(t.TempDir(), "trace.html")
	dir := traceWorkspaceWith(t, func(src string) string { return src })
	out, errOut, code := kata(t, dir, "trace", "imbalance", "--lessons", "01", "--compare", "--runs", "3", "-o", page)
	require.Equal(t, exitOK, code, out+errOut)
	for _, want := range []string{"3 runs of imbalance, seed 1 each", "== over 3 runs each, same seed: median [min–max]", "wall time", "idle beside queued work", "cannot fix which M runs when"} {
		require.Contains(t, out, want)
	}
	require.Equal(t, 2, strings.Count(out, "(drawn)"), "one drawn run a side")
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	for _, want := range []string{"the median by wall time", "cannot fix which M runs when", `class="compare"`} {
		require.Contains(t, string(html), want)
	}
}

// TestTraceVerdictNamesAGRunTwice: a runqget that now and then returns
// the head's G without taking it hands that G out twice; execute stops
// the run, and the verdict names the G and fails.
func TestTraceVerdictNamesAGRunTwice(t *testing.T) {
	dir := traceWorkspaceWith(t, func(src string) string {
		const take = "\t\tif pp.runqhead.CompareAndSwap(h, h+1) {"
		require.Contains(t, src, take, "solutions/runq.go changed: update the test")
		return strings.Replace(src, take, "\t\tif t-h >= 2 && h%16 == 15 {\n\t\t\treturn gp // not taken: handed out again\n\t\t}\n"+take, 1)
	})
	out, errOut, code := kata(t, dir, "trace", "imbalance", "--lessons", "01", "-o", filepath.Join(t.TempDir(), "t.html"))
	t.Log(out, errOut)
	require.Equal(t, exitFailed, code)
	require.Regexp(t, `FAIL +1 G ran twice \(G\d+\)`, out)
}
