package tracejson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gmp-kata/gmp-kata/internal/diagram"
	"github.com/gmp-kata/gmp-kata/internal/scenario"
)

// traceFile is the Trace Event Format as a reader decodes it: declared here,
// apart from the writer's types, so that a wrong tag there shows here.
type traceFile struct {
	OtherData   map[string]string `json:"otherData"`
	TraceEvents []traceEvent      `json:"traceEvents"`
}

type traceEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat"`
	Ph   string         `json:"ph"`
	Ts   *float64       `json:"ts"`
	Dur  *float64       `json:"dur"`
	Pid  *int           `json:"pid"`
	Tid  *int           `json:"tid"`
	ID   *int           `json:"id"`
	BP   string         `json:"bp"`
	S    string         `json:"s"`
	Args map[string]any `json:"args"`
}

// ns converts microseconds back to nanoseconds as Perfetto does (llround).
func ns(us *float64) int64 {
	if us == nil {
		return math.MinInt64
	}
	return int64(math.Round(*us * 1000))
}

func decode(t *testing.T, data []byte) traceFile {
	t.Helper()
	var f traceFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&f), "the file is not trace-event JSON")
	return f
}

// tracks returns, for each process, its tracks' names by tid.
func tracks(f traceFile) map[int]map[int]string {
	out := map[int]map[int]string{}
	for _, ev := range f.TraceEvents {
		if ev.Ph == "M" && ev.Name == "thread_name" {
			if out[*ev.Pid] == nil {
				out[*ev.Pid] = map[int]string{}
			}
			out[*ev.Pid][*ev.Tid] = ev.Args["name"].(string)
		}
	}
	return out
}

// checkImporterRules checks what Perfetto's JSON importer and Chrome
// DevTools need to place every event (see the package comment): it reads
// the events in file order as they do, with a stack of open slices per
// track, and returns what they would drop or misplace.
func checkImporterRules(f traceFile) []string {
	var bad []string
	pids := map[int]bool{}
	procOfTid := map[int]int{}
	for _, ev := range f.TraceEvents {
		if ev.Pid == nil || *ev.Pid == 0 {
			bad = append(bad, fmt.Sprintf("no pid, or pid 0: %+v", ev))
			continue
		}
		pids[*ev.Pid] = true
	}
	for _, ev := range f.TraceEvents {
		if ev.Tid == nil {
			continue
		}
		switch p, ok := procOfTid[*ev.Tid]; {
		case *ev.Tid == 0:
			bad = append(bad, fmt.Sprintf("tid 0 (read as the pid): %+v", ev))
		case pids[*ev.Tid]:
			bad = append(bad, fmt.Sprintf("tid %d is also a pid: %+v", *ev.Tid, ev))
		case ok && p != *ev.Pid:
			bad = append(bad, fmt.Sprintf("tid %d in processes %d and %d", *ev.Tid, p, *ev.Pid))
		}
		procOfTid[*ev.Tid] = *ev.Pid
	}

	type open struct {
		start, end int64
		cat        string
	}
	stacks := map[int][]open{}
	at := map[string]bool{} // cat/tid/ts of every complete event, for DevTools
	flows := map[int][]traceEvent{}
	last := int64(math.MinInt64)
	for _, ev := range f.TraceEvents {
		switch ev.Ph {
		case "M":
			if ev.Args["name"] == "" && ev.Args["sort_index"] == nil {
				bad = append(bad, fmt.Sprintf("metadata without a value: %+v", ev))
			}
			continue
		case "X", "i", "s", "f", "C":
		default:
			bad = append(bad, fmt.Sprintf("a phase this package does not write: %+v", ev))
			continue
		}
		ts := ns(ev.Ts)
		if ts < last {
			bad = append(bad, fmt.Sprintf("out of time order: %+v", ev))
		}
		last = ts
		switch ev.Ph {
		case "X":
			if ev.Dur == nil || ns(ev.Dur) < 0 || ev.Tid == nil {
				bad = append(bad, fmt.Sprintf("a complete event without a length or a track: %+v", ev))
				continue
			}
			end := ts + ns(ev.Dur)
			st := stacks[*ev.Tid]
			// slice_tracker's MaybeCloseStack: pop what ended before (or
			// at, unless both are instants); drop what overlaps an end.
			for len(st) > 0 {
				top := st[len(st)-1]
				if top.end < ts || top.end == ts && !(top.end == top.start && end == ts) {
					st = st[:len(st)-1]
					continue
				}
				if ts < top.end && end > top.end {
					bad = append(bad, fmt.Sprintf("overlaps the end of the slice it starts in (dropped): %+v", ev))
				}
				break
			}
			stacks[*ev.Tid] = append(st, open{ts, end, ev.Cat})
			at[fmt.Sprint(ev.Cat, "/", *ev.Pid, "/", *ev.Tid, "/", ts)] = true
		case "s", "f":
			if ev.ID == nil || ev.Tid == nil {
				bad = append(bad, fmt.Sprintf("a flow event without an id or a track: %+v", ev))
				continue
			}
			if len(stacks[*ev.Tid]) == 0 {
				bad = append(bad, fmt.Sprintf("a flow event with no slice open on its track (Perfetto: flow_no_enclosing_slice): %+v", ev))
			}
			if !at[fmt.Sprint(ev.Cat, "/", *ev.Pid, "/", *ev.Tid, "/", ts)] {
				bad = append(bad, fmt.Sprintf("a flow event with no slice of its category, track and time (DevTools binds to that): %+v", ev))
			}
			if ev.Ph == "f" && ev.BP != "e" {
				bad = append(bad, fmt.Sprintf("a flow end not bound to its enclosing slice: %+v", ev))
			}
			flows[*ev.ID] = append(flows[*ev.ID], ev)
		case "i":
			if ev.S != "p" && (ev.S != "t" || ev.Tid == nil) {
				bad = append(bad, fmt.Sprintf("an instant with no scope, or a thread instant with no track: %+v", ev))
			}
		case "C":
			if len(ev.Args) == 0 {
				bad = append(bad, fmt.Sprintf("a counter without a value: %+v", ev))
			}
			for k, v := range ev.Args {
				if _, ok := v.(float64); !ok {
					bad = append(bad, fmt.Sprintf("counter %s: %v is not a number", k, v))
				}
			}
		}
	}
	for id, fl := range flows {
		if len(fl) != 2 || fl[0].Ph != "s" || fl[1].Ph != "f" || fl[0].Cat != fl[1].Cat || fl[0].Name != fl[1].Name {
			bad = append(bad, fmt.Sprintf("flow %d is not one start and one end of one category and name: %+v", id, fl))
		}
	}
	return bad
}

// TestEveryScenario writes each scenario's run, reads it back, and finds
// in it what the timeline draws: a track per P and per M, named; every G's
// run a slice on its P's track, at its times; every steal a flow from the
// victim's track to the thief's; the counter at the global queue's levels.
func TestEveryScenario(t *testing.T) {
	for _, s := range scenario.All() {
		t.Run(s.Name, func(t *testing.T) {
			r, err := scenario.Run(s, 0, 1)
			require.NoError(t, err)
			l := diagram.Lay(diagram.Run{Events: r.Events, Procs: r.Procs})
			var buf bytes.Buffer
			require.NoError(t, Write(&buf, []Run{{Name: "the reference", Layout: l}}, map[string]string{"scenario": s.Name}))
			f := decode(t, buf.Bytes())
			require.Empty(t, checkImporterRules(f))
			assert.Equal(t, map[string]string{"generator": Generator, "scenario": s.Name}, f.OtherData)

			// A track per lane but the global queue's, in the lanes' order.
			tids := map[string]int{}
			var order []string
			for _, ev := range f.TraceEvents {
				if ev.Ph == "M" && ev.Name == "thread_name" {
					tids[ev.Args["name"].(string)] = *ev.Tid
					order = append(order, ev.Args["name"].(string))
				}
				if ev.Ph == "M" && ev.Name == "process_name" {
					assert.Equal(t, "the reference", ev.Args["name"])
				}
			}
			var lanes []string
			for _, lane := range l.Lanes {
				if lane != "global" {
					lanes = append(lanes, lane)
				}
			}
			require.Equal(t, lanes, order, "a track per P, per M and for sysmon, in the page's order")

			type key struct {
				tid        int
				name       string
				start, end int64
			}
			slices := map[key]int{}
			covered := map[string]int64{} // track/name: time covered by its pieces
			for _, ev := range f.TraceEvents {
				if ev.Ph == "X" && ev.Cat != "steal" {
					start := ns(ev.Ts)
					slices[key{*ev.Tid, ev.Name, start, start + ns(ev.Dur)}]++
					covered[fmt.Sprint(*ev.Tid, "/", ev.Name)] += ns(ev.Dur)
				}
			}
			spans := map[string]int64{}
			for _, sp := range l.Spans {
				if sp.Kind == "run" {
					k := key{tids[sp.Lane], fmt.Sprintf("G%d", sp.G), sp.Start - l.T0, sp.End - l.T0}
					assert.Equal(t, 1, slices[k], "G%d's run on %s from %d to %d is not one slice of its track", sp.G, sp.Lane, sp.Start-l.T0, sp.End-l.T0)
				}
				name := map[string]string{"run": fmt.Sprintf("G%d", sp.G), "proc": sp.P, "spin": "spinning", "syscall": fmt.Sprintf("syscall G%d", sp.G)}[sp.Kind]
				spans[fmt.Sprint(tids[sp.Lane], "/", name)] += sp.End - sp.Start
			}
			assert.Equal(t, spans, covered, "cutting a span to nest it keeps its time, on its track")

			var steals []string
			for _, m := range l.Marks {
				if m.Kind == "steal" {
					steals = append(steals, fmt.Sprintf("%d %d->%d", m.When-l.T0, tids[m.From], tids[m.Lane]))
				}
			}
			starts := map[int]traceEvent{}
			var flows []string
			for _, ev := range f.TraceEvents {
				switch ev.Ph {
				case "s":
					starts[*ev.ID] = ev
				case "f":
					s, ok := starts[*ev.ID]
					require.True(t, ok, "flow %d ends before it starts", *ev.ID)
					assert.Equal(t, ns(s.Ts), ns(ev.Ts), "a steal's flow starts and ends at the steal")
					flows = append(flows, fmt.Sprintf("%d %d->%d", ns(ev.Ts), *s.Tid, *ev.Tid))
				}
			}
			assert.ElementsMatch(t, steals, flows, "every steal is a flow from the victim's track to the thief's")

			var levels []diagram.Level
			for _, ev := range f.TraceEvents {
				if ev.Ph == "C" {
					levels = append(levels, diagram.Level{When: ns(ev.Ts) + l.T0, Len: int64(ev.Args["Gs"].(float64))})
				}
			}
			assert.Equal(t, l.Global, levels, "the counter follows the global queue's levels")
		})
	}
}

// TestNestCutsWhatOverlaps: a span that outlives the one it starts in is
// cut where that one ends, as often as it takes; the file then breaks no
// importer rule, where the spans written as they are break one.
func TestNestCutsWhatOverlaps(t *testing.T) {
	sp := func(kind string, start, end int64) diagram.Span {
		return diagram.Span{Lane: "M1", Kind: kind, P: "P0", Start: start, End: end}
	}
	spans := []diagram.Span{sp("proc", 0, 100), sp("spin", 50, 150), sp("syscall", 60, 120), sp("proc", 200, 300)}
	var got []string
	for _, s := range nest(spans) {
		got = append(got, fmt.Sprintf("%s %d-%d", s.Kind, s.Start, s.End))
	}
	assert.Equal(t, []string{"proc 0-100", "spin 50-100", "syscall 60-100", "spin 100-150", "syscall 100-120", "proc 200-300"}, got)

	l := &diagram.Layout{Lanes: []string{"P0", "M1", "sysmon"}, Spans: spans, T1: 300}
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, []Run{{Name: "cut", Layout: l}}, nil))
	assert.Empty(t, checkImporterRules(decode(t, buf.Bytes())))

	// The same spans, not cut: the checker must see what Perfetto drops.
	uncut := strings.Replace(buf.String(), `"dur":0.050`, `"dur":0.100`, 1) // spin 50-100 → 50-150
	assert.NotEmpty(t, checkImporterRules(decode(t, []byte(uncut))), "an overlap must be reported:\n%s", uncut)
}

// TestImporterRulesCatchMistakes: each rule of checkImporterRules fails on
// a file that breaks it.
func TestImporterRulesCatchMistakes(t *testing.T) {
	for name, events := range map[string]string{
		"tid 0":         `{"name":"G1","ph":"X","ts":0,"dur":1,"pid":1,"tid":0}`,
		"tid is a pid":  `{"name":"G1","ph":"X","ts":0,"dur":1,"pid":1,"tid":1}`,
		"tid in two":    `{"name":"G1","ph":"X","ts":0,"dur":1,"pid":1,"tid":5},{"name":"G2","ph":"X","ts":2,"dur":1,"pid":2,"tid":5}`,
		"out of order":  `{"name":"G1","ph":"X","ts":5,"dur":1,"pid":1,"tid":5},{"name":"G2","ph":"X","ts":2,"dur":1,"pid":1,"tid":5}`,
		"no enclosing":  `{"name":"steal","cat":"steal","ph":"s","id":1,"ts":0,"pid":1,"tid":5},{"name":"steal","cat":"steal","ph":"X","ts":0,"dur":0,"pid":1,"tid":6},{"name":"steal","cat":"steal","ph":"f","bp":"e","id":1,"ts":0,"pid":1,"tid":6}`,
		"no bp":         `{"name":"a","cat":"steal","ph":"X","ts":0,"dur":0,"pid":1,"tid":5},{"name":"steal","cat":"steal","ph":"s","id":1,"ts":0,"pid":1,"tid":5},{"name":"a","cat":"steal","ph":"X","ts":0,"dur":0,"pid":1,"tid":6},{"name":"steal","cat":"steal","ph":"f","id":1,"ts":0,"pid":1,"tid":6}`,
		"other cat":     `{"name":"a","cat":"g","ph":"X","ts":0,"dur":3,"pid":1,"tid":5},{"name":"steal","cat":"steal","ph":"s","id":1,"ts":1,"pid":1,"tid":5},{"name":"a","cat":"steal","ph":"X","ts":1,"dur":0,"pid":1,"tid":6},{"name":"steal","cat":"steal","ph":"f","bp":"e","id":1,"ts":1,"pid":1,"tid":6}`,
		"half a flow":   `{"name":"a","cat":"steal","ph":"X","ts":0,"dur":0,"pid":1,"tid":5},{"name":"steal","cat":"steal","ph":"s","id":1,"ts":0,"pid":1,"tid":5}`,
		"no scope":      `{"name":"retake","ph":"i","ts":0,"pid":1,"tid":5}`,
		"text counter":  `{"name":"global run queue","ph":"C","ts":0,"pid":1,"args":{"Gs":"3"}}`,
		"overlaps end":  `{"name":"P0","ph":"X","ts":0,"dur":1,"pid":1,"tid":5},{"name":"spinning","ph":"X","ts":0.5,"dur":1,"pid":1,"tid":5}`,
		"no dur":        `{"name":"G1","ph":"X","ts":0,"pid":1,"tid":5}`,
		"unknown phase": `{"name":"G1","ph":"B","ts":0,"pid":1,"tid":5}`,
	} {
		f := decode(t, []byte(`{"traceEvents":[`+events+`]}`))
		assert.NotEmpty(t, checkImporterRules(f), "%s: the checker passed a file that breaks the rule", name)
	}
}

// TestTwoRunsTwoProcesses: --compare's two runs are two processes whose
// tracks share no tid, and steal ids do not repeat.
func TestTwoRunsTwoProcesses(t *testing.T) {
	s, err := scenario.Lookup("imbalance")
	require.NoError(t, err)
	var runs []Run
	for _, name := range []string{"yours", "the reference"} {
		r, err := scenario.Run(s, 0, 1)
		require.NoError(t, err)
		runs = append(runs, Run{Name: name, Layout: diagram.Lay(diagram.Run{Events: r.Events, Procs: r.Procs})})
	}
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, runs, nil))
	f := decode(t, buf.Bytes())
	require.Empty(t, checkImporterRules(f))
	tr := tracks(f)
	require.Len(t, tr, 2)
	for pid, names := range tr {
		assert.Equal(t, "P0", names[pid*tidsPerProcess+1], "process %d's first track", pid)
	}
}

func TestMicros(t *testing.T) {
	for ns, want := range map[micros]string{0: "0.000", 5: "0.005", 1234567: "1234.567", 1000: "1.000", -5: "-0.005"} {
		got, err := json.Marshal(ns)
		require.NoError(t, err)
		assert.Equal(t, want, string(got))
	}
}
