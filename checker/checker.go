// Package checker grades a learner's lesson files: it runs the lesson's
// hidden tests against the reference scheduler with only that lesson's
// files taken from the learner (go test -overlay), in a subprocess with
// time and output limits, and turns what the tests said into a score and
// messages a learner can act on.
package checker

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gmp-kata/gmp-kata/lessons"
)

// Status values of a lesson or a test.
const (
	StatusPass  = "pass"
	StatusFail  = "fail"
	StatusError = "error" // kata could not run the check at all
)

// Options configure a Checker.
type Options struct {
	Registry  *lessons.Registry // nil: lessons.Default
	CacheDir  string            // "": DefaultCacheDir()
	NoRace    bool              // grade without the race detector (faster, misses data races)
	MaxOutput int               // bytes the tests may print; 0: 8 MiB
}

// A Checker grades lessons. It is safe for concurrent use.
type Checker struct {
	opts Options
	reg  *lessons.Registry
	mod  *module
}

// New prepares the grading module (once per version of the course) and
// returns a Checker.
func New(opts Options) (*Checker, error) {
	if opts.Registry == nil {
		opts.Registry = lessons.Default
	}
	if opts.CacheDir == "" {
		opts.CacheDir = DefaultCacheDir()
	}
	if opts.MaxOutput == 0 {
		opts.MaxOutput = 8 << 20
	}
	mod, err := prepareModule(opts.CacheDir, opts.Registry)
	if err != nil {
		return nil, err
	}
	return &Checker{opts: opts, reg: opts.Registry, mod: mod}, nil
}

// A TestResult is the grade of one hidden test.
type TestResult struct {
	Name     string  `json:"name"`
	Status   string  `json:"status"`
	Score    int     `json:"score"`
	MaxScore int     `json:"max_score"`
	Kind     string  `json:"kind"`
	About    string  `json:"about"`
	Message  string  `json:"message,omitempty"`
	Elapsed  float64 `json:"elapsed_seconds"`
}

// A LessonResult is the grade of one lesson (or of the capstone).
type LessonResult struct {
	ID            string       `json:"id"`
	Title         string       `json:"title"`
	Status        string       `json:"status"`
	Score         int          `json:"score"`
	MaxScore      int          `json:"max_score"`
	Tests         []TestResult `json:"tests"`
	CompileErrors []string     `json:"compile_errors,omitempty"`
	Error         string       `json:"error,omitempty"`
	WallTime      float64      `json:"wall_seconds"`
}

// CapstoneID names the run of every lesson's tests on all of the learner's
// files together.
const CapstoneID = "capstone"

// Lesson grades lesson l with files (base name in solutions/ → path of the
// learner's file) in place of the reference's; files must cover l.Files.
func (c *Checker) Lesson(ctx context.Context, l *lessons.Lesson, files map[string]string) *LessonResult {
	replace := map[string]string{}
	for _, f := range l.Files {
		p, ok := files[f]
		if !ok {
			return &LessonResult{ID: l.ID, Title: l.Title, Status: StatusError, MaxScore: l.MaxScore(),
				Error: fmt.Sprintf("checker: no %s to grade for lesson %s", f, l.ID)}
		}
		replace[f] = p
	}
	return c.grade(ctx, l.ID, l.Title, replace, []*lessons.Lesson{l})
}

// Capstone grades every lesson's tests at once, with all the given files
// (typically every lesson's) in place of the reference's.
func (c *Checker) Capstone(ctx context.Context, files map[string]string) *LessonResult {
	return c.grade(ctx, CapstoneID, "all lessons together", files, c.reg.All())
}

func (c *Checker) grade(ctx context.Context, id, title string, replace map[string]string, ls []*lessons.Lesson) *LessonResult {
	start := time.Now()
	res := &LessonResult{ID: id, Title: title}
	r := &run{mod: c.mod, replace: replace, timeouts: map[string]time.Duration{}, race: !c.opts.NoRace, maxOutput: c.opts.MaxOutput}
	tests := map[string]lessons.Test{}
	var order []string
	for _, l := range ls {
		r.hidden = append(r.hidden, l.ID)
		for _, t := range l.Tests {
			tests[t.Name] = t
			order = append(order, t.Name)
			timeout := t.Timeout
			if r.race {
				timeout *= 3 // the race detector slows code 2-10×
			}
			r.timeouts[t.Name] = timeout
			res.MaxScore += t.Points
		}
	}
	results := map[string]TestResult{}
	record := func(name, status, msg string, elapsed float64) {
		t := tests[name]
		tr := TestResult{Name: name, Status: status, MaxScore: t.Points, Kind: string(t.Kind), About: t.About, Message: msg, Elapsed: elapsed}
		if status == StatusPass {
			tr.Score = t.Points
		}
		results[name] = tr
	}

	remaining := order
	for len(remaining) > 0 {
		rr, err := r.exec(ctx, remaining)
		if err != nil {
			res.Status, res.Error = StatusError, err.Error()
			return res
		}
		if rr.s.buildFailed {
			res.CompileErrors = c.compileErrors(rr.s.buildOutput, replace)
			msg := "does not compile"
			if len(res.CompileErrors) > 0 {
				msg += ": " + res.CompileErrors[0]
			}
			for _, name := range remaining {
				record(name, StatusFail, msg, 0)
			}
			break
		}
		progress := false
		for _, name := range remaining {
			o := rr.s.tests[name]
			switch {
			case o == nil || !o.started:
			case o.finished && o.action == "pass":
				record(name, StatusPass, "", o.elapsed)
				progress = true
			case o.finished:
				record(name, StatusFail, testMessage(c.summarizePanic(o.output, replace), "failed"), o.elapsed)
				progress = true
			case name == rr.killed:
				limit := r.timeouts[name]
				record(name, StatusFail, fmt.Sprintf("did not finish within %s: stuck in a loop, or deadlocked? %s", limit, tail(o.output, 5)), limit.Seconds())
				progress = true
			case rr.overOutput:
				record(name, StatusFail, fmt.Sprintf("printed more than %d MiB; stopped", c.opts.MaxOutput>>20), 0)
				progress = true
			default:
				// Started and never finished: the test binary died under it.
				record(name, StatusFail, "crashed: "+c.crashMessage(o.output, rr.s.pkgOutput, replace), 0)
				progress = true
			}
		}
		var next []string
		for _, name := range remaining {
			if _, done := results[name]; !done {
				next = append(next, name)
			}
		}
		if !progress {
			why := "the test binary stopped before running this test"
			if out := c.crashMessage(nil, rr.s.pkgOutput, replace); out != "" {
				why += ": " + out
			}
			for _, name := range next {
				record(name, StatusFail, why, 0)
			}
			break
		}
		remaining = next
	}

	for _, name := range order {
		tr := results[name]
		res.Tests = append(res.Tests, tr)
		res.Score += tr.Score
	}
	res.Status = StatusFail
	if res.Score == res.MaxScore {
		res.Status = StatusPass
	}
	res.WallTime = time.Since(start).Seconds()
	return res
}

// locationPrefix is the file:line a test's t.Error output starts with: the
// hidden test's own location, which means nothing to the learner.
var locationPrefix = regexp.MustCompile(`^\s*[\w.]+_test\.go:\d+: `)

// testMessage is what a failed test said, for the learner.
func testMessage(lines []string, fallback string) string {
	var out []string
	for _, l := range lines {
		l = locationPrefix.ReplaceAllString(l, "")
		if strings.TrimSpace(l) != "" {
			out = append(out, strings.TrimRight(l, " "))
		}
	}
	if len(out) == 0 {
		return fallback
	}
	const maxLines = 30
	if len(out) > maxLines {
		out = append(out[:maxLines], fmt.Sprintf("... (%d more lines)", len(out)-maxLines))
	}
	return strings.Join(out, "\n")
}

// crashMessage finds the panic (or fatal error) in a dead test binary's
// output.
func (c *Checker) crashMessage(testOut, pkgOut []string, replace map[string]string) string {
	all := append(slices.Clone(testOut), pkgOut...)
	for i, l := range all {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "panic:") || strings.HasPrefix(t, "fatal error:") {
			return strings.Join(c.summarizePanic(all[i:], replace), "\n")
		}
	}
	return tail(all, 8)
}

func tail(lines []string, n int) string {
	var keep []string
	for _, l := range lines {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "FAIL") && !strings.HasPrefix(t, "exit status") {
			keep = append(keep, l)
		}
	}
	if len(keep) > n {
		keep = keep[len(keep)-n:]
	}
	return strings.Join(keep, "\n")
}

// compileErrors rewrites the compiler's messages so they name the learner's
// files as the learner knows them, first error first.
func (c *Checker) compileErrors(lines []string, replace map[string]string) []string {
	learner := map[string]string{} // absolute path → how to show it
	for _, p := range replace {
		abs, _ := filepath.Abs(p)
		learner[abs] = p
	}
	var out []string
	for _, l := range lines {
		if strings.HasPrefix(l, "#") || strings.TrimSpace(l) == "" {
			continue
		}
		file, rest, ok := strings.Cut(l, ":")
		if ok && strings.HasSuffix(file, ".go") {
			abs := file
			if !filepath.IsAbs(abs) {
				abs = filepath.Join(c.mod.dir, file)
			}
			abs = filepath.Clean(abs)
			if shown, ok := learner[abs]; ok {
				l = shown + ":" + rest
			} else if strings.HasPrefix(abs, c.mod.pkgDir+string(filepath.Separator)) {
				l = filepath.Base(abs) + " (reference):" + rest
			}
		}
		out = append(out, l)
	}
	return out
}
