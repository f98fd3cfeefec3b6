// Package reporttest checks kata's reports against the formats their
// readers expect, for tests: Gradescope's results.json against a JSON
// Schema written from Gradescope's specification, JUnit XML against an XSD
// of what CI tools read (with xmllint, when it is installed) and against
// its own counts, CSV as a gradebook imports it, HTML as a page that loads
// nothing, and GitHub Classroom's autograding result as its reporter reads
// it.
package reporttest

import (
	"bytes"
	_ "embed"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// GradescopeSchema is the JSON Schema of results.json.
//
//go:embed gradescope.schema.json
var GradescopeSchema []byte

// JUnitXSD is the XML Schema of JUnit XML as CI tools read it.
//
//go:embed junit.xsd
var JUnitXSD []byte

// ValidateGradescope checks a results.json: against GradescopeSchema, and
// that its score is the sum of its tests' and each test's status agrees
// with its score.
func ValidateGradescope(data []byte) error {
	var schema, doc any
	if err := json.Unmarshal(GradescopeSchema, &schema); err != nil {
		return fmt.Errorf("the schema: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return fmt.Errorf("results.json is not JSON: %w", err)
	}
	v := &validator{root: schema.(map[string]any)}
	if err := v.check(schema, doc, "$"); err != nil {
		return err
	}
	var res struct {
		Score float64
		Tests []struct {
			Name     string
			Score    float64
			MaxScore float64 `json:"max_score"`
			Status   string
		}
	}
	if err := json.Unmarshal(data, &res); err != nil {
		return err
	}
	var sum float64
	for _, t := range res.Tests {
		sum += t.Score
		if t.Score > t.MaxScore {
			return fmt.Errorf("test %q scores %v of %v", t.Name, t.Score, t.MaxScore)
		}
		if (t.Status == "passed") != (t.Score == t.MaxScore) {
			return fmt.Errorf("test %q is %s with %v of %v points", t.Name, t.Status, t.Score, t.MaxScore)
		}
	}
	if math.Abs(sum-res.Score) > 1e-9 {
		return fmt.Errorf("score %v is not the sum of the tests' scores, %v", res.Score, sum)
	}
	return nil
}

// validator checks a JSON document against the part of JSON Schema
// (draft-07) GradescopeSchema uses; a keyword it does not know is an error,
// so that no part of a schema is silently ignored.
type validator struct {
	root map[string]any
}

func (v *validator) check(schema any, doc any, at string) error {
	s, ok := schema.(map[string]any)
	if !ok {
		return fmt.Errorf("schema at %s is not an object", at)
	}
	if ref, ok := s["$ref"].(string); ok {
		name, found := strings.CutPrefix(ref, "#/definitions/")
		defs, _ := v.root["definitions"].(map[string]any)
		if !found || defs[name] == nil {
			return fmt.Errorf("schema: unknown $ref %q", ref)
		}
		return v.check(defs[name], doc, at)
	}
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch k {
		case "$schema", "$comment", "title", "description", "definitions":
		case "type":
			if err := checkType(s[k], doc, at); err != nil {
				return err
			}
		case "enum":
			if !slices.ContainsFunc(s[k].([]any), func(e any) bool { return fmt.Sprint(e) == fmt.Sprint(doc) }) {
				return fmt.Errorf("%s: %v is not one of %v", at, doc, s[k])
			}
		case "minimum":
			n, ok := doc.(json.Number)
			if f, err := n.Float64(); ok && err == nil && f < s[k].(float64) {
				return fmt.Errorf("%s: %v is below the minimum %v", at, doc, s[k])
			}
		case "required":
			obj, ok := doc.(map[string]any)
			if !ok {
				continue
			}
			for _, name := range s[k].([]any) {
				if _, ok := obj[name.(string)]; !ok {
					return fmt.Errorf("%s: no %q", at, name)
				}
			}
		case "properties", "additionalProperties":
			obj, ok := doc.(map[string]any)
			if !ok || k == "additionalProperties" {
				continue
			}
			props := s["properties"].(map[string]any)
			for name, value := range obj {
				p, known := props[name]
				if !known {
					if s["additionalProperties"] == false {
						return fmt.Errorf("%s: %q is not a field the schema has", at, name)
					}
					continue
				}
				if err := v.check(p, value, at+"."+name); err != nil {
					return err
				}
			}
		case "items":
			arr, ok := doc.([]any)
			if !ok {
				continue
			}
			for i, item := range arr {
				if err := v.check(s[k], item, fmt.Sprintf("%s[%d]", at, i)); err != nil {
					return err
				}
			}
		case "anyOf":
			var errs []error
			for _, sub := range s[k].([]any) {
				err := v.check(sub, doc, at)
				if err == nil {
					errs = nil
					break
				}
				errs = append(errs, err)
			}
			if len(errs) > 0 {
				return fmt.Errorf("%s: matches none of anyOf: %w", at, errors.Join(errs...))
			}
		default:
			return fmt.Errorf("schema keyword %q is not known to this validator", k)
		}
	}
	return nil
}

func checkType(want any, doc any, at string) error {
	var types []string
	switch w := want.(type) {
	case string:
		types = []string{w}
	case []any:
		for _, t := range w {
			types = append(types, t.(string))
		}
	}
	got := "null"
	switch d := doc.(type) {
	case map[string]any:
		got = "object"
	case []any:
		got = "array"
	case string:
		got = "string"
	case bool:
		got = "boolean"
	case json.Number:
		got = "number"
		if _, err := d.Int64(); err == nil && slices.Contains(types, "integer") {
			got = "integer"
		}
	}
	if !slices.Contains(types, got) {
		return fmt.Errorf("%s: a %s, want %s", at, got, strings.Join(types, " or "))
	}
	return nil
}

// JUnit is JUnit XML as CI tools read it.
type JUnit struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    string `xml:"tests,attr"`
		Failures string `xml:"failures,attr"`
		Errors   string `xml:"errors,attr"`
		Props    []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
		Cases []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Error *struct {
				Message string `xml:"message,attr"`
			} `xml:"error"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// ValidateJUnit parses JUnit XML (a strict XML parser refuses characters
// XML cannot hold) and checks what a reader counts on: every suite has a
// name and counts that match its test cases, every case a name and a
// classname, at most one failure or error, a failure message of one line,
// and the totals add up.
func ValidateJUnit(data []byte) (*JUnit, error) {
	var j JUnit
	if err := xml.Unmarshal(data, &j); err != nil {
		return nil, fmt.Errorf("not well-formed JUnit XML: %w", err)
	}
	var tests, failures, errs int
	for _, s := range j.Suites {
		if s.Name == "" {
			return nil, errors.New("a testsuite has no name")
		}
		nf, ne := 0, 0
		for _, c := range s.Cases {
			if c.Name == "" || c.Classname == "" {
				return nil, fmt.Errorf("suite %s: a testcase lacks a name or a classname", s.Name)
			}
			if c.Failure != nil && c.Error != nil {
				return nil, fmt.Errorf("suite %s: %s has both a failure and an error", s.Name, c.Name)
			}
			if c.Failure != nil {
				nf++
				if c.Failure.Message == "" || strings.Contains(c.Failure.Message, "\n") {
					return nil, fmt.Errorf("suite %s: %s's failure message is not one line: %q", s.Name, c.Name, c.Failure.Message)
				}
			}
			if c.Error != nil {
				ne++
			}
		}
		for _, n := range []struct {
			attr string
			want int
		}{{s.Tests, len(s.Cases)}, {s.Failures, nf}, {s.Errors, ne}} {
			if got, err := strconv.Atoi(n.attr); err != nil || got != n.want {
				return nil, fmt.Errorf("suite %s: a count says %q, its cases %d", s.Name, n.attr, n.want)
			}
		}
		tests, failures, errs = tests+len(s.Cases), failures+nf, errs+ne
	}
	if tests != j.Tests || failures != j.Failures || errs != j.Errors {
		return nil, fmt.Errorf("testsuites counts %d/%d/%d, its suites %d/%d/%d", j.Tests, j.Failures, j.Errors, tests, failures, errs)
	}
	return &j, nil
}

// ErrNoXMLLint says xmllint is not installed.
var ErrNoXMLLint = errors.New("xmllint is not installed (Debian/Ubuntu: apt-get install libxml2-utils), so JUnit XML was not validated against junit.xsd")

// XMLLint validates JUnit XML against JUnitXSD with xmllint; it returns
// ErrNoXMLLint if xmllint is not on PATH.
func XMLLint(data []byte) error {
	lint, err := exec.LookPath("xmllint")
	if err != nil {
		return ErrNoXMLLint
	}
	dir, err := os.MkdirTemp("", "reporttest-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	xsd, doc := filepath.Join(dir, "junit.xsd"), filepath.Join(dir, "report.xml")
	if err := os.WriteFile(xsd, JUnitXSD, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(doc, data, 0o644); err != nil {
		return err
	}
	out, err := exec.Command(lint, "--noout", "--nonet", "--schema", xsd, doc).CombinedOutput()
	if err != nil {
		return fmt.Errorf("xmllint: %v\n%s", err, out)
	}
	return nil
}

// ValidateCSV checks a gradebook CSV: the header is exactly student,
// score, max_score, the lesson IDs in order, notes, looks_like; there is one row per
// student, in order, each with as many cells as the header, whole-number
// scores, and a total that is the sum of the lessons'.
func ValidateCSV(data []byte, lessons, students []string) ([][]string, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = 0 // every row as long as the first
	rows, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("not CSV a gradebook reads: %w", err)
	}
	want := append(append([]string{"student", "score", "max_score"}, lessons...), "notes", "looks_like")
	if len(rows) == 0 || !slices.Equal(rows[0], want) {
		return nil, fmt.Errorf("header %q, want %q", rows[0], want)
	}
	if len(rows)-1 != len(students) {
		return nil, fmt.Errorf("%d rows, want one per student (%d)", len(rows)-1, len(students))
	}
	for i, row := range rows[1:] {
		if row[0] != students[i] {
			return nil, fmt.Errorf("row %d is %q, want %q", i+1, row[0], students[i])
		}
		total := 0
		for j, cell := range row[1 : 3+len(lessons)] {
			n, err := strconv.Atoi(cell)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("row %d column %s: %q is not a score", i+1, want[j+1], cell)
			}
			if j >= 2 {
				total += n
			}
		}
		if score, _ := strconv.Atoi(row[1]); score != total {
			return nil, fmt.Errorf("row %d: score %d, lessons add up to %d", i+1, score, total)
		}
		if notes := row[len(row)-2]; strings.ContainsAny(notes[:min(1, len(notes))], "=+-@") {
			return nil, fmt.Errorf("row %d: notes start with a formula character: %q", i+1, notes)
		}
	}
	return rows, nil
}

var external = regexp.MustCompile(`(?i)<script|<link|<iframe|<img|<object|<embed|\bsrc\s*=|@import|url\(|href\s*=\s*"(?:https?:)?//`)

// ValidateHTML checks a report page loads nothing (no script, no image,
// no stylesheet or link to elsewhere: it is self-contained) and parses to
// its end.
func ValidateHTML(data []byte) error {
	if m := external.Find(data); m != nil {
		return fmt.Errorf("the page is not self-contained: it has %q", m)
	}
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict, d.AutoClose, d.Entity = false, xml.HTMLAutoClose, xml.HTMLEntity
	for {
		_, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("the page does not parse: %w", err)
		}
	}
}

// Classroom is a decoded GitHub Classroom autograding result.
type Classroom struct {
	Version  int    `json:"version"`
	Status   string `json:"status"`
	MaxScore int    `json:"max_score"`
	Tests    []struct {
		Name    string `json:"name"`
		Status  string `json:"status"`
		Score   int    `json:"score"`
		Message string `json:"message"`
	} `json:"tests"`
}

// ValidateClassroom decodes a step's result as
// education/autograding-grading-reporter does (base64, then JSON) and
// checks the fields it reads: status pass, fail or error; tests with a
// name and a status; scores that add up to at most max_score.
func ValidateClassroom(encoded string) (*Classroom, error) {
	data, err := base64.StdEncoding.DecodeString(strings.TrimSpace(encoded))
	if err != nil {
		return nil, fmt.Errorf("the result is not base64: %w", err)
	}
	var c Classroom
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("the result is not JSON: %w", err)
	}
	for _, k := range []string{"version", "status", "max_score", "tests"} {
		if _, ok := raw[k]; !ok {
			return nil, fmt.Errorf("the result has no %q", k)
		}
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, err
	}
	statuses := []string{"pass", "fail", "error"}
	if c.Version != 1 || !slices.Contains(statuses, c.Status) {
		return nil, fmt.Errorf("version %d, status %q", c.Version, c.Status)
	}
	total := 0
	for _, t := range c.Tests {
		if t.Name == "" || !slices.Contains(statuses, t.Status) {
			return nil, fmt.Errorf("test %q has status %q", t.Name, t.Status)
		}
		total += t.Score
	}
	if total > c.MaxScore {
		return nil, fmt.Errorf("the tests score %d of %d", total, c.MaxScore)
	}
	return &c, nil
}
