package diagram

import (
	"regexp"
	"strconv"
	"testing"

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
	bars := regexp.MustCompile(`<rect x="[\d.]+" y="[\d.]+" width="(\d+)" height="([\d.]+)"><title>global run queue: (\d+) Gs?,`).FindAllStringSubmatch(svg, -1)
	require.Len(t, bars, 2, "one bar per level the queue held (128, then 96); none while empty:\n%s", svg)
	assert.Equal(t, "128", bars[0][3])
	assert.Equal(t, "96", bars[1][3])
	assert.Equal(t, "20.0", bars[0][2], "the peak fills the lane (less a pixel above and below)")
	assert.Equal(t, "15.0", bars[1][2], "96 of 128 is three quarters of the peak's height")
	// 0.4 and 0.4 of the plot's width: the bars' widths follow the times.
	plotW := svgWidth - labelW - rightPad
	for _, b := range bars {
		w, err := strconv.Atoi(b[1])
		require.NoError(t, err)
		assert.InDelta(t, 0.4*float64(plotW), float64(w), 2.5, "bar width")
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
