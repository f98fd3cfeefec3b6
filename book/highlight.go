package book

import (
	"bytes"
	"strings"

	"github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/styles"
)

// highlightCSS is the code colours of both themes: chroma's "github" for
// the light one, "github-dark" under html[data-theme=dark].
func highlightCSS() []byte {
	var out bytes.Buffer
	f := html.New(html.WithClasses(true))
	_ = f.WriteCSS(&out, styles.Get("github"))
	var dark bytes.Buffer
	_ = f.WriteCSS(&dark, styles.Get("github-dark"))
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
