package book

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"

	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/yuin/goldmark"
	highlighting "github.com/yuin/goldmark-highlighting/v2"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// newMarkdown returns the book's goldmark: GFM, footnotes, raw HTML (for
// <details> and the pictures), chroma highlighting with CSS classes, and
// headings with IDs and anchor links.
func newMarkdown() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(
			extension.GFM,
			extension.Footnote,
			highlighting.NewHighlighting(
				highlighting.WithFormatOptions(chromahtml.WithClasses(true)),
				highlighting.WithGuessLanguage(false),
			),
		),
		goldmark.WithParserOptions(parser.WithAutoHeadingID()),
		goldmark.WithRendererOptions(
			html.WithUnsafe(),
			renderer.WithNodeRenderers(util.Prioritized(headingRenderer{}, 100), util.Prioritized(citeRenderer{}, 100)),
		),
	)
}

// ids makes heading IDs the way GitHub does, for any script: lower case,
// letters, digits, '-' and '_' kept, spaces to '-', the rest dropped; a
// repeated ID gets -1, -2, ... Every ID gets prefix (the print page keeps
// the chapters' IDs apart with it).
type ids struct {
	prefix string
	seen   map[string]int
}

func newIDs(prefix string) *ids { return &ids{prefix: prefix, seen: map[string]int{}} }

func (s *ids) Generate(value []byte, kind ast.NodeKind) []byte {
	id := slug(string(value))
	if id == "" {
		id = "section"
	}
	if n, ok := s.seen[id]; ok {
		s.seen[id] = n + 1
		id = fmt.Sprintf("%s-%d", id, n+1)
	}
	s.seen[id] = 0
	return []byte(s.prefix + id)
}

func (s *ids) Put(value []byte) { s.seen[strings.TrimPrefix(string(value), s.prefix)] = 0 }

// slug turns a heading's text into an ID.
func slug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(s)) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// headingRenderer draws a heading with a link to itself.
type headingRenderer struct{}

func (headingRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindHeading, func(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
		h := node.(*ast.Heading)
		if entering {
			fmt.Fprintf(w, "<h%d", h.Level)
			html.RenderAttributes(w, node, html.HeadingAttributeFilter)
			w.WriteString(">")
			if id, ok := node.AttributeString("id"); ok {
				fmt.Fprintf(w, `<a class="anchor" href="#%s" aria-label="link to this section">#</a>`, id)
			}
		} else {
			fmt.Fprintf(w, "</h%d>\n", h.Level)
		}
		return ast.WalkContinue, nil
	})
}

// A section is a stretch of a chapter under one heading, for the search
// index.
type section struct {
	ID, Title, Text string
}

// A rendered chapter.
type rendered struct {
	html     []byte
	title    string // its first heading
	sections []section
	links    []string // every link destination, as written
}

// render turns a chapter's expanded Markdown into HTML. link rewrites each
// link destination.
func render(md goldmark.Markdown, src []byte, idPrefix string, link func(dest string) string) (*rendered, error) {
	ctx := parser.NewContext(parser.WithIDs(newIDs(idPrefix)))
	doc := md.Parser().Parse(text.NewReader(src), parser.WithContext(ctx))
	if err := placeCitations(doc, src, idPrefix); err != nil {
		return nil, err
	}
	r := &rendered{}
	var cur *section
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok {
			attr, _ := h.AttributeString("id")
			id, _ := attr.([]byte)
			title := plain(h, src)
			if r.title == "" && h.Level == 1 {
				r.title = title
			}
			r.sections = append(r.sections, section{ID: string(id), Title: title})
			cur = &r.sections[len(r.sections)-1]
			continue
		}
		if cur == nil {
			r.sections = append(r.sections, section{})
			cur = &r.sections[0]
		}
		if t := plain(n, src); t != "" {
			if cur.Text != "" {
				cur.Text += " "
			}
			cur.Text += t
		}
	}
	err := ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch l := n.(type) {
		case *ast.Link:
			r.links = append(r.links, string(l.Destination))
			l.Destination = []byte(link(string(l.Destination)))
		case *ast.Image:
			r.links = append(r.links, string(l.Destination))
		}
		return ast.WalkContinue, nil
	})
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := md.Renderer().Render(&out, src, doc); err != nil {
		return nil, err
	}
	r.html = linkCodeCitations(out.Bytes())
	return r, nil
}

// plain returns the text of n and its children, code included, with
// spaces between blocks, for the search index: without citations.
func plain(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := n.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(src))
			if t.SoftLineBreak() || t.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(t.Value)
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			lines := n.Lines()
			for i := 0; i < lines.Len(); i++ {
				seg := lines.At(i)
				b.Write(seg.Value(src))
			}
			return ast.WalkSkipChildren, nil
		case *ast.RawHTML, *ast.HTMLBlock:
			return ast.WalkSkipChildren, nil
		}
		if n.Type() == ast.TypeBlock && b.Len() > 0 {
			b.WriteByte(' ')
		}
		return ast.WalkContinue, nil
	})
	return stripCitations(b.String())
}
