package e2e

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/gmp-kata/gmp-kata/book"
	_ "github.com/gmp-kata/gmp-kata/lessons/all"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The browser tests load the book and a kata trace page in headless
// Chromium (Debian's chromium; .ci/run installs it) and use them as a
// reader would. Screenshots go to $KATA_SCREENSHOTS, or a temporary
// directory.

// chromium finds a Chromium or Chrome to drive, or skips the test saying
// how to get one.
func chromium(t *testing.T) string {
	if p := os.Getenv("KATA_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "no Chromium or Chrome on PATH: install one (Debian: apt-get install chromium) or set KATA_CHROMIUM to its path; .ci/run installs it"
	if os.Getenv("KATA_REQUIRE_BROWSER") != "" {
		t.Fatal(msg + " (KATA_REQUIRE_BROWSER is set, so this is a failure, not a skip)")
	}
	t.Skip(msg)
	return ""
}

// A browser is one headless Chromium tab, recording console errors and
// uncaught exceptions.
type browser struct {
	ctx    context.Context
	mu     sync.Mutex
	errors []string
}

func newBrowser(t *testing.T) *browser {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("allow-file-access-from-files", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	b := &browser{ctx: ctx}
	require.NoError(t, chromedp.Listen(ctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value))
				}
				b.errors = append(b.errors, "console.error: "+strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			b.errors = append(b.errors, "exception: "+ev.ExceptionDetails.Text+describe(ev.ExceptionDetails.Exception))
		}
	}), "starting Chromium")
	return b
}

// do runs steps that return nothing.
func (b *browser) do(t *testing.T, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	require.NoError(t, chromedp.Do(b.ctx, steps...), what)
}

// waitFor evaluates js until it is true, for at most 30 seconds. Across a
// navigation an evaluation may land in the page going away ("Cannot find
// context with specified id", as chromedp.Poll did once): each error is
// one more try, not a failure.
func (b *browser) waitFor(t *testing.T, what, js string) {
	t.Helper()
	var last error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		ok, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](js))
		if err == nil && ok {
			return
		}
		last = err
	}
	t.Fatalf("%s: %s was still not true after 30s (the last try's error: %v)", what, js, last)
}

// get runs one step that returns a value.
func get[T any](t *testing.T, b *browser, what string, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(b.ctx, a)
	require.NoError(t, err, what)
	return v
}

// eval evaluates a JavaScript expression.
func eval[T any](t *testing.T, b *browser, expr string) T {
	t.Helper()
	return get(t, b, expr, chromedp.Evaluate[T](expr))
}

func (b *browser) noErrors(t *testing.T, where string) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	require.Empty(t, b.errors, "the browser reported errors on %s", where)
}

// shot saves a screenshot of the element sel picks as name, and checks
// that it is a picture, not a blank.
func (b *browser) shot(t *testing.T, name, sel string) {
	t.Helper()
	buf := get(t, b, "screenshot "+name, chromedp.Screenshot(chromedp.CSS(sel)))
	b.save(t, name, buf, 0)
}

// screenshot saves a screenshot as name — of the whole page, or of the
// viewport only (a phone's screen) — and checks that it is a real picture
// of the page: a PNG of the viewport's width, not blank.
func (b *browser) screenshot(t *testing.T, name string, width int, whole bool) {
	t.Helper()
	shot := chromedp.CaptureScreenshot()
	if whole {
		shot = chromedp.FullScreenshot(100)
	}
	b.save(t, name, get(t, b, "screenshot "+name, shot), width)
}

// save keeps a screenshot as name and checks that it is a real picture: a
// PNG, width wide (0: any width), not blank.
func (b *browser) save(t *testing.T, name string, buf []byte, width int) {
	t.Helper()
	dir := os.Getenv("KATA_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), buf, 0o644))
	img, err := png.Decode(bytes.NewReader(buf))
	require.NoError(t, err, "%s is not a PNG", name)
	if width > 0 {
		require.InDelta(t, width, img.Bounds().Dx(), float64(width)*0.05, "%s: width", name)
	}
	colors := map[uint32]bool{}
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y && len(colors) < 50; y += 7 {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x += 7 {
			r, g, b, _ := img.At(x, y).RGBA()
			colors[r>>8<<16|g>>8<<8|b>>8] = true
		}
	}
	require.GreaterOrEqual(t, len(colors), 50, "%s looks blank", name)
	t.Logf("screenshot: %s", filepath.Join(dir, name))
}

// TestBookInBrowser opens the built book from file://, as a reader who
// downloaded it would, and uses it: keys, search, theme, a phone.
func TestBookInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser; run without -short")
	}
	t.Parallel() // its own browser and directories; it mostly waits on the browser
	chromium(t)  // no browser: skip before building what it would show
	dir := t.TempDir()
	site, err := book.Build(book.Options{Src: os.DirFS("..")})
	require.NoError(t, err)
	require.NoError(t, site.Write(dir))
	url := func(page string) string { return "file://" + filepath.ToSlash(filepath.Join(dir, page)) }
	b := newBrowser(t)

	b.do(t, "open the index",
		chromedp.EmulateViewport(1280, 800),
		chromedp.Navigate(url("index.html")),
		chromedp.WaitVisible(chromedp.CSS("#sidebar")))
	require.Contains(t, get(t, b, "title", chromedp.Title()), "gmp-kata")
	b.screenshot(t, "book-desktop.png", 1280, true)

	// → turns to the next chapter, ← back.
	next := eval[string](t, b, `document.getElementById("next").href`)
	b.do(t, "press →", chromedp.KeyEvent(kb.ArrowRight), chromedp.WaitVisible(chromedp.CSS("#prev")))
	require.Equal(t, next, get(t, b, "location", chromedp.Location()), "→ should open the next chapter")
	b.do(t, "press ←", chromedp.KeyEvent(kb.ArrowLeft))
	// Until the index is loaded: a search box clicked on the page going
	// away is "Could not find node with given id" (it was, once, after a
	// fixed half second on a loaded machine).
	b.waitFor(t, "← should come back to the index", `location.pathname.endsWith("/index.html") && document.readyState === "complete"`)
	loc := get(t, b, "location", chromedp.Location())

	// Search for runqsteal and land on it.
	b.do(t, "search for runqsteal",
		chromedp.Click(chromedp.CSS("#search")),
		chromedp.SendKeys(chromedp.CSS("#search"), "runqsteal"),
		chromedp.WaitVisible(chromedp.CSS("#search-results a")))
	first := eval[string](t, b, `document.querySelector("#search-results a").href`)
	require.Contains(t, first, "highlight=runqsteal")
	// Clicked by the page's own script, which finds the link afresh: the
	// results may be drawn again between chromedp finding the link and
	// clicking it ("Could not find node with given id", in a CI run).
	b.do(t, "open the first result", chromedp.Evaluate[chromedp.Void](`document.querySelector("#search-results a").click()`), chromedp.WaitVisible(chromedp.CSS("mark.found")))
	loc = get(t, b, "location", chromedp.Location())
	found := eval[string](t, b, `document.querySelector("mark.found").textContent`)
	inView := eval[bool](t, b, `(function(){var r=document.querySelector("mark.found").getBoundingClientRect();return r.top>=0&&r.bottom<=innerHeight;})()`)
	require.Equal(t, "runqsteal", strings.ToLower(found))
	require.True(t, inView || strings.Contains(loc, "#"), "the page should open where runqsteal is")

	// The theme switches, and is remembered on the next page.
	before := eval[string](t, b, `document.documentElement.dataset.theme`)
	b.do(t, "switch the theme", chromedp.Click(chromedp.CSS("#theme-toggle")))
	after := eval[string](t, b, `document.documentElement.dataset.theme`)
	b.do(t, "open the model", chromedp.Navigate(url("model.html")), chromedp.WaitVisible(chromedp.CSS("#sidebar")))
	remembered := eval[string](t, b, `document.documentElement.dataset.theme`)
	require.NotEqual(t, before, after, "the theme button should switch the theme")
	require.Equal(t, after, remembered, "the theme should be remembered across pages")
	b.screenshot(t, "book-model-"+after+".png", 1280, true)

	// A lesson chapter has its generated timeline.
	b.do(t, "open lesson 01", chromedp.Navigate(url("01-ringbuffer.html")), chromedp.WaitVisible(chromedp.CSS("svg.timeline")))
	require.Greater(t, eval[int](t, b, `document.querySelectorAll("svg.timeline .tl-run").length`), 10, "the timeline should show Gs running")
	require.Equal(t, eval[int](t, b, `document.querySelectorAll("article pre").length`), eval[int](t, b, `document.querySelectorAll("article pre button.copy").length`),
		"every code block has a copy button")
	b.do(t, "copy a code block", chromedp.Click(chromedp.CSS("article pre button.copy")))
	copied, err := chromedp.Run(b.ctx, chromedp.Poll[bool](`document.querySelector("article pre button.copy").textContent === "Copied"`,
		chromedp.WithPollingMutation(), chromedp.WithPollingTimeout(10*time.Second)))
	require.NoError(t, err, "the copy button should say it copied")
	require.True(t, copied)
	b.screenshot(t, "book-lesson01.png", 1280, true)

	// Lesson 03's picture shows the global run queue: bars standing on the
	// floor of their own lane, the tallest filling it.
	b.do(t, "open lesson 03", chromedp.Navigate(url("03-globrunqget.html")), chromedp.WaitVisible(chromedp.CSS("svg.timeline .tl-global")))
	global := eval[[]float64](t, b, `(() => {
		const svg = document.querySelector("svg.timeline:has(.tl-global)");
		const label = [...svg.querySelectorAll(".tl-label")].find(l => l.textContent === "global");
		const bars = [...svg.querySelectorAll(".tl-global rect")].map(r => r.getBoundingClientRect());
		// Lanes and their labels are drawn in pairs, in the same order.
		const lr = svg.querySelectorAll(".tl-lane")[[...svg.querySelectorAll(".tl-label")].indexOf(label)].getBoundingClientRect();
		const floor = Math.max(...bars.map(b => b.bottom)), top = Math.min(...bars.map(b => b.top));
		const tallest = Math.max(...bars.map(b => b.height));
		return [bars.length, lr.top, lr.bottom, top, floor, tallest, Math.min(...bars.map(b => b.bottom))];
	})()`)
	require.Len(t, global, 7)
	n, laneTop, laneBottom, barsTop, barsFloor, tallest, lowestFloor := global[0], global[1], global[2], global[3], global[4], global[5], global[6]
	require.Positive(t, n, "the global lane has bars")
	assert.GreaterOrEqual(t, barsTop, laneTop-0.5, "bars stay inside the global lane")
	assert.LessOrEqual(t, barsFloor, laneBottom+0.5, "bars stay inside the global lane")
	assert.InDelta(t, barsFloor, lowestFloor, 0.5, "every bar stands on the lane's floor")
	assert.Greater(t, tallest, (laneBottom-laneTop)*0.8, "the peak fills the lane")

	// On a phone: the table of contents folds away behind the menu button,
	// and nothing is wider than the screen.
	b.do(t, "open the model on a phone",
		chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile),
		chromedp.Navigate(url("model.html")),
		chromedp.WaitVisible(chromedp.CSS("#menu-toggle")))
	require.LessOrEqual(t, eval[float64](t, b, `document.getElementById("sidebar").getBoundingClientRect().right`), 1.0, "on a phone the sidebar starts folded away")
	// A page wider than the phone makes the browser widen its layout
	// viewport (innerWidth) to fit, so measure against the screen.
	require.Equal(t, 390.0, eval[float64](t, b, `innerWidth`),
		"on a phone the page must be as wide as the screen, no wider (wide code and pictures scroll inside their own box)")
	require.LessOrEqual(t, eval[float64](t, b, `document.getElementById("theme-toggle").getBoundingClientRect().right`), 390.0,
		"on a phone the theme button stays on the screen")
	b.screenshot(t, "book-phone.png", 780, false)
	b.do(t, "open the menu", chromedp.Click(chromedp.CSS("#menu-toggle")))
	b.waitFor(t, "the menu button opens the table of contents", `document.getElementById("sidebar").getBoundingClientRect().left >= 0`)
	b.screenshot(t, "book-phone-menu.png", 780, false)

	b.do(t, "open the print page",
		chromedp.EmulateViewport(1280, 800),
		chromedp.Navigate(url("print.html")),
		chromedp.WaitVisible(chromedp.CSS("article")))
	require.Equal(t, len(site.Chapters), eval[int](t, b, `document.querySelectorAll("section.print-chapter").length`), "the print page holds every chapter")
	b.noErrors(t, "the book")
}

// TestCitationNotesInBrowser reads lesson 07, the chapter that cites the
// runtime most, as readers do: on a laptop a note shows when its marker is
// hovered or reached with Tab, and clicking pins it; on a phone a tap opens
// it in the text, on the screen; on paper every note is listed. Each time
// the note's first link is there to be clicked, to the line on GitHub.
func TestCitationNotesInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser; run without -short")
	}
	t.Parallel() // its own browser and directories; it mostly waits on the browser
	chromium(t)  // no browser: skip before building what it would show
	dir := t.TempDir()
	site, err := book.Build(book.Options{Src: os.DirFS("..")})
	require.NoError(t, err)
	require.NoError(t, site.Write(dir))
	url := func(page string) string { return "file://" + filepath.ToSlash(filepath.Join(dir, page)) }
	b := newBrowser(t)

	// probe marks the first marker whose note has two places or more, puts
	// it in the middle of the screen and returns its centre.
	probe := func() []float64 {
		return eval[[]float64](t, b, `(() => {
			const ref = [...document.querySelectorAll(".cite-ref")].find(r => r.querySelectorAll("a.cite").length >= 2);
			ref.querySelector(".cite-mark").id = "probe";
			ref.scrollIntoView({block: "center"});
			const r = ref.querySelector(".cite-mark").getBoundingClientRect();
			return [r.left + r.width/2, r.top + r.height/2];
		})()`)
	}
	// shown says whether the probe's note can be seen, and that its first
	// link is on top where it is drawn, on the screen, and goes to a line of
	// Go 1.26.8's runtime.
	shown := func(width float64) bool {
		t.Helper()
		state := eval[map[string]any](t, b, `(() => {
			const note = document.getElementById("probe").nextElementSibling, a = note.querySelector("a.cite");
			const s = getComputedStyle(note), r = a.getBoundingClientRect(), n = note.getBoundingClientRect();
			const hit = document.elementFromPoint(r.left + Math.min(r.width/2, 20), r.top + r.height/2);
			return {visible: s.display !== "none" && s.visibility === "visible" && s.opacity === "1",
				onTop: !!hit && hit.closest("a.cite") === a, href: a.href, left: n.left, right: n.right,
				below: n.top >= document.getElementById("probe").getBoundingClientRect().bottom - 1,
				pageWidth: document.documentElement.scrollWidth};
		})()`)
		if state["visible"] != true {
			return false
		}
		assert.Equal(t, true, state["onTop"], "the note's link can be clicked where it is drawn")
		assert.Regexp(t, `^https://github\.com/golang/go/blob/go1\.26\.8/src/runtime/[a-z0-9_/]+\.go#L\d+(-L\d+)?$`, state["href"], "the note links a line of the runtime")
		assert.GreaterOrEqual(t, state["left"], 0.0, "the note is on the screen")
		assert.LessOrEqual(t, state["right"], width, "the note is on the screen")
		assert.Equal(t, true, state["below"], "the note opens under its marker")
		assert.LessOrEqual(t, state["pageWidth"], width, "an open note does not widen the page")
		return true
	}
	settle := chromedp.Sleep(600 * time.Millisecond) // the note's fade, and its delay on leaving

	b.do(t, "open lesson 07 on a laptop",
		chromedp.EmulateViewport(1280, 800),
		chromedp.Navigate(url("07-sysmon.html")),
		chromedp.WaitVisible(chromedp.CSS(".cite-mark")))
	at := probe()
	require.False(t, shown(1280), "a note is hidden until its marker is used")
	require.Zero(t, eval[int](t, b, `[...document.querySelectorAll("article p, article li")].filter(e => !e.closest(".cite-list")).filter(e => {
			const c = e.cloneNode(true);
			c.querySelectorAll(".cite-note, code").forEach(n => n.remove());
			return /\b[a-z0-9_]+\.go:\d/.test(c.textContent);
		}).length`),
		"no paragraph shows a citation in its text")

	b.do(t, "hover the marker", chromedp.MouseEvent("mouseMoved", at[0], at[1]), settle)
	require.True(t, shown(1280), "hovering a marker shows its note")
	b.screenshot(t, "cite-07-hover-light.png", 1280, false)
	b.do(t, "move away", chromedp.MouseEvent("mouseMoved", 5, 790), settle)
	require.False(t, shown(1280), "the note goes when the pointer leaves")

	b.do(t, "focus the marker", chromedp.Evaluate[chromedp.Void](`document.getElementById("probe").focus()`), settle)
	require.True(t, shown(1280), "focusing a marker shows its note")
	b.do(t, "Tab into the note", chromedp.KeyEvent(kb.Tab), settle)
	require.True(t, eval[bool](t, b, `document.activeElement === document.getElementById("probe").nextElementSibling.querySelector("a.cite")`),
		"Tab goes from the marker to the note's first link")
	require.True(t, shown(1280), "the note stays while its link has the focus")
	b.do(t, "Tab on", chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent(kb.Tab), settle)
	require.False(t, shown(1280), "the note goes when the focus leaves it")

	b.do(t, "click the marker", chromedp.MouseClickXY(at[0], at[1]), chromedp.MouseEvent("mouseMoved", 5, 790), settle)
	require.True(t, shown(1280), "a click pins the note")
	require.Equal(t, "true", eval[string](t, b, `document.getElementById("probe").getAttribute("aria-expanded")`))
	b.do(t, "click elsewhere", chromedp.MouseClickXY(5, 790), settle)
	require.False(t, shown(1280), "a click elsewhere closes it")

	b.do(t, "dark theme", chromedp.Click(chromedp.CSS("#theme-toggle")), chromedp.Evaluate[chromedp.Void](`document.activeElement.blur()`))
	at = probe()
	b.do(t, "hover the marker", chromedp.MouseEvent("mouseMoved", at[0], at[1]), settle)
	require.True(t, shown(1280))
	b.screenshot(t, "cite-07-hover-dark.png", 1280, false)
	b.do(t, "open the model", chromedp.Navigate(url("model.html")), chromedp.WaitVisible(chromedp.CSS(".cite-mark")))
	at = probe()
	b.do(t, "hover the marker", chromedp.MouseEvent("mouseMoved", at[0], at[1]), settle)
	require.True(t, shown(1280))
	b.screenshot(t, "cite-model-hover-dark.png", 1280, false)
	b.do(t, "light theme", chromedp.Click(chromedp.CSS("#theme-toggle")))
	at = probe()
	b.do(t, "hover the marker", chromedp.MouseEvent("mouseMoved", at[0], at[1]), settle)
	require.True(t, shown(1280))
	b.screenshot(t, "cite-model-hover-light.png", 1280, false)

	// A phone: a tap opens the note in the text, a second tap closes it.
	b.do(t, "open lesson 07 on a phone",
		chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulateTouch),
		chromedp.Navigate(url("07-sysmon.html")),
		chromedp.WaitVisible(chromedp.CSS(".cite-mark")))
	at = probe()
	require.False(t, shown(390))
	require.Empty(t, eval[[]string](t, b, `[...document.querySelectorAll("article .cite-mark")].filter(m =>
		m.getBoundingClientRect().left - m.closest("p, li").getBoundingClientRect().left < 4).map(m =>
		m.closest("p, li").innerHTML.split(m.parentNode.outerHTML)[0].slice(-80))`),
		"no marker wraps to the start of a line, away from its sentence")
	b.screenshot(t, "cite-07-phone-closed.png", 780, false)
	b.do(t, "tap the marker", chromedp.MouseClickXY(at[0], at[1]), settle)
	require.True(t, shown(390), "a tap opens the note")
	require.Equal(t, "static", eval[string](t, b, `getComputedStyle(document.getElementById("probe").nextElementSibling).position`),
		"on a phone the note opens in the text, not over it")
	require.Equal(t, 390.0, eval[float64](t, b, `innerWidth`), "on a phone an open note keeps the page as wide as the screen")
	b.screenshot(t, "cite-07-phone-open.png", 780, false)
	b.do(t, "tap the marker again", chromedp.MouseClickXY(at[0], at[1]), settle)
	require.False(t, shown(390), "a second tap closes it")
	b.do(t, "dark theme", chromedp.Click(chromedp.CSS("#theme-toggle")))
	at = probe()
	b.do(t, "tap the marker", chromedp.MouseClickXY(at[0], at[1]), settle)
	require.True(t, shown(390))
	b.screenshot(t, "cite-07-phone-open-dark.png", 780, false)

	// Paper: the notes are hidden and listed at each chapter's end, one item
	// a marker.
	b.do(t, "print the book",
		chromedp.EmulateViewport(1280, 800),
		chromedp.Click(chromedp.CSS("#theme-toggle")),
		chromedp.Navigate(url("print.html")),
		chromedp.WaitVisible(chromedp.CSS("article")),
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"})
			return err
		}))
	paper := eval[[]int](t, b, `[
		document.querySelectorAll(".cite-mark").length,
		document.querySelectorAll(".cite-list li").length,
		[...document.querySelectorAll(".cite-note")].filter(n => getComputedStyle(n).display !== "none").length,
		[...document.querySelectorAll(".cite-list")].filter(l => getComputedStyle(l).display === "block").length,
		document.querySelectorAll(".cite-list").length]`)
	require.Len(t, paper, 5)
	require.Greater(t, paper[0], 300, "the book's markers")
	require.Equal(t, paper[0], paper[1], "on paper every marker has its item in a list")
	require.Zero(t, paper[2], "on paper no note is drawn over the text")
	require.Equal(t, paper[4], paper[3], "on paper the lists are shown")
	b.do(t, "go to lesson 07's list", chromedp.Evaluate[chromedp.Void](`document.querySelector("#\\30 7-sysmon .cite-list").scrollIntoView()`))
	b.screenshot(t, "cite-print-07-list.png", 1280, false)
	b.do(t, "go to lesson 07's text", chromedp.Evaluate[chromedp.Void](`document.querySelector("#\\30 7-sysmon .cite-ref").closest("p").scrollIntoView()`))
	b.screenshot(t, "cite-print-07-text.png", 1280, false)
	b.noErrors(t, "the book's notes")
}

// TestFiguresInBrowser opens each chapter that has a {{#figure}} on a
// desktop and on a phone, in both themes, and checks each figure as a
// reader sees it: on its page, visible, drawn at nearly full size, every
// text inside the picture and inside its box, no two texts on top of each
// other; a race figure's two timelines side by side on the desktop, one
// under the other on the phone. A figure in a spoiler (<details>) is
// judged opened.
func TestFiguresInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser; run without -short")
	}
	t.Parallel() // its own browser and directories; it mostly waits on the browser
	chromium(t)  // no browser: skip before building what it would show
	dir := t.TempDir()
	site, err := book.Build(book.Options{Src: os.DirFS("..")})
	require.NoError(t, err)
	require.NoError(t, site.Write(dir))
	b := newBrowser(t)
	pages := []struct {
		page    string
		figures []string
		race    bool // two timelines
	}{
		{"01-ringbuffer.html", []string{"ring", "ring-steal"}, false},
		{"02-runnext.html", []string{"runnext"}, false},
		{"05-spinning.html", []string{"spin-dance"}, true},
		{"06-gopark.html", []string{"park-race"}, true},
	}
	for _, screen := range []struct {
		name          string
		width, height int64
		phone         bool
	}{{"desktop", 1280, 800, false}, {"phone", 390, 844, true}} {
		for _, p := range pages {
			view := chromedp.EmulateViewport(screen.width, screen.height)
			if screen.phone {
				view = chromedp.EmulateViewport(screen.width, screen.height, chromedp.EmulateScale(2), chromedp.EmulateMobile)
			}
			b.do(t, "open "+p.page+" on a "+screen.name, view,
				chromedp.Navigate("file://"+filepath.ToSlash(filepath.Join(dir, p.page))),
				// A figure in a spoiler is judged as a reader who opens it sees it.
				chromedp.Evaluate[chromedp.Void](`document.querySelectorAll("details").forEach(d => d.open = true)`),
				chromedp.WaitVisible(chromedp.CSS("figure.figure-figure svg.figure")))
			ids := eval[[]string](t, b, `[...document.querySelectorAll("figure.figure-figure")].map(f => f.id)`)
			var want []string
			for _, f := range p.figures {
				want = append(want, "fig-"+f)
			}
			require.Equal(t, want, ids, "%s: the figures on the page", p.page)
			problems := eval[[]string](t, b, figureProblems)
			assert.Empty(t, problems, "%s on a %s", p.page, screen.name)
			if screen.phone {
				require.Equal(t, 390.0, eval[float64](t, b, `innerWidth`), "%s: on a phone no figure makes the page wider than the screen", p.page)
			}
			if p.race {
				tops := eval[[]float64](t, b, `[...document.querySelectorAll("figure.figure-figure svg.figure")].map(s => s.getBoundingClientRect().top)`)
				require.Len(t, tops, 2, "%s: a race figure is two timelines", p.page)
				if screen.phone {
					assert.Greater(t, tops[1], tops[0]+100, "%s: on a phone the timelines are one under the other", p.page)
				} else {
					assert.InDelta(t, tops[0], tops[1], 0.5, "%s: on a desktop the timelines are side by side", p.page)
				}
			}
			for _, theme := range []string{"light", "dark"} {
				eval[string](t, b, `document.documentElement.dataset.theme = "`+theme+`"`)
				for _, f := range p.figures {
					b.elementShot(t, fmt.Sprintf("figure-%s-%s-%s.png", f, screen.name, theme), "#fig-"+f)
				}
			}
		}
	}
	b.noErrors(t, "the figures' pages")
}

// figureProblems lists what is wrong with the figures of a page, as a
// reader would see it: a figure that is not there or is drawn too small,
// a text that leaves the picture or its box, two texts on top of each
// other.
const figureProblems = `(() => {
	const out = [];
	const inside = (a, b) => a.x >= b.x - 0.5 && a.y >= b.y - 0.5 && a.x + a.width <= b.x + b.width + 0.5 && a.y + a.height <= b.y + b.height + 0.5;
	for (const fig of document.querySelectorAll("figure.figure-figure")) {
		const svgs = [...fig.querySelectorAll("svg.figure")];
		if (!svgs.length) out.push(fig.id + ": no picture");
		if (!fig.querySelector("figcaption")?.textContent.trim()) out.push(fig.id + ": no caption");
		for (const svg of svgs) {
			const r = svg.getBoundingClientRect(), style = getComputedStyle(svg);
			if (style.display === "none" || style.visibility !== "visible" || r.width < 300 || r.height < 100) {
				out.push(fig.id + ": not visible (" + r.width + "x" + r.height + ")");
				continue;
			}
			const vb = svg.viewBox.baseVal;
			if (r.width / vb.width < 0.85) out.push(fig.id + ": drawn at " + (r.width / vb.width).toFixed(2) + " of its size: its text is too small to read");
			const texts = [...svg.querySelectorAll("text")].filter(t => t.textContent.trim() !== "");
			const boxes = texts.map(t => t.getBBox());
			texts.forEach((t, i) => {
				const b = boxes[i];
				if (!inside(b, {x: 0, y: 0, width: vb.width, height: vb.height})) out.push(fig.id + ": '" + t.textContent + "' leaves the picture");
				const rect = t.parentNode.querySelector(":scope > rect");
				if (rect && !inside(b, rect.getBBox())) out.push(fig.id + ": '" + t.textContent + "' leaves its box");
				for (let j = 0; j < i; j++) {
					const o = boxes[j];
					const w = Math.min(b.x + b.width, o.x + o.width) - Math.max(b.x, o.x);
					const h = Math.min(b.y + b.height, o.y + o.height) - Math.max(b.y, o.y);
					if (w > 1 && h > 2) out.push(fig.id + ": '" + t.textContent + "' is drawn over '" + texts[j].textContent + "'");
				}
			});
		}
	}
	return out;
})()`

// elementShot saves a screenshot of the element sel as name and checks
// that it is a picture, not a blank.
func (b *browser) elementShot(t *testing.T, name, sel string) {
	t.Helper()
	buf := get(t, b, "screenshot "+name, chromedp.Screenshot(chromedp.CSS(sel)))
	dir := os.Getenv("KATA_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), buf, 0o644))
	img, err := png.Decode(bytes.NewReader(buf))
	require.NoError(t, err, "%s is not a PNG", name)
	colors := map[uint32]bool{}
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y += 3 {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x += 3 {
			r, g, b, _ := img.At(x, y).RGBA()
			colors[r>>8<<16|g>>8<<8|b>>8] = true
		}
	}
	require.GreaterOrEqual(t, len(colors), 20, "%s looks blank", name)
	t.Logf("screenshot: %s", filepath.Join(dir, name))
}

// TestTracePageInBrowser draws a kata trace page of the reference and
// checks it renders, with hover details and no console errors.
func TestTracePageInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser; run without -short")
	}
	t.Parallel() // its own browser and directories; it mostly waits on the browser
	chromium(t)  // no browser: skip before building what it would show
	bin := buildKata(t)
	dir := t.TempDir()
	out, code := run(t, bin, dir, "trace", "imbalance", "--reference", "-o", "imbalance.html")
	require.Equal(t, 0, code, out)
	b := newBrowser(t)
	b.do(t, "open the trace page",
		chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate("file://"+filepath.ToSlash(filepath.Join(dir, "imbalance.html"))),
		chromedp.WaitVisible(chromedp.CSS("svg.timeline")))
	require.GreaterOrEqual(t, eval[int](t, b, `document.querySelectorAll("svg.timeline .tl-lane").length`), 4+1, "a lane per P, per M and for sysmon")
	require.Greater(t, eval[int](t, b, `document.querySelectorAll("svg.timeline .tl-run").length`), 100, "200 Gs ran")
	// A bar whose middle nothing else (a steal's arrow) is drawn over.
	box := eval[[]float64](t, b, `(function(){
		for (const g of document.querySelectorAll(".tl-run")) {
			const r = g.querySelector("rect").getBoundingClientRect(), x = r.left + r.width/2, y = r.top + r.height/2;
			if (r.width >= 4 && document.elementFromPoint(x, y)?.closest(".tl-run") === g) return [x, y];
		}
		return null;
	})()`)
	require.Len(t, box, 2, "no G's bar can be hovered: every one is covered")
	b.do(t, "hover over a G's bar", chromedp.MouseEvent("mouseMoved", box[0], box[1]), chromedp.WaitVisible(chromedp.CSS("#tip")))
	tip := eval[string](t, b, `document.getElementById("tip").textContent`)
	require.Regexp(t, `^G\d+ on P\d+ \(M\d+\) for `, tip, "hovering a bar says which G ran where, for how long")
	b.screenshot(t, "trace-imbalance.png", 1280, true)

	// The page zooms as the book does: the same script.
	const sel = "svg.timeline.tl-live"
	before := viewOf(t, b, sel)
	require.Equal(t, before.Span, before.V1, "the imbalance picture opens on the whole run")
	x, y := pointIn(t, b, sel, 0.5, 0.5)
	b.do(t, "click and zoom in", chromedp.MouseClickXY(x, y), chromedp.KeyEvent("+"), chromedp.KeyEvent("+"))
	after := viewOf(t, b, sel)
	require.Less(t, after.V1-after.V0, before.V1-before.V0, "+ zooms a trace page's timeline")
	require.NotEqual(t, before.Labels, after.Labels)
	b.noErrors(t, "the trace page")
}

// A timelineView is what a timeline shows, as the page says it: the
// stretch of the run (ns from its start), the run's length, the axis
// labels, the toolbar's words, and the picture's width on the screen.
type timelineView struct {
	V0, V1, Span float64
	Labels       []string
	Shown        string
	Width        float64
}

// viewOf reads the view of the timeline sel picks, once the frame the
// script draws in has passed.
func viewOf(t *testing.T, b *browser, sel string) timelineView {
	t.Helper()
	expr := `new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => {
		const svg = document.querySelector(` + "`" + sel + "`" + `);
		done({V0: +svg.dataset.v0, V1: +svg.dataset.v1, Span: +svg.dataset.span,
			Labels: [...svg.querySelectorAll(".tl-ticks text")].map(t => t.textContent),
			Shown: svg.parentNode.querySelector(".tl-shown").textContent,
			Width: svg.getBoundingClientRect().width});
	})))`
	return get(t, b, "the view of "+sel, chromedp.Evaluate[timelineView](expr, chromedp.EvalAwaitPromise))
}

// pointIn returns the viewport coordinates of a point in the timeline sel
// picks, at fraction fx of its plot's width and fy of its height, after
// scrolling it into the middle of the screen.
func pointIn(t *testing.T, b *browser, sel string, fx, fy float64) (float64, float64) {
	t.Helper()
	p := eval[[]float64](t, b, `(() => {
		const svg = document.querySelector(`+"`"+sel+"`"+`);
		svg.scrollIntoView({block: "center"});
		const r = svg.getBoundingClientRect(), vb = svg.viewBox.baseVal, k = r.width / vb.width;
		const x0 = +svg.dataset.x0 * k, w = r.width - x0 - +svg.dataset.pad * k;
		return [r.left + x0 + `+fmt.Sprint(fx)+` * w, r.top + `+fmt.Sprint(fy)+` * r.height];
	})()`)
	require.Len(t, p, 2)
	return p[0], p[1]
}

// wheel turns the mouse wheel over x, y: negative dy is away from the
// reader (zoom in).
func wheel(x, y, dy float64, mods ...chromedp.Modifier) chromedp.Action[chromedp.Void] {
	return chromedp.MouseEvent(chromedp.MouseWheel, x, y, func(p *input.DispatchMouseEventParams) {
		p.DeltaY = dy
		p.DeltaX = 1e-9 // the protocol wants both, and drops a zero
		for _, m := range mods {
			p.Modifiers |= int64(m)
		}
	})
}

// drag presses the left button at x0, moves to x1 in steps and lets go.
func drag(x0, x1, y float64) []chromedp.Action[chromedp.Void] {
	held := func(p *input.DispatchMouseEventParams) { p.Button = input.MouseButtonLeft; p.Buttons = 1 }
	steps := []chromedp.Action[chromedp.Void]{chromedp.MouseEvent(chromedp.MousePressed, x0, y, held, chromedp.ClickCount(1))}
	for i := 1; i <= 5; i++ {
		steps = append(steps, chromedp.MouseEvent(chromedp.MouseMoved, x0+(x1-x0)*float64(i)/5, y, held))
	}
	return append(steps, chromedp.MouseEvent(chromedp.MouseReleased, x1, y, held, chromedp.ClickCount(1)))
}

// touch sends one touch event with the given points (none for the end).
func touch(typ input.DispatchTouchEventType, pts ...[2]float64) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		p := input.DispatchTouchEventParams{Type: typ, TouchPoints: []*input.TouchPoint{}}
		for i, pt := range pts {
			id := float64(i + 1)
			p.TouchPoints = append(p.TouchPoints, &input.TouchPoint{X: pt[0], Y: pt[1], ID: &id})
		}
		_, err := cdp.Call(ctx, tg, input.DispatchTouchEvent, p)
		return err
	})
}

// TestTimelineZoomInBrowser zooms and pans the syscall picture of the
// book, as a reader would on a desktop (wheel, keys, drag, buttons) and on
// a phone (buttons, pinch): it opens on the call, the retake and the
// hand-off, the axis follows every view, and the whole run is one button
// away. Screenshots: the picture framed, zoomed in and whole, light and
// dark, and on a phone.
func TestTimelineZoomInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser; run without -short")
	}
	t.Parallel() // its own browser and directories; it mostly waits on the browser
	chromium(t)  // no browser: skip before building what it would show
	dir := t.TempDir()
	site, err := book.Build(book.Options{Src: os.DirFS("..")})
	require.NoError(t, err)
	require.NoError(t, site.Write(dir))
	page := "file://" + filepath.ToSlash(filepath.Join(dir, "07-sysmon.html"))
	const sel = `svg.timeline.tl-live[aria-label^="scenario syscall"]`
	const fig = `figure:has(svg.timeline[aria-label^="scenario syscall"])`
	b := newBrowser(t)
	b.do(t, "open lesson 07", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(page), chromedp.WaitReady(chromedp.CSS(sel)))
	b.do(t, "light theme", chromedp.Evaluate[chromedp.Void](`document.documentElement.dataset.theme = "light"`))

	first := viewOf(t, b, sel)
	require.Zero(t, first.V0, "the syscall picture opens at the start")
	// The story's window ends a quarter past the hand-off, and by the
	// call's end (syscallStory), wherever in the call sysmon retook the P
	// (a retake late in the call put it past half the run, once).
	require.Less(t, first.V1, first.Span, "and on the call, the retake and the hand-off, not the whole run")
	callEnd := eval[float64](t, b, `+document.querySelector(`+"`"+sel+" .tl-syscall`"+`).dataset.b`)
	require.LessOrEqual(t, first.V1, callEnd, "nor the whole 30ms call")
	require.Regexp(t, `^showing 0 to \S+ of \S+$`, first.Shown)
	require.NotEmpty(t, first.Labels)
	retake := eval[float64](t, b, `+document.querySelector(`+"`"+sel+" .tl-retake`"+`).dataset.a`)
	require.Less(t, retake, first.V1, "the retake is in the first view")
	b.shot(t, "zoom-syscall-framed-light.png", fig)

	// The wheel over a picture the reader has not clicked scrolls the page.
	x, y := pointIn(t, b, sel, 0.4, 0.5)
	b.do(t, "wheel, unfocused", wheel(x, y, -300))
	require.Equal(t, first.V0, viewOf(t, b, sel).V0)
	require.Equal(t, first.V1, viewOf(t, b, sel).V1, "the wheel zoomed a picture nobody clicked")

	// Clicked, it zooms around the pointer.
	x, y = pointIn(t, b, sel, 0.4, 0.5)
	b.do(t, "click the picture", chromedp.MouseClickXY(x, y))
	b.do(t, "wheel, focused", wheel(x, y, -300))
	wheeled := viewOf(t, b, sel)
	require.Less(t, wheeled.V1-wheeled.V0, first.V1-first.V0, "the wheel should zoom in")
	pointer := first.V0 + 0.4*(first.V1-first.V0)
	assert.InDelta(t, pointer, wheeled.V0+0.4*(wheeled.V1-wheeled.V0), (first.V1-first.V0)/100, "the time under the pointer stays under it")
	require.NotEqual(t, first.Labels, wheeled.Labels, "the axis follows the zoom")
	require.NotEqual(t, first.Shown, wheeled.Shown)

	// Keys: + and - zoom, → pans, and the book does not turn the page.
	loc := get(t, b, "location", chromedp.Location())
	b.do(t, "press +", chromedp.KeyEvent("+"))
	plus := viewOf(t, b, sel)
	require.Less(t, plus.V1-plus.V0, wheeled.V1-wheeled.V0, "+ should zoom in")
	require.NotEqual(t, wheeled.Labels, plus.Labels)
	b.do(t, "press -", chromedp.KeyEvent("-"))
	minus := viewOf(t, b, sel)
	require.Greater(t, minus.V1-minus.V0, plus.V1-plus.V0, "- should zoom out")
	b.do(t, "press →", chromedp.KeyEvent(kb.ArrowRight), chromedp.Sleep(300*time.Millisecond))
	require.Equal(t, loc, get(t, b, "location", chromedp.Location()), "→ on a focused picture pans it, not the book")
	right := viewOf(t, b, sel)
	require.Greater(t, right.V0, minus.V0, "→ should pan to later times")
	assert.InDelta(t, minus.V1-minus.V0, right.V1-right.V0, 1, "panning keeps the zoom")

	// A drag to the left brings later times into view.
	x0, y0 := pointIn(t, b, sel, 0.7, 0.5)
	x1, _ := pointIn(t, b, sel, 0.3, 0.5)
	b.do(t, "drag left", drag(x0, x1, y0)...)
	dragged := viewOf(t, b, sel)
	assert.InDelta(t, right.V0+0.4*(right.V1-right.V0), dragged.V0, (right.V1-right.V0)/50, "dragging by 40% of the plot pans by 40% of the view")
	require.NotEqual(t, right.Labels, dragged.Labels)

	// Zoomed in on the retake.
	b.do(t, "first view", chromedp.Click(chromedp.CSS(fig+` .tl-tools [data-do="first"]`)))
	back := viewOf(t, b, sel)
	require.Equal(t, first.V0, back.V0, "first view goes back to the first view")
	require.Equal(t, first.V1, back.V1)
	fx := (retake - back.V0) / (back.V1 - back.V0)
	x, y = pointIn(t, b, sel, fx, 0.5)
	b.do(t, "zoom in on the retake", chromedp.MouseClickXY(x, y), wheel(x, y, -500), wheel(x, y, -500))
	zoomed := viewOf(t, b, sel)
	require.True(t, zoomed.V0 < retake && retake < zoomed.V1, "zooming at the retake keeps it in view")
	require.Less(t, zoomed.V1-zoomed.V0, (first.V1-first.V0)/2)
	b.shot(t, "zoom-syscall-zoomed-light.png", fig)

	// The whole run is one button away.
	b.do(t, "whole run", chromedp.Click(chromedp.CSS(fig+` .tl-tools [data-do="all"]`)))
	whole := viewOf(t, b, sel)
	require.Zero(t, whole.V0)
	require.Equal(t, whole.Span, whole.V1, "whole run shows the whole run")
	require.NotEqual(t, first.Labels, whole.Labels)
	require.Regexp(t, `^the whole run: `, whole.Shown)
	b.shot(t, "zoom-syscall-whole-light.png", fig)
	b.do(t, "0 after zooming", chromedp.MouseClickXY(x, y), wheel(x, y, -500), chromedp.KeyEvent("0"))
	require.Equal(t, whole.V1, viewOf(t, b, sel).V1, "0 shows the whole run")

	b.do(t, "dark theme, first view", chromedp.Evaluate[chromedp.Void](`document.documentElement.dataset.theme = "dark"`),
		chromedp.Click(chromedp.CSS(fig+` .tl-tools [data-do="first"]`)))
	b.shot(t, "zoom-syscall-framed-dark.png", fig)
	b.do(t, "zoom in, dark", chromedp.Click(chromedp.CSS(fig+` .tl-tools [data-do="in"]`)), chromedp.Click(chromedp.CSS(fig+` .tl-tools [data-do="in"]`)))
	b.shot(t, "zoom-syscall-zoomed-dark.png", fig)
	b.noErrors(t, "zooming on a desktop")

	// On a phone: the picture fits the screen, the buttons and a pinch
	// zoom it.
	b.do(t, "open lesson 07 on a phone",
		chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulateTouch),
		chromedp.Navigate(page), chromedp.WaitReady(chromedp.CSS(sel)))
	b.do(t, "light theme", chromedp.Evaluate[chromedp.Void](`document.documentElement.dataset.theme = "light"`))
	phone := viewOf(t, b, sel)
	require.LessOrEqual(t, phone.Width, 390.0, "on a phone the picture fits the screen")
	require.Equal(t, 390.0, eval[float64](t, b, `innerWidth`), "nothing is wider than the screen")
	require.Equal(t, first.V1, phone.V1, "the same first view")
	pointIn(t, b, sel, 0.5, 0.5)
	b.shot(t, "zoom-syscall-phone-framed.png", fig)
	b.do(t, "tap +", chromedp.Click(chromedp.CSS(fig+` .tl-tools [data-do="in"]`)))
	tapped := viewOf(t, b, sel)
	require.Less(t, tapped.V1-tapped.V0, phone.V1-phone.V0, "+ zooms in on a phone")
	cx, cy := pointIn(t, b, sel, 0.5, 0.5)
	pinch := []chromedp.Action[chromedp.Void]{touch(input.DispatchTouchEventTypeTouchStart, [2]float64{cx - 30, cy}, [2]float64{cx + 30, cy})}
	for i := 1; i <= 5; i++ {
		d := 30 + 12*float64(i)
		pinch = append(pinch, touch(input.DispatchTouchEventTypeTouchMove, [2]float64{cx - d, cy}, [2]float64{cx + d, cy}))
	}
	pinch = append(pinch, touch(input.DispatchTouchEventTypeTouchEnd))
	b.do(t, "pinch out", pinch...)
	pinched := viewOf(t, b, sel)
	require.Less(t, pinched.V1-pinched.V0, (tapped.V1-tapped.V0)/1.5, "spreading two fingers zooms in")
	require.NotEqual(t, tapped.Labels, pinched.Labels)
	b.shot(t, "zoom-syscall-phone-pinched.png", fig)
	b.do(t, "tap whole run", chromedp.Click(chromedp.CSS(fig+` .tl-tools [data-do="all"]`)))
	require.Equal(t, phone.Span, viewOf(t, b, sel).V1)
	b.shot(t, "zoom-syscall-phone-whole.png", fig)
	b.noErrors(t, "zooming on a phone")
}

// describe says what a thrown value was.
func describe(o *runtime.RemoteObject) string {
	if o == nil {
		return ""
	}
	return " " + o.Description
}
