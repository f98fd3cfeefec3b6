package diagram

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/figures/*.svg")

// TestFiguresGolden compares each figure with testdata/figures/NAME.svg:
// a figure is the same bytes every time it is drawn, and a change to one
// shows up in review as a diff.
func TestFiguresGolden(t *testing.T) {
	for _, name := range FigureNames() {
		got := Figures[name].SVG()
		require.Equal(t, got, Figures[name].SVG(), "%s is not the same twice", name)
		golden := filepath.Join("testdata", "figures", name+".svg")
		if *update {
			require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
			require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
			continue
		}
		want, err := os.ReadFile(golden)
		require.NoError(t, err, "no golden file (run go test ./internal/diagram -run TestFiguresGolden -update)")
		require.Equal(t, string(want), got, "%s differs from %s (if the change is right: go test ./internal/diagram -run TestFiguresGolden -update)", name, golden)
	}
}

// TestFiguresAreAccessible: every <svg> of every figure is an image with a
// name for screen readers, and as wide as a phone's column allows; every
// figure has a caption.
func TestFiguresAreAccessible(t *testing.T) {
	require.Subset(t, FigureNames(), []string{"ring", "ring-steal", "runnext", "park-race", "spin-dance"})
	open := regexp.MustCompile(`<svg class="figure" data-figure="([\w-]+)" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 (\d+) \d+" width="(\d+)" height="\d+" role="img" aria-label="([^"]+)"><title>([^<]+)</title>`)
	for _, name := range FigureNames() {
		f := Figures[name]
		assert.NotEmpty(t, f.Caption, "%s has no caption", name)
		svg := f.SVG()
		n := strings.Count(svg, "<svg ")
		found := open.FindAllStringSubmatch(svg, -1)
		require.Len(t, found, n, "%s: every <svg> opens with its class, size, role, aria-label and <title>", name)
		for _, m := range found {
			assert.Equal(t, name, m[1])
			assert.Equal(t, "380", m[2], "%s: width", name)
			assert.Equal(t, m[4], m[5], "%s: the <title> says what the aria-label says", name)
		}
	}
}

// panels splits a column of panels at the rules between them.
func panels(svg string) []string { return strings.Split(svg, `class="fg-rule"`) }

var movedRE = regexp.MustCompile(`(?s)<g class="fg-ptr fg-moved">.*?>((?:head|tail) \d+)</text>`)

// moved lists the counters a panel draws as moved, with their new values.
func moved(panel string) []string {
	var out []string
	for _, m := range movedRE.FindAllStringSubmatch(panel, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestRingFigure: the panels show what runqput and runqget did to a ring
// whose counters start at 2³²−2: the tail moves on each put and wraps to 0,
// the slot index wraps with it, the head moves on the get, and tail − head
// still counts the Gs.
func TestRingFigure(t *testing.T) {
	p := panels(Figures["ring"].SVG())
	require.Len(t, p, 5)
	want := []struct {
		moved []string
		has   []string
	}{
		{nil, []string{"tail − head = 4294967294 − 4294967294 = 0", "head 4294967294", "tail 4294967294"}},
		{[]string{"tail 4294967295"}, []string{"<title>slot 254: queued, G1</title>", "tail − head = 4294967295 − 4294967294 = 1"}},
		{[]string{"tail 0"}, []string{"wraps to 0", "<title>slot 255: queued, G2</title>", "tail − head = 0 − 4294967294 = 2 (uint32)"}},
		{[]string{"tail 1"}, []string{"<title>slot 0: queued, G3</title>", "tail − head = 1 − 4294967294 = 3 (uint32)"}},
		{[]string{"head 4294967295"}, []string{"<title>slot 254: free (holds a G already taken), G1</title>", "tail − head = 1 − 4294967295 = 2 (uint32)", "P0 runs G1"}},
	}
	for i, w := range want {
		assert.Equal(t, w.moved, moved(p[i]), "panel %d: the counters drawn as moved", i)
		for _, s := range w.has {
			assert.Contains(t, p[i], s, "panel %d", i)
		}
	}
}

// TestRingStealFigure: one counter moves per step, in runqsteal's order:
// none while the Gs are copied past P1's tail, P0's head at the CAS, P1's
// tail at the end, once; and P1 runs the last G copied.
func TestRingStealFigure(t *testing.T) {
	p := panels(Figures["ring-steal"].SVG())
	require.Len(t, p, 4)
	pending := "written past the tail, not yet published"
	for i, w := range []struct {
		moved   []string
		pending int
	}{{nil, 0}, {nil, 3}, {[]string{"head 3"}, 3}, {[]string{"tail 4"}, 0}} {
		assert.Equal(t, w.moved, moved(p[i]), "panel %d: the counters drawn as moved", i)
		assert.Equal(t, w.pending, strings.Count(p[i], pending), "panel %d: slots written past P1's tail", i)
	}
	assert.Contains(t, p[1], "<title>slot 2: "+pending+", G1</title>", "the oldest G goes to P1's tail slot")
	assert.Contains(t, p[3], "P1 runs G3")
	assert.Contains(t, p[3], "<title>slot 3: queued, G2</title>")
	assert.Contains(t, p[3], "<title>slot 4: free (holds a G already taken), G3</title>", "the G run stays, unpublished, in the last slot copied")
}

// TestRunnextFigure: runnext takes the new G and the old one is kicked to
// the ring; a thief takes the ring's G first, and runnext only on the last
// pass.
func TestRunnextFigure(t *testing.T) {
	p := panels(Figures["runnext"].SVG())
	require.Len(t, p, 5)
	next := regexp.MustCompile(`<title>runnext: (\w+)</title>`)
	for i, w := range []struct {
		next  string
		moved []string
		has   string
	}{
		{"G1", nil, "puts G1 in runnext"},
		{"G2", []string{"tail 1"}, `<g class="fg-kick">`},
		{"G2", []string{"head 1"}, "P1 runs G1"},
		{"G2", nil, "nothing to take"},
		{"empty", nil, "P1 runs G2"},
	} {
		m := next.FindStringSubmatch(p[i])
		require.NotNil(t, m, "panel %d has no runnext", i)
		assert.Equal(t, w.next, m[1], "panel %d: runnext", i)
		assert.Equal(t, w.moved, moved(p[i]), "panel %d: the counters drawn as moved", i)
		assert.Contains(t, p[i], w.has, "panel %d", i)
	}
	assert.Equal(t, 1, strings.Count(strings.Join(p, ""), "fg-kick\""), "one kick")
}

// TestRaceFigures: each race figure is the wrong order beside the right
// one, every step in a lane the order has, the wrong one ending badly.
func TestRaceFigures(t *testing.T) {
	for _, name := range []string{"park-race", "spin-dance"} {
		f := Figures[name]
		require.Len(t, f.Orders, 2, name)
		assert.True(t, f.Orders[0].Wrong, "%s: the wrong order first", name)
		assert.False(t, f.Orders[1].Wrong, "%s: then the reference's", name)
		svg := f.SVG()
		assert.Equal(t, 2, strings.Count(svg, "<svg "), "%s: a timeline per order", name)
		assert.Equal(t, 1, strings.Count(svg, `class="fg-outcome fg-bad"`), name)
		assert.Equal(t, 1, strings.Count(svg, `class="fg-outcome fg-good"`), name)
		for _, o := range f.Orders {
			require.Len(t, o.Threads, 2, name)
			for _, s := range o.Steps {
				assert.Contains(t, []int{0, 1}, s.Thread, "%s: %q", name, s.Text)
				assert.Contains(t, svg, "<title>"+esc(s.Code.String())+"</title>", "%s: a step's hover names its call", name)
			}
		}
	}
}
