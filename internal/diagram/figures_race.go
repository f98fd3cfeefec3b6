package diagram

import (
	"fmt"
	"strings"
)

// The race figures: park-race and spin-dance. Each is two timelines, the
// order that loses a wake-up beside the order the reference uses; in each,
// a lane per thread, time going down, and between the lanes the shared
// state the race is about. Every step names the call of the reference that
// makes it (its hover text), and figures_code_test.go checks the order of
// those calls against the reference's source.

func init() {
	addFigure(&Figure{
		Name:    "park-race",
		Title:   "The park race: unlocking the channel before the G is waiting lets a waker ready a running G; gopark marks it waiting first and unlocks last",
		Caption: "G2 blocks receiving on c while G3, on another M, sends to it. In red, a G that unlocks and then parks: G3 finds G2 in the queue while it is still running. In green, the reference: the lock is released by park_m, on the M, after G2's status is waiting, so G3 can only find a parked G. Each step's tooltip names the call of the reference that makes it.",
		Orders:  []Order{parkWrong, parkRight},
		draw:    drawRaces,
	})
	addFigure(&Figure{
		Name:    "spin-dance",
		Title:   "The spinning M's dance: looking before dropping nmspinning loses a wake-up; dropping it and then looking again does not",
		Caption: "M2 is the only spinning M and is giving up; G1 readies G5 at the worst moment, and its wakep sees nmspinning = 1 and leaves G5 to M2. In red, M2 looks and then drops nmspinning: G5 is stranded. In green, findRunnable drops nmspinning and then looks again, and finds G5. Each step's tooltip names the call of the reference that makes it.",
		Orders:  []Order{spinWrong, spinRight},
		draw:    drawRaces,
	})
}

// The receiver's and the sender's calls, shared by both park orders.
var (
	recvLock    = Code{Func: "Chan.Recv", Calls: []string{"c.lock.Lock()"}}
	recvEnqueue = Code{Func: "Chan.Recv", Calls: []string{"c.recvq.enqueue(mysg)"}}
	sendLock    = Code{Func: "Chan.Send", Calls: []string{"c.lock.Lock()"}}
	sendDequeue = Code{Func: "Chan.Send", Calls: []string{"c.recvq.dequeue()"}}
	sendReady   = Code{Func: "Chan.Send", Calls: []string{"goready(gp.m, sg.g)"}}
	parkStatus  = Code{Func: "park_m", Calls: []string{"casgstatus(gp, _Grunning, _Gwaiting)"}}
)

var parkThreads = []string{"G2 receives on c (M0)", "G3 sends on c (M1)"}

var parkWrong = Order{
	Title:   "Unlock, then park: wrong",
	Threads: parkThreads,
	State:   "G2's status",
	Wrong:   true,
	Steps: []Step{
		{Thread: 0, Text: "lock c", State: "running", Code: recvLock},
		{Thread: 0, Text: "no sender: queue G2 on c.recvq", Code: recvEnqueue},
		{Thread: 0, Text: "unlock c, then park", Bad: true, Code: Code{Func: "Chan.Recv", Calls: []string{"c.lock.Unlock()"}}},
		{Thread: 1, Text: "lock c", Code: sendLock},
		{Thread: 1, Text: "find G2 on c.recvq, give it the value", Code: sendDequeue},
		{Thread: 1, Text: "unlock c, goready(G2)", Code: sendReady},
		{Thread: 1, Text: "ready: G2 is running, not waiting!", Bad: true, Code: Code{Func: "ready", Calls: []string{"readgstatus(gp)"}}},
		{Thread: 0, Text: "park: G2 waits, for a wake-up already spent", State: "waiting", Code: parkStatus},
	},
	Outcome: "G3 readies a G that M0 is still running. The reference panics in ready, the runtime throws \"bad g->status in ready\"; without that check, two Ms would run G2, or G2 would park after its wake-up and wait forever.",
}

var parkRight = Order{
	Title:   "gopark: park, then unlock",
	Threads: parkThreads,
	State:   "G2's status",
	Steps: []Step{
		{Thread: 0, Text: "lock c", State: "running", Code: recvLock},
		{Thread: 0, Text: "no sender: queue G2 on c.recvq", Code: recvEnqueue},
		{Thread: 0, Text: "gopark: mcall(park_m); G2 stops, M0 runs park_m", Code: Code{Func: "Chan.Recv", Calls: []string{
			"gopark(gp, parkunlock, unsafe.Pointer(&c.lock), waitReasonChanReceive)", "mcall(gp, park_m)"}}},
		{Thread: 1, Text: "lock c: M0 holds it, wait", Code: sendLock},
		{Thread: 0, Text: "park_m: G2 running → waiting", State: "waiting", Code: parkStatus},
		{Thread: 0, Text: "dropg: M0 lets go of G2", Code: Code{Func: "park_m", Calls: []string{"dropg(mp)"}}},
		{Thread: 0, Text: "unlockf: unlock c", Code: Code{Func: "park_m", Calls: []string{"fn(gp, mp.waitlock)"}}},
		{Thread: 1, Text: "got c: find G2 on c.recvq, give it the value", Code: sendDequeue},
		{Thread: 1, Text: "unlock c, goready(G2)", Code: sendReady},
		{Thread: 1, Text: "ready: G2 into P1's runnext", State: "runnable", Code: Code{Func: "ready", Calls: []string{"casgstatus(gp, _Gwaiting, _Grunnable)"}}},
	},
	Outcome: "Nobody can find G2 until c is unlocked, and by then G2 is waiting and no M runs it: it is readied once, and runs next on P1 with its value.",
}

// The spinner's and the submitter's calls, shared by both spin orders.
var (
	spinSteal   = Code{Func: "findRunnable", Calls: []string{"stealWork(mp)"}}
	spinRelease = Code{Func: "findRunnable", Calls: []string{"releasep(mp)"}}
	spinDrop    = Code{Func: "findRunnable", Calls: []string{"stopSpinning(mp)"}}
	spinLook    = Code{Func: "findRunnable", Calls: []string{"checkRunqsNoP(sched, allpSnapshot, idlepMaskSnapshot)"}}
	submitPut   = Code{Func: "ready", Calls: []string{"runqput(mp.p, gp, next)"}}
	submitWake  = Code{Func: "ready", Calls: []string{"wakep(mp.sched)", "sched.nmspinning.Load()"}}
)

var spinThreads = []string{"M2, spinning on P2", "G1, running on P0"}

var spinWrong = Order{
	Title:   "Look, then drop spinning: wrong",
	Threads: spinThreads,
	State:   "nmspinning",
	Wrong:   true,
	Steps: []Step{
		{Thread: 0, Text: "steal passes: every queue is empty", State: "1", Code: spinSteal},
		{Thread: 0, Text: "release P2", Code: spinRelease},
		{Thread: 0, Text: "look at every P's queue: empty", Code: spinLook},
		{Thread: 1, Text: "ready(G5): G5 onto P0's queue", Code: submitPut},
		{Thread: 1, Text: "wakep: nmspinning is 1, someone is looking: return", Bad: true, Code: submitWake},
		{Thread: 0, Text: "drop spinning", State: "0", Code: spinDrop},
		{Thread: 0, Text: "park (stopm)", Bad: true, Code: Code{Func: "findRunnable", Calls: []string{"stopm(mp)"}}},
	},
	Outcome: "G5 waits on P0's queue beside idle Ps, and nobody is coming: each side read before the other wrote.",
}

var spinRight = Order{
	Title:   "findRunnable: drop spinning, then look again",
	Threads: spinThreads,
	State:   "nmspinning",
	Steps: []Step{
		{Thread: 0, Text: "steal passes: every queue is empty", State: "1", Code: spinSteal},
		{Thread: 0, Text: "release P2", Code: spinRelease},
		{Thread: 1, Text: "ready(G5): G5 onto P0's queue", Code: submitPut},
		{Thread: 1, Text: "wakep: nmspinning is 1, someone is looking: return", Code: submitWake},
		{Thread: 0, Text: "drop spinning", State: "0", Code: spinDrop},
		{Thread: 0, Text: "look again: the global queue", Code: Code{Func: "findRunnable", Calls: []string{"sched.runq.empty()"}}},
		{Thread: 0, Text: "look again: every P's queue; G5 is on P0", Code: spinLook},
		{Thread: 0, Text: "take an idle P, spin again, steal G5", State: "1", Code: Code{Func: "findRunnable", Calls: []string{"acquirep(mp, pp)"}}},
	},
	Outcome: "M2 finds G5 itself. Had G1 queued G5 after the drop, its wakep would have seen 0 and started an M: either way, G5 runs.",
}

// Sizes of a race's timeline.
const (
	laneW   = 148.0
	stateW  = 68.0
	stepPad = 5.0
	stepGap = 6.0
)

// drawRaces draws each of the figure's orders as its own timeline.
func drawRaces(f *Figure) []string {
	var out []string
	for _, o := range f.Orders {
		out = append(out, drawRace(f, o))
	}
	return out
}

// drawRace draws one order: a title, a lane per thread with the shared
// state between them, a box per step in its lane's column, one row per
// step, and the outcome.
func drawRace(f *Figure, o Order) string {
	laneX := [2]float64{figPad, figPad + laneW + stateW}
	stateX := figPad + laneW + stateW/2
	var body strings.Builder
	y := 6.0
	verdict, kind := "fg-good", "the reference's order"
	if o.Wrong {
		verdict, kind = "fg-bad", "a wrong order"
	}
	title := wrap(o.Title, figureWidth-2*figPad, 13)
	textLines(&body, figPad, y+13, "fg-title "+verdict, "start", title)
	y += float64(len(title))*lineHeight + 8
	for t, name := range o.Threads {
		textLines(&body, laneX[t]+laneW/2, y+smallSize, "fg-lane-title", "middle", wrap(name, laneW, smallSize))
	}
	textLines(&body, stateX, y+smallSize, "fg-state-title", "middle", wrap(o.State, stateW, smallSize))
	y += 2*lineHeight + 4
	top := y
	var steps strings.Builder
	for _, s := range o.Steps {
		lines := wrap(s.Text, laneW-2*stepPad-4, smallSize)
		h := float64(len(lines))*14 + 2*stepPad
		cls := "fg-step"
		if s.Bad {
			cls += " fg-bad"
		}
		x := laneX[s.Thread]
		fmt.Fprintf(&steps, `<g class="%s"><rect x="%.1f" y="%.1f" width="%.0f" height="%.0f" rx="6"/>`, cls, x, y, laneW, h)
		for i, l := range lines {
			fmt.Fprintf(&steps, `<text x="%.1f" y="%.1f">%s</text>`, x+stepPad+2, y+stepPad+smallSize+float64(i)*14, esc(l))
		}
		fmt.Fprintf(&steps, "<title>%s</title></g>\n", esc(s.Code.String()))
		if s.State != "" {
			fmt.Fprintf(&steps, `<text x="%.1f" y="%.1f" class="fg-state">%s</text>`+"\n", stateX, y+h/2+4, esc(s.State))
		}
		y += h + stepGap
	}
	// The lanes' time lines go behind the steps, down to an arrowhead.
	for _, x := range laneX {
		cx := x + laneW/2
		fmt.Fprintf(&body, `<g class="fg-lane"><line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/><path d="M%.1f,%.1f l-4,-7 h8 z"/></g>`+"\n", cx, top-4, cx, y+2, cx, y+9)
	}
	body.WriteString(steps.String())
	y += 14
	lines := wrap(o.Outcome, figureWidth-2*figPad-16, smallSize)
	h := float64(len(lines))*14 + 12
	fmt.Fprintf(&body, `<g class="fg-outcome %s"><rect x="%.1f" y="%.1f" width="%.0f" height="%.0f" rx="6"/>`, verdict, figPad, y, figureWidth-2*figPad, h)
	for i, l := range lines {
		fmt.Fprintf(&body, `<text x="%.1f" y="%.1f">%s</text>`, figPad+8, y+6+smallSize+float64(i)*14, esc(l))
	}
	body.WriteString("</g>\n")
	y += h + 6

	var b strings.Builder
	svgOpen(&b, f.Name, o.Title+" ("+kind+")", y)
	b.WriteString(body.String())
	b.WriteString("</svg>")
	return b.String()
}
