package diagram

import (
	"html/template"
	"io"
)

// A Page is a self-contained HTML page of one or more timelines, for
// `kata trace`: no file beside it is needed to view it.
type Page struct {
	Title    string
	Subtitle string
	Runs     []PageRun
	// A comparison of several runs of each scheduler, drawn above the
	// runs if set: a row per measure, a column per scheduler.
	CompareHeader []string
	CompareRows   [][]string
	CompareNote   string
}

// A PageRun is one run on a page: a heading, a table of what each P did,
// the timeline, and what went wrong, if anything.
type PageRun struct {
	Heading string
	Header  []string   // the table's column names
	Rows    [][]string // one row per P
	Totals  string
	SVG     string
	Err     string
	Note    string   // what the run did not show of its scenario's story
	Verdict []string // the run's verdict, a line each
}

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<script>document.documentElement.dataset.theme = matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";</script>
<style>
body { margin: 0; padding: 1.2rem 1.5rem 3rem; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; background: #fff; color: #1f2328; }
html[data-theme=dark] body { background: #0d1117; color: #e6edf3; }
h1 { font-size: 1.4rem; margin: 0 0 .2rem; }
h2 { font-size: 1.15rem; margin: 2rem 0 .5rem; }
.sub { color: #6e7781; margin: 0 0 1rem; }
table { border-collapse: collapse; font-size: .85rem; margin: .5rem 0; }
th, td { border: 1px solid #d0d7de; padding: .2rem .6rem; text-align: right; }
th:first-child, td:first-child { text-align: left; }
html[data-theme=dark] th, html[data-theme=dark] td { border-color: #30363d; }
.scroll { overflow-x: auto; }
.note { border-left: 3px solid #d4a72c; padding: .2rem .7rem; }
.err { background: #ffebe9; border: 1px solid #ff8182; padding: .5rem .8rem; border-radius: 6px; white-space: pre-wrap; font-family: ui-monospace, monospace; font-size: .85rem; }
html[data-theme=dark] .err { background: #3c1618; border-color: #f85149; }
.tl-legend { display: flex; flex-wrap: wrap; gap: .2rem 1rem; font-size: .8rem; color: #6e7781; margin: .4rem 0; }
.tl-legend svg { vertical-align: -1px; margin-right: .25em; }
.tl-run.hl rect { stroke: var(--dg-fg); stroke-width: 2; }
#tip { position: fixed; pointer-events: none; background: #1f2328; color: #fff; font-size: .8rem; padding: .3rem .5rem; border-radius: 4px; max-width: 28rem; display: none; z-index: 5; }
` + CSS + `
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p class="sub">{{.Subtitle}}</p>
{{if .CompareRows}}<table class="compare"><thead><tr>{{range .CompareHeader}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{range .CompareRows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody></table>
<p class="sub">{{.CompareNote}}</p>{{end}}
{{range .Runs}}
<h2>{{.Heading}}</h2>
{{if .Err}}<div class="err">{{.Err}}</div>{{end}}
{{if .Note}}<p class="note">{{.Note}}</p>{{end}}
{{if .Verdict}}<pre class="verdict">{{range .Verdict}}{{.}}
{{end}}</pre>{{end}}
{{if .Rows}}<table><thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody></table>
<p>{{.Totals}}</p>{{end}}
{{if .SVG}}<div class="scroll">{{.SVGHTML}}</div>{{end}}
{{end}}
` + Legend + `
<p class="sub">Hover over a bar or a mark for what happened; hovering a G's bar lights up all of that G's runs. Drag a timeline to pan it; click it, then the wheel (or + and −) zooms; 0 shows the whole run.</p>
<div id="tip"></div>
<script>
(function () {
  var tip = document.getElementById("tip");
  document.querySelectorAll("svg.timeline title").forEach(function (t) {
    var el = t.parentNode;
    el.dataset.tip = t.textContent;
    t.remove();
  });
  document.addEventListener("mouseover", function (e) {
    var el = e.target.closest("[data-tip]");
    document.querySelectorAll(".tl-run.hl").forEach(function (x) { x.classList.remove("hl"); });
    if (!el) { tip.style.display = "none"; return; }
    tip.textContent = el.dataset.tip;
    tip.style.display = "block";
    if (el.dataset.g) {
      document.querySelectorAll('.tl-run[data-g="' + el.dataset.g + '"]').forEach(function (x) { x.classList.add("hl"); });
    }
  });
  document.addEventListener("mousemove", function (e) {
    tip.style.left = Math.min(e.clientX + 12, innerWidth - tip.offsetWidth - 8) + "px";
    tip.style.top = (e.clientY + 14) + "px";
  });
})();
</script>
<script>
` + Script + `
</script>
</body>
</html>
`))

// SVGHTML marks the run's SVG, which the diagram package drew, as safe.
func (r PageRun) SVGHTML() template.HTML { return template.HTML(r.SVG) }

// Write writes the page.
func (p *Page) Write(w io.Writer) error { return pageTemplate.Execute(w, p) }
