package diagram

import (
	"fmt"
	"slices"
	"strings"
)

// This file is the book's figures of the scheduler's hard moments
// ({{#figure NAME}}): the ring and its wrap-around, a steal, runnext, the
// park race and the spinning M's last look. They are drawn where a
// textbook would draw them by hand, but from code, in two ways:
//
//   - the run queue figures (figures_ring.go) drive the reference's own
//     runqput, runqget and runqsteal on a sched.Lab and draw the
//     counters and slots those functions leave;
//   - every figure that shows steps in an order names, for each step, the
//     call of the reference that makes it (a Code), and
//     figures_code_test.go checks with go/ast that the reference makes
//     those calls in that order, and that a figure's wrong order is not
//     the reference's.
//
// The figures are pure functions of the reference: the same bytes every
// build. They use the CSS classes of style.go, so they follow the page's
// light or dark theme. What they do not show: timing (see the timelines)
// and anything the reference does not do.

// A Figure is one of the book's figures.
type Figure struct {
	Name    string // as in {{#figure NAME}}
	Title   string // what the figure shows, for screen readers
	Caption string // what to look at, under the figure
	// Orders are the sequences of the reference's steps the figure
	// draws, in the order it draws them.
	Orders []Order
	draw   func(f *Figure) []string // one or more <svg> elements
}

// An Order is a sequence of steps, by one thread or by two interleaved,
// as a figure draws them.
type Order struct {
	Title   string
	Threads []string // a lane per thread, left to right
	State   string   // the shared state drawn between two lanes, if any
	Steps   []Step
	Outcome string
	// Wrong marks an order that is not the reference's: the figure shows
	// what would go wrong if the code made its steps in this order.
	Wrong bool
}

// A Step is one thing a figure shows happening.
type Step struct {
	Thread int    // index into Order.Threads
	Text   string // as drawn
	State  string // the shared state after the step, "" if unchanged
	Bad    bool   // the step where it goes wrong
	Code   Code   // the reference's call that makes the step
}

// A Code names a call of the reference (solutions/). Func is the function
// the step's thread is running (a method as Type.method), and Calls the
// call made in it that does the step, each as written in the source; more
// than one when the call that does it is inside a function Func calls:
// {"runqgrab(p2, &pp.runq, t, stealRunNextG)", "pp.runqhead.CompareAndSwap(h, h+n)"}.
// The steps of one thread in one Func, in a figure's order, must be
// calls Func makes in that order. Once claims that the function making the
// last call makes no other call to the same function or method.
type Code struct {
	Func  string
	Calls []string
	Once  bool
}

// String is where the step is, as its hover text says it.
func (c Code) String() string {
	if c.Func == "" {
		return ""
	}
	return c.Func + ": " + strings.Join(c.Calls, " → ")
}

// Figures are the book's figures, by name.
var Figures = map[string]*Figure{}

func addFigure(f *Figure) {
	if _, dup := Figures[f.Name]; dup {
		panic("diagram: two figures named " + f.Name)
	}
	Figures[f.Name] = f
}

// FigureNames lists the figures' names, sorted.
func FigureNames() []string {
	var names []string
	for n := range Figures {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// SVG draws the figure: one <svg>, or several that a page may lay side by
// side or one under the other as its width allows.
func (f *Figure) SVG() string { return strings.Join(f.draw(f), "\n") }

// figureWidth is the width of one figure's <svg>: narrow enough to fit a
// 390-px phone's column at nearly full size; figPad is its margin.
const (
	figureWidth = 380.0
	figPad      = 8.0
)

// svgOpen starts a figure's <svg> of height h, with its accessible name.
func svgOpen(b *strings.Builder, name, title string, h float64) {
	fmt.Fprintf(b, `<svg class="figure" data-figure="%s" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" aria-label="%s"><title>%s</title>`+"\n",
		esc(name), figureWidth, h, figureWidth, h, esc(title), esc(title))
}

// Text sizes, and the widths the layout assumes for their characters, in
// ems: for the sans-serif text a little wider than the average of the
// usual system fonts (DejaVu Sans, the widest, averages about 0.5), so that
// wrapped lines fit their boxes in any of them.
const (
	textSize   = 12.0
	smallSize  = 11.0
	lineHeight = 15.0
	charWidth  = 0.54
	monoWidth  = 0.6 // every monospace font
)

// wrap breaks s into lines of at most width pixels of text of size size.
func wrap(s string, width, size float64) []string {
	limit := int(width / (size * charWidth))
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && len([]rune(line))+1+len([]rune(w)) > limit {
			lines = append(lines, line)
			line = w
			continue
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// textLines writes lines of text from baseline y down, lineHeight apart.
func textLines(b *strings.Builder, x, y float64, class, anchor string, lines []string) {
	for i, l := range lines {
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" class="%s" text-anchor="%s">%s</text>`+"\n", x, y+float64(i)*lineHeight, class, anchor, esc(l))
	}
}
