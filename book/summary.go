package book

import (
	"fmt"
	"io/fs"
	"regexp"
	"strings"

	"github.com/gmp-kata/gmp-kata/lessons"
)

// summaryFile is the one ordered table of contents of the book.
const summaryFile = "book/src/SUMMARY.md"

// A Chapter is one page of the book.
type Chapter struct {
	Name   string          // the page's base name: "model" is model.html
	Title  string          // as the table of contents gives it
	Source string          // its Markdown, as a path in the source tree
	Lesson *lessons.Lesson // the lesson it is the chapter of, or nil
}

var summaryEntry = regexp.MustCompile(`^- \[([^\]]+)\]\(([\w.-]+)\.md\)\s*$`)

// readSummary returns the book's chapters in order: the entries of
// SUMMARY.md, with {{#lessons}} standing for every lesson of reg.
func readSummary(src fs.FS, ls []*lessons.Lesson) ([]Chapter, error) {
	data, err := fs.ReadFile(src, summaryFile)
	if err != nil {
		return nil, fmt.Errorf("book: reading the table of contents: %w", err)
	}
	var chapters []Chapter
	seen := map[string]bool{}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "- ") {
			continue
		}
		if line == "- {{#lessons}}" {
			for _, l := range ls {
				chapters = append(chapters, Chapter{Name: l.ID, Title: l.Title, Source: "lessons/" + l.ID + "/chapter.md", Lesson: l})
			}
			continue
		}
		m := summaryEntry.FindStringSubmatch(line)
		if m == nil {
			return nil, &sourceError{summaryFile, i + 1, fmt.Sprintf("%q is not an entry; want - [Title](name.md) or - {{#lessons}}", line)}
		}
		chapters = append(chapters, Chapter{Name: m[2], Title: m[1], Source: "book/src/" + m[2] + ".md"})
	}
	for _, c := range chapters {
		if seen[c.Name] {
			return nil, fmt.Errorf("book: %s: chapter %q listed twice", summaryFile, c.Name)
		}
		seen[c.Name] = true
	}
	if len(chapters) == 0 {
		return nil, fmt.Errorf("book: %s lists no chapters", summaryFile)
	}
	return chapters, nil
}
