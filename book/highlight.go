package book

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/styles"
)

// highlightCSS is the code colours of both themes: chroma's "github" for
// the light one, "github-dark" under html[data-theme=dark]. A token the
// light style colours and the dark one leaves to the default (github-dark
// has no rule for plain names or punctuation) would keep its near-black
// light colour on the dark background: the dark theme resets it to the
// dark default instead.
func highlightCSS() []byte {
	var out bytes.Buffer
	f := html.New(html.WithClasses(true))
	_ = f.WriteCSS(&out, styles.Get("github"))
	var dark bytes.Buffer
	_ = f.WriteCSS(&dark, styles.Get("github-dark"))
	darkRules := map[string]bool{}
	for _, m := range tokenRule.FindAllStringSubmatch(dark.String(), -1) {
		darkRules[m[2]] = true
	}
	for _, m := range tokenRule.FindAllStringSubmatch(out.String(), -1) {
		if !darkRules[m[2]] && strings.Contains(m[3], "color") {
			fmt.Fprintf(&dark, "/* %s */ %s { color: inherit; background-color: inherit }\n", m[1], m[2])
		}
	}
	for _, line := range strings.SplitAfter(dark.String(), "\n") {
		if strings.HasPrefix(line, "/*") {
			// chroma prefixes each rule with a comment naming it
			if i := strings.Index(line, "*/ "); i >= 0 {
				line = line[:i+3] + "html[data-theme=dark] " + line[i+3:]
			}
		} else if strings.HasPrefix(line, ".") {
			line = "html[data-theme=dark] " + line
		}
		out.WriteString(line)
	}
	return out.Bytes()
}

// tokenRule is one of chroma's rules for a token class:
// "/* NameOther */ .chroma .nx { color: #1f2328 }".
var tokenRule = regexp.MustCompile(`(?m)^/\* (\w+) \*/ (\.chroma \.\w+) \{ ([^}]*)\}`)
