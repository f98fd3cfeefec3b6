package book

import (
	"fmt"
	"html"
	"strings"

	"github.com/gmp-kata/gmp-kata/internal/diagram"
	"github.com/gmp-kata/gmp-kata/internal/scenario"
)

// picture draws a {{#timeline SCENARIO}}, {{#statemachine g|m|p}} or
// {{#figure NAME}} as an HTML figure on one line.
func (b *builder) picture(kind, arg string) (string, error) {
	key := kind + " " + arg
	if html, ok := b.cache[key]; ok {
		return html, nil
	}
	var fig string
	switch kind {
	case "timeline":
		s, err := scenario.Lookup(arg)
		if err != nil {
			return "", fmt.Errorf("{{#timeline %s}}: %v", arg, err)
		}
		// The picture is a run that bears out its caption: the first of a
		// few, since the Ms are threads that the OS may keep off a core.
		// If none does, the book says so under the picture.
		r, view, story := scenario.RunStory(s, 0, b.opts.Seed, scenario.Tries)
		if r == nil {
			return "", fmt.Errorf("{{#timeline %s}}: %v", arg, story)
		}
		svg := diagram.Lay(diagram.Run{Events: r.Events, Procs: r.Procs}).SVG(diagram.Options{
			Title: fmt.Sprintf("scenario %s: %s, seed %d", s.Name, scenario.Plural(r.Procs, "P"), r.Seed),
			View:  view,
			ID:    "tl-" + s.Name,
		})
		caption := html.EscapeString(strings.ToUpper(s.Short[:1])+s.Short[1:]) + fmt.Sprintf(". Drawn from the reference scheduler running <code>kata trace %s --reference --seed %d</code>; hover over a bar or a mark for details, drag to pan, click and use the wheel or + and − to zoom.", s.Name, r.Seed)
		if !view.IsZero() {
			caption += " It opens on what this caption is about; <b>whole run</b> (or 0) shows the rest."
		}
		if r.Err != nil {
			first, _, _ := strings.Cut(r.Err.Error(), "\n")
			caption += " Wait returned: <code>" + html.EscapeString(first) + "</code>."
		}
		if story != nil {
			caption += fmt.Sprintf(" <b>This run does not show all of that</b> (%s), nor did the %d before it: the machine that built this book was probably too busy to run every M.", html.EscapeString(strings.TrimPrefix(story.Error(), "scenario "+s.Name+": ")), scenario.Tries-1)
		}
		fig = `<figure class="picture timeline-figure"><div class="scroll">` + oneLine(svg) + `</div>` + diagram.Legend + `<figcaption>` + caption + `</figcaption></figure>`
	case "figure":
		f, ok := diagram.Figures[arg]
		if !ok {
			return "", fmt.Errorf("{{#figure %s}}: no figure %q (have: %s)", arg, arg, strings.Join(diagram.FigureNames(), ", "))
		}
		fig = `<figure class="picture figure-figure" id="fig-` + f.Name + `"><div class="scroll">` + oneLine(f.SVG()) + `</div><figcaption>` +
			html.EscapeString(f.Caption) + `</figcaption></figure>`
	case "statemachine":
		m, ok := diagram.Machines[arg]
		if !ok {
			return "", fmt.Errorf("{{#statemachine %s}}: no state machine %q (have: %s)", arg, arg, strings.Join(diagram.MachineNames(), ", "))
		}
		fig = `<figure class="picture statemachine-figure"><div class="scroll">` + oneLine(m.SVG()) + `</div><figcaption>` +
			html.EscapeString(m.Title) + `: each arrow names the functions of the reference that make the transition; hover a state for what it means.</figcaption></figure>`
	}
	b.cache[key] = fig
	return fig, nil
}

// oneLine joins an SVG's lines, so that no blank line ends the HTML block
// it stands in.
func oneLine(s string) string { return strings.ReplaceAll(s, "\n", "") }
