package checker

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gmp-kata/gmp-kata/internal/buildtag"
	"github.com/gmp-kata/gmp-kata/internal/mutate"
	"github.com/gmp-kata/gmp-kata/lessons"
)

// Statuses of a machine-made mutant.
const (
	MutantKilled     = "killed"     // a hidden test failed it
	MutantSurvived   = "survived"   // every hidden test passed it: a gap in the tests
	MutantEquivalent = "equivalent" // it survived, and the lesson says why it cannot be failed
)

// A MutantResult is what the hidden tests made of one mutant.
type MutantResult struct {
	ID     int    `json:"id"`
	Key    string `json:"key"`
	Op     string `json:"op"`
	Line   int    `json:"line"`
	Change string `json:"change"`
	Status string `json:"status"`
	// By is the test that failed the mutant, and Message the first line
	// of what it said; Why is the lesson's reason for an equivalent one.
	By      string  `json:"by,omitempty"`
	Message string  `json:"message,omitempty"`
	Why     string  `json:"why,omitempty"`
	Elapsed float64 `json:"elapsed_seconds"`
}

// A MutationReport is the mutation score of one lesson: how many of the
// mutants made by machine from its reference file its hidden tests fail.
type MutationReport struct {
	Lesson string `json:"lesson"`
	File   string `json:"file"`
	// Made mutants, of which Uncompiled did not type-check and were not
	// run.
	Made       int            `json:"made"`
	Uncompiled int            `json:"uncompiled"`
	Mutants    []MutantResult `json:"mutants"`
	Killed     int            `json:"killed"`
	Survived   int            `json:"survived"`
	Equivalent int            `json:"equivalent"`
	// Stale lists the lesson's equivalence claims that no surviving mutant
	// matches any more (a test now fails it, or the reference changed):
	// each is an error in the lesson.
	Stale []string `json:"stale,omitempty"`
	// Minimum is the score the lesson must keep (testdata/mutation.txt).
	Minimum  float64 `json:"minimum"`
	WallTime float64 `json:"wall_seconds"`
}

// OK reports whether the score reaches the minimum and every equivalence
// claim holds.
func (r *MutationReport) OK() bool {
	return len(r.Stale) == 0 && r.Score() >= r.Minimum
}

// Score is killed / (killed + survived): the share of the mutants that can
// be failed that the tests do fail.
func (r *MutationReport) Score() float64 {
	if r.Killed+r.Survived == 0 {
		return 1
	}
	return float64(r.Killed) / float64(r.Killed+r.Survived)
}

// MutationOptions tune Mutate.
type MutationOptions struct {
	// Jobs is how many mutants run at once; 0: 1.
	Jobs int
	// Only, if not empty, runs only the mutants whose key has one of these
	// prefixes ("runqgrab/", "runqgrab/cas-to-store/1").
	Only []string
	// Progress, if set, is called after each mutant.
	Progress func(done, total int, m MutantResult)
}

// mutantSlack is what a mutant's test may take beyond ten times the
// reference's time before it counts as hanging. A mutant that loops waits
// out the whole limit, and a fifth of a lesson's mutants do: at five
// seconds, as it was, the waits were half the time of kata verify
// --mutate. Two seconds is still two hundred times a test of 10 ms, and
// ten times is kept for the tests that take longer.
const mutantSlack = 2 * time.Second

// Mutate makes the mutants of lesson l's reference file (internal/mutate),
// compiles them all into one test binary (mutant schemata), and runs the
// lesson's hidden tests on each, stopping at the first failure. The tests
// are first run on the schemata with no mutant selected, which must pass
// every test; each test's time there, ten times over plus mutantSlack,
// becomes its limit for the mutants (a mutant that hangs is failed by that
// limit); a mutant the lesson claims equivalent keeps the learner's limits.
func (c *Checker) Mutate(ctx context.Context, l *lessons.Lesson, opts MutationOptions) (*MutationReport, error) {
	start := time.Now()
	if len(l.Files) != 1 {
		return nil, fmt.Errorf("checker: mutate: lesson %s owns %d files; mutation testing takes one", l.ID, len(l.Files))
	}
	f, rep, err := c.makeMutants(l)
	if err != nil {
		return nil, err
	}
	minimum, equiv, err := l.ReadMutation()
	if err != nil {
		return nil, err
	}
	rep.Minimum = minimum

	r, loose, cleanup, err := c.schemataRun(ctx, l, f)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	claimed := map[string]bool{}
	for _, e := range equiv {
		claimed[e.Key] = true
	}
	var todo []*mutate.Mutant
	for _, m := range f.Mutants {
		if selected(m.Key, opts.Only) {
			todo = append(todo, m)
		}
	}
	results := c.runMutants(ctx, l, r, todo, opts, func(m *mutate.Mutant) map[string]time.Duration {
		// A mutant the lesson says is equivalent must pass every test,
		// so it runs them all whatever its limits; held to ten times the
		// reference's time it can fail one for being slow, not wrong (a
		// re-read is one more scheduling point: lesson 01's explorer
		// then has seven times the schedules), and the claim would read
		// as stale on a busy machine. It gets the learner's limits.
		if claimed[m.Key] {
			return loose
		}
		return r.timeouts
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := settleClaims(rep, results, equiv, len(opts.Only) == 0); err != nil {
		return nil, err
	}
	for _, mr := range results {
		switch mr.Status {
		case MutantKilled:
			rep.Killed++
		case MutantSurvived:
			rep.Survived++
		case MutantEquivalent:
			rep.Equivalent++
		}
	}
	rep.Mutants = results
	rep.WallTime = time.Since(start).Seconds()
	return rep, nil
}

// makeMutants makes the mutants of lesson l's reference file, and the
// report that counts them (made, and how many do not type-check).
func (c *Checker) makeMutants(l *lessons.Lesson) (*mutate.File, *MutationReport, error) {
	name := l.Files[0]
	src, ok := c.mod.files["solutions/"+name]
	if !ok {
		return nil, nil, fmt.Errorf("checker: mutate: no solutions/%s", name)
	}
	others := map[string][]byte{"zz_kata_mutant.go": mutate.SelectorFile("sched")}
	for p, data := range c.mod.files {
		if dir, base := path.Split(p); dir == "solutions/" && base != name {
			// The mutants run in the hidden tests' build: they must
			// type-check with its files.
			in, err := buildtag.Match(base, data, true)
			if err != nil {
				return nil, nil, fmt.Errorf("checker: mutate: the reference's %s: %w", base, err)
			}
			if in {
				others[base] = data
			}
		}
	}
	pkg, err := mutate.NewPackage(others)
	if err != nil {
		return nil, nil, err
	}
	f, err := mutate.Generate(name, src)
	if err != nil {
		return nil, nil, err
	}
	rep := &MutationReport{Lesson: l.ID, File: name, Made: len(f.Mutants)}
	if rep.Uncompiled, err = pkg.Check(f); err != nil {
		return nil, nil, err
	}
	return f, rep, nil
}

// schemataRun builds the test binary of lesson l with every mutant of f
// in it (mutant schemata) and runs the lesson's tests on it with no
// mutant selected, which must pass every test; each test's time there,
// ten times over plus mutantSlack, becomes its limit for the mutants (a
// mutant that hangs is failed by that limit); loose are the limits
// before that, the learner's. The run stops at a test's first failure.
// cleanup removes what it made.
func (c *Checker) schemataRun(ctx context.Context, l *lessons.Lesson, f *mutate.File) (r *run, loose map[string]time.Duration, cleanup func(), err error) {
	r, cleanup, err = c.schemataBuild(ctx, l, f)
	if err != nil {
		return nil, nil, nil, err
	}
	if r == nil {
		return nil, nil, nil, fmt.Errorf("checker: mutate: lesson %s's mutant schemata do not compile (a mutant the type check let through?)", l.ID)
	}
	ls := []*lessons.Lesson{l}
	base := c.gradeRun(ctx, l.ID, l.Title, r, ls)
	if err := ctx.Err(); err != nil {
		cleanup()
		return nil, nil, nil, err
	}
	if base.Status != StatusPass {
		cleanup()
		return nil, nil, nil, fmt.Errorf("checker: mutate: lesson %s's reference, compiled with its mutants but none selected, scored %d/%d: %s",
			l.ID, base.Score, base.MaxScore, firstProblem(base))
	}
	loose = maps.Clone(r.timeouts)
	r.weights = map[string]time.Duration{} // the cheap tests run first (cheapFirst)
	for _, t := range base.Tests {
		took := time.Duration(t.Elapsed * float64(time.Second))
		r.weights[t.Name] = took
		r.timeouts[t.Name] = min(r.timeouts[t.Name], 10*took+mutantSlack)
	}
	r.failFast = true
	return r, loose, cleanup, nil
}

// schemataBuild builds the test binary of lesson l with every mutant of f
// in it (f's schemata, l's one file), none selected (KATA_MUTANT=0): a
// run whose copies (each with its own KATA_MUTANT) share the binary. It
// returns a nil run if the schemata do not compile. cleanup removes what
// it made.
func (c *Checker) schemataBuild(ctx context.Context, l *lessons.Lesson, f *mutate.File) (r *run, cleanup func(), err error) {
	name := l.Files[0]
	schemata, err := f.Schemata()
	if err != nil {
		return nil, nil, err
	}
	tmp, err := os.MkdirTemp("", "kata-mutate-")
	if err != nil {
		return nil, nil, fmt.Errorf("checker: %w", err)
	}
	replace := map[string]string{name: filepath.Join(tmp, name), "zz_kata_mutant.go": filepath.Join(tmp, "zz_kata_mutant.go")}
	if err := os.WriteFile(replace[name], schemata, 0o644); err != nil {
		removeAll(tmp)
		return nil, nil, fmt.Errorf("checker: %w", err)
	}
	if err := os.WriteFile(replace["zz_kata_mutant.go"], mutate.SelectorFile("sched"), 0o644); err != nil {
		removeAll(tmp)
		return nil, nil, fmt.Errorf("checker: %w", err)
	}
	r = c.runOf(replace, []*lessons.Lesson{l})
	cleanup = func() {
		r.cleanup()
		removeAll(tmp)
	}
	r.env = []string{mutate.EnvVar + "=0"}
	// A mutant that go vet would refuse is not refused here: its tests
	// judge it, which can only count against the score.
	r.noVet = true
	// The schemata are kata's own, and larger than a lesson file may be
	// (every mutant of the file in one): the snapshot takes them whole.
	r.trusted = true
	if err := r.makeWork(); err != nil {
		cleanup()
		return nil, nil, err
	}
	rr, err := c.compileOnly(ctx, r)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	if rr != nil {
		cleanup()
		return nil, nil, nil
	}
	return r, cleanup, nil
}

// runMutants runs lesson l's tests on each mutant of todo, opts.Jobs at
// once, every run sharing r's binary with the limits limits gives it, and
// says what each made of it.
func (c *Checker) runMutants(ctx context.Context, l *lessons.Lesson, r *run, todo []*mutate.Mutant, opts MutationOptions,
	limits func(*mutate.Mutant) map[string]time.Duration) []MutantResult {
	ls := []*lessons.Lesson{l}
	results := make([]MutantResult, len(todo))
	var (
		mu   sync.Mutex
		done int
		wg   sync.WaitGroup
		next = make(chan int)
	)
	for range max(1, opts.Jobs) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wr := *r // shares the built binary; the environment is its own
			for i := range next {
				m := todo[i]
				wr.env = []string{fmt.Sprintf("%s=%d", mutate.EnvVar, m.ID)}
				wr.timeouts = limits(m)
				mr := mutantResult(m, c.gradeRun(ctx, l.ID, l.Title, &wr, ls))
				mu.Lock()
				results[i] = mr
				done++
				if opts.Progress != nil {
					opts.Progress(done, len(todo), mr)
				}
				mu.Unlock()
			}
		}()
	}
	for i := range todo {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return results
}

// mutantResult is what the tests' result res says of mutant m.
func mutantResult(m *mutate.Mutant, res *LessonResult) MutantResult {
	mr := MutantResult{ID: m.ID, Key: m.Key, Op: m.Op, Line: m.Line, Change: m.Old + " → " + m.New,
		Status: MutantSurvived, Elapsed: res.WallTime}
	if res.Status == StatusError {
		mr.Status, mr.Message = StatusError, res.Error
	} else if res.Score < res.MaxScore {
		mr.Status = MutantKilled
		for _, t := range res.Tests {
			if failedOnItsOwn(t) {
				mr.By, mr.Message = t.Name, firstLine(t.Message)
				break
			}
		}
	}
	return mr
}

// settleClaims holds the mutants that survived against the lesson's
// claims of equivalence (equiv): a claimed survivor is equivalent; a
// claim that no longer matches its mutant, or whose mutant a test now
// fails, or (if all, every mutant having run) that names no mutant, is
// stale, an error in the lesson. A mutant kata could not run is an error.
func settleClaims(rep *MutationReport, results []MutantResult, equiv []lessons.Equivalence, all bool) error {
	claims := map[string]lessons.Equivalence{}
	for _, e := range equiv {
		claims[e.Key] = e
	}
	for i := range results {
		mr := &results[i]
		if mr.Status == StatusError {
			return fmt.Errorf("checker: mutate: %s: %s", mr.Key, mr.Message)
		}
		e, claimed := claims[mr.Key]
		if !claimed {
			continue
		}
		delete(claims, mr.Key)
		switch {
		case e.Change != mr.Change:
			rep.Stale = append(rep.Stale, fmt.Sprintf("testdata/mutation.txt:%d: %s is now %q, not %q: review it", e.Line, e.Key, mr.Change, e.Change))
		case mr.Status == MutantKilled:
			rep.Stale = append(rep.Stale, fmt.Sprintf("testdata/mutation.txt:%d: %s is listed as equivalent, but %s fails it: %s", e.Line, e.Key, mr.By, mr.Message))
		default:
			mr.Status, mr.Why = MutantEquivalent, e.Why
		}
	}
	if all {
		for _, e := range equiv {
			if _, left := claims[e.Key]; left {
				rep.Stale = append(rep.Stale, fmt.Sprintf("testdata/mutation.txt:%d: no mutant %s any more: remove the line", e.Line, e.Key))
			}
		}
	}
	return nil
}

func selected(key string, only []string) bool {
	if len(only) == 0 {
		return true
	}
	for _, p := range only {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// firstProblem says what the first failing test of res said.
func firstProblem(res *LessonResult) string {
	if res.Error != "" {
		return res.Error
	}
	for _, t := range res.Tests {
		if t.Status != StatusPass {
			return t.Name + ": " + firstLine(t.Message)
		}
	}
	return "no test failed"
}
