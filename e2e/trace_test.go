package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTraceCompare is issue #6's "done when": in a workspace whose lesson 01
// is the learner's own (here the reference's text), kata trace --compare
// draws the learner's run above the reference's on the same seed.
func TestTraceCompare(t *testing.T) {
	t.Parallel() // its own directories; it mostly waits on kata
	bin := buildKata(t)
	ws := filepath.Join(t.TempDir(), "ws")
	out, code := run(t, bin, t.TempDir(), "init", ws)
	require.Equal(t, 0, code, out)
	ref, err := os.ReadFile("../solutions/runq.go")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "runq.go"), ref, 0o644))

	out, code = run(t, bin, ws, "trace", "imbalance")
	require.Equal(t, 2, code, "with no lesson passed there is nothing of the learner's to trace: %s", out)
	require.Contains(t, out, "you have not passed a lesson yet")

	out, code = run(t, bin, ws, "trace", "imbalance", "--compare", "--lessons", "01", "--seed", "7")
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "== your scheduler (your files of lesson 01")
	require.Contains(t, out, "== the reference")
	require.Equal(t, 2, strings.Count(out, "every G ran to its end exactly once (201 Gs)"), "both drawn runs ran every G: %s", out)
	require.Contains(t, out, "== over 5 runs each, same seed: median [min–max]", "--compare runs each side 5 times")
	// In a workspace the page goes to traces/, not beside the Go files.
	page, err := os.ReadFile(filepath.Join(ws, "traces", "trace-imbalance.html"))
	require.NoError(t, err)
	require.Contains(t, out, filepath.Join(ws, "traces", "trace-imbalance.html"), "kata says where the page is")
	_, err = os.Stat(filepath.Join(ws, "trace-imbalance.html"))
	require.True(t, os.IsNotExist(err), "no page in the workspace's root")
	require.Equal(t, 2, strings.Count(string(page), `<svg class="timeline"`), "one timeline per run")
	require.Contains(t, string(page), "Seed 7 fixes the workload")
	require.Contains(t, string(page), "it cannot fix which M runs when", "the page promises no determinism threads do not give")

	// A lesson still a stub: the learner hears what failed, and no page
	// pretends otherwise.
	out, code = run(t, bin, ws, "trace", "pingpong", "--lessons", "02", "-o", "stub.html")
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "not implemented")
	_, err = os.Stat(filepath.Join(ws, "stub.html"))
	require.True(t, os.IsNotExist(err), "no page for a run that never happened")
}

// TestTraceKeepsOthersFiles: kata trace replaces its own pages, and nothing
// else without --force.
func TestTraceKeepsOthersFiles(t *testing.T) {
	t.Parallel() // its own directories; it mostly waits on kata
	bin := buildKata(t)
	dir := t.TempDir()
	mine := filepath.Join(dir, "notes.html")
	require.NoError(t, os.WriteFile(mine, []byte("<p>my notes</p>"), 0o644))
	out, code := run(t, bin, dir, "trace", "deadlock", "--reference", "-o", "notes.html")
	require.Equal(t, 2, code, out)
	require.Contains(t, out, "kata trace did not write it")
	data, err := os.ReadFile(mine)
	require.NoError(t, err)
	require.Equal(t, "<p>my notes</p>", string(data))

	out, code = run(t, bin, dir, "trace", "deadlock", "--reference")
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "all goroutines are asleep - deadlock!", "the deadlock scenario shows checkdead's verdict")
	out, code = run(t, bin, dir, "trace", "deadlock", "--reference")
	require.Equal(t, 0, code, "a second run replaces kata's own page: %s", out)

	out, code = run(t, bin, dir, "trace", "imbalanse", "--reference")
	require.Equal(t, 2, code, out)
	require.Contains(t, out, `no scenario "imbalanse"`)
	out, code = run(t, bin, dir, "trace", "--list")
	require.Equal(t, 0, code, out)
	for _, name := range []string{"imbalance", "pingpong", "overflow", "burst", "syscall", "hog", "resize", "deadlock"} {
		require.Contains(t, out, name)
	}
}

// TestTraceJSON: kata trace --json writes the run as trace-event JSON that
// reads back as the format's structure, with a track per P, the Gs' runs as
// slices, and as many steal flows as the terminal's summary counts steals;
// it replaces its own file, and nothing else without --force.
func TestTraceJSON(t *testing.T) {
	t.Parallel() // its own directories; it mostly waits on kata
	bin := buildKata(t)
	dir := t.TempDir()
	out, code := run(t, bin, dir, "trace", "imbalance", "--reference", "--seed", "3", "--json", "run.json")
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "run.json (open it at https://ui.perfetto.dev or chrome://tracing)")
	data, err := os.ReadFile(filepath.Join(dir, "run.json"))
	require.NoError(t, err)

	var f struct {
		OtherData   map[string]string `json:"otherData"`
		TraceEvents []struct {
			Name string         `json:"name"`
			Ph   string         `json:"ph"`
			Pid  int            `json:"pid"`
			Tid  int            `json:"tid"`
			ID   int            `json:"id"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(data, &f))
	require.Equal(t, map[string]string{"generator": "kata trace", "scenario": "imbalance", "seed": "3"}, f.OtherData)
	threads, gRuns, flowStarts, flowEnds := map[string]bool{}, 0, 0, 0
	for _, ev := range f.TraceEvents {
		switch {
		case ev.Ph == "M" && ev.Name == "process_name":
			require.Equal(t, "the reference", ev.Args["name"])
		case ev.Ph == "M" && ev.Name == "thread_name":
			threads[ev.Args["name"].(string)] = true
		case ev.Ph == "X" && strings.HasPrefix(ev.Name, "G"):
			gRuns++
		case ev.Ph == "s":
			flowStarts++
		case ev.Ph == "f":
			flowEnds++
		}
	}
	for _, lane := range []string{"P0", "P1", "P2", "P3", "sysmon"} {
		require.True(t, threads[lane], "no track for %s: %v", lane, threads)
	}
	require.GreaterOrEqual(t, gRuns, 201, "every one of the 201 Gs runs at least once")
	steals := regexp.MustCompile(`(\d+) steals? moved`).FindStringSubmatch(out)
	require.NotNil(t, steals, out)
	n, _ := strconv.Atoi(steals[1])
	require.Equal(t, n, flowStarts, "a flow per steal the summary counts")
	require.Equal(t, n, flowEnds, "a flow per steal the summary counts")

	out, code = run(t, bin, dir, "trace", "imbalance", "--reference", "--json", "run.json")
	require.Equal(t, 0, code, "kata replaces its own file: %s", out)

	mine := filepath.Join(dir, "mine.json")
	require.NoError(t, os.WriteFile(mine, []byte(`{"traceEvents":[]}`), 0o644))
	out, code = run(t, bin, dir, "trace", "imbalance", "--reference", "--json", "mine.json")
	require.Equal(t, 2, code, out)
	require.Contains(t, out, "kata trace did not write it; choose another with --json FILE")
	data, err = os.ReadFile(mine)
	require.NoError(t, err)
	require.Equal(t, `{"traceEvents":[]}`, string(data))

	out, code = run(t, bin, dir, "trace", "imbalance", "--reference", "-o", "same", "--json", "same")
	require.Equal(t, 2, code, out)
	require.Contains(t, out, "is the HTML page's file too")
}
