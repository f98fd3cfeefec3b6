package main

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"

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
