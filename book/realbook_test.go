package book

import (
	"bufio"
	"html"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	gmpkata "github.com/gmp-kata/gmp-kata"
	"github.com/gmp-kata/gmp-kata/lessons"
	_ "github.com/gmp-kata/gmp-kata/lessons/all"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// citedGoVersion is the Go release whose runtime the book cites by line.
const citedGoVersion = "go1.26.8"

func repo() fs.FS { return os.DirFS("..") }

// TestTheBookBuilds builds the real book: every chapter of SUMMARY.md and
// of every lesson in the registry, every include and every link resolved.
func TestTheBookBuilds(t *testing.T) {
	site, err := Build(Options{Src: repo()})
	require.NoError(t, err)
	for _, l := range lessons.Default.All() {
		page := string(site.Files[l.ID+".html"])
		require.NotEmpty(t, page, "lesson %s has no page", l.ID)
		require.Contains(t, page, "<h1 id=", "lesson %s's page has no title", l.ID)
		require.Contains(t, string(site.Files["print.html"]), `id="`+l.ID+`"`, "the print page lacks lesson %s", l.ID)
	}
	require.Equal(t, len(site.Chapters), strings.Count(string(site.Files["print.html"]), `<section class="print-chapter"`), "the print page has every chapter")
	require.Contains(t, string(site.Files["searchindex.js"]), "runqsteal")
}

// TestNoHandCopiedCode: every Go code block of the book is an include, so
// that no code in the book can drift from the code that compiles.
func TestNoHandCopiedCode(t *testing.T) {
	for _, file := range chapterFiles(t) {
		data, err := fs.ReadFile(repo(), file)
		require.NoError(t, err)
		lines := strings.Split(string(data), "\n")
		for i := 0; i < len(lines); i++ {
			if strings.TrimSpace(lines[i]) != "```go" {
				continue
			}
			for j := i + 1; j < len(lines) && strings.TrimSpace(lines[j]) != "```"; j++ {
				if l := strings.TrimSpace(lines[j]); l != "" && !directive.MatchString(l) {
					t.Errorf("%s:%d: a Go code block holds %q; include code from a real file instead ({{#include PATH:NAME}}, see book/WRITING.md)", file, j+1, l)
					break
				}
			}
		}
	}
}

// TestBookCitations checks every "`name` (file.go:N)" of the book against
// the runtime source of citedGoVersion: line N declares name, mentions it
// (a field, a constant), or lies inside the function name.
func TestBookCitations(t *testing.T) {
	if runtime.Version() != citedGoVersion {
		t.Skipf("the book cites %s's runtime by line; this toolchain is %s, whose line numbers differ", citedGoVersion, runtime.Version())
	}
	cite := regexp.MustCompile("`(?:runtime\\.)?(?:\\(\\*?\\w+\\)\\.)?(\\w+)(?:\\(\\))?`\\s*\\(([\\w/]+\\.go):(\\d+)\\)")
	sources := map[string][]string{}
	checked := 0
	for _, file := range chapterFiles(t) {
		data, err := fs.ReadFile(repo(), file)
		require.NoError(t, err)
		for i, line := range strings.Split(string(data), "\n") {
			for _, m := range cite.FindAllStringSubmatch(line, -1) {
				name, src := m[1], m[2]
				n, _ := strconv.Atoi(m[3])
				lines, ok := sources[src]
				if !ok {
					lines = readRuntime(t, src)
					sources[src] = lines
				}
				if lines == nil {
					t.Errorf("%s:%d: %s cites %s, which is not a file of the runtime", file, i+1, m[0], src)
					continue
				}
				if n < 1 || n > len(lines) {
					t.Errorf("%s:%d: %s: %s has %d lines", file, i+1, m[0], src, len(lines))
					continue
				}
				checked++
				word := regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\b`)
				if word.MatchString(lines[n-1]) {
					continue
				}
				at := n - 1
				for at > 0 && !strings.HasPrefix(lines[at], "func ") {
					at--
				}
				if !regexp.MustCompile(`^func (\([^)]*\) )?` + regexp.QuoteMeta(name) + `\b`).MatchString(lines[at]) {
					t.Errorf("%s:%d: %s: %s:%d is %q, which neither names %s nor is inside it", file, i+1, m[0], src, n, strings.TrimSpace(lines[n-1]), name)
				}
			}
		}
	}
	require.Greater(t, checked, 100, "the book should cite the runtime, by line, throughout")
}

func readRuntime(t *testing.T, name string) []string {
	f, err := os.Open(filepath.Join(runtime.GOROOT(), "src", "runtime", filepath.FromSlash(name)))
	if err != nil {
		return nil
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	require.NoError(t, sc.Err())
	return lines
}

// chapterFiles lists the book's chapter sources.
func chapterFiles(t *testing.T) []string {
	chapters, err := readSummary(repo(), lessons.Default.All())
	require.NoError(t, err)
	var files []string
	for _, c := range chapters {
		files = append(files, c.Source)
	}
	return files
}

// TestEmbeddedBookBuilds: the copy of the book kata carries (for `kata
// book build` outside a clone) has every chapter and every included file,
// and renders the same pages as the repository.
func TestEmbeddedBookBuilds(t *testing.T) {
	fromRepo, err := Build(Options{Src: repo()})
	require.NoError(t, err)
	embedded, err := Build(Options{Src: gmpkata.Book})
	require.NoError(t, err, "a file the book includes is missing from gmpkata.Book: add it to the embed in sources.go")
	for _, c := range []string{"index.html", "model.html", "01-ringbuffer.html", "grading.html"} {
		require.Equal(t, articleOf(t, fromRepo.Files[c]), articleOf(t, embedded.Files[c]), "%s differs between the repository and the embedded copy", c)
	}
}

// articleOf is a page's text without its timelines, which differ from run
// to run, with their captions (a caption says when a run did not bear it
// out).
func articleOf(t *testing.T, page []byte) string {
	m := articleRE.FindSubmatch(page)
	require.NotNil(t, m)
	return regexp.MustCompile(`(?s)<figure class="picture timeline-figure">.*?</figure>`).ReplaceAllString(string(m[1]), "")
}

// TestCitationsOutOfTheProse: in the real book, no sentence carries more
// than one citation, none shows a file.go:N in its text (each has moved
// to the note at its sentence's end), and every citation of the Markdown
// is still a link on its page, to the same place.
func TestCitationsOutOfTheProse(t *testing.T) {
	site, err := Build(Options{Src: repo()})
	require.NoError(t, err)
	visible := regexp.MustCompile(`\b[a-z0-9_]+\.go:\d+`)
	// A sentence ends at . ? or !, closing quotes or brackets, its note;
	// or with its block.
	sentences := regexp.MustCompile(`[.?!]["”’)\]]*\x00?\s+|\x01`)
	for i, c := range site.Chapters {
		page := articleOf(t, site.Files[fileOf(site.Chapters, i)])
		prose := proseOf(page)
		for _, s := range sentences.Split(prose, -1) {
			if n := strings.Count(s, "\x00") + len(visible.FindAllString(s, -1)); n > 1 {
				t.Errorf("%s: a sentence carries %d citations: %q", c.Source, n, s)
			}
		}
		for _, m := range visible.FindAllStringIndex(prose, -1) {
			t.Errorf("%s: a citation is left in the text: %q", c.Source, prose[max(0, m[0]-60):m[1]])
		}

		src, err := fs.ReadFile(repo(), c.Source)
		require.NoError(t, err)
		want := citedPlaces(string(src))
		got, listed := linkedPlaces(page)
		assert.Equal(t, want, got, "%s: the places cited in the Markdown (left) and linked on its page (right)", c.Source)
		assert.Equal(t, len(want) > 0, len(listed) > 0, "%s: the list of notes for paper", c.Source)
	}
	assert.Empty(t, citation.FindAllString(string(site.Files["searchindex.js"]), 5), "the search index is free of citations")
}

var (
	fencedRE    = regexp.MustCompile("(?ms)^\\s*```.*?^\\s*```")
	codeSpanRE  = regexp.MustCompile("`[^`]*`")
	placeHrefRE = regexp.MustCompile(`<a class="cite" href="https://github.com/golang/go/blob/go1.26.8/src/runtime/([^"#]+)#L(\d+)(?:-L(\d+))?"`)
	proseDrop   = regexp.MustCompile(`(?s)<pre[ >].*?</pre>|<table>.*?</table>|<svg.*?</svg>|<code>.*?</code>|<div class="cite-list">.*?</div>`)
	noteSpanRE  = regexp.MustCompile(`(?s)<span class="cite-ref">.*?</span></span>`)
	tagRE       = regexp.MustCompile(`<[^>]*>`)
	blockEndRE  = regexp.MustCompile(`</(?:p|li|h[1-6]|summary|blockquote|figcaption)>`)
)

// proseOf is the text a reader reads in a page's article: no code, table
// or picture, each note as one \x00 and the end of each block as \x01.
func proseOf(article string) string {
	s := proseDrop.ReplaceAllString(article, " ")
	s = noteSpanRE.ReplaceAllString(s, "\x00")
	s = blockEndRE.ReplaceAllString(s, "\x01")
	return html.UnescapeString(tagRE.ReplaceAllString(s, ""))
}

// citedPlaces lists the places a chapter's Markdown cites, outside code,
// as "proc.go:7478", sorted.
func citedPlaces(md string) []string {
	md = codeSpanRE.ReplaceAllString(fencedRE.ReplaceAllString(md, ""), "")
	var ps []string
	for _, m := range citation.FindAllStringSubmatch(md, -1) {
		for _, p := range strings.Split(m[1], ",") {
			ps = append(ps, strings.TrimSpace(p))
		}
	}
	slices.Sort(ps)
	return ps
}

// linkedPlaces lists the places an article links outside code, and those
// its list for paper links, sorted.
func linkedPlaces(article string) (linked, listed []string) {
	read := func(html string) []string {
		var ps []string
		for _, m := range placeHrefRE.FindAllStringSubmatch(html, -1) {
			p := m[1] + ":" + m[2]
			if m[3] != "" {
				p += "-" + m[3]
			}
			ps = append(ps, p)
		}
		slices.Sort(ps)
		return ps
	}
	list := regexp.MustCompile(`(?s)<div class="cite-list">.*?</div>`)
	for _, l := range list.FindAllString(article, -1) {
		listed = append(listed, read(l)...)
	}
	return read(list.ReplaceAllString(regexp.MustCompile(`(?s)<pre[ >].*?</pre>`).ReplaceAllString(article, ""), "")), listed
}
