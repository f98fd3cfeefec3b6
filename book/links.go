package book

import (
	"errors"
	"fmt"
	"html"
	"net/url"
	"regexp"
	"strings"
)

var (
	hrefAttr = regexp.MustCompile(`\s(?:href|src)="([^"]*)"`)
	idAttr   = regexp.MustCompile(`\sid="([^"]*)"`)
)

// checkLinks checks every link of every page of the site: the page it
// names exists, and so does the element its #fragment names.
func checkLinks(site *Site) error {
	ids := map[string]map[string]bool{}
	for name, data := range site.Files {
		if !strings.HasSuffix(name, ".html") {
			continue
		}
		set := map[string]bool{}
		for _, m := range idAttr.FindAllSubmatch(data, -1) {
			set[html.UnescapeString(string(m[1]))] = true
		}
		ids[name] = set
	}
	source := map[string]string{"print.html": "the print page"}
	for i, c := range site.Chapters {
		source[fileOf(site.Chapters, i)] = c.Source
	}
	var errs []error
	for page, set := range ids {
		seen := map[string]bool{}
		for _, m := range hrefAttr.FindAllSubmatch(site.Files[page], -1) {
			dest := html.UnescapeString(string(m[1]))
			if seen[dest] || external(dest) {
				continue
			}
			seen[dest] = true
			file, frag, _ := strings.Cut(dest, "#")
			file, _, _ = strings.Cut(file, "?")
			target := set
			if file != "" {
				if f, err := url.PathUnescape(file); err == nil {
					file = f
				}
				if _, ok := site.Files[file]; !ok {
					errs = append(errs, fmt.Errorf("book: %s: link to %q: no such page (link to a chapter as NAME.md, see book/WRITING.md)", source[page], dest))
					continue
				}
				target = ids[file]
			}
			if frag != "" && target != nil {
				if f, err := url.PathUnescape(frag); err == nil {
					frag = f
				}
				if !target[frag] {
					errs = append(errs, fmt.Errorf("book: %s: link to %q: no heading or element #%s there", source[page], dest, frag))
				}
			}
		}
	}
	return errors.Join(errs...)
}

// external says whether a link leaves the book.
func external(dest string) bool {
	u, err := url.Parse(dest)
	return err == nil && (u.Scheme != "" || strings.HasPrefix(dest, "//"))
}
