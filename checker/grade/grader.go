package grade

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	gmpkata "github.com/gmp-kata/gmp-kata"
	"github.com/gmp-kata/gmp-kata/checker"
	"github.com/gmp-kata/gmp-kata/checker/report"
	"github.com/gmp-kata/gmp-kata/lessons"
)

// Options configure a Grader.
type Options struct {
	Registry *lessons.Registry // nil: lessons.Default
	// Lessons are the IDs of the lessons to grade; nil: all of them.
	Lessons []string
	// Pack is a private test pack to add to the lessons' tests, or nil.
	Pack *Pack
	// Jobs is how many lessons are graded at once; 0: DefaultJobs().
	Jobs int
	// CacheDir is where the grading module and the result cache live;
	// "": checker.DefaultCacheDir().
	CacheDir string
	// NoRace grades without the race detector.
	NoRace bool
	// MaxMemory bounds one run's memory, in bytes; 0: DefaultMaxMemory,
	// negative: no limit. It does not hold on Windows.
	MaxMemory int64
	// Version names this kata in the cache key; "": Version().
	Version string
	// Runs is how many times each lesson is graded; a test scores only if
	// it passes every time. 0 or 1: once.
	Runs int
}

// DefaultMaxMemory is the memory one run may use: the go command, the
// compiler and a -race test binary of the course stay well under 1 GiB.
const DefaultMaxMemory = 2 << 30

// DefaultJobs is how many lessons to grade at once: one per core, at least
// two (a hung run waits for its time limit on no core at all; measured on
// 2 cores, a class of 30 grades in 95 s with two jobs, 174 s with one) and
// at most eight (each run's compiler and -race binary take a few hundred
// MiB).
func DefaultJobs() int {
	return min(max(2, runtime.NumCPU()), 8)
}

// maxTimeouts: after one test of a lesson hangs, its untried tests are
// not started (each would likely hang too).
const maxTimeouts = 1

// A Grader grades submissions, each lesson of each in its own run of the
// checker, with the checker's isolation on.
type Grader struct {
	opts     Options
	reg      *lessons.Registry
	ck       *checker.Checker
	lessons  []*lessons.Lesson
	cache    *cache
	goEnv    string // the toolchain and build settings runs inherit (goEnv)
	skeleton map[string][]byte
}

// New prepares a Grader: the grading module (with the pack's tests, if
// any) and the result cache.
func New(opts Options) (*Grader, error) {
	reg := opts.Registry
	if reg == nil {
		reg = lessons.Default
	}
	if opts.Pack != nil {
		var err error
		if reg, err = opts.Pack.Registry(reg); err != nil {
			return nil, err
		}
	}
	if opts.Jobs <= 0 {
		opts.Jobs = DefaultJobs()
	}
	if opts.CacheDir == "" {
		opts.CacheDir = checker.DefaultCacheDir()
	}
	if opts.MaxMemory == 0 {
		opts.MaxMemory = DefaultMaxMemory
	}
	if opts.MaxMemory < 0 {
		opts.MaxMemory = 0
	}
	if opts.Version == "" {
		opts.Version = Version()
	}
	c, err := openCache(opts.CacheDir)
	if err != nil {
		return nil, err
	}
	g := &Grader{opts: opts, reg: reg, cache: c, skeleton: map[string][]byte{}}
	if len(opts.Lessons) == 0 {
		g.lessons = reg.All()
	} else {
		for _, l := range reg.All() {
			if slices.Contains(opts.Lessons, l.ID) {
				g.lessons = append(g.lessons, l)
			}
		}
		if len(g.lessons) != len(opts.Lessons) {
			return nil, fmt.Errorf("grade: some of the lessons %s are not in the course (run 'kata list')", strings.Join(opts.Lessons, ", "))
		}
	}
	for _, l := range g.lessons {
		for _, f := range l.Files {
			if data, err := fs.ReadFile(gmpkata.Sources, "skeleton/"+f); err == nil {
				g.skeleton[f] = data
			}
		}
	}
	if g.goEnv, err = goEnv(); err != nil {
		return nil, err
	}
	g.ck, err = checker.New(checker.Options{Registry: reg, CacheDir: opts.CacheDir, NoRace: opts.NoRace,
		MaxMemory: opts.MaxMemory, MaxTimeouts: maxTimeouts, Isolate: true})
	if err != nil {
		return nil, err
	}
	return g, nil
}

// LessonFiles are the files the graded lessons own: all kata takes from a
// submission.
func (g *Grader) LessonFiles() []string {
	var files []string
	for _, l := range g.reg.All() {
		files = append(files, l.Files...)
	}
	return files
}

// Stats say what a grading did.
type Stats struct {
	Submissions int
	Cells       int // lesson grades: submissions × lessons
	Planned     int // lessons to grade by running their tests (not in the cache)
	Runs        int // of those, graded
	Cached      int // grades taken from the cache
	Shared      int // grades shared with identical files in the same grading
	Settled     int // grades settled without a run: no file, an unsafe archive...
	Elapsed     time.Duration
}

func (s Stats) String() string {
	return fmt.Sprintf("%d submissions, %d lesson grades: %d run, %d from the cache, %d shared with identical files, %d without a run, in %s",
		s.Submissions, s.Cells, s.Runs, s.Cached, s.Shared, s.Settled, s.Elapsed.Round(100*time.Millisecond))
}

// A cell is one submission's grade in one lesson.
type cell struct {
	sub       int
	lesson    *lessons.Lesson
	key       string // "" if settled without a run
	grade     *report.LessonGrade
	untouched bool // the files are the skeleton's
}

// A job is one run: a lesson and its files, shared by every cell with the
// same key.
type job struct {
	key    string
	lesson *lessons.Lesson
	files  map[string][]byte
	cells  []int
}

// Grade grades every graded lesson of every submission and returns the
// report; progress, if not nil, is told how it goes. If ctx ends first it
// returns ctx's error; every grade finished by then is in the cache, so
// grading again resumes where this one stopped.
func (g *Grader) Grade(ctx context.Context, subs []*Submission, progress Progress) (*report.Report, Stats, error) {
	start := time.Now()
	stats := Stats{Submissions: len(subs), Cells: len(subs) * len(g.lessons)}
	cells, order := g.plan(subs, &stats)
	stats.Planned = len(order)
	tr := &tracker{g: g, progress: progress, subs: subs, cells: cells, start: start, pending: make([]int, len(subs))}
	for _, c := range cells {
		if c.grade == nil {
			tr.pending[c.sub]++
		}
	}
	tr.status.Cells, tr.status.Runs, tr.status.Students = len(cells), len(order), len(subs)
	tr.update(nil)

	work, err := os.MkdirTemp("", "kata-grade-")
	if err != nil {
		return nil, stats, fmt.Errorf("grade: %w", err)
	}
	defer os.RemoveAll(work)
	g.runJobs(ctx, work, order, tr, &stats)
	if err := ctx.Err(); err != nil {
		stats.Elapsed = time.Since(start)
		return nil, stats, err
	}
	rep := g.report(subs, cells)
	stats.Elapsed = time.Since(start)
	if progress != nil {
		progress.Finish(tr.status)
	}
	return rep, stats, nil
}

// plan makes a cell for each submission and lesson, and the jobs that
// grade them: a cell whose files are missing is settled at once, one
// whose files another cell has shares that cell's job, one whose grade is
// cached takes it. order are the jobs left to run.
func (g *Grader) plan(subs []*Submission, stats *Stats) (cells []*cell, order []*job) {
	byKey := map[string]*job{}
	for si, s := range subs {
		for _, l := range g.lessons {
			c := &cell{sub: si, lesson: l}
			cells = append(cells, c)
			files, problem := lessonFiles(s, l)
			if problem != "" {
				fg := report.Failed(l, problem)
				c.grade = &fg
				stats.Settled++
				continue
			}
			c.untouched = true
			for f, data := range files {
				if string(data) != string(g.skeleton[f]) {
					c.untouched = false
				}
			}
			c.key = g.key(l, files)
			if j := byKey[c.key]; j != nil {
				j.cells = append(j.cells, len(cells)-1)
				stats.Shared++
				continue
			}
			if res := g.cache.get(c.key); res != nil {
				c.grade = gradeOf(res, l)
				stats.Cached++
				byKey[c.key] = &job{key: c.key, cells: []int{len(cells) - 1}} // done: shares with later cells
				continue
			}
			j := &job{key: c.key, lesson: l, files: files, cells: []int{len(cells) - 1}}
			byKey[c.key] = j
			order = append(order, j)
		}
	}
	// Cells sharing a cached grade.
	for _, j := range byKey {
		if j.lesson != nil {
			continue
		}
		first := cells[j.cells[0]].grade
		for _, ci := range j.cells[1:] {
			cells[ci].grade = first
		}
	}
	return cells, order
}

// lessonFiles are submission s's files of lesson l, or what is wrong with
// them.
func lessonFiles(s *Submission, l *lessons.Lesson) (map[string][]byte, string) {
	files := map[string][]byte{}
	for _, f := range l.Files {
		data, p := s.File(f)
		if p != "" {
			return nil, p
		}
		files[f] = data
	}
	return files, ""
}

// runJobs runs the jobs of order, Options.Jobs at once, in work, and
// gives each job's grade to its cells as it comes, until all are done or
// ctx ends.
func (g *Grader) runJobs(ctx context.Context, work string, order []*job, tr *tracker, stats *Stats) {
	type done struct {
		job *job
		res *checker.LessonResult
	}
	todo, results := make(chan *job), make(chan done)
	var wg sync.WaitGroup
	for range min(g.opts.Jobs, max(1, len(order))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range todo {
				res := g.run(ctx, work, j)
				select {
				case results <- done{j, res}:
				case <-ctx.Done():
				}
			}
		}()
	}
	go func() {
		defer close(todo)
		for _, j := range order {
			select {
			case todo <- j:
			case <-ctx.Done():
				return
			}
		}
	}()
	for range order {
		var d done
		select {
		case d = <-results:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		stats.Runs++
		lg := gradeOf(d.res, d.job.lesson)
		var finished []int
		for _, ci := range d.job.cells {
			tr.cells[ci].grade = lg
			if tr.pending[tr.cells[ci].sub]--; tr.pending[tr.cells[ci].sub] == 0 {
				finished = append(finished, tr.cells[ci].sub)
			}
		}
		tr.status.RunsDone++
		tr.update(finished)
	}
	wg.Wait()
}

// run grades one lesson's files, stores the grade, and returns it.
func (g *Grader) run(ctx context.Context, work string, j *job) (res *checker.LessonResult) {
	defer func() {
		// A bug of kata's must not take the class down with it: it is
		// this lesson's grade, not stored, and exit status 3.
		if r := recover(); r != nil {
			res = &checker.LessonResult{ID: j.lesson.ID, Title: j.lesson.Title, Status: checker.StatusError, MaxScore: j.lesson.MaxScore(),
				Error: fmt.Sprintf("kata failed grading it (a bug: please report it): %v", r)}
		}
	}()
	dir, err := os.MkdirTemp(work, "lesson-")
	if err != nil {
		return &checker.LessonResult{ID: j.lesson.ID, Title: j.lesson.Title, Status: checker.StatusError, MaxScore: j.lesson.MaxScore(), Error: err.Error()}
	}
	defer os.RemoveAll(dir)
	paths := map[string]string{}
	for f, data := range j.files {
		p := filepath.Join(dir, f)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return &checker.LessonResult{ID: j.lesson.ID, Title: j.lesson.Title, Status: checker.StatusError, MaxScore: j.lesson.MaxScore(), Error: err.Error()}
		}
		paths[f] = p
	}
	res = g.repeat(ctx, j.lesson, paths)
	if ctx.Err() != nil {
		return res // interrupted: not a grade, not stored
	}
	normalize(res, dir)
	if res.Status != checker.StatusError {
		if err := g.cache.put(j.key, res); err != nil {
			// Not storing costs a run next time; the grade stands.
			res.Error = err.Error()
		}
	}
	return res
}

// repeat grades lesson l with the files at paths Options.Runs times, as
// MIT 6.5840 runs its labs' tests many times: a race can pass once by
// luck, and rarely passes every time. A test scores only if it passed in
// every run; a test that failed in some runs but not all says in how many
// first.
// A lesson that does not compile, that kata could not grade, or whose
// every test has already failed is not run again: nothing is left to
// learn from it.
//
// The runs share the lesson's one budget (checker.Budget), counted from
// the first run's start: a submission that spends its budget in one run
// does not get it again in the next (it once had Runs budgets); and its
// one output limit.
func (g *Grader) repeat(ctx context.Context, l *lessons.Lesson, paths map[string]string) *checker.LessonResult {
	o := checker.CheckOptions{Deadline: time.Now().Add(g.ck.Budget(l)), Printed: new(int)}
	return g.repeatRuns(ctx, func() *checker.LessonResult { return g.ck.LessonWith(ctx, l, paths, o) })
}

// repeatRuns is repeat with grade as one run of the lesson.
func (g *Grader) repeatRuns(ctx context.Context, grade func() *checker.LessonResult) *checker.LessonResult {
	res := grade()
	failed := map[string]int{}
	tally := func(r *checker.LessonResult) {
		for _, t := range r.Tests {
			if t.Status != checker.StatusPass {
				failed[t.Name]++
			}
		}
	}
	tally(res)
	passing := func() bool { // some test has not failed yet
		for _, t := range res.Tests {
			if failed[t.Name] == 0 {
				return true
			}
		}
		return false
	}
	runs := 1
	for runs < g.opts.Runs && res.Status != checker.StatusError && len(res.CompileErrors) == 0 && passing() {
		next := grade()
		if ctx.Err() != nil || next.Status == checker.StatusError {
			return next
		}
		runs++
		tally(next)
		res.WallTime += next.WallTime
		for i, t := range next.Tests {
			// The first failure's message stands for the test's.
			if i < len(res.Tests) && res.Tests[i].Name == t.Name && res.Tests[i].Status == checker.StatusPass && t.Status != checker.StatusPass {
				res.Tests[i] = t
			}
		}
	}
	if runs == 1 {
		return res
	}
	res.Score = 0
	for i, t := range res.Tests {
		if k := failed[t.Name]; k > 0 && k < runs {
			res.Tests[i].Message = fmt.Sprintf("failed in %d of %d runs: %s", k, runs, t.Message)
		}
		res.Score += res.Tests[i].Score
	}
	res.Status = checker.StatusFail
	if res.Score == res.MaxScore {
		res.Status = checker.StatusPass
	}
	return res
}

// goEnvVars are what a run inherits from kata that changes how its code is
// built or behaves: the toolchain and its target, experiments, cgo (the
// race detector's), and the runtime's settings.
var goEnvVars = []string{"GOVERSION", "GOROOT", "GOOS", "GOARCH", "GOEXPERIMENT", "CGO_ENABLED", "CC", "CGO_CFLAGS", "CGO_LDFLAGS",
	"GOAMD64", "GOARM", "GOARM64", "GO386", "GOPPC64", "GORISCV64", "GOMIPS", "GOMIPS64"}

// goEnv names the toolchain and settings runs get, for the cache key: the
// go command's view of goEnvVars, and GODEBUG and GOMAXPROCS as set.
func goEnv() (string, error) {
	out, err := exec.Command("go", "env", "-json").Output()
	if err != nil {
		return "", fmt.Errorf("grade: running 'go env': %v (grading needs the go command: is Go installed and on PATH?)", err)
	}
	var env map[string]string
	if err := json.Unmarshal(out, &env); err != nil {
		return "", fmt.Errorf("grade: reading 'go env -json': %v", err)
	}
	var b strings.Builder
	for _, name := range goEnvVars {
		fmt.Fprintf(&b, "go %s=%q\n", name, env[name])
	}
	for _, name := range []string{"GODEBUG", "GOMAXPROCS"} {
		fmt.Fprintf(&b, "env %s=%q\n", name, os.Getenv(name))
	}
	return b.String(), nil
}

// key is the cache key of lesson l graded with files (see cache.go).
func (g *Grader) key(l *lessons.Lesson, files map[string][]byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "kata grade %d\nkata %s\nchecker %s\n%slesson %s\n", cacheFormat, g.opts.Version, g.ck.Fingerprint(), g.goEnv, l.ID)
	for _, t := range l.Tests {
		fmt.Fprintf(h, "test %s %d %s %s\n", t.Name, t.Points, t.Timeout, t.Kind)
	}
	if g.opts.Runs > 1 {
		fmt.Fprintf(h, "runs %d\n", g.opts.Runs)
	}
	for _, f := range sortedNames(files) {
		fmt.Fprintf(h, "file %s %d\n", f, len(files[f]))
		h.Write(files[f])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// runDir matches the private directories of a checker run in a message.
var runDir = regexp.MustCompile(`[^\s"'()]*kata-run-[0-9]+[/\\](?:mod[/\\](?:solutions[/\\])?)?`)

// normalize takes the grader's temporary paths out of a result's
// messages, so that a grade reads the same whichever run made it.
func normalize(res *checker.LessonResult, dir string) {
	clean := func(s string) string {
		s = strings.ReplaceAll(s, dir+string(filepath.Separator), "")
		return runDir.ReplaceAllString(s, "")
	}
	for i := range res.Tests {
		res.Tests[i].Message = clean(res.Tests[i].Message)
	}
	for i := range res.CompileErrors {
		res.CompileErrors[i] = clean(res.CompileErrors[i])
	}
	res.Error = clean(res.Error)
}

// gradeOf is the report's grade of a checker result.
func gradeOf(res *checker.LessonResult, l *lessons.Lesson) *report.LessonGrade {
	lg := report.FromResult(res, l.Tests)
	return &lg
}

// report assembles the report once every cell has its grade.
func (g *Grader) report(subs []*Submission, cells []*cell) *report.Report {
	rep := &report.Report{Kata: g.opts.Version, Course: g.ck.Fingerprint()}
	for _, l := range g.lessons {
		rl := report.Lesson{ID: l.ID, Title: l.Title, MaxScore: l.MaxScore()}
		for _, t := range l.Tests {
			rt := report.Test{Name: t.Name, Points: t.Points, Kind: string(t.Kind), About: t.About, Visibility: "visible"}
			if g.opts.Pack != nil {
				if v, ok := g.opts.Pack.Visibility[t.Name]; ok {
					rt.Private, rt.Visibility = true, v
				}
			}
			rl.Tests = append(rl.Tests, rt)
		}
		rep.Lessons = append(rep.Lessons, rl)
	}
	for si := range subs {
		rep.Students = append(rep.Students, g.student(subs[si], cells[si*len(g.lessons):(si+1)*len(g.lessons)]))
	}
	return rep
}

// student is one submission's part of the report.
func (g *Grader) student(s *Submission, cells []*cell) report.Student {
	st := report.Student{Name: report.Name(s.Name), Source: report.Name(s.Source), Problem: report.OneLine(s.Problem), LooksLike: slices.Clone(s.LooksLike)}
	for _, c := range cells {
		lg := *c.grade
		lg.Tests = slices.Clone(lg.Tests)
		if c.untouched && lg.Status != report.StatusPass {
			lg.Reason, lg.Untouched = "not started: the skeleton's stubs, unchanged", true
		}
		st.Lessons = append(st.Lessons, lg)
		st.Score += lg.Score
		st.MaxScore += lg.MaxScore
	}
	return st
}
