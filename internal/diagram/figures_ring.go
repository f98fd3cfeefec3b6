package diagram

import (
	"fmt"
	"strings"

	sched "github.com/gmp-kata/gmp-kata/solutions"
)

// The run queue figures: ring, ring-steal and runnext. Each is a column of
// panels, one per step, and each panel shows a P's ring (a window of its
// 256 slots, with head and tail) as the reference's own functions left it,
// run on a sched.Lab. What moved since the panel before (a counter,
// runnext) is drawn in colour.

func init() {
	addFigure(&Figure{
		Name:    "ring",
		Title:   "A P's run queue ring: three puts and a get, with head and tail wrapping past 2³²−1",
		Caption: "Four calls on a P's ring whose counters start just below 2³². Follow the two counters: the tail moves on each put, the head on the get; the tail passes 4294967295 and wraps to 0, the slot index wraps from 255 to 0 with it, and tail − head, computed in uint32, still counts the queued Gs. A taken G stays in its slot (greyed): only the counters say what is queued.",
		draw:    drawRing,
	})
	addFigure(&Figure{
		Name:    "ring-steal",
		Title:   "A steal: P1 copies the older half of P0's ring past its own tail, CASes P0's head, then publishes with one store of its tail",
		Caption: "P1 steals from P0, one step per panel. Look at which counter moves in each: none while the Gs are copied (into P1's slots past its tail, dashed, which nobody reads), P0's head at the CAS, P1's tail once, at the end.",
		Orders:  []Order{stealOrder},
		draw:    drawRingSteal,
	})
	addFigure(&Figure{
		Name:    "runnext",
		Title:   "runnext: a new G takes the slot and kicks the old one to the ring's tail; a thief takes runnext only on its last pass",
		Caption: "runnext sits in front of P0's ring. Watch G1: it is kicked from runnext to the ring by G2, and stolen from there; G2 stays in runnext until the thief's last pass.",
		draw:    drawRunnext,
	})
}

// The calls of the reference whose order ring-steal draws. Their effects
// on the picture are in drawRingSteal.
var (
	stealCopy    = []string{"runqgrab(p2, &pp.runq, t, stealRunNextG)", "batch[(batchHead+i)%uint32(len(batch))].Store(gp)"}
	stealCAS     = []string{"runqgrab(p2, &pp.runq, t, stealRunNextG)", "pp.runqhead.CompareAndSwap(h, h+n)"}
	stealPublish = []string{"pp.runqtail.Store(t + n)"}
)

// stealOrder is runqsteal's steps, in the order ring-steal draws them.
var stealOrder = Order{
	Title:   "runqsteal(P1, P0)",
	Threads: []string{"P1's M"},
	Steps: []Step{
		{Text: "copy the older half past P1's tail", Code: Code{Func: "runqsteal", Calls: stealCopy}},
		{Text: "CAS P0's head", Code: Code{Func: "runqsteal", Calls: stealCAS}},
		{Text: "store P1's tail, once", Code: Code{Func: "runqsteal", Calls: stealPublish, Once: true}},
	},
}

// stealPasses is stealWork's number of passes over the Ps (stealTries);
// runnext may be stolen on the last only. figures_code_test.go checks it.
const stealPasses = 4

// A strip is one P's run queue as a panel draws it.
type strip struct {
	label   string
	q       sched.RunqState
	prev    *sched.RunqState // the same P in the panel before, to colour what moved
	from    uint32           // the slot drawn first
	slots   int              // how many are drawn
	pending uint32           // slots past the tail written but not published
	runnext bool             // draw runnext in front of the ring
	kicked  bool             // draw the kick from runnext to the slot before the tail
}

// A panel is one step: what happened, and the run queues after it.
type panel struct {
	caption string
	count   string // the arithmetic of the queue's length, in code font
	strips  []strip
	note    string // who runs what now
}

// ringStart is where the ring figure's counters start: two puts before
// they wrap.
const ringStart = 1<<32 - 2

func drawRing(f *Figure) []string {
	lab := sched.NewLab(1)
	lab.SetRing(0, ringStart)
	var panels []panel
	prev := lab.Runq(0)
	show := func(caption, note string) {
		q := lab.Runq(0)
		p := prev
		if len(panels) > 0 {
			caption = fmt.Sprintf("%d. %s", len(panels), caption)
		}
		panels = append(panels, panel{caption: caption, count: count(q), note: note,
			strips: []strip{{label: "P0", q: q, prev: &p, from: 252, slots: 8}}})
		prev = q
	}
	show(fmt.Sprintf("An empty ring: head = tail = %d, which is slot %d (%d %% 256).", prev.Head, prev.Head%256, prev.Head), "")
	for id := int64(1); id <= 3; id++ {
		old := lab.Runq(0)
		lab.Runqput(0, id, false)
		q := lab.Runq(0)
		c := fmt.Sprintf("runqput(G%d): G%d into slot %d, then the tail moves to %d", id, id, old.Tail%256, q.Tail)
		if q.Tail < old.Tail {
			c += ": past 2³²−1 it wraps to 0"
		}
		c += "."
		if old.Tail%256 == 0 {
			c += " The slot index wraps with it: 2³² is a multiple of 256."
		}
		show(c, "")
	}
	old := lab.Runq(0)
	id, _ := lab.Runqget(0)
	q := lab.Runq(0)
	show(fmt.Sprintf("runqget: reads G%d in slot %d, then CASes the head to %d. Slot %d keeps G%d (grey), but it is outside head…tail: free.",
		id, old.Head%256, q.Head, old.Head%256, id), fmt.Sprintf("P0 runs G%d", id))
	return []string{drawPanels(f, panels)}
}

// count is how many Gs the ring holds, as the code computes it.
func count(q sched.RunqState) string {
	if q.Tail < q.Head {
		return fmt.Sprintf("tail − head = %d − %d = %d (uint32)", q.Tail, q.Head, q.Tail-q.Head)
	}
	return fmt.Sprintf("tail − head = %d − %d = %d", q.Tail, q.Head, q.Tail-q.Head)
}

func drawRingSteal(f *Figure) []string {
	// P1 has run two Gs (G7, G8): its ring is empty, its counters at 2.
	lab := sched.NewLab(2)
	for id := int64(1); id <= 6; id++ {
		lab.Runqput(0, id, false)
	}
	lab.Runqput(1, 7, false)
	lab.Runqput(1, 8, false)
	lab.Runqget(1)
	lab.Runqget(1)
	v0, t0 := lab.Runq(0), lab.Runq(1)
	ran, _ := lab.Runqsteal(1, 0, false)
	v1, t1 := lab.Runq(0), lab.Runq(1)
	n := v1.Head - v0.Head // Gs taken

	// The state between the steps: only one of the real call's changes
	// made, in the order the Order says.
	victim, thief := v0, t0
	strips := func(pending uint32, pv, pt sched.RunqState) []strip {
		return []strip{
			{label: "P0", q: victim, prev: &pv, from: 0, slots: 8},
			{label: "P1", q: thief, prev: &pt, from: 0, slots: 8, pending: pending},
		}
	}
	panels := []panel{{
		caption: fmt.Sprintf("P0 holds %d Gs. P1 has run all of its own: its ring is empty, head = tail = %d (slots 0 and 1 still hold the Gs it ran).", v0.Tail-v0.Head, t0.Tail),
		strips:  strips(0, victim, thief),
	}}
	var pending uint32
	for i, s := range stealOrder.Steps {
		pv, pt := victim, thief
		var c, note string
		switch last := s.Code.Calls[len(s.Code.Calls)-1]; last {
		case stealCopy[1]:
			thief.Slots = t1.Slots
			pending = n
			c = fmt.Sprintf("runqgrab reads P0's head %d and tail %d and copies the oldest n − n/2 = %d (%s) into P1's slots %d–%d, past P1's tail: nobody reads there, so nothing is published yet.",
				v0.Head, v0.Tail, n, gRange(v0, v0.Head, n), t0.Tail%256, (t0.Tail+n-1)%256)
		case stealCAS[1]:
			victim = v1
			c = fmt.Sprintf("CAS of P0's head %d → %d: %s are P1's now. Had the CAS failed (P0's runqget, or another thief, got there first), P1 would drop its copy and start over.",
				v0.Head, v1.Head, gRange(v0, v0.Head, n))
		case stealPublish[0]:
			thief.Head, thief.Tail = t1.Head, t1.Tail
			pending = 0
			c = fmt.Sprintf("One store of P1's tail %d → %d publishes %s. P1 runs G%d, the last copied (slot %d): nothing had to move.",
				t0.Tail, t1.Tail, gRange(t1, t0.Tail, t1.Tail-t0.Tail), ran, (t0.Tail+n-1)%256)
			note = fmt.Sprintf("P1 runs G%d", ran)
		default:
			panic("diagram: ring-steal has no picture for the step " + last)
		}
		panels = append(panels, panel{caption: fmt.Sprintf("%d. %s", i+1, c), strips: strips(pending, pv, pt), note: note})
	}
	if victim != v1 || thief != t1 {
		panic("diagram: ring-steal's last panel is not the state runqsteal left")
	}
	return []string{drawPanels(f, panels)}
}

// gRange names the n Gs of q's slots from counter from on: "G1–G3".
func gRange(q sched.RunqState, from, n uint32) string {
	first, last := q.Slots[from%256], q.Slots[(from+n-1)%256]
	switch n {
	case 1:
		return fmt.Sprintf("G%d", first)
	case 2:
		return fmt.Sprintf("G%d and G%d", first, last)
	}
	return fmt.Sprintf("G%d–G%d", first, last)
}

func drawRunnext(f *Figure) []string {
	lab := sched.NewLab(2)
	var panels []panel
	prev := lab.Runq(0)
	show := func(caption, note string) {
		q := lab.Runq(0)
		p := prev
		kicked := q.Tail != p.Tail
		panels = append(panels, panel{caption: fmt.Sprintf("%d. %s", len(panels)+1, caption), note: note,
			strips: []strip{{label: "P0", q: q, prev: &p, from: 0, slots: 6, runnext: true, kicked: kicked}}})
		prev = q
	}
	lab.Runqput(0, 1, true)
	show("go G1: runqput(G1, next) puts G1 in runnext.", "")
	lab.Runqput(0, 2, true)
	show("go G2: G2 takes runnext, and G1, displaced, is kicked to the tail of the ring.", "")
	got, _ := lab.Runqsteal(1, 0, false)
	show(fmt.Sprintf("P1 steals, pass 1 of %d: P0's ring is not empty, so P1 takes half of it (G%d) and leaves runnext alone.", stealPasses, got), fmt.Sprintf("P1 runs G%d", got))
	if g, _ := lab.Runqsteal(1, 0, false); g != 0 {
		panic("diagram: runnext stolen before the last pass")
	}
	show("The passes before the last: the ring is empty and runnext is off limits: nothing to take.", "")
	got, _ = lab.Runqsteal(1, 0, true)
	show(fmt.Sprintf("Pass %d, the last: now a thief may take runnext, from an empty ring only (after backing off 3 µs if P0 is running). P1 takes G%d.", stealPasses, got), fmt.Sprintf("P1 runs G%d", got))
	return []string{drawPanels(f, panels)}
}

// Sizes of a strip.
const (
	stripLabelW = 40.0 // the P's name
	slotW       = 34.0
	slotH       = 28.0
	ellW        = 16.0 // the "…" of the slots not drawn
	nextW       = 50.0 // runnext
	stripH      = 89.0
	stripGap    = 8.0
	panelGap    = 16.0
)

// drawPanels draws panels one under the other.
func drawPanels(f *Figure, panels []panel) string {
	var body strings.Builder
	y := 10.0
	for i, p := range panels {
		if i > 0 {
			fmt.Fprintf(&body, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" class="fg-rule"/>`+"\n", figPad, y-panelGap/2, figureWidth-figPad, y-panelGap/2)
		}
		lines := wrap(p.caption, figureWidth-2*figPad, textSize)
		textLines(&body, figPad, y+textSize, "fg-caption", "start", lines)
		y += float64(len(lines)) * lineHeight
		if p.count != "" {
			fmt.Fprintf(&body, `<text x="%.1f" y="%.1f" class="fg-count">%s</text>`+"\n", figPad, y+smallSize+2, esc(p.count))
			y += lineHeight + 2
		}
		y += 6
		for i, s := range p.strips {
			if i > 0 {
				y += stripGap
			}
			drawStrip(&body, s, y)
			y += stripH
		}
		if p.note != "" {
			fmt.Fprintf(&body, `<text x="%.1f" y="%.1f" class="fg-runs" text-anchor="end">%s</text>`+"\n", figureWidth-figPad, y-4, esc(p.note))
			y += 10
		}
		y += panelGap
	}
	var b strings.Builder
	svgOpen(&b, f.Name, f.Title, y-panelGap+6)
	b.WriteString(body.String())
	b.WriteString("</svg>")
	return b.String()
}

// drawStrip draws one P's run queue with its top at y: head above the
// slots, tail below, runnext in front if asked.
func drawStrip(b *strings.Builder, s strip, y float64) {
	q := s.q
	slotsY := y + 35
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" class="fg-p">%s</text>`+"\n", figPad, slotsY+slotH/2+5, esc(s.label))
	x0 := figPad + stripLabelW
	moved := func(what string) string {
		if s.prev == nil {
			return ""
		}
		switch what {
		case "head":
			if s.prev.Head != q.Head {
				return " fg-moved"
			}
		case "tail":
			if s.prev.Tail != q.Tail {
				return " fg-moved"
			}
		case "next":
			if s.prev.Next != q.Next {
				return " fg-moved"
			}
		}
		return ""
	}
	if s.runnext {
		cls, label := "fg-slot", ""
		if q.Next != 0 {
			cls, label = "fg-slot fg-queued", fmt.Sprintf("G%d", q.Next)
		}
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" class="fg-index%s">runnext</text>`+"\n", x0+nextW/2, slotsY-5, moved("next"))
		fmt.Fprintf(b, `<g class="%s%s"><rect x="%.1f" y="%.1f" width="%.0f" height="%.0f" rx="4"/><text x="%.1f" y="%.1f">%s</text><title>runnext: %s</title></g>`+"\n",
			cls, moved("next"), x0, slotsY, nextW, slotH, x0+nextW/2, slotsY+slotH/2+4, label, orNone(label))
		x0 += nextW + 14
	}
	// The slots not drawn, either side: the ring goes on.
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" class="fg-ell">…</text>`+"\n", x0+ellW/2, slotsY+slotH/2+4)
	x0 += ellW
	slotX := func(i int) float64 { return x0 + float64(i)*slotW }
	headAt, tailAt := -1, -1
	for i := 0; i < s.slots; i++ {
		slot := (s.from + uint32(i)) % 256
		id := q.Slots[slot]
		queued := (slot-q.Head)%256 < q.Tail-q.Head
		pending := (slot-q.Tail)%256 < s.pending
		cls, what := "fg-slot", "empty"
		switch {
		case queued:
			cls, what = "fg-slot fg-queued", "queued"
		case pending:
			cls, what = "fg-slot fg-pending", "written past the tail, not yet published"
		case id != 0:
			cls, what = "fg-slot fg-stale", "free (holds a G already taken)"
		}
		label := ""
		if id != 0 {
			label = fmt.Sprintf("G%d", id)
		}
		x := slotX(i)
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" class="fg-index">%d</text>`+"\n", x+slotW/2, slotsY-5, slot)
		fmt.Fprintf(b, `<g class="%s"><rect x="%.1f" y="%.1f" width="%.0f" height="%.0f"/><text x="%.1f" y="%.1f">%s</text><title>slot %d: %s%s</title></g>`+"\n",
			cls, x, slotsY, slotW, slotH, x+slotW/2, slotsY+slotH/2+4, label, slot, what, orEmpty(label))
		if slot == q.Head%256 {
			headAt = i
		}
		if slot == q.Tail%256 {
			tailAt = i
		}
	}
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" class="fg-ell">…</text>`+"\n", slotX(s.slots)+ellW/2, slotsY+slotH/2+4)
	if s.kicked {
		// From under runnext to under the slot the kicked G went to.
		at := int((q.Tail - 1 - s.from) % 256)
		x1, x2, yb := figPad+stripLabelW+nextW/2, slotX(at)+slotW/2-6, slotsY+slotH
		fmt.Fprintf(b, `<g class="fg-kick"><path d="M%.1f,%.1f C%.1f,%.1f %.1f,%.1f %.1f,%.1f"/><path d="M%.1f,%.1f l-4,6 h8 z" class="fg-kick-head"/><text x="%.1f" y="%.1f">kicked</text></g>`+"\n",
			x1, yb+2, x1, yb+18, x2, yb+18, x2, yb+8, x2, yb+2, (x1+x2)/2, yb+27)
	}
	// head points down at its slot from above, tail up from below.
	pointer := func(at int, name string, v uint32, down bool) {
		if at < 0 {
			panic(fmt.Sprintf("diagram: %s %d is outside the slots drawn", name, v))
		}
		cx := slotX(at) + slotW/2
		label := fmt.Sprintf("%s %d", name, v)
		w := float64(len(label)) * smallSize * monoWidth
		tx := min(max(cx, figPad+stripLabelW+w/2), figureWidth-figPad-w/2)
		if down {
			fmt.Fprintf(b, `<g class="fg-ptr%s"><text x="%.1f" y="%.1f">%s</text><path d="M%.1f,%.1f l-4,-6 h8 z"/></g>`+"\n", moved(name), tx, y+10, label, cx, y+19)
			return
		}
		fmt.Fprintf(b, `<g class="fg-ptr%s"><path d="M%.1f,%.1f l-4,6 h8 z"/><text x="%.1f" y="%.1f">%s</text></g>`+"\n", moved(name), cx, slotsY+slotH+2, tx, slotsY+slotH+20, label)
	}
	pointer(headAt, "head", q.Head, true)
	pointer(tailAt, "tail", q.Tail, false)
}

func orNone(s string) string {
	if s == "" {
		return "empty"
	}
	return s
}

func orEmpty(s string) string {
	if s == "" {
		return ""
	}
	return ", " + s
}
