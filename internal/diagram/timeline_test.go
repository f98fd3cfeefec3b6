package diagram

import (
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/gmp-kata/gmp-kata/internal/scenario"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sched "github.com/gmp-kata/gmp-kata/solutions"
)

// TestGlobalRunqLane: a run that used the global run queue gets a "global"
// lane under the Ps, with bars whose hover texts give the queue's lengths
// and whose heights follow them; a run that never used it gets no lane.
func TestGlobalRunqLane(t *testing.T) {
	ev := func(when int64, kind sched.EventKind, g int64, p int32, arg, n int64) sched.Event {
		return sched.Event{Kind: kind, When: when, G: g, P: p, M: 1, Arg: arg, N: n}
	}
	base := []sched.Event{
		ev(0, sched.EvGoCreate, 1, 0, 0, 0),
		ev(10, sched.EvGoStart, 1, 0, 0, 0),
	}
	global := append(base,
		sched.Event{Kind: sched.EvGlobalRunq, When: 1000, G: 5, P: -1, M: -1, Arg: 128, N: 128},
		sched.Event{Kind: sched.EvGlobalRunq, When: 5000, G: 5, P: -1, M: -1, Arg: 96, N: -32},
		sched.Event{Kind: sched.EvGlobalRunq, When: 9000, G: 40, P: -1, M: -1, Arg: 0, N: -96},
		ev(10000, sched.EvGoEnd, 1, 0, 0, 0),
	)
	l := Lay(Run{Events: global, Procs: 2})
	require.Equal(t, []string{"P0", "P1", "global", "M1", "sysmon"}, l.Lanes, "the global lane goes right under the Ps")
	require.Equal(t, []Level{{1000, 128}, {5000, 96}, {9000, 0}}, l.Global)

	svg := l.SVG(Options{})
	bars := regexp.MustCompile(`<rect x="[\d.]+" width="([\d.]+)" data-a="(\d+)" data-b="(\d+)" y="[\d.]+" height="([\d.]+)"><title>global run queue: (\d+) Gs?,`).FindAllStringSubmatch(svg, -1)
	require.Len(t, bars, 2, "one bar per level the queue held (128, then 96); none while empty:\n%s", svg)
	assert.Equal(t, "128", bars[0][5])
	assert.Equal(t, "96", bars[1][5])
	assert.Equal(t, "20.0", bars[0][4], "the peak fills the lane (less a pixel above and below)")
	assert.Equal(t, "15.0", bars[1][4], "96 of 128 is three quarters of the peak's height")
	assert.Equal(t, []string{"1000", "5000"}, bars[0][2:4], "each bar carries its times from the run's start, for zooming")
	assert.Equal(t, []string{"5000", "9000"}, bars[1][2:4])
	// 0.4 and 0.4 of the plot's width: the bars' widths follow the times.
	plotW := svgWidth - labelW - rightPad
	for _, b := range bars {
		w, err := strconv.ParseFloat(b[1], 64)
		require.NoError(t, err)
		assert.InDelta(t, 0.4*float64(plotW), w, 0.01, "bar width")
	}
	assert.Contains(t, svg, "the global run queue: at most 128 Gs at once")

	none := Lay(Run{Events: append(base, ev(10000, sched.EvGoEnd, 1, 0, 0, 0)), Procs: 2})
	assert.NotContains(t, none.Lanes, "global")
	assert.NotContains(t, none.SVG(Options{}), "tl-global")
}

// TestSyscallEndsTheMsHold: an M that enters a system call leaves its P in
// _Psyscall (entersyscall), so its lane shows the P held up to the call and
// again from when exitsyscall takes one, with the call between; each span
// names its P.
func TestSyscallEndsTheMsHold(t *testing.T) {
	ev := func(when int64, kind sched.EventKind, g int64, arg int64) sched.Event {
		return sched.Event{Kind: kind, When: when, G: g, P: 0, M: 1, Arg: arg}
	}
	l := Lay(Run{Procs: 1, Events: []sched.Event{
		ev(0, sched.EvProcStart, 0, 0),
		ev(10, sched.EvGoStart, 1, 0),
		ev(100, sched.EvGoSyscall, 1, 0),
		ev(150, sched.EvProcStart, 0, 0), // exitsyscallfast took P0 back
		ev(160, sched.EvGoSyscallExit, 1, 1),
		ev(200, sched.EvGoEnd, 1, 0),
		ev(300, sched.EvProcStop, 0, 0),
	}})
	type got struct {
		Kind, P    string
		Start, End int64
	}
	var m1 []got
	for _, sp := range l.Spans {
		if sp.Lane == "M1" {
			m1 = append(m1, got{sp.Kind, sp.P, sp.Start, sp.End})
		}
	}
	assert.Equal(t, []got{{"proc", "P0", 0, 100}, {"syscall", "P0", 100, 160}, {"proc", "P0", 150, 300}}, m1)
}

// TestTimelineOpensOnItsView: a picture is drawn for its first view (a
// syscall picture's first 2ms of 30, say): what happens in the view fills
// the plot, what happens later lies right of it (clipped, for the script
// to pan to), the axis and the range text speak of the view, and the SVG
// carries the view and the whole run's length for the script. Without a
// view, or with one outside the run, the picture shows the whole run.
func TestTimelineOpensOnItsView(t *testing.T) {
	const ms = int64(time.Millisecond)
	ev := func(when int64, kind sched.EventKind, g int64) sched.Event {
		return sched.Event{Kind: kind, When: when, G: g, P: 0, M: 1}
	}
	events := []sched.Event{
		ev(0, sched.EvGoCreate, 1),
		ev(ms, sched.EvGoStart, 1), ev(2*ms, sched.EvGoPark, 1), // in the view
		ev(20*ms, sched.EvGoStart, 1), ev(30*ms, sched.EvGoEnd, 1), // after it
	}
	l := Lay(Run{Events: events, Procs: 1})
	plotW := float64(svgWidth - labelW - rightPad)
	run := regexp.MustCompile(`<rect x="([-\d.]+)" width="([\d.]+)" data-a="(\d+)" data-b="(\d+)"`)
	labels := func(svg string) []string {
		var out []string
		for _, m := range regexp.MustCompile(`<text x="[\d.]+" y="[\d.]+">([^<]*)</text>`).FindAllStringSubmatch(svg, -1) {
			out = append(out, m[1])
		}
		return out
	}

	framed := l.SVG(Options{View: scenario.Window{From: 0, To: 2 * ms}})
	assert.Contains(t, framed, `data-span="30000000" data-v0="0" data-v1="2000000"`)
	bars := run.FindAllStringSubmatch(framed, -1)
	require.Len(t, bars, 2, framed)
	x0, _ := strconv.ParseFloat(bars[0][1], 64)
	w0, _ := strconv.ParseFloat(bars[0][2], 64)
	assert.InDelta(t, labelW+plotW/2, x0, 0.01, "1ms is the middle of a 2ms view")
	assert.InDelta(t, plotW/2, w0, 0.01, "1ms is half of a 2ms view")
	assert.Equal(t, []string{"1000000", "2000000"}, bars[0][3:5])
	x1, _ := strconv.ParseFloat(bars[1][1], 64)
	assert.Greater(t, x1, float64(svgWidth), "what happens after the view is drawn right of it")
	assert.Equal(t, []string{"0", "200µs", "400µs", "600µs", "800µs", "1ms", "1.2ms", "1.4ms", "1.6ms", "1.8ms", "2ms"}, labels(framed), "the axis covers the view")
	assert.Contains(t, framed, `class="tl-range">showing 0 to 2ms of 30ms</text>`)
	assert.Contains(t, framed, `clip-path="url(#tl-clip)"`, "what lies outside the view is clipped")

	for _, view := range []scenario.Window{{}, {From: 40 * ms, To: 50 * ms}} {
		whole := l.SVG(Options{View: view})
		assert.Contains(t, whole, `data-span="30000000" data-v0="0" data-v1="30000000"`, "view %v", view)
		assert.Equal(t, []string{"0", "5ms", "10ms", "15ms", "20ms", "25ms", "30ms"}, labels(whole), "view %v", view)
		assert.Contains(t, whole, `class="tl-range">the whole run: 30ms</text>`)
	}
}

// TestAxisLabels: labels are in the unit of the time they mark, with as
// many decimals as the step between ticks needs; timeline.js writes the
// same (the browser test zooms and reads them).
func TestAxisLabels(t *testing.T) {
	for _, c := range []struct {
		t, step int64
		want    string
	}{
		{0, 1000, "0"},
		{200_000, 200_000, "200µs"},
		{1_200_000, 200_000, "1.2ms"},
		{1_205_000, 5_000, "1.205ms"},
		{1_210_000, 5_000, "1.21ms"},
		{2_000_000, 5_000, "2ms"},
		{30_000_000, 5_000_000, "30ms"},
		{1_500_000_000, 500_000_000, "1.5s"},
		{750, 50, "750ns"},
		{1_050, 50, "1.05µs"},
	} {
		assert.Equal(t, c.want, axisLabel(c.t, c.step), "axisLabel(%d, %d)", c.t, c.step)
	}
	for ns, want := range map[int64]string{0: "0", 999: "999ns", 2_456_000: "2.46ms", 31_800_000: "31.8ms", 120_000: "120µs", 30_000_000: "30ms"} {
		assert.Equal(t, want, short(ns), "short(%d)", ns)
	}
	for _, c := range []struct {
		span int64
		n    int
		want int64
	}{{30_000_000, 8, 5_000_000}, {2_000_000, 8, 500_000}, {2_000_000, 10, 200_000}, {10_000, 8, 2_000}, {7, 8, 1}} {
		assert.Equal(t, c.want, niceStep(c.span, c.n), "niceStep(%d, %d)", c.span, c.n)
	}
}

// TestGLabelInTheVisiblePart: a G's number goes in the middle of what
// shows of its bar, and hides when too little of it shows.
func TestGLabelInTheVisiblePart(t *testing.T) {
	const ms = int64(time.Millisecond)
	ev := func(when int64, kind sched.EventKind, g int64) sched.Event {
		return sched.Event{Kind: kind, When: when, G: g, P: 0, M: 1}
	}
	l := Lay(Run{Events: []sched.Event{
		ev(0, sched.EvGoCreate, 7),
		ev(ms, sched.EvGoStart, 7), ev(20*ms, sched.EvGoEnd, 7), // from the middle of the view on
		ev(30*ms, sched.EvGoCreate, 8),
	}, Procs: 1})
	label := regexp.MustCompile(`<text x="([\d.]+)" y="[\d.]+" data-a="\d+" data-b="\d+" class="tl-g"( visibility="hidden")?>G7</text>`)
	plotW := float64(svgWidth - labelW - rightPad)

	m := label.FindStringSubmatch(l.SVG(Options{View: scenario.Window{From: 0, To: 2 * ms}}))
	require.NotNil(t, m)
	x, _ := strconv.ParseFloat(m[1], 64)
	assert.InDelta(t, labelW+plotW*3/4, x, 0.1, "the label sits in the middle of the half of the bar that shows")
	assert.Empty(t, m[2], "half the plot is room enough for it")

	m = label.FindStringSubmatch(l.SVG(Options{View: scenario.Window{From: 19*ms + 990*int64(time.Microsecond), To: 30 * ms}}))
	require.NotNil(t, m)
	assert.NotEmpty(t, m[2], "10µs of 10ms shows too little of the bar for a label")
}
