// Package diagram draws the scheduler as SVG: timelines of a run's events
// (one lane per P and per M, steals as arrows, spinning, sysmon's actions),
// the G, M and P state machines, and the figures of the hard moments
// (figures.go). The book's pictures and `kata trace`'s pages are drawn
// here, so the two always agree, and both pages run Script, which zooms
// and pans the timelines in the browser. It does not run scenarios or
// decide what a picture opens on: the caller passes a run and its view
// (internal/scenario's stories give both).
package diagram

import (
	"cmp"
	"fmt"
	"github.com/gmp-kata/gmp-kata/internal/scenario"
	"html"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	sched "github.com/gmp-kata/gmp-kata/solutions"
)

// A Run is what the timeline draws: a run's events and its number of Ps
// (the largest the run had).
type Run struct {
	Events []sched.Event
	Procs  int
}

// A Span is a stretch of time on a lane.
type Span struct {
	Lane       string // "P0", "M3"
	G          int64  // the G that ran, 0 if the span is not a G's
	Kind       string // "run", "spin", "proc", "syscall"
	Start, End int64
	Note       string // what a hover says
	// P is the P an M lane's span is about: the one a "proc" span's M
	// held, or the one a "syscall" span's M left.
	P string
}

// A Mark is an instant on a lane.
type Mark struct {
	Lane string
	When int64
	Kind string // "preempt", "retake", "sleep", "steal", "resize", "stw"
	Note string
	// Steals: the lane the Gs came from, and how many.
	From string
	N    int64
}

// A Level is the global run queue's length from When on.
type Level struct {
	When int64
	Len  int64
}

// A Layout is a run turned into lanes, spans and marks, ready to draw.
type Layout struct {
	Lanes  []string // top to bottom
	Spans  []Span
	Marks  []Mark
	Global []Level // the global run queue's length, on the "global" lane
	T0, T1 int64
}

// globalLane is the lane of the global run queue's length, drawn only for
// a run whose global queue was ever used.
const globalLane = "global"

// Lay turns a run's events into a Layout: G runs on P lanes; Ms holding
// Ps, spinning and in system calls on M lanes; sysmon's actions on its
// own lane; stop-the-world and resizes across all of them.
func Lay(r Run) *Layout {
	l := &Layout{}
	if len(r.Events) == 0 {
		return l
	}
	l.T0, l.T1 = r.Events[0].When, r.Events[len(r.Events)-1].When
	if l.T1 <= l.T0 {
		l.T1 = l.T0 + 1
	}
	procs := r.Procs
	var ms []int64
	seenM := map[int64]bool{}
	for _, ev := range r.Events {
		if int(ev.P) >= procs {
			procs = int(ev.P) + 1
		}
		if ev.M >= 0 && !seenM[ev.M] && ev.Kind != sched.EvSysmonSleep {
			seenM[ev.M] = true
			ms = append(ms, ev.M)
		}
		if ev.Kind == sched.EvGlobalRunq {
			l.Global = append(l.Global, Level{When: ev.When, Len: ev.Arg})
		}
	}
	slices.Sort(ms)
	for p := 0; p < procs; p++ {
		l.Lanes = append(l.Lanes, fmt.Sprintf("P%d", p))
	}
	if len(l.Global) > 0 {
		l.Lanes = append(l.Lanes, globalLane)
	}
	for _, m := range ms {
		l.Lanes = append(l.Lanes, fmt.Sprintf("M%d", m))
	}
	l.Lanes = append(l.Lanes, "sysmon")

	type open struct {
		start int64
		p     int32
		m     int64
		note  string
	}
	running := map[int64]open{}  // by G
	holding := map[int64]open{}  // by M: the P it holds
	spinning := map[int64]open{} // by M
	insys := map[int64]open{}    // by G: its system call
	pl := func(p int32) string { return fmt.Sprintf("P%d", p) }
	ml := func(m int64) string { return fmt.Sprintf("M%d", m) }
	for _, ev := range r.Events {
		at := ev.When
		switch ev.Kind {
		case sched.EvGoStart:
			note := ""
			if ev.Arg == 1 {
				note = ", inheriting the time slice (from runnext)"
			}
			running[ev.G] = open{start: at, p: ev.P, m: ev.M, note: note}
		case sched.EvGoEnd, sched.EvGoPark, sched.EvGoSched, sched.EvGoPreempt, sched.EvGoSyscall:
			if o, ok := running[ev.G]; ok {
				delete(running, ev.G)
				how := map[sched.EventKind]string{
					sched.EvGoEnd: "finished", sched.EvGoPark: "parked", sched.EvGoSched: "yielded",
					sched.EvGoPreempt: "was preempted", sched.EvGoSyscall: "entered a system call",
				}[ev.Kind]
				l.Spans = append(l.Spans, Span{Lane: pl(o.p), G: ev.G, Kind: "run", Start: o.start, End: at,
					Note: fmt.Sprintf("G%d on P%d (M%d) for %s%s; then it %s", ev.G, o.p, o.m, dur(at-o.start), o.note, how)})
			}
			if ev.Kind == sched.EvGoPreempt {
				l.Marks = append(l.Marks, Mark{Lane: pl(ev.P), When: at, Kind: "preempt", Note: fmt.Sprintf("G%d preempted on P%d at its safe point", ev.G, ev.P)})
			}
			if ev.Kind == sched.EvGoSyscall {
				insys[ev.G] = open{start: at, p: ev.P, m: ev.M}
				// The M leaves its P in _Psyscall (entersyscall): it holds
				// no P until exitsyscall acquires one.
				if o, ok := holding[ev.M]; ok {
					delete(holding, ev.M)
					l.Spans = append(l.Spans, Span{Lane: ml(ev.M), Kind: "proc", Start: o.start, End: at, P: pl(o.p),
						Note: fmt.Sprintf("M%d held P%d for %s; then it entered a system call", ev.M, o.p, dur(at-o.start))})
				}
			}
		case sched.EvGoSyscallExit:
			if o, ok := insys[ev.G]; ok {
				delete(insys, ev.G)
				back := "got a P back the slow way"
				if ev.Arg == 1 {
					back = "got its own P back"
				}
				l.Spans = append(l.Spans, Span{Lane: ml(o.m), G: ev.G, Kind: "syscall", Start: o.start, End: at, P: pl(o.p),
					Note: fmt.Sprintf("M%d blocked in G%d's system call for %s; then it %s", o.m, ev.G, dur(at-o.start), back)})
			}
		case sched.EvProcStart:
			holding[ev.M] = open{start: at, p: ev.P}
		case sched.EvProcStop:
			if o, ok := holding[ev.M]; ok {
				delete(holding, ev.M)
				l.Spans = append(l.Spans, Span{Lane: ml(ev.M), Kind: "proc", Start: o.start, End: at, P: pl(o.p),
					Note: fmt.Sprintf("M%d held P%d for %s", ev.M, o.p, dur(at-o.start))})
			}
		case sched.EvSpinStart:
			spinning[ev.M] = open{start: at}
		case sched.EvSpinStop:
			if o, ok := spinning[ev.M]; ok {
				delete(spinning, ev.M)
				l.Spans = append(l.Spans, Span{Lane: ml(ev.M), Kind: "spin", Start: o.start, End: at,
					Note: fmt.Sprintf("M%d spinning, looking for work, for %s", ev.M, dur(at-o.start))})
			}
		case sched.EvSteal:
			l.Marks = append(l.Marks, Mark{Lane: pl(ev.P), When: at, Kind: "steal", From: pl(int32(ev.Arg)), N: ev.N,
				Note: fmt.Sprintf("P%d stole %s from P%d (M%d runs G%d next)", ev.P, scenario.Plural(int(ev.N), "G"), ev.Arg, ev.M, ev.G)})
		case sched.EvSysmonPreempt:
			l.Marks = append(l.Marks, Mark{Lane: "sysmon", When: at, Kind: "preempt", From: pl(ev.P),
				Note: fmt.Sprintf("sysmon: G%d has run too long on P%d; asked it to yield", ev.G, ev.P)})
		case sched.EvSysmonRetake:
			l.Marks = append(l.Marks, Mark{Lane: "sysmon", When: at, Kind: "retake", From: pl(ev.P),
				Note: fmt.Sprintf("sysmon: retook P%d from a system call and handed it off", ev.P)})
		case sched.EvSysmonSleep:
			l.Marks = append(l.Marks, Mark{Lane: "sysmon", When: at, Kind: "sleep",
				Note: fmt.Sprintf("sysmon: nothing to do; deep sleep for up to %s", dur(ev.Arg))})
		case sched.EvStopTheWorld:
			l.Marks = append(l.Marks, Mark{When: at, Kind: "stw", Note: "stop the world"})
		case sched.EvStartTheWorld:
			l.Marks = append(l.Marks, Mark{When: at, Kind: "stw", Note: "start the world with " + scenario.Plural(int(ev.Arg), "P")})
		case sched.EvResize:
			l.Marks = append(l.Marks, Mark{When: at, Kind: "resize", Note: fmt.Sprintf("procresize: GOMAXPROCS = %d", ev.Arg)})
		}
	}
	// What is still open at the end ran until the end.
	for g, o := range running {
		l.Spans = append(l.Spans, Span{Lane: pl(o.p), G: g, Kind: "run", Start: o.start, End: l.T1,
			Note: fmt.Sprintf("G%d on P%d (M%d) from %s to the end", g, o.p, o.m, dur(o.start-l.T0))})
	}
	for m, o := range holding {
		l.Spans = append(l.Spans, Span{Lane: ml(m), Kind: "proc", Start: o.start, End: l.T1, P: pl(o.p), Note: fmt.Sprintf("M%d held P%d to the end", m, o.p)})
	}
	for m, o := range spinning {
		l.Spans = append(l.Spans, Span{Lane: ml(m), Kind: "spin", Start: o.start, End: l.T1, Note: fmt.Sprintf("M%d spinning to the end", m)})
	}
	slices.SortStableFunc(l.Spans, func(a, b Span) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.Lane, b.Lane), cmp.Compare(a.Kind, b.Kind))
	})
	return l
}

// Drawing constants, in SVG user units (about pixels at 100%).
const (
	svgWidth    = 960
	labelW      = 58
	rightPad    = 12
	topPad      = 8
	headerH     = 18 // the title, and the stretch of time shown
	pLaneH      = 24
	globalLaneH = 22
	mLaneH      = 14
	laneGap     = 4
	axisH       = 26
	minSpanPx   = 0.6
	stwMinPx    = 1.5
	gLabelPx    = 26 // a G's bar at least this wide shows the G's number
	tickPx      = 80 // about one axis label per this many units
)

// Options change how a timeline is drawn.
type Options struct {
	// Title is drawn above the lanes, if set.
	Title string
	// Span, if longer than the run, is the length of time the picture
	// spans: two runs drawn with the same Span share a scale.
	Span int64
	// View is the stretch of the run the picture opens on (the zero
	// Window: all of it), in the events' clock: what its caption is about.
	// The whole run is drawn either way, and Script zooms and pans over
	// it; a page without the script shows View alone.
	View scenario.Window
	// ID prefixes the SVG's element IDs, to keep several pictures on one
	// page apart.
	ID string
}

// SVG draws the layout as an SVG element with no blank lines (so it can
// stand in Markdown as an HTML block). Every span and mark has a <title>,
// which browsers show on hover.
//
// The picture is drawn for its first view, Options.View, and carries what
// Script needs to draw any other: the whole run's length (data-span) and
// the view (data-v0, data-v1) on the <svg>, in nanoseconds from the run's
// start, and on every element placed in time its times (data-a, and
// data-b for a stretch). A stretch is a rect whose x and width follow the
// view; an instant is drawn around x = 0 and moved with a translate.
func (l *Layout) SVG(o Options) string {
	if o.Span > l.T1-l.T0 {
		l.T1 = l.T0 + o.Span
	}
	v0, v1 := l.T0, l.T1
	if w := o.View; !w.IsZero() && max(w.From, l.T0) < min(w.To, l.T1) {
		v0, v1 = max(w.From, l.T0), min(w.To, l.T1)
	}
	var b strings.Builder
	y := map[string]float64{}
	h := map[string]float64{}
	plotTop := float64(topPad + headerH)
	cur := plotTop
	for _, lane := range l.Lanes {
		lh := float64(mLaneH)
		switch {
		case lane[0] == 'P':
			lh = pLaneH
		case lane == globalLane:
			lh = globalLaneH
		}
		y[lane], h[lane] = cur, lh
		cur += lh + laneGap
	}
	plotBottom := cur
	height := cur + axisH
	plotW := float64(svgWidth - labelW - rightPad)
	x := func(t int64) float64 {
		return labelW + float64(t-v0)/float64(v1-v0)*plotW
	}
	// stretch places a rect from a to b: its x, width and times.
	stretch := func(a, b int64, minPx float64) string {
		return fmt.Sprintf(`x="%.2f" width="%.2f" data-a="%d" data-b="%d"`, x(a), math.Max(x(b)-x(a), minPx), a-l.T0, b-l.T0)
	}
	// at places an instant drawn around x = 0.
	at := func(t int64) string {
		return fmt.Sprintf(`transform="translate(%.2f,0)" data-a="%d"`, x(t), t-l.T0)
	}
	id := o.ID
	if id == "" {
		id = "tl"
	}
	fmt.Fprintf(&b, `<svg class="timeline" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %.0f" width="%d" height="%.0f" role="img" aria-label="%s" data-span="%d" data-v0="%d" data-v1="%d" data-x0="%d" data-pad="%d">`+"\n",
		svgWidth, height, svgWidth, height, esc(cmp.Or(o.Title, "scheduler timeline")), l.T1-l.T0, v0-l.T0, v1-l.T0, labelW, rightPad)
	fmt.Fprintf(&b, `<defs><marker id="%s-arrow" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0 L8,4 L0,8 z" class="tl-steal-head"/></marker>`+
		`<pattern id="%s-hatch" width="4" height="4" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="2" height="4" class="tl-spin"/></pattern>`+
		`<clipPath id="%s-clip"><rect class="tl-clip" x="%d" y="0" width="%.0f" height="%.0f"/></clipPath></defs>`+"\n",
		id, id, id, labelW, plotW, height)
	if o.Title != "" {
		fmt.Fprintf(&b, `<text x="%d" y="%d" class="tl-title">%s</text>`+"\n", labelW, topPad+12, esc(o.Title))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" class="tl-range">%s</text>`+"\n", svgWidth-rightPad, topPad+12, esc(rangeText(v0-l.T0, v1-l.T0, l.T1-l.T0)))
	// lanes and their labels
	for _, lane := range l.Lanes {
		fmt.Fprintf(&b, `<rect x="%d" y="%.1f" width="%.1f" height="%.0f" class="tl-lane"/><text x="%d" y="%.1f" class="tl-label">%s</text>`+"\n",
			labelW, y[lane], plotW, h[lane], labelW-6, y[lane]+h[lane]/2+4, lane)
	}
	fmt.Fprintf(&b, `<g class="tl-plot" clip-path="url(#%s-clip)">`+"\n", id)
	// stop-the-world bands, across every lane
	var stw int64 = -1
	for _, m := range l.Marks {
		if m.Kind != "stw" {
			continue
		}
		if strings.HasPrefix(m.Note, "stop") {
			stw = m.When
		} else if stw >= 0 {
			fmt.Fprintf(&b, `<rect %s data-m="%g" y="%.1f" height="%.1f" class="tl-stw"><title>stopped the world for %s; %s</title></rect>`+"\n",
				stretch(stw, m.When, stwMinPx), stwMinPx, plotTop, plotBottom-plotTop, dur(m.When-stw), esc(m.Note))
			stw = -1
		}
	}
	for _, s := range l.Spans {
		ly, lh := y[s.Lane], h[s.Lane]
		switch s.Kind {
		case "run":
			// The G's number goes in the middle of what shows of its bar.
			xa, xb := math.Max(x(s.Start), labelW), math.Min(x(s.End), labelW+plotW)
			hidden := ""
			if xb-xa < gLabelPx {
				hidden = ` visibility="hidden"`
			}
			fmt.Fprintf(&b, `<g class="tl-run" data-g="%d"><rect %s y="%.1f" height="%.0f" fill="%s"/>`, s.G, stretch(s.Start, s.End, minSpanPx), ly+1, lh-2, gColor(s.G))
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" data-a="%d" data-b="%d" class="tl-g"%s>G%d</text>`, (xa+xb)/2, ly+lh/2+4, s.Start-l.T0, s.End-l.T0, hidden, s.G)
			fmt.Fprintf(&b, "<title>%s</title></g>\n", esc(s.Note))
		case "proc":
			fmt.Fprintf(&b, `<rect %s y="%.1f" height="%.0f" class="tl-proc"><title>%s</title></rect>`+"\n", stretch(s.Start, s.End, minSpanPx), ly+2, lh-4, esc(s.Note))
		case "spin":
			fmt.Fprintf(&b, `<rect %s y="%.1f" height="%.0f" fill="url(#%s-hatch)" class="tl-spinning"><title>%s</title></rect>`+"\n", stretch(s.Start, s.End, minSpanPx), ly+1, lh-2, id, esc(s.Note))
		case "syscall":
			fmt.Fprintf(&b, `<rect %s y="%.1f" height="%.0f" class="tl-syscall"><title>%s</title></rect>`+"\n", stretch(s.Start, s.End, minSpanPx), ly+1, lh-2, esc(s.Note))
		}
	}
	l.drawGlobal(&b, stretch, y[globalLane], h[globalLane])
	resizes := 0
	for _, m := range l.Marks {
		switch m.Kind {
		case "steal":
			y0, y1 := y[m.From]+h[m.From]/2, y[m.Lane]+h[m.Lane]/2
			bend := 14.0
			fmt.Fprintf(&b, `<path d="M0,%.1f C%.1f,%.1f %.1f,%.1f 0,%.1f" %s class="tl-steal" marker-end="url(#%s-arrow)"><title>%s</title></path>`+"\n",
				y0, bend, y0, bend, y1, y1, at(m.When), id, esc(m.Note))
		case "preempt":
			if m.Lane == "sysmon" {
				sy := y["sysmon"] + h["sysmon"]/2
				fmt.Fprintf(&b, `<g class="tl-sysmon-preempt" %s><line x1="0" y1="%.1f" x2="0" y2="%.1f"/><circle cx="0" cy="%.1f" r="4"/><title>%s</title></g>`+"\n",
					at(m.When), sy, y[m.From]+h[m.From]/2, sy, esc(m.Note))
			} else {
				fmt.Fprintf(&b, `<path d="M0,%.1f l-4,-6 h8 z" %s class="tl-preempt"><title>%s</title></path>`+"\n", y[m.Lane]+6, at(m.When), esc(m.Note))
			}
		case "retake":
			sy := y["sysmon"] + h["sysmon"]/2
			fmt.Fprintf(&b, `<g class="tl-retake" %s><line x1="0" y1="%.1f" x2="0" y2="%.1f"/><rect x="-4" y="%.1f" width="8" height="8"/><title>%s</title></g>`+"\n",
				at(m.When), sy, y[m.From]+h[m.From]/2, sy-4, esc(m.Note))
		case "sleep":
			sy := y["sysmon"] + h["sysmon"]/2
			fmt.Fprintf(&b, `<g class="tl-sleep" %s><circle cx="0" cy="%.1f" r="3"/><title>%s</title></g>`+"\n", at(m.When), sy, esc(m.Note))
		case "resize":
			// Labels of resizes close together go on alternate lines.
			fmt.Fprintf(&b, `<g class="tl-resize" %s><line x1="0" y1="%.1f" x2="0" y2="%.1f"/><text x="3" y="%.1f">%s</text><title>%s</title></g>`+"\n",
				at(m.When), plotTop, plotBottom, plotBottom-2-float64(resizes%2)*11, esc(strings.ReplaceAll(strings.TrimPrefix(m.Note, "procresize: "), " ", "")), esc(m.Note))
			resizes++
		}
	}
	b.WriteString("</g>\n")
	// the time axis: Script redraws the ticks for every view
	fmt.Fprintf(&b, `<g class="tl-axis" data-y="%.1f"><line class="tl-axis-line" x1="%d" y1="%.1f" x2="%.1f" y2="%.1f"/><g class="tl-ticks">`, plotBottom, labelW, plotBottom, labelW+plotW, plotBottom)
	for _, t := range ticks(v0-l.T0, v1-l.T0, plotW) {
		tx := x(l.T0 + t.at)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/><text x="%.1f" y="%.1f">%s</text>`,
			tx, plotBottom, tx, plotBottom+4, tx, plotBottom+16, t.label)
	}
	b.WriteString("</g></g>\n</svg>")
	return b.String()
}

// drawGlobal draws the global run queue's length as bars on its lane, one
// per length it held, as long as it held it. Heights are relative to the
// run's peak, which the lane's hover text gives.
func (l *Layout) drawGlobal(b *strings.Builder, stretch func(a, b int64, minPx float64) string, ly, lh float64) {
	var peak int64
	for _, lv := range l.Global {
		peak = max(peak, lv.Len)
	}
	if peak == 0 {
		return
	}
	fmt.Fprintf(b, `<g class="tl-global"><title>the global run queue: at most %s at once</title>`, scenario.Plural(int(peak), "G"))
	for i, lv := range l.Global {
		if lv.Len == 0 {
			continue
		}
		end := l.T1
		if i+1 < len(l.Global) {
			end = l.Global[i+1].When
		}
		bh := math.Max(float64(lv.Len)/float64(peak)*(lh-2), 1.5)
		fmt.Fprintf(b, `<rect %s y="%.1f" height="%.1f"><title>global run queue: %s, from %s to %s</title></rect>`,
			stretch(lv.When, end, minSpanPx), ly+lh-1-bh, bh, scenario.Plural(int(lv.Len), "G"), short(lv.When-l.T0), short(end-l.T0))
	}
	b.WriteString("</g>\n")
}

// A tick is a label on the time axis.
type tick struct {
	at    int64 // from the run's start
	label string
}

// ticks returns the axis labels for the view [v0, v1] of a plot plotW
// wide: about one per tickPx, at round times. timeline.js's ticks must
// agree.
func ticks(v0, v1 int64, plotW float64) []tick {
	step := niceStep(v1-v0, max(4, int(plotW/tickPx)))
	var ts []tick
	for t := (v0 + step - 1) / step * step; t <= v1; t += step {
		ts = append(ts, tick{t, axisLabel(t, step)})
	}
	return ts
}

// niceStep returns a tick step of 1, 2 or 5 times a power of ten that cuts
// span into at most n pieces.
func niceStep(span int64, n int) int64 {
	if span <= 0 {
		return 1
	}
	raw := float64(span) / float64(n)
	p := int64(1)
	for float64(p)*10 <= raw {
		p *= 10
	}
	for _, m := range []int64{1, 2, 5} {
		if float64(m*p) >= raw {
			return m * p
		}
	}
	return 10 * p
}

// units of time, largest first, for labels.
var units = []struct {
	ns   int64
	name string
}{{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}, {1, "ns"}}

// unitOf returns the largest unit no longer than ns (ns itself if 0).
func unitOf(ns int64) (int64, string) {
	for _, u := range units {
		if ns >= u.ns {
			return u.ns, u.name
		}
	}
	return 1, "ns"
}

// decimal writes v/unit with dec decimals, trailing zeros dropped.
func decimal(v, unit int64, dec int) string {
	s := strconv.FormatFloat(float64(v)/float64(unit), 'f', dec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// axisLabel writes t, a time from the run's start, for an axis whose ticks
// are step apart: in t's unit, with the decimals the step needs ("1.25ms"
// for a step of 50µs).
func axisLabel(t, step int64) string {
	if t == 0 {
		return "0"
	}
	unit, name := unitOf(t)
	dec := 0
	for q := unit; q > step; q /= 10 {
		dec++
	}
	return decimal(t, unit, dec) + name
}

// short writes a duration to three significant digits: "2.46ms".
func short(ns int64) string {
	if ns == 0 {
		return "0"
	}
	unit, name := unitOf(ns)
	dec := 0
	switch v := ns / unit; {
	case v < 10:
		dec = 2
	case v < 100:
		dec = 1
	}
	return decimal(ns, unit, dec) + name
}

// rangeText says which stretch of the run a picture shows.
func rangeText(v0, v1, span int64) string {
	if v0 == 0 && v1 == span {
		return "the whole run: " + short(span)
	}
	return fmt.Sprintf("showing %s to %s of %s", short(v0), short(v1), short(span))
}

// gColor gives each G its own colour: hues a golden angle apart.
func gColor(g int64) string {
	hue := math.Mod(float64(g)*137.508, 360)
	return fmt.Sprintf("hsl(%.0f,62%%,62%%)", hue)
}

func dur(ns int64) string {
	d := time.Duration(ns)
	switch {
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	case d >= time.Microsecond:
		return d.Round(100 * time.Nanosecond).String()
	default:
		return d.String()
	}
}

func esc(s string) string { return html.EscapeString(s) }
