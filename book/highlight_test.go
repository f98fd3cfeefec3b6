package book

import (
	"regexp"
	"strings"
	"testing"
)

// TestDarkCodeHasNoLightColours: every token class the light theme colours
// has a rule of its own in the dark theme, so no token keeps the light
// theme's near-black on the dark background (github-dark has no rule for
// plain names or punctuation: `type g struct` was unreadable in dark).
func TestDarkCodeHasNoLightColours(t *testing.T) {
	css := string(highlightCSS())
	rule := regexp.MustCompile(`(?m)^(html\[data-theme=dark\] )?(\.chroma \.\w+) \{ ([^}]*)\}`)
	light, dark := map[string]string{}, map[string]string{}
	for _, line := range strings.Split(css, "\n") {
		if i := strings.Index(line, "*/ "); strings.HasPrefix(line, "/*") && i >= 0 {
			line = line[i+3:]
		}
		m := rule.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if m[1] != "" {
			dark[m[2]] = m[3]
		} else {
			light[m[2]] = m[3]
		}
	}
	if len(light) < 20 {
		t.Fatalf("read %d light rules from the CSS: the parse is broken", len(light))
	}
	for sel, decl := range light {
		if !strings.Contains(decl, "color") {
			continue
		}
		if _, ok := dark[sel]; !ok {
			t.Errorf("%s is coloured in the light theme (%s) but has no dark rule: it keeps its light colour on the dark background", sel, strings.TrimSpace(decl))
		}
	}
	if d := dark[".chroma .p"]; !strings.Contains(d, "inherit") {
		t.Errorf("dark punctuation: %q, want the dark default (inherit)", d)
	}
}
