package report

import (
	"fmt"
	"io"
	"strings"
)

// WriteMarkdown writes a summary table (a row per student, a column per
// lesson) and then, per student, what was lost. Text that came from code
// under test is escaped, so it cannot add links, HTML or table cells.
func WriteMarkdown(w io.Writer, r *Report) error {
	r = r.cleaned()
	var b strings.Builder
	fmt.Fprintf(&b, "# Workshop grades\n\n%d submissions, %d lessons, %d points each.\n\n", len(r.Students), len(r.Lessons), r.MaxScore())
	b.WriteString("| student |")
	for _, l := range r.Lessons {
		fmt.Fprintf(&b, " %s |", mdEscape(l.ID))
	}
	b.WriteString(" total |\n|---|")
	for range r.Lessons {
		b.WriteString("---:|")
	}
	b.WriteString("---:|\n")
	for _, s := range r.Students {
		fmt.Fprintf(&b, "| %s |", mdEscape(s.Name))
		for _, l := range s.Lessons {
			mark := ""
			if l.Status != StatusPass {
				mark = " ✗"
			}
			fmt.Fprintf(&b, " %d%s |", l.Score, mark)
		}
		fmt.Fprintf(&b, " **%s** |\n", Fraction(s.Score, s.MaxScore))
	}
	var alike []string
	for _, s := range r.Students {
		if len(s.LooksLike) > 0 {
			var others []string
			for _, o := range s.LooksLike {
				others = append(others, mdEscape(o))
			}
			alike = append(alike, fmt.Sprintf("- %s (%s) looks like: %s\n", mdEscape(s.Name), mdEscape(s.Source), strings.Join(others, ", ")))
		}
	}
	if len(alike) > 0 {
		b.WriteString("\nNames that look alike, kept as handed in (check them against your roster):\n\n" + strings.Join(alike, ""))
	}
	for _, s := range r.Students {
		lost := lostLines(r, &s)
		if len(lost) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n## %s — %s\n\n", mdEscape(s.Name), Fraction(s.Score, s.MaxScore))
		if s.Problem != "" {
			fmt.Fprintf(&b, "- nothing could be graded: %s\n", mdEscape(s.Problem))
			continue
		}
		for _, l := range s.Lessons {
			if l.Status == StatusPass {
				continue
			}
			if l.Untouched || sameReason(l) {
				fmt.Fprintf(&b, "- **%s** %s: %s\n", mdEscape(l.ID), Fraction(l.Score, l.MaxScore), mdEscape(l.Reason))
				continue
			}
			fmt.Fprintf(&b, "- **%s** %s\n", mdEscape(l.ID), Fraction(l.Score, l.MaxScore))
			for _, t := range l.Tests {
				if t.Status != StatusPass {
					fmt.Fprintf(&b, "  - %s %s: %s\n", mdEscape(t.Name), Fraction(t.Score, t.MaxScore), mdEscape(t.Reason))
				}
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdEscape makes one line of text literal in Markdown (and in a table
// cell): the characters Markdown gives a meaning are backslash-escaped, and
// < > & become entities so no HTML gets through. So are "@", the ":" of
// "://" and the "." of "www.", without which GitHub's Markdown (GFM's
// autolinks, and goldmark's Linkify) would make links of a URL, an e-mail
// address or a name that starts with www. (https://x.example, a@x.example,
// www.x.example).
func mdEscape(s string) string {
	s = OneLine(s)
	var b strings.Builder
	for i, r := range s {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '\\', '`', '*', '_', '{', '}', '[', ']', '(', ')', '#', '+', '-', '!', '|', '~', '@':
			b.WriteRune('\\')
			b.WriteRune(r)
		case '.', ':':
			// The "." of "www." and the ":" of "://" start a link.
			if r == '.' && strings.HasSuffix(strings.ToLower(b.String()), "www") || r == ':' && strings.HasPrefix(s[i+1:], "/") {
				b.WriteRune('\\')
			}
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
