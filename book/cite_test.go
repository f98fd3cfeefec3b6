package book

import (
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var (
	noteRE   = regexp.MustCompile(`<span class="cite-ref"><a class="cite-mark" href="#cite-(\d+)"[^>]*>&#8288;(\d+)</a><span class="cite-note" id="cite-(\d+)" role="note">(.*?)</span></span>`)
	citeAnch = regexp.MustCompile(`<a class="cite" href="([^"]*)"[^>]*>(.*?)</a>`)
	listRE   = regexp.MustCompile(`(?s)\n?<div class="cite-list">.*?</div>\n`)
)

// brief is a rendered paragraph as the tests below write it: a note as
// [N: its places], a compact link as (→proc.go:1), code as `code`.
func brief(t *testing.T, page string) string {
	page = listRE.ReplaceAllString(page, "")
	page = noteRE.ReplaceAllStringFunc(page, func(s string) string {
		m := noteRE.FindStringSubmatch(s)
		require.Equal(t, m[1], m[2], "a marker opens its own note")
		require.Equal(t, m[2], m[3], "a marker opens its own note")
		var places []string
		for _, a := range citeAnch.FindAllStringSubmatch(m[4], -1) {
			places = append(places, a[2])
		}
		return "[" + m[2] + ": " + strings.Join(places, "; ") + "]"
	})
	page = citeAnch.ReplaceAllString(page, "→$2")
	page = strings.NewReplacer("<code>", "`", "</code>", "`", "<p>", "", "</p>", "").Replace(page)
	return html.UnescapeString(strings.TrimSpace(page))
}

func renderString(t *testing.T, src string) string {
	t.Helper()
	r, err := render(newMarkdown(), []byte(src), "", func(dest string) string { return dest })
	require.NoError(t, err)
	return string(r.html)
}

// TestCitationsLeaveTheSentence: the citations of a sentence become one
// note at its end, and the sentence reads as if they had never been there.
func TestCitationsLeaveTheSentence(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"named", "`runqput` (proc.go:7478) puts a G.",
			"`runqput` puts a G.[1: `runqput` — proc.go:7478]"},
		{"one note a sentence", "A (proc.go:1) and B (proc.go:2). C (proc.go:3).",
			"A and B.[1: proc.go:1; proc.go:2] C.[2: proc.go:3]"},
		{"a parenthesis of citations leaves with them", "It wakes one (`wakep` (proc.go:3215)). Next.",
			"It wakes one.[1: `wakep` — proc.go:3215] Next."},
		{"a parenthesis of several", "X (`a` (proc.go:1), `b` (proc.go:2) and `c` (proc.go:3)) runs.",
			"X runs.[1: `a` — proc.go:1; `b` — proc.go:2; `c` — proc.go:3]"},
		{"in the order written", "`a` (proc.go:1) and b (`b` (proc.go:2)) and `c` (proc.go:3).",
			"`a` and b and `c`.[1: `a` — proc.go:1; `b` — proc.go:2; `c` — proc.go:3]"},
		{"across a line break", "The sleep starts in `sysmon`\n(proc.go:6499). A counter",
			"The sleep starts in `sysmon`.[1: `sysmon` — proc.go:6499] A counter"},
		{"ranges and lists", "Ranges (proc.go:6550-6552) and lists (proc.go:2999,\nproc.go:3002) too.",
			"Ranges and lists too.[1: proc.go:6550-6552; proc.go:2999; proc.go:3002]"},
		{"not after an abbreviation", "It blocks (proc.go:7630), e.g. on a lock. Next.",
			"It blocks, e.g. on a lock.[1: proc.go:7630] Next."},
		{"after closing quotes", "He asked \"why (proc.go:1)?\" Then.",
			"He asked \"why?\"[1: proc.go:1] Then."},
		{"no full stop: the end of the paragraph", "Read on:\n`runqput` (proc.go:7478)",
			"Read on:\n`runqput`[1: `runqput` — proc.go:7478]"},
		{"in a list", "- `runqsteal` (proc.go:7730) steals\n- two",
			"<ul>\n<li>`runqsteal` steals[1: `runqsteal` — proc.go:7730]</li>\n<li>two</li>\n</ul>"},
		{"after emphasis", "**True:** `x` (proc.go:1) holds.",
			"<strong>True:</strong> `x` holds.[1: `x` — proc.go:1]"},
		{"a code span is not a citation", "kata says `runqgrab (runq.go:188) reads`.",
			"kata says `runqgrab (runq.go:188) reads`."},
		{"a table cell keeps a compact link", "| a |\n|---|\n| `runqhead` (runtime2.go:804) |",
			"<table>\n<thead>\n<tr>\n<th>a</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>`runqhead` (→runtime2.go:804)</td>\n</tr>\n</tbody>\n</table>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, brief(t, renderString(t, tc.src)))
		})
	}
}

// TestCitationLinks: each place links to its line, or lines, of Go
// 1.26.8's runtime on GitHub; code keeps its citations, as links.
func TestCitationLinks(t *testing.T) {
	page := renderString(t, "`retake` (proc.go:6550-6552) and (runtime2.go:804).\n\n```go\n// Mirrors runqput (proc.go:7478).\n```\n")
	require.Contains(t, page, `<a class="cite" href="https://github.com/golang/go/blob/go1.26.8/src/runtime/proc.go#L6550-L6552" title="Go 1.26.8's runtime/proc.go, lines 6550-6552"><code>retake</code> — proc.go:6550-6552</a>`)
	require.Contains(t, page, `<a class="cite" href="https://github.com/golang/go/blob/go1.26.8/src/runtime/runtime2.go#L804" title="Go 1.26.8's runtime/runtime2.go, line 804">runtime2.go:804</a>`)
	require.Regexp(t, `<pre.*Mirrors runqput \(<a class="cite" href="https://github.com/golang/go/blob/go1.26.8/src/runtime/proc.go#L7478"[^>]*>proc.go:7478</a>\)`, page)
	require.Contains(t, page, "<div class=\"cite-list\">\n<p>Places cited in Go 1.26.8's runtime</p>\n<ol>\n<li>", "the notes are listed, for paper")
}
