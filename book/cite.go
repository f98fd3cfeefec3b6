package book

// Citations of the runtime's source, taken out of the sentence.
//
// Writers cite Go 1.26.8's runtime inline, as `runqput` (proc.go:7478)
// (book/WRITING.md), often several times in one sentence; read inline,
// the citations chop the prose up. placeCitations takes them out of the
// prose of a chapter, in its AST, before it is rendered:
//
//   - The citations of one sentence become one numbered marker at the
//     sentence's end (a citeNote). Its note links each place cited, with
//     the name written before it: "runqput — proc.go:7478". The code span
//     stays in the sentence ("`runqput` puts a G..."), unless it was only
//     there to name the citation: a parenthesis holding nothing but
//     citations, "(`wakep` (proc.go:3215))", leaves with them.
//   - In a table cell a citation stays where it is, as a compact link (a
//     citeLink): a cell is not a sentence, and a note would be clipped by
//     the table's scrolling box.
//   - In a code block a citation stays where it is, as a link
//     (linkCodeCitations): code is not prose.
//   - A heading or a block of raw HTML that cites is refused: a heading's
//     text is its ID and its title in the search index, and raw HTML is
//     not parsed.
//
// Every chapter also gets the list of its notes (a citeList), which only
// paper shows: a note that opens on hover or tap cannot on paper.
//
// It does not check that a citation is right (TestBookCitations does),
// and it does not look inside emphasis or link text: a citation there
// stays as written, and the book's tests find it.

import (
	"errors"
	"fmt"
	"html"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// citedSource is the Go release whose runtime the book cites, and where
// its source can be read.
const citedSource = "https://github.com/golang/go/blob/go1.26.8/src/runtime/"

// loc is one place of a citation: "proc.go:7478" or "proc.go:6550-6552".
const loc = `(?:[a-z0-9_]+/)*[a-z0-9_]+\.go:\d+(?:-\d+)?`

var (
	// citation is a citation as the book writes it, in prose or in a code
	// comment: "(proc.go:7478)", "(proc.go:6550-6552)", "(proc.go:2999,
	// proc.go:3002)". Its group 1 is the places.
	citation = regexp.MustCompile(`\((` + loc + `(?:,\s*` + loc + `)*)\)`)
	locRE    = regexp.MustCompile(`^((?:[a-z0-9_]+/)*[a-z0-9_]+\.go):(\d+)(?:-(\d+))?$`)
)

// In a stream, a code span stands as codeMark and any other node that is
// not text as otherMark; a hard line break is breakMark (not a space: it
// is never deleted with the space before a citation).
const (
	codeMark  = "\uE000"
	otherMark = "\uE001"
	breakMark = "\uE002"
)

var (
	// named is a citation, the space before it, and the code span before
	// that, which names it, if there is one.
	named = regexp.MustCompile(`(` + codeMark + `)?(\s*)` + citation.String())
	// citationsOnly is a parenthesis of nothing but named citations:
	// "(`wakep` (proc.go:3215))", "(`a` (x.go:1), `b` (x.go:2))".
	citationsOnly = regexp.MustCompile(`\s*\(\s*` + codeMark + `\s*` + citation.String() +
		`(?:\s*(?:[,;]|,?\s+and)\s*` + codeMark + `\s*` + citation.String() + `)*\s*\)`)
)

// A place is a place of the runtime's source that the book cites: a line
// or lines of a file, and the name written before it, if any.
type place struct {
	name        string // "runqput"; "" for a citation without one
	file        string // "proc.go"
	first, last int    // lines; last is first for one line
}

// places reads the places of a citation's group 1.
func places(list, name string) []place {
	var ps []place
	for _, l := range strings.Split(list, ",") {
		m := locRE.FindStringSubmatch(strings.TrimSpace(l))
		first, _ := strconv.Atoi(m[2])
		last := first
		if m[3] != "" {
			last, _ = strconv.Atoi(m[3])
		}
		ps = append(ps, place{name: name, file: m[1], first: first, last: last})
	}
	return ps
}

// String is the place as the book writes it: "proc.go:7478".
func (p place) String() string {
	if p.last != p.first {
		return fmt.Sprintf("%s:%d-%d", p.file, p.first, p.last)
	}
	return fmt.Sprintf("%s:%d", p.file, p.first)
}

// link is a link to the place on GitHub, showing label (HTML).
func (p place) link(label string) string {
	href := fmt.Sprintf("%s%s#L%d", citedSource, p.file, p.first)
	lines := fmt.Sprintf("line %d", p.first)
	if p.last != p.first {
		href += fmt.Sprintf("-L%d", p.last)
		lines = fmt.Sprintf("lines %d-%d", p.first, p.last)
	}
	return fmt.Sprintf(`<a class="cite" href="%s" title="Go 1.26.8's runtime/%s, %s">%s</a>`, href, p.file, lines, label)
}

// entry is the place as a note lists it: "runqput — proc.go:7478".
func (p place) entry() string {
	if p.name == "" {
		return p.link(p.String())
	}
	return p.link("<code>" + html.EscapeString(p.name) + "</code> — " + p.String())
}

// compact is a citation as a table cell or code shows it: "(proc.go:7478)",
// each place a link.
func compact(ps []place) string {
	links := make([]string, len(ps))
	for i, p := range ps {
		links[i] = p.link(p.String())
	}
	return "(" + strings.Join(links, ", ") + ")"
}

// A citeNote is the marker at the end of a sentence, and the note it
// opens: the places the sentence cites.
type citeNote struct {
	ast.BaseInline
	id     string // "cite-3", with the chapter's ID prefix
	n      int    // its number in the chapter, from 1
	places []place
}

// A citeLink is a citation left in place, as a compact link.
type citeLink struct {
	ast.BaseInline
	places []place
}

// A citeList lists a chapter's notes, for paper.
type citeList struct {
	ast.BaseBlock
	notes []*citeNote
}

var (
	kindCiteNote = ast.NewNodeKind("CiteNote")
	kindCiteLink = ast.NewNodeKind("CiteLink")
	kindCiteList = ast.NewNodeKind("CiteList")
)

func (n *citeNote) Kind() ast.NodeKind         { return kindCiteNote }
func (n *citeLink) Kind() ast.NodeKind         { return kindCiteLink }
func (n *citeList) Kind() ast.NodeKind         { return kindCiteList }
func (n *citeNote) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }
func (n *citeLink) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }
func (n *citeList) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

// citeRenderer draws citeNote, citeLink and citeList. A marker acts as a
// button (it opens and closes its note; book.js and book.css say how),
// and its note is beside it in the page, so that hovering, focusing or
// tapping the marker shows it without a script having to find it.
type citeRenderer struct{}

func (citeRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(kindCiteNote, func(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			n := node.(*citeNote)
			// The marker is a link to its note, not a <button>: the line
			// may break before a button, leaving the marker alone at the
			// start of the next line, but not inside text; the word joiner
			// keeps it to the word before, after a ? or ! too.
			fmt.Fprintf(w, `<span class="cite-ref"><a class="cite-mark" href="#%s" role="button" aria-expanded="false" aria-controls="%s" aria-label="note %d: where the runtime does this">&#8288;%d</a>`, n.id, n.id, n.n, n.n)
			fmt.Fprintf(w, `<span class="cite-note" id="%s" role="note">`, n.id)
			for i, p := range n.places {
				if i > 0 {
					w.WriteString("<br>")
				}
				w.WriteString(p.entry())
			}
			w.WriteString("</span></span>")
		}
		return ast.WalkSkipChildren, nil
	})
	reg.Register(kindCiteLink, func(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			w.WriteString(compact(node.(*citeLink).places))
		}
		return ast.WalkSkipChildren, nil
	})
	reg.Register(kindCiteList, func(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			w.WriteString("<div class=\"cite-list\">\n<p>Places cited in Go 1.26.8's runtime</p>\n<ol>\n")
			for _, n := range node.(*citeList).notes {
				entries := make([]string, len(n.places))
				for i, p := range n.places {
					entries[i] = p.entry()
				}
				fmt.Fprintf(w, "<li>%s</li>\n", strings.Join(entries, "; "))
			}
			w.WriteString("</ol>\n</div>\n")
		}
		return ast.WalkSkipChildren, nil
	})
}

// placeCitations takes the citations out of the prose of doc, a chapter
// parsed from src (see the top of this file). idPrefix prefixes the notes'
// IDs, as it does the headings'.
func placeCitations(doc ast.Node, src []byte, idPrefix string) error {
	var notes []*citeNote
	var errs []error
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.Kind() {
		case ast.KindHeading:
			if m := citation.FindString(newStream(n, src).text); m != "" {
				errs = append(errs, fmt.Errorf("the heading %q cites the runtime, %s: cite it in the text under the heading (a heading's text is its link and its title in the search)", plain(n, src), m))
			}
			return ast.WalkSkipChildren, nil
		case ast.KindHTMLBlock:
			var raw strings.Builder
			lines := n.Lines()
			for i := 0; i < lines.Len(); i++ {
				seg := lines.At(i)
				raw.Write(seg.Value(src))
			}
			if m := citation.FindString(raw.String()); m != "" {
				errs = append(errs, fmt.Errorf("raw HTML cites the runtime, %s: cite it in Markdown (a citation in HTML is not linked)", m))
			}
			return ast.WalkSkipChildren, nil
		case extast.KindTableCell:
			linkInPlace(n, src)
			return ast.WalkSkipChildren, nil
		case ast.KindParagraph, ast.KindTextBlock:
			for _, note := range noteSentences(n, src) {
				notes = append(notes, note)
				note.n = len(notes)
				note.id = fmt.Sprintf("%scite-%d", idPrefix, note.n)
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	if len(notes) > 0 {
		doc.AppendChild(doc, &citeList{notes: notes})
	}
	return errors.Join(errs...)
}

// noteSentences takes the citations out of the sentences of container, a
// paragraph or the text of a list item, and puts one citeNote at the end
// of each sentence that had any. It returns them in order.
func noteSentences(container ast.Node, src []byte) []*citeNote {
	s := newStream(container, src)
	if !citation.MatchString(s.text) {
		return nil
	}
	type cited struct {
		start, end int // the citation's bytes in s.text
		places     []place
	}
	var all []cited
	for _, g := range citationsOnly.FindAllStringIndex(s.text, -1) {
		s.delete(g[0], g[1])
		for _, m := range named.FindAllStringSubmatchIndex(s.text[g[0]:g[1]], -1) {
			all = append(all, cited{g[0] + m[5], g[0] + m[1], places(s.text[g[0]+m[6]:g[0]+m[7]], s.codeAt(g[0]+m[2]))})
		}
	}
	for _, m := range named.FindAllStringSubmatchIndex(s.text, -1) {
		if s.deleted[m[5]] { // in a parenthesis of citations, done above
			continue
		}
		name := ""
		if m[2] >= 0 {
			name = s.codeAt(m[2])
		}
		s.delete(m[4], m[1])
		all = append(all, cited{m[5], m[1], places(s.text[m[6]:m[7]], name)})
	}
	slices.SortFunc(all, func(a, b cited) int { return a.start - b.start })
	var notes []*citeNote
	byEnd := map[int]*citeNote{}
	for _, c := range all {
		at := s.sentenceEnd(c.end)
		note := byEnd[at]
		if note == nil {
			note = &citeNote{}
			byEnd[at] = note
			notes = append(notes, note)
			s.insert(at, note)
		}
		note.places = append(note.places, c.places...)
	}
	s.rebuild(container)
	return notes
}

// linkInPlace makes each citation in a table cell a compact link where it
// is.
func linkInPlace(cell ast.Node, src []byte) {
	s := newStream(cell, src)
	if !citation.MatchString(s.text) {
		return
	}
	for _, m := range citation.FindAllStringSubmatchIndex(s.text, -1) {
		s.delete(m[0], m[1])
		s.insert(m[0], &citeLink{places: places(s.text[m[2]:m[3]], "")})
	}
	s.rebuild(cell)
}

// A stream is the text of an inline container's children, where a
// citation can be found although goldmark splits text into many nodes
// (at "(", at line ends): a Text node is its text, and "\n" for a soft
// line break; any other node a mark. Edits (deletions and insertions)
// are made on the text, then applied to the nodes by rebuild.
type stream struct {
	src     []byte
	text    string
	atoms   []atom
	deleted []bool             // by byte of text
	inserts map[int][]ast.Node // new nodes, before the byte of text
}

// An atom is a child of the container and its bytes in the text.
type atom struct {
	node       ast.Node
	start, end int
}

func newStream(container ast.Node, src []byte) *stream {
	s := &stream{src: src, inserts: map[int][]ast.Node{}}
	var b strings.Builder
	for c := container.FirstChild(); c != nil; c = c.NextSibling() {
		start := b.Len()
		switch t := c.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(src))
			if t.HardLineBreak() {
				b.WriteString(breakMark)
			} else if t.SoftLineBreak() {
				b.WriteByte('\n')
			}
		case *ast.CodeSpan:
			b.WriteString(codeMark)
		default:
			b.WriteString(otherMark)
		}
		s.atoms = append(s.atoms, atom{c, start, b.Len()})
	}
	s.text = b.String()
	s.deleted = make([]bool, len(s.text)+1)
	return s
}

func (s *stream) delete(from, to int) {
	for i := from; i < to; i++ {
		s.deleted[i] = true
	}
}

func (s *stream) insert(at int, n ast.Node) { s.inserts[at] = append(s.inserts[at], n) }

// codeAt is the text of the code span at i in the text.
func (s *stream) codeAt(i int) string {
	for _, a := range s.atoms {
		if a.start == i {
			var b strings.Builder
			for c := a.node.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					b.Write(t.Segment.Value(s.src))
				}
			}
			return b.String()
		}
	}
	return ""
}

// sentenceEnd is where a note for a citation that ends at i goes: after
// the full stop (or ? or !) that ends the sentence, and any closing
// bracket or quote after it; or at the end of the text, if the sentence
// does not end before it. Deleted text is skipped: "end (proc.go:1). Next"
// ends after the full stop, as "end. Next" does.
func (s *stream) sentenceEnd(i int) int {
	var kept strings.Builder
	var at []int // where each byte of kept is in the text
	for j := i; j < len(s.text); j++ {
		if !s.deleted[j] {
			kept.WriteByte(s.text[j])
			at = append(at, j)
		}
	}
	k := kept.String()
	for j := 0; j < len(k); j++ {
		if !strings.ContainsRune(".?!", rune(k[j])) || abbreviation(s.text[:at[j]]) {
			continue
		}
		end := j + 1
		for end < len(k) {
			if c := k[end]; c == ')' || c == ']' || c == '"' || c == '\'' {
				end++
			} else if strings.HasPrefix(k[end:], "”") || strings.HasPrefix(k[end:], "’") {
				end += len("”")
			} else {
				break
			}
		}
		if end == len(k) || k[end] == ' ' || k[end] == '\n' || k[end] == '\t' || strings.HasPrefix(k[end:], breakMark) {
			return at[end-1] + 1
		}
	}
	return len(s.text)
}

// abbreviation says whether a full stop after text ends an abbreviation
// rather than a sentence.
func abbreviation(text string) bool {
	for _, a := range []string{"e.g", "i.e", "cf", "vs"} {
		if strings.HasSuffix(text, " "+a) || strings.HasSuffix(text, "("+a) || text == a {
			return true
		}
	}
	return false
}

// rebuild applies the edits to container's children: text is cut where
// deleted, a node whose mark is deleted is dropped, and new nodes go in
// where inserted.
func (s *stream) rebuild(container ast.Node) {
	var out []ast.Node
	emit := func(at int) {
		out = append(out, s.inserts[at]...)
		delete(s.inserts, at)
	}
	for _, a := range s.atoms {
		t, ok := a.node.(*ast.Text)
		if !ok {
			emit(a.start)
			if !s.deleted[a.start] {
				out = append(out, a.node)
			}
			continue
		}
		valueEnd := a.start + t.Segment.Len()
		from := -1
		flush := func(to int) {
			if from < 0 {
				return
			}
			seg := text.NewSegment(t.Segment.Start+from-a.start, t.Segment.Start+min(to, valueEnd)-a.start)
			piece := ast.NewTextSegment(seg)
			piece.SetRaw(t.IsRaw())
			if to > valueEnd { // the line break is kept
				piece.SetSoftLineBreak(t.SoftLineBreak())
				piece.SetHardLineBreak(t.HardLineBreak())
			}
			out = append(out, piece)
			from = -1
		}
		for i := a.start; i < a.end; i++ {
			if len(s.inserts[i]) > 0 {
				flush(i)
				emit(i)
			}
			if s.deleted[i] {
				flush(i)
			} else if from < 0 {
				from = i
			}
		}
		flush(a.end)
	}
	emit(len(s.text))
	container.RemoveChildren(container)
	for _, n := range out {
		container.AppendChild(container, n)
	}
}

// linkCodeCitations makes each citation in the code blocks of a rendered
// page (<pre>) a link to its place.
func linkCodeCitations(page []byte) []byte {
	return preRE.ReplaceAllFunc(page, func(pre []byte) []byte {
		return citation.ReplaceAllFunc(pre, func(c []byte) []byte {
			return []byte(compact(places(string(citation.FindSubmatch(c)[1]), "")))
		})
	})
}

var preRE = regexp.MustCompile(`(?s)<pre[ >].*?</pre>`)

// stripCitations drops the citations from text for the search index,
// where "proc.go:7478" would only be noise.
func stripCitations(text string) string {
	return strings.Join(strings.Fields(citation.ReplaceAllString(text, "")), " ")
}
