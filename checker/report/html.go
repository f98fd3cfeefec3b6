package report

import (
	"html/template"
	"io"
)

// WriteHTML writes one self-contained page: the summary table, then per
// student a collapsible list of every lesson and test. It loads nothing
// (no script, no font, no stylesheet from elsewhere), so it can be mailed
// or opened offline; html/template escapes every text.
func WriteHTML(w io.Writer, r *Report) error {
	return htmlPage.Execute(w, r.cleaned())
}

var htmlPage = template.Must(template.New("page").Funcs(template.FuncMap{
	"clean":   Clean,
	"detail":  Detail,
	"passing": func(status string) bool { return status == StatusPass },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Workshop grades</title>
<style>
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 72em; padding: 0 1em; color: #1d1d1f; background: #fff; }
@media (prefers-color-scheme: dark) { body { color: #e8e8e8; background: #161618; } th, td { border-color: #444 !important; } }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: .25em .6em; text-align: right; vertical-align: top; }
th:first-child, td:first-child { text-align: left; }
td.fail { color: #c0392b; font-weight: 600; }
td.pass { color: #1e8449; }
td.why { text-align: left; white-space: pre-wrap; font-family: ui-monospace, monospace; font-size: 90%; }
details { margin: .4em 0; }
summary { cursor: pointer; }
small { opacity: .7; }
</style>
</head>
<body>
<h1>Workshop grades</h1>
<p>{{len .Students}} submissions, {{len .Lessons}} lessons, {{.MaxScore}} points each.
<small>kata {{printf "%.12s" .Kata}}, course {{printf "%.12s" .Course}}</small></p>
<table>
<thead><tr><th>student</th>{{range .Lessons}}<th title="{{.Title}}">{{.ID}}</th>{{end}}<th>total</th></tr></thead>
<tbody>
{{- range $i, $s := .Students}}
<tr><td><a href="#s{{$i}}">{{.Name}}</a>{{if .LooksLike}} <small class="fail">(looks like: {{range $j, $n := .LooksLike}}{{if $j}}, {{end}}{{$n}}{{end}})</small>{{end}}</td>{{range .Lessons}}<td class="{{if passing .Status}}pass{{else}}fail{{end}}">{{.Score}}</td>{{end}}<td><b>{{.Score}}/{{.MaxScore}}</b></td></tr>
{{- end}}
</tbody>
</table>
{{- range $i, $s := .Students}}
<h2 id="s{{$i}}">{{.Name}} <small>{{.Score}}/{{.MaxScore}} · {{.Source}}</small></h2>
{{- if .LooksLike}}<p class="fail">Looks like: {{range $j, $n := .LooksLike}}{{if $j}}, {{end}}{{$n}}{{end}} (names are kept as handed in: check them against your roster)</p>{{end}}
{{- if .Problem}}<p class="fail">Nothing could be graded: {{clean .Problem}}</p>{{end}}
{{- range .Lessons}}
<details{{if not (passing .Status)}} open{{end}}>
<summary><b>{{.ID}}</b> {{.Score}}/{{.MaxScore}}{{if .Reason}} — {{clean .Reason}}{{end}}</summary>
<table>
<tr><th>test</th><th>points</th><th>why (what the test printed in quotes, or after |)</th></tr>
{{- range .Tests}}
<tr><td>{{.Name}}</td><td class="{{if passing .Status}}pass{{else}}fail{{end}}">{{.Score}}/{{.MaxScore}}</td><td class="why">{{detail .}}</td></tr>
{{- end}}
</table>
</details>
{{- end}}
{{- end}}
</body>
</html>
`))
