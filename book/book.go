// Package book renders the course's book: the chapters listed in
// book/src/SUMMARY.md — the lessons' own chapters (lessons/NN-slug/chapter.md)
// among them — into a static site that reads well on a laptop, a phone and
// paper, and that works opened straight from disk.
//
// Chapters are Markdown (goldmark: GFM, footnotes, chroma highlighting with
// CSS classes). Code in them is included from real files of the repository
// ({{#include PATH:NAME}}), and pictures are generated at build time from
// the reference scheduler running a scenario ({{#timeline}}), from the
// state tables checked against its code ({{#statemachine}}), or from its
// run queue functions and the order of its calls ({{#figure}}). The build
// fails, naming the file and line, on a missing include, an unknown
// scenario, a broken link or a chapter a lesson lacks. book/WRITING.md is
// the writer's guide.
package book

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gmp-kata/gmp-kata/internal/diagram"
	"github.com/gmp-kata/gmp-kata/lessons"
	"github.com/yuin/goldmark"
)

//go:embed assets
var assets embed.FS

// Options configure a build.
type Options struct {
	// Src is the repository's tree: book/src, lessons/*/chapter.md and
	// every file a chapter includes.
	Src fs.FS
	// Lessons are the chapters {{#lessons}} stands for, in order; nil
	// means every lesson of lessons.Default.
	Lessons []*lessons.Lesson
	// Seed seeds the scenario runs the pictures come from.
	Seed uint64
	// LiveReload adds the script that reloads a page when `kata book
	// serve` rebuilds the book.
	LiveReload bool
}

// A Site is a built book: its files by slash-separated name.
type Site struct {
	Files    map[string][]byte
	Chapters []Chapter
	// Used lists the source files the build read, for a server to watch.
	Used []string
}

// The book's title.
const bookTitle = "gmp-kata: build the Go scheduler"

type builder struct {
	opts  Options
	src   fs.FS
	md    goldmark.Markdown
	used  map[string]bool
	cache map[string]string // pictures already drawn, by directive
}

// Build renders the whole book.
func Build(opts Options) (*Site, error) {
	if opts.Lessons == nil {
		opts.Lessons = lessons.Default.All()
		if len(opts.Lessons) == 0 {
			return nil, fmt.Errorf("book: no lessons registered (forgotten import of github.com/gmp-kata/gmp-kata/lessons/all?)")
		}
	}
	if opts.Seed == 0 {
		opts.Seed = 1
	}
	b := &builder{opts: opts, src: opts.Src, md: newMarkdown(), used: map[string]bool{summaryFile: true}, cache: map[string]string{}}
	chapters, err := readSummary(b.src, opts.Lessons)
	if err != nil {
		return nil, err
	}
	site := &Site{Files: map[string][]byte{}, Chapters: chapters}
	pages := make([]*rendered, len(chapters))
	prints := make([]*rendered, len(chapters))
	byName := map[string]int{}
	for i, c := range chapters {
		byName[c.Name] = i
	}
	var errs []error
	for i, c := range chapters {
		src, err := fs.ReadFile(b.src, c.Source)
		if err != nil {
			errs = append(errs, fmt.Errorf("book: chapter %q: no file %s (listed in %s)", c.Name, c.Source, summaryFile))
			continue
		}
		b.used[c.Source] = true
		expanded, err := b.expand(c.Source, src)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		pages[i], err = render(b.md, expanded, "", func(dest string) string { return pageLink(chapters, byName, dest) })
		if err != nil {
			errs = append(errs, fmt.Errorf("book: %s: %w", c.Source, err))
			continue
		}
		prints[i], err = render(b.md, expanded, c.Name+"--", func(dest string) string { return printLink(c.Name, byName, dest) })
		if err != nil {
			errs = append(errs, fmt.Errorf("book: %s: %w", c.Source, err))
			continue
		}
		// Footnotes are numbered per chapter: keep them apart on the
		// print page too.
		for _, attr := range []string{`id="fn`, `href="#fn`} {
			prints[i].html = bytes.ReplaceAll(prints[i].html, []byte(attr), []byte(strings.Replace(attr, "fn", c.Name+"--fn", 1)))
		}
		if c.Lesson != nil && pages[i].title != c.Lesson.Title {
			errs = append(errs, fmt.Errorf("book: %s: the chapter's title %q is not the lesson's title %q (lessons/%s/lesson.go)", c.Source, pages[i].title, c.Lesson.Title, c.Name))
		}
		if pages[i].title == "" {
			errs = append(errs, fmt.Errorf("book: %s: no # title line", c.Source))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if err := b.writePages(site, pages, prints); err != nil {
		return nil, err
	}
	if err := checkLinks(site); err != nil {
		return nil, err
	}
	for f := range b.used {
		site.Used = append(site.Used, f)
	}
	slices.Sort(site.Used)
	return site, nil
}

// fileOf is the page a chapter is published as: the first chapter is the
// book's front page.
func fileOf(chapters []Chapter, i int) string {
	if i == 0 {
		return "index.html"
	}
	return chapters[i].Name + ".html"
}

// pageLink rewrites a link written in a chapter ("model.md#why-p") to the
// page it is published as ("model.html#why-p").
func pageLink(chapters []Chapter, byName map[string]int, dest string) string {
	file, frag, hasFrag := strings.Cut(dest, "#")
	if name, ok := strings.CutSuffix(file, ".md"); ok && !strings.Contains(name, "/") {
		if i, ok := byName[name]; ok {
			file = fileOf(chapters, i)
		}
	}
	if hasFrag {
		return file + "#" + frag
	}
	return file
}

// printLink rewrites a link for the print page, where every chapter is a
// section and its heading IDs are prefixed with its name.
func printLink(self string, byName map[string]int, dest string) string {
	file, frag, _ := strings.Cut(dest, "#")
	name := self
	if file != "" {
		n, isMD := strings.CutSuffix(file, ".md")
		if _, known := byName[n]; !isMD || !known {
			return dest // not a chapter: left for the link check
		}
		name = n
	}
	if frag == "" {
		return "#" + name
	}
	return "#" + name + "--" + frag
}

type tocEntry struct {
	Href, Title, Label string
	Current            bool
}

type pageData struct {
	BookTitle, Title string
	TOC              []tocEntry
	Content          template.HTML
	Prev, Next       *tocEntry
	LiveReload       bool
	Print            bool
}

var pageTemplate = template.Must(template.ParseFS(assets, "assets/page.html"))

func (b *builder) writePages(site *Site, pages, prints []*rendered) error {
	toc := make([]tocEntry, len(site.Chapters))
	for i, c := range site.Chapters {
		toc[i] = tocEntry{Href: fileOf(site.Chapters, i), Title: c.Title}
		if c.Lesson != nil {
			toc[i].Label = c.Name[:2]
		}
	}
	write := func(name string, data pageData) error {
		var buf bytes.Buffer
		data.BookTitle, data.LiveReload = bookTitle, b.opts.LiveReload
		if err := pageTemplate.Execute(&buf, data); err != nil {
			return fmt.Errorf("book: %s: %w", name, err)
		}
		site.Files[name] = buf.Bytes()
		return nil
	}
	var index []map[string]string
	for i := range site.Chapters {
		entries := slices.Clone(toc)
		entries[i].Current = true
		data := pageData{Title: pages[i].title, TOC: entries, Content: template.HTML(pages[i].html)}
		if i > 0 {
			data.Prev = &toc[i-1]
		}
		if i+1 < len(toc) {
			data.Next = &toc[i+1]
		}
		if err := write(toc[i].Href, data); err != nil {
			return err
		}
		for _, s := range pages[i].sections {
			href := toc[i].Href
			if s.ID != "" {
				href += "#" + s.ID
			}
			title := s.Title
			if title == "" {
				title = pages[i].title
			}
			index = append(index, map[string]string{"h": href, "t": title, "c": pages[i].title, "x": s.Text})
		}
	}
	var all bytes.Buffer
	for i, c := range site.Chapters {
		fmt.Fprintf(&all, "<section class=\"print-chapter\" id=\"%s\">\n", c.Name)
		all.Write(prints[i].html)
		all.WriteString("</section>\n")
	}
	if err := write("print.html", pageData{Title: "The whole book", TOC: toc, Content: template.HTML(all.String()), Print: true}); err != nil {
		return err
	}
	js, err := json.Marshal(index)
	if err != nil {
		return err
	}
	site.Files["searchindex.js"] = append(append([]byte("window.bookSearchIndex = "), js...), ";\n"...)
	site.Files["highlight.css"] = highlightCSS()
	for _, name := range []string{"book.css", "book.js"} {
		data, err := assets.ReadFile("assets/" + name)
		if err != nil {
			return err
		}
		site.Files[name] = data
	}
	site.Files["book.css"] = append(site.Files["book.css"], diagram.CSS...)
	site.Files["book.js"] = append(site.Files["book.js"], "\n"+diagram.Script...)
	return nil
}

// Write writes the site into dir, creating it. Files of dir that the
// book does not have are left alone.
func (s *Site) Write(dir string) error {
	for name, data := range s.Files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("book: %w", err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return fmt.Errorf("book: %w", err)
		}
	}
	return nil
}
