package diagram

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// A Machine is a state machine of the scheduler: its states, where to
// draw them, and its transitions, each named by the functions of the
// reference scheduler (solutions/) that make it. statemachine_test.go
// checks the tables against the reference's code, so the pictures cannot
// drift from it.
type Machine struct {
	Name   string // "g", "m", "p"
	Title  string
	States []State
	Edges  []Edge
	// LabelAt moves the label of the arrow "From>To" along it, from 0 (at
	// From) to 1 (at To), where labels would otherwise collide; 0.5 if
	// not given.
	LabelAt map[string]float64
}

// A State is a node of the picture.
type State struct {
	Name     string  // as in the reference: "_Grunnable"
	Label    string  // as drawn: "runnable"
	Col, Row float64 // grid position
	About    string  // the hover text
}

// An Edge is a transition and the functions that make it.
type Edge struct {
	From, To string
	Funcs    []string
}

// Machines are the G, M and P state machines, by name.
var Machines = map[string]*Machine{
	"g": {
		Name: "g", Title: "G states (casgstatus)",
		States: []State{
			{"_Gidle", "idle", 0, 0, "just allocated"},
			{"_Gdead", "dead", 1, 0, "unused: finished, or in the free list waiting to be reused"},
			{"_Grunnable", "runnable", 2, 1, "in a run queue (runnext, a P's ring or the global queue), not running"},
			{"_Grunning", "running", 2, 2.8, "running on an M that holds a P"},
			{"_Gwaiting", "waiting", 0, 2.8, "parked: blocked on a channel, a lock, a timer, waiting to be readied"},
			{"_Gsyscall", "syscall", 4, 2.8, "in a system call: its M is blocked, its P may be taken"},
		},
		Edges: []Edge{
			{"_Gidle", "_Gdead", []string{"newproc1"}},
			{"_Gdead", "_Grunnable", []string{"newproc1"}},
			{"_Grunnable", "_Grunning", []string{"execute"}},
			{"_Grunning", "_Grunnable", []string{"goschedImpl"}},
			{"_Grunning", "_Gwaiting", []string{"park_m"}},
			{"_Gwaiting", "_Grunnable", []string{"ready", "park_m"}},
			{"_Grunning", "_Gdead", []string{"goexit0"}},
			{"_Grunning", "_Gsyscall", []string{"entersyscall"}},
			{"_Gsyscall", "_Grunning", []string{"exitsyscall"}},
			{"_Gsyscall", "_Grunnable", []string{"exitsyscall0"}},
		},
		LabelAt: map[string]float64{"_Grunning>_Gdead": 0.72, "_Gwaiting>_Grunnable": 0.3, "_Gsyscall>_Grunnable": 0.62},
	},
	"p": {
		Name: "p", Title: "P states",
		States: []State{
			{"new", "new", 0, 0, "allocated by procresize when GOMAXPROCS grows"},
			{"_Pgcstop", "gcstop", 0, 1.2, "stopped by stop-the-world, or new and not yet started"},
			{"_Pidle", "idle", 2, 0, "on the idle P list, with an empty run queue"},
			{"_Prunning", "running", 2, 2.4, "held by an M that runs Gs"},
			{"_Psyscall", "syscall", 4, 1.2, "its M is in a system call; sysmon may retake it (Go ≤ 1.25)"},
			{"_Pdead", "dead", 0, 2.4, "removed by procresize when GOMAXPROCS shrinks; revived by init if it grows again"},
		},
		Edges: []Edge{
			{"_Pidle", "_Prunning", []string{"acquirep"}},
			{"_Prunning", "_Pidle", []string{"releasep"}},
			{"_Prunning", "_Psyscall", []string{"entersyscall"}},
			{"_Psyscall", "_Pidle", []string{"exitsyscallfast", "retake"}},
			{"_Psyscall", "_Pgcstop", []string{"stopTheWorld", "entersyscall_gcwait"}},
			{"_Prunning", "_Pgcstop", []string{"stopTheWorld", "gcstopm"}},
			{"_Pidle", "_Pgcstop", []string{"stopTheWorld", "handoffp"}},
			{"_Pgcstop", "_Pidle", []string{"procresize"}},
			{"_Pgcstop", "_Pdead", []string{"destroy"}},
			{"new", "_Pgcstop", []string{"init"}},
			{"_Pdead", "_Pgcstop", []string{"init"}},
		},
	},
	"m": {
		Name: "m", Title: "M states",
		States: []State{
			{"idle", "idle", 0, 0, "stopped in stopm, sleeping on its note, on the idle M list"},
			{"spinning", "spinning", 2, 0, "holds a P but no G: looking for work to steal"},
			{"running", "running", 2, 2.4, "holds a P and runs a G"},
			{"syscall", "syscall", 0, 2.4, "blocked in a G's system call, its P left behind"},
		},
		Edges: []Edge{
			{"idle", "spinning", []string{"startm"}},
			{"idle", "running", []string{"startm"}},
			{"spinning", "running", []string{"resetspinning"}},
			{"running", "spinning", []string{"findRunnable"}},
			{"spinning", "idle", []string{"stopm"}},
			{"running", "syscall", []string{"entersyscall"}},
			{"syscall", "running", []string{"exitsyscall"}},
			{"syscall", "idle", []string{"exitsyscall0"}},
		},
	},
}

// MachineNames lists the machines' names, sorted.
func MachineNames() []string {
	var names []string
	for n := range Machines {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// SVG draws the machine: states as boxes, transitions as curved arrows
// labelled with the functions that make them.
func (m *Machine) SVG() string {
	const (
		cellW, cellH = 170.0, 64.0
		boxW, boxH   = 96.0, 30.0
		pad          = 40.0
		padX         = 120.0 // room for labels beside the outer boxes
	)
	pos := map[string][2]float64{}
	maxX, maxY := 0.0, 0.0
	for _, s := range m.States {
		x, y := padX+s.Col*cellW+boxW/2, pad+s.Row*cellH+boxH/2
		pos[s.Name] = [2]float64{x, y}
		maxX, maxY = math.Max(maxX, x), math.Max(maxY, y)
	}
	w, h := maxX+boxW/2+padX, maxY+boxH/2+pad
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="statemachine" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" aria-label="%s">`+"\n", w, h, w, h, esc(m.Title))
	fmt.Fprintf(&b, `<defs><marker id="sm-%s-arrow" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0 L8,4 L0,8 z" class="sm-head"/></marker></defs>`+"\n", m.Name)
	for _, e := range m.Edges {
		a, z := pos[e.From], pos[e.To]
		// Leave the boxes at their borders; bend each arrow to its right
		// so that a pair of opposite arrows do not overlap.
		dx, dy := z[0]-a[0], z[1]-a[1]
		d := math.Hypot(dx, dy)
		ux, uy := dx/d, dy/d
		nx, ny := uy, -ux
		bend := 26.0
		sx, sy := clip(a, ux, uy, boxW, boxH)
		ex, ey := clip(z, -ux, -uy, boxW, boxH)
		cx, cy := (sx+ex)/2+nx*bend, (sy+ey)/2+ny*bend
		at := 0.5
		if v, ok := m.LabelAt[e.From+">"+e.To]; ok {
			at = v
		}
		// the point of the quadratic Bézier curve at parameter at
		lx := (1-at)*(1-at)*sx + 2*(1-at)*at*cx + at*at*ex
		ly := (1-at)*(1-at)*sy + 2*(1-at)*at*cy + at*at*ey
		// The label sits on the outer side of the bend, so that the labels
		// of a pair of opposite arrows do not overlap.
		anchor := "middle"
		switch {
		case nx > 0.5:
			anchor, lx = "start", lx+4
		case nx < -0.5:
			anchor, lx = "end", lx-4
		case ny > 0:
			ly += 8
		default:
			ly -= 4
		}
		label := strings.Join(e.Funcs, ", ")
		fmt.Fprintf(&b, `<g class="sm-edge"><path d="M%.1f,%.1f Q%.1f,%.1f %.1f,%.1f" marker-end="url(#sm-%s-arrow)"/><text x="%.1f" y="%.1f" text-anchor="%s">%s</text><title>%s → %s: %s</title></g>`+"\n",
			sx, sy, cx, cy, ex, ey, m.Name, lx, ly+4, anchor, esc(label), esc(m.label(e.From)), esc(m.label(e.To)), esc(label))
	}
	for _, s := range m.States {
		p := pos[s.Name]
		fmt.Fprintf(&b, `<g class="sm-state"><rect x="%.1f" y="%.1f" width="%.0f" height="%.0f" rx="8"/><text x="%.1f" y="%.1f">%s</text><title>%s: %s</title></g>`+"\n",
			p[0]-boxW/2, p[1]-boxH/2, boxW, boxH, p[0], p[1]+5, esc(s.Label), esc(s.Name), esc(s.About))
	}
	b.WriteString("</svg>")
	return b.String()
}

func (m *Machine) label(name string) string {
	for _, s := range m.States {
		if s.Name == name {
			return s.Label
		}
	}
	return name
}

// clip returns where the ray from the centre c in direction (ux, uy)
// leaves a w×h box around c.
func clip(c [2]float64, ux, uy, w, h float64) (float64, float64) {
	t := math.Inf(1)
	if ux != 0 {
		t = math.Min(t, (w/2)/math.Abs(ux))
	}
	if uy != 0 {
		t = math.Min(t, (h/2)/math.Abs(uy))
	}
	return c[0] + ux*(t+2), c[1] + uy*(t+2)
}
