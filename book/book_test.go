package book

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gmp-kata/gmp-kata/lessons"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/mini.golden")

// mini is the small book of testdata/mini: one lesson between two chapters.
func mini() Options {
	return Options{
		Src:     os.DirFS("testdata/mini"),
		Lessons: []*lessons.Lesson{{ID: "01-first", Title: "The first lesson"}},
	}
}

var articleRE = regexp.MustCompile(`(?s)<article>\n(.*)</article>`)

// TestGolden renders the mini book and compares each page's article, and
// the search index, with testdata/mini.golden.
func TestGolden(t *testing.T) {
	site, err := Build(mini())
	require.NoError(t, err)
	for _, name := range []string{"index.html", "01-first.html", "notes.html", "print.html", "searchindex.js"} {
		got := site.Files[name]
		require.NotNil(t, got, "the site has no %s", name)
		if strings.HasSuffix(name, ".html") {
			m := articleRE.FindSubmatch(got)
			require.NotNil(t, m, "%s has no <article>", name)
			got = m[1]
		}
		golden := filepath.Join("testdata", "mini.golden", name)
		if *update {
			require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
			require.NoError(t, os.WriteFile(golden, got, 0o644))
			continue
		}
		want, err := os.ReadFile(golden)
		require.NoError(t, err, "no golden file (run go test ./book -run TestGolden -update)")
		require.Equal(t, string(want), string(got), "%s differs from %s (if the change is right: go test ./book -run TestGolden -update)", name, golden)
	}
}

// TestRenderingFeatures states what the golden files show, so that a
// golden file updated by mistake does not hide a lost feature.
func TestRenderingFeatures(t *testing.T) {
	site, err := Build(mini())
	require.NoError(t, err)
	front, lesson, notes := string(site.Files["index.html"]), string(site.Files["01-first.html"]), string(site.Files["notes.html"])

	require.Contains(t, front, `<h2 id="为什么需要-p"><a class="anchor" href="#为什么需要-p"`, "a non-ASCII heading keeps its letters in its ID, with an anchor link")
	require.Contains(t, front, `<h2 id="为什么需要-p-1">`, "a repeated heading gets a numbered ID")
	require.Contains(t, front, `href="01-first.html#the-ring"`, "links to NAME.md become NAME.html")
	require.Contains(t, front, `class="footnote-ref"`, "footnotes")
	require.Contains(t, front, "<table>", "GFM tables")
	require.Contains(t, front, `<code>runqput</code> is the fix.<span class="cite-ref"><a class="cite-mark" href="#cite-1" role="button" aria-expanded="false" aria-controls="cite-1"`, "a citation leaves its sentence for a marker at the sentence's end")
	require.Contains(t, front, `<span class="cite-note" id="cite-1" role="note"><a class="cite" href="https://github.com/golang/go/blob/go1.26.8/src/runtime/proc.go#L7478" title="Go 1.26.8's runtime/proc.go, line 7478"><code>runqput</code> — proc.go:7478</a></span>`, "the marker's note links the runtime's line, with the name cited")
	require.Contains(t, front, `<code>runqget</code> takes runnext first, then the
ring.<span class="cite-ref">`, "one marker for all the citations of a sentence, a parenthesis of citations gone with them")
	require.Contains(t, front, `proc.go#L7620-L7625"`, "a range of lines")
	require.Contains(t, front, `<li><code>runqsteal</code> takes half.<span class="cite-ref">`, "a list item's citation")
	require.Contains(t, front, `<td><code>runqhead</code> (<a class="cite" href="https://github.com/golang/go/blob/go1.26.8/src/runtime/runtime2.go#L804"`, "a table cell keeps its citation, as a compact link")
	require.Contains(t, front, "<div class=\"cite-list\">", "the notes listed for paper")
	require.NotContains(t, front, "proc.go:7478)", "no citation left in the prose")
	require.Contains(t, front, `<span class="kd">func</span>`, "chroma highlighting with CSS classes")
	require.Contains(t, front, "returns the sum of a and b", "a declaration is included with its doc comment")
	require.Contains(t, front, `<span class="k">for</span>`, "an anchored region is included")
	require.NotContains(t, front, "ANCHOR", "anchor markers are not shown")
	require.NotContains(t, front, `<span class="kd">func</span> <span class="p">(</span><span class="nx">r</span>`, "the anchored region is only the loop")
	require.Contains(t, lesson, `<svg class="statemachine"`, "a state machine picture")
	require.Contains(t, lesson, "<details>", "raw HTML for spoilers")
	require.Contains(t, lesson, "Push adds v", "a method is included by Type.method")
	require.Contains(t, lesson, `as runqput (<a class="cite" href="https://github.com/golang/go/blob/go1.26.8/src/runtime/proc.go#L7478"`, "a citation in code stays, as a link")
	require.Contains(t, lesson, `<code>runqput</code> has it.<span class="cite-ref">`, "a citation in a spoiler")
	require.Contains(t, lesson, `<a id="prev" rel="prev" href="index.html">`, "prev link")
	require.Contains(t, lesson, `<a id="next" rel="next" href="notes.html">`, "next link")
	require.Contains(t, notes, "A Ring is a toy", "a whole file is included")
	require.NotContains(t, notes, `id="next"`, "the last page has no next")
	print := string(site.Files["print.html"])
	require.Contains(t, print, `<section class="print-chapter" id="01-first">`)
	require.Contains(t, print, `href="#front--为什么需要-p-1"`, "on the print page links point inside the page, to prefixed IDs")
	require.Contains(t, print, `<section class="print-chapter" id="01-first">`)
	require.Contains(t, print, `href="#front--cite-1" role="button" aria-expanded="false" aria-controls="front--cite-1"`, "on the print page notes have the chapter's IDs")
	require.Contains(t, print, `id="front--cite-1"`)
	index := string(site.Files["searchindex.js"])
	require.Contains(t, index, `"h":"01-first.html#the-ring"`)
	require.Contains(t, index, "runqput is the fix. runqget takes runnext first, then the ring.", "the search index has the prose without its citations")
	require.NotContains(t, index, "proc.go:", "nor the citations of code")
}

// TestBuildErrorsNameTheFileAndLine breaks the mini book in each way a
// writer can and checks that the build says where.
func TestBuildErrorsNameTheFileAndLine(t *testing.T) {
	base := miniFS(t)
	for _, tc := range []struct {
		name, file, text, want string
	}{
		{"missing file", "book/src/notes.md", "# Notes\n\n```go\n{{#include code/nope.go:add}}\n```\n", "book/src/notes.md:4: {{#include code/nope.go:add}}: no file code/nope.go"},
		{"missing anchor", "book/src/notes.md", "# Notes\n\n```go\n{{#include code/sample.go:nope}}\n```\n", `book/src/notes.md:4: {{#include code/sample.go:nope}}: code/sample.go has no anchor "nope"`},
		{"unknown scenario", "book/src/notes.md", "# Notes\n\n{{#timeline nope}}\n", `book/src/notes.md:3: {{#timeline nope}}: scenario: no scenario "nope"`},
		{"unknown machine", "book/src/notes.md", "# Notes\n\n{{#statemachine q}}\n", `book/src/notes.md:3: {{#statemachine q}}: no state machine "q"`},
		{"unknown figure", "book/src/notes.md", "# Notes\n\n{{#figure nope}}\n", `book/src/notes.md:3: {{#figure nope}}: no figure "nope" (have: park-race, ring,`},
		{"broken link", "book/src/notes.md", "# Notes\n\n[x](nope.md)\n", `book/src/notes.md: link to "nope.md": no such page`},
		{"broken fragment", "book/src/notes.md", "# Notes\n\n[x](01-first.md#nope)\n", `book/src/notes.md: link to "01-first.html#nope": no heading or element #nope there`},
		{"wrong lesson title", "lessons/01-first/chapter.md", "# Another title\n", `lessons/01-first/chapter.md: the chapter's title "Another title" is not the lesson's title "The first lesson"`},
		{"no title", "book/src/notes.md", "Text without a title.\n", "book/src/notes.md: no # title line"},
		{"citation in a heading", "book/src/notes.md", "# Notes\n\n## `runqput` (proc.go:7478)\n", `book/src/notes.md: the heading "runqput" cites the runtime, (proc.go:7478): cite it in the text under the heading`},
		{"citation in raw HTML", "book/src/notes.md", "# Notes\n\n<details>\n<summary>runqput (proc.go:7478)</summary>\n\nx\n\n</details>\n", `book/src/notes.md: raw HTML cites the runtime, (proc.go:7478): cite it in Markdown`},
		{"bad summary line", "book/src/SUMMARY.md", "- [Front page](front.md)\n- Notes\n", `book/src/SUMMARY.md:2: "- Notes" is not an entry`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := fstest.MapFS{}
			for k, v := range base {
				src[k] = v
			}
			src[tc.file] = &fstest.MapFile{Data: []byte(tc.text)}
			opts := mini()
			opts.Src = src
			_, err := Build(opts)
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
		})
	}
	t.Run("lesson without a chapter", func(t *testing.T) {
		src := fstest.MapFS{}
		for k, v := range base {
			if k != "lessons/01-first/chapter.md" {
				src[k] = v
			}
		}
		opts := mini()
		opts.Src = src
		_, err := Build(opts)
		require.ErrorContains(t, err, `chapter "01-first": no file lessons/01-first/chapter.md`)
	})
}

// miniFS is a copy of testdata/mini that a test may change.
func miniFS(t *testing.T) fstest.MapFS {
	base := fstest.MapFS{}
	require.NoError(t, fs.WalkDir(os.DirFS("testdata/mini"), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(os.DirFS("testdata/mini"), p)
		base[p] = &fstest.MapFile{Data: data}
		return err
	}))
	return base
}

// TestFigureDirective: {{#figure NAME}} on a line of its own becomes the
// figure, in a scroll box, with its caption; inside a code fence it stays
// as it is written.
func TestFigureDirective(t *testing.T) {
	src := miniFS(t)
	src["book/src/notes.md"] = &fstest.MapFile{Data: []byte("# Notes\n\n{{#figure park-race}}\n\n```text\n{{#figure ring}}\n```\n")}
	opts := mini()
	opts.Src = src
	site, err := Build(opts)
	require.NoError(t, err)
	notes := string(site.Files["notes.html"])
	require.Contains(t, notes, `<figure class="picture figure-figure" id="fig-park-race"><div class="scroll"><svg class="figure" data-figure="park-race"`)
	require.Equal(t, 2, strings.Count(notes, `<svg class="figure" data-figure="park-race"`), "park-race is two timelines")
	require.Contains(t, notes, "<figcaption>G2 blocks receiving on c", "the figure's caption")
	require.Contains(t, notes, "{{#figure ring}}", "a directive in a code fence is left as written")
	require.NotContains(t, notes, `data-figure="ring"`)
	require.Contains(t, string(site.Files["book.css"]), ".fg-step rect", "the figures' styles are in the book's CSS")
}
