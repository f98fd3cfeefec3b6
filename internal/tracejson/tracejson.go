// Package tracejson writes runs of the scheduler as Chrome trace-event JSON
// (the Trace Event Format), the file ui.perfetto.dev and chrome://tracing
// open: the viewers readers use on real programs. It encodes what the
// timeline draws, a diagram.Layout, so the file and the HTML page never
// disagree:
//
//   - each run is a process; each P, each M and sysmon is a thread of it (a
//     track), named and sorted as the lanes of the page;
//   - a G's run is a complete event ("X") on its P's track, named G17; an
//     M's hold on a P (named P2), its spinning and its system calls are
//     complete events on the M's track;
//   - a steal is a flow from the victim's track to the thief's ("s", then
//     "f" with "bp":"e", sharing an id), between two zero-length complete
//     events at the time of the steal;
//   - sysmon's preemptions, retakes and deep sleeps, and a G preempted at
//     its safe point, are instant events ("i") on their track; stopping and
//     starting the world and procresize are instants of the whole process;
//   - the global run queue's length is a counter ("C").
//
// Viewers drop what they cannot place, silently. Perfetto's JSON importer
// (trace_processor's json_trace_parser and slice_tracker) and Chrome
// DevTools' flow handler set the rules this package keeps, and its tests
// check:
//
//   - On one track, complete events nest or are disjoint: Perfetto drops
//     one that starts inside another and ends after it. A span that
//     outlives the one it started in (an M stops spinning after it has
//     dropped its P) is cut in two where the outer one ends; both pieces
//     carry the span's name and note.
//   - Perfetto binds a flow event to the slice open on its track when it
//     reads it, DevTools to the event of the same category, track and time.
//     So each end of a steal has a zero-length slice of its own, of the
//     flow's category, at the flow's time, written before it; events are
//     written in time order, and at one time the longer slice first.
//   - Perfetto reads tid 0 as the pid, and one tid in two processes as a
//     thread that moved: tids are unique in the file, and none is 0 or a
//     pid.
//   - Times are microseconds, written with three decimals: the scheduler's
//     nanoseconds, exactly. Each run starts at 0, as on the page. There is
//     no displayTimeUnit: Perfetto ignores it, and says so as a warning.
//
// It does not write Go's own execution trace (the binary format go tool
// trace reads), nor read a trace back.
package tracejson

import (
	"bytes"
	"cmp"
	"container/heap"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/gmp-kata/gmp-kata/internal/diagram"
)

// Generator is the value of "generator" in the otherData of every file
// this package writes, so that kata can tell its own files from others.
const Generator = "kata trace"

// Written reports whether data is a file Write wrote, by its otherData's
// generator.
func Written(data []byte) bool {
	return bytes.Contains(data, []byte(`"generator":"`+Generator+`"`))
}

// A Run is one process of the trace: a run laid out as the timeline draws
// it, and the process's name.
type Run struct {
	Name   string
	Layout *diagram.Layout
}

// Write writes runs as one trace, a process each, with other (the
// scenario, the seed...) and "generator": Generator as its otherData.
func Write(w io.Writer, runs []Run, other map[string]string) error {
	data := map[string]string{"generator": Generator}
	for k, v := range other {
		data[k] = v
	}
	var evs []event
	flowID := 0
	for i, run := range runs {
		evs = append(evs, process(i+1, run, &flowID)...)
	}
	slices.SortStableFunc(evs, func(a, b event) int {
		// Metadata first; then time; at one time, the longer slice first,
		// so that it is the parent. Being stable, the sort keeps a flow
		// event after the slice process made for it to bind to.
		return cmp.Or(cmp.Compare(a.rank(), b.rank()), cmp.Compare(a.Ts, b.Ts), cmp.Compare(b.dur(), a.dur()))
	})
	// One event per line: a file people may open in an editor, and diff.
	if _, err := io.WriteString(w, "{\"otherData\":"); err != nil {
		return err
	}
	head, err := json.Marshal(data)
	if err != nil {
		return err
	}
	if _, err := w.Write(head); err != nil {
		return err
	}
	if _, err := io.WriteString(w, ",\"traceEvents\":["); err != nil {
		return err
	}
	for i, ev := range evs {
		line, err := json.Marshal(ev)
		if err != nil {
			return err
		}
		sep := ",\n"
		if i == 0 {
			sep = "\n"
		}
		if _, err := io.WriteString(w, sep+string(line)); err != nil {
			return err
		}
	}
	_, err = io.WriteString(w, "\n]}\n")
	return err
}

// An event is one trace event, as the format spells it.
type event struct {
	Name string         `json:"name,omitempty"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   micros         `json:"ts"`
	Dur  *micros        `json:"dur,omitempty"` // complete events only, where 0 is a length
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid,omitempty"`
	ID   int            `json:"id,omitempty"` // flows
	BP   string         `json:"bp,omitempty"` // flow ends: "e", bind to the enclosing slice
	S    string         `json:"s,omitempty"`  // instants: "t" thread, "p" process
	Args map[string]any `json:"args,omitempty"`
}

func (ev event) rank() int {
	if ev.Ph == "M" {
		return 0
	}
	return 1
}

func (ev event) dur() micros {
	if ev.Dur == nil {
		return 0
	}
	return *ev.Dur
}

// micros is a time in nanoseconds, written in microseconds with three
// decimals: exact, where a float64 of microseconds is not always.
type micros int64

func (t micros) MarshalJSON() ([]byte, error) {
	sign := ""
	if t < 0 {
		sign, t = "-", -t
	}
	return fmt.Appendf(nil, "%s%d.%03d", sign, t/1000, t%1000), nil
}

// tidsPerProcess spaces the processes' tids: process pid's tracks are
// pid*tidsPerProcess+1, +2, ..., never 0 nor a pid.
const tidsPerProcess = 10000

// process returns the events of run as process pid; flowID numbers the
// steals across the file.
func process(pid int, run Run, flowID *int) []event {
	l := run.Layout
	t0 := l.T0
	ts := func(t int64) micros { return micros(t - t0) }
	evs := []event{
		{Name: "process_name", Ph: "M", Pid: pid, Args: map[string]any{"name": run.Name}},
		{Name: "process_sort_index", Ph: "M", Pid: pid, Args: map[string]any{"sort_index": pid}},
	}
	tid := map[string]int{}
	for _, lane := range l.Lanes {
		if lane == "global" { // a counter, not a track
			continue
		}
		k := len(tid) + 1
		if k >= tidsPerProcess {
			break // a run with ten thousand Ms: the rest share nothing, and are left out
		}
		tid[lane] = pid*tidsPerProcess + k
		evs = append(evs,
			event{Name: "thread_name", Ph: "M", Pid: pid, Tid: tid[lane], Args: map[string]any{"name": lane}},
			event{Name: "thread_sort_index", Ph: "M", Pid: pid, Tid: tid[lane], Args: map[string]any{"sort_index": k}})
	}
	slice := func(lane, name, cat string, start, end int64, args map[string]any) event {
		d := micros(end - start)
		return event{Name: name, Cat: cat, Ph: "X", Ts: ts(start), Dur: &d, Pid: pid, Tid: tid[lane], Args: args}
	}

	byLane := map[string][]diagram.Span{}
	for _, sp := range l.Spans {
		if _, ok := tid[sp.Lane]; ok {
			byLane[sp.Lane] = append(byLane[sp.Lane], sp)
		}
	}
	for lane, spans := range byLane {
		for _, sp := range nest(spans) {
			args := map[string]any{"note": sp.Note}
			switch sp.Kind {
			case "run":
				args["g"] = sp.G
				evs = append(evs, slice(lane, fmt.Sprintf("G%d", sp.G), "g", sp.Start, sp.End, args))
			case "proc":
				evs = append(evs, slice(lane, sp.P, "proc", sp.Start, sp.End, args))
			case "spin":
				evs = append(evs, slice(lane, "spinning", "spin", sp.Start, sp.End, args))
			case "syscall":
				args["g"] = sp.G
				evs = append(evs, slice(lane, fmt.Sprintf("syscall G%d", sp.G), "syscall", sp.Start, sp.End, args))
			}
		}
	}

	for _, m := range l.Marks {
		args := map[string]any{"note": m.Note}
		switch {
		case m.Kind == "steal":
			if _, ok := tid[m.From]; !ok {
				continue
			}
			*flowID++
			args["n"] = m.N
			evs = append(evs,
				slice(m.From, "stolen", "steal", m.When, m.When, args),
				event{Name: "steal", Cat: "steal", Ph: "s", Ts: ts(m.When), Pid: pid, Tid: tid[m.From], ID: *flowID},
				slice(m.Lane, "steal", "steal", m.When, m.When, args),
				event{Name: "steal", Cat: "steal", Ph: "f", BP: "e", Ts: ts(m.When), Pid: pid, Tid: tid[m.Lane], ID: *flowID})
		case m.Lane == "": // stop-the-world, procresize: the whole process
			evs = append(evs, event{Name: m.Note, Cat: "world", Ph: "i", S: "p", Ts: ts(m.When), Pid: pid, Args: args})
		default: // sysmon's preempt, retake and sleep; a G preempted on its P
			if _, ok := tid[m.Lane]; !ok {
				continue
			}
			if m.From != "" {
				args["p"] = m.From
			}
			name := m.Kind
			if m.Lane != "sysmon" {
				name = "preempted"
			}
			evs = append(evs, event{Name: name, Cat: "sysmon", Ph: "i", S: "t", Ts: ts(m.When), Pid: pid, Tid: tid[m.Lane], Args: args})
		}
	}

	for _, lv := range l.Global {
		evs = append(evs, event{Name: "global run queue", Cat: "runq", Ph: "C", Ts: ts(lv.When), Pid: pid, Args: map[string]any{"Gs": lv.Len}})
	}
	return evs
}

// nest returns the spans of one track cut so that any two nest or are
// disjoint, in the order a viewer must read them: by start, the longer
// first. A span that starts inside another and ends after it is cut where
// the other ends; the rest goes on from there, and may be cut again.
func nest(spans []diagram.Span) []diagram.Span {
	h := spanHeap(slices.Clone(spans))
	heap.Init(&h)
	var out, open []diagram.Span
	for h.Len() > 0 {
		sp := heap.Pop(&h).(diagram.Span)
		for len(open) > 0 && open[len(open)-1].End <= sp.Start {
			open = open[:len(open)-1]
		}
		if len(open) > 0 {
			if end := open[len(open)-1].End; end < sp.End {
				rest := sp
				rest.Start = end
				heap.Push(&h, rest)
				sp.End = end
			}
		}
		out = append(out, sp)
		open = append(open, sp)
	}
	return out
}

// spanHeap orders spans by start, the longer first.
type spanHeap []diagram.Span

func (h spanHeap) Len() int { return len(h) }
func (h spanHeap) Less(i, j int) bool {
	if h[i].Start != h[j].Start {
		return h[i].Start < h[j].Start
	}
	return h[i].End > h[j].End
}
func (h spanHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *spanHeap) Push(x any)   { *h = append(*h, x.(diagram.Span)) }
func (h *spanHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
