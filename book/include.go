package book

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"regexp"
	"strings"
)

// A directive is a {{#...}} line of a chapter: an include, a picture, or
// the summary's {{#lessons}}.
var directive = regexp.MustCompile(`\{\{#(include|timeline|statemachine|figure|lessons)\b\s*([^}]*)\}\}`)

// A sourceError is a problem with a chapter's source, reported at its line.
type sourceError struct {
	file string
	line int
	msg  string
}

func (e *sourceError) Error() string { return fmt.Sprintf("%s:%d: %s", e.file, e.line, e.msg) }

// expand replaces the directives of a chapter: {{#include PATH[:NAME]}}
// anywhere by the text it names, and {{#timeline S}}, {{#statemachine X}}
// and {{#figure NAME}} on lines of their own, outside code fences, by the
// picture's HTML. file names the chapter in errors; used records every
// file read, for `kata book serve` to watch.
func (b *builder) expand(file string, src []byte) ([]byte, error) {
	var out bytes.Buffer
	fence := ""
	lines := strings.SplitAfter(string(src), "\n")
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		if run := fenceRun(trimmed); fence == "" && run != "" {
			fence = run
		} else if fence != "" && strings.HasPrefix(trimmed, fence) && strings.TrimLeft(trimmed, fence[:1]) == "" {
			fence = ""
		}
		m := directive.FindStringSubmatchIndex(line)
		if m == nil {
			out.WriteString(line)
			continue
		}
		kind, arg := line[m[2]:m[3]], strings.TrimSpace(line[m[4]:m[5]])
		fail := func(format string, args ...any) error {
			return &sourceError{file, i + 1, fmt.Sprintf(format, args...)}
		}
		switch kind {
		case "include":
			text, err := b.include(arg)
			if err != nil {
				return nil, fail("%v", err)
			}
			out.WriteString(line[:m[0]])
			out.WriteString(strings.TrimSuffix(text, "\n"))
			out.WriteString(line[m[1]:])
		case "timeline", "statemachine", "figure":
			if fence != "" || trimmed != line[m[0]:m[1]] {
				out.WriteString(line)
				continue
			}
			html, err := b.picture(kind, arg)
			if err != nil {
				return nil, fail("%v", err)
			}
			out.WriteString(html)
			out.WriteString("\n")
		default:
			return nil, fail("{{#%s}} belongs in SUMMARY.md only", kind)
		}
	}
	return out.Bytes(), nil
}

// include returns the text that "PATH" or "PATH:NAME" names: the whole
// file, the region between "ANCHOR: NAME" and "ANCHOR_END: NAME", or the Go
// declaration called NAME with its doc comment.
func (b *builder) include(arg string) (string, error) {
	file, name, _ := strings.Cut(arg, ":")
	file = path.Clean(strings.TrimSpace(file))
	name = strings.TrimSpace(name)
	data, err := fs.ReadFile(b.src, file)
	if err != nil {
		return "", fmt.Errorf("{{#include %s}}: no file %s in the repository", arg, file)
	}
	b.used[file] = true
	if name == "" {
		return string(data), nil
	}
	if text, ok := anchored(string(data), name); ok {
		return text, nil
	}
	if strings.HasSuffix(file, ".go") {
		text, err := declaration(file, data, name)
		if err != nil {
			return "", fmt.Errorf("{{#include %s}}: %v", arg, err)
		}
		if text != "" {
			return text, nil
		}
	}
	return "", fmt.Errorf("{{#include %s}}: %s has no anchor %q (// ANCHOR: %s ... // ANCHOR_END: %s) and no declaration %s", arg, file, name, name, name, name)
}

var anchorLine = regexp.MustCompile(`^\s*(?://|#|<!--)\s*ANCHOR(_END)?:\s*([\w.-]+)`)

// anchored returns the lines between the ANCHOR and ANCHOR_END markers of
// name, without any marker lines, dedented.
func anchored(src, name string) (string, bool) {
	var body []string
	in, found := false, false
	for _, line := range strings.Split(src, "\n") {
		m := anchorLine.FindStringSubmatch(line)
		switch {
		case m != nil && m[2] == name && m[1] == "":
			in, found = true, true
		case m != nil && m[2] == name:
			in = false
		case m != nil:
			// another anchor's marker: not part of the text
		case in:
			body = append(body, line)
		}
	}
	if !found {
		return "", false
	}
	return dedent(body), true
}

// fenceRun returns the run of backticks or tildes that opens a code fence
// on line, or "".
func fenceRun(line string) string {
	for _, c := range "`~" {
		run := line[:len(line)-len(strings.TrimLeft(line, string(c)))]
		if len(run) >= 3 {
			return run
		}
	}
	return ""
}

// dedent removes the indentation the non-blank lines share.
func dedent(lines []string) string {
	prefix, set := "", false
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		ind := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if !set {
			prefix, set = ind, true
		}
		for !strings.HasPrefix(ind, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	var out strings.Builder
	for _, l := range lines {
		out.WriteString(strings.TrimPrefix(l, prefix))
		out.WriteString("\n")
	}
	return out.String()
}

// declaration returns the source of the top-level declaration name in a Go
// file, with its doc comment: "f" (a function), "T.m" (a method), "T" (a
// type), or a const or var name (its whole group).
func declaration(file string, data []byte, name string) (string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, data, parser.ParseComments)
	if err != nil {
		return "", fmt.Errorf("parsing %s: %v", file, err)
	}
	recv, fn, isMethod := strings.Cut(name, ".")
	span := func(doc *ast.CommentGroup, node ast.Node) string {
		start := node.Pos()
		if doc != nil {
			start = doc.Pos()
		}
		return string(data[fset.Position(start).Offset:fset.Position(node.End()).Offset]) + "\n"
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if isMethod {
				if d.Recv != nil && d.Name.Name == fn && receiverType(d.Recv) == recv {
					return span(d.Doc, d), nil
				}
			} else if d.Recv == nil && d.Name.Name == name {
				return span(d.Doc, d), nil
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if s.Name.Name == name {
						if d.Lparen.IsValid() {
							return span(s.Doc, s), nil
						}
						return span(d.Doc, d), nil
					}
				case *ast.ValueSpec:
					for _, id := range s.Names {
						if id.Name == name {
							return span(d.Doc, d), nil
						}
					}
				}
			}
		}
	}
	return "", nil
}

func receiverType(fl *ast.FieldList) string {
	if len(fl.List) == 0 {
		return ""
	}
	t := fl.List[0].Type
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	switch t := t.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.IndexExpr:
		if id, ok := t.X.(*ast.Ident); ok {
			return id.Name
		}
	}
	return ""
}
