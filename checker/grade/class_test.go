package grade

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmp-kata/gmp-kata/checker/report"
	"github.com/gmp-kata/gmp-kata/lessons"
)

var classJobs = flag.Int("class.jobs", 0, "BenchmarkGradeClass: lessons graded at once (0: DefaultJobs())")

// class30 writes a class of 30 submissions in dir, every lesson in play:
//
//   - 6 correct: 3 with the reference's files (identical, as students who
//     copied the book would be), 3 with other correct answers (the
//     lessons' alternates);
//   - 16 partial: the first k lessons done (the reference's files, or one
//     of the lesson's known mistakes), the rest the skeleton's stubs;
//   - 8 hostile: a compile error, os.Exit in init, fake PASS lines and an
//     exit, an infinite loop, a deadlock, a flood of output, writes
//     outside its directory, and a zip-slip archive.
func class30(tb testing.TB, dir string) {
	all := lessons.Default.All()
	for i := range 3 {
		workspace(tb, filepath.Join(dir, fmt.Sprintf("correct-ref-%d", i)), nil)
	}
	for i := range 3 {
		files := map[string][]byte{}
		for _, l := range all {
			alts, err := fs.ReadDir(l.Alternates, ".")
			if err != nil || len(alts) == 0 {
				continue
			}
			alt := alts[i%len(alts)].Name()
			for _, f := range l.Files {
				if data, err := fs.ReadFile(l.Alternates, alt+"/"+f); err == nil {
					files[f] = data
				}
			}
		}
		workspace(tb, filepath.Join(dir, fmt.Sprintf("correct-alt-%d", i)), files)
	}
	for i := range 16 {
		done := 1 + i%7
		files := map[string][]byte{}
		for li, l := range all {
			switch {
			case li >= done:
				for _, f := range l.Files {
					files[f] = skel(tb, f)
				}
			case i%2 == 0 && li == done-1:
				// The last lesson this student did has one of its known
				// mistakes.
				ms, err := l.ReadMutants()
				if err != nil || len(ms) == 0 {
					tb.Fatalf("lesson %s: no mutants (%v)", l.ID, err)
				}
				for f, data := range mutantFiles(tb, l, ms[i%len(ms)].Name) {
					files[f] = data
				}
			}
		}
		workspace(tb, filepath.Join(dir, fmt.Sprintf("partial-%02d", i)), files)
	}
	for _, h := range hostiles() {
		switch h.name {
		case "compile-error", "exit-in-init", "fake-pass-framed", "infinite-loop", "deadlock", "output-flood", "writes-outside":
			workspace(tb, filepath.Join(dir, "hostile-"+h.name), h.files(tb))
		}
	}
	slip := filepath.Join(tb.TempDir(), "slip")
	workspace(tb, slip, nil)
	writeZip(tb, filepath.Join(dir, "hostile-zip-slip.zip"), append(dirEntries(tb, slip, ""), archived{name: "../../evil.go", data: []byte("package evil\n")}))
}

func mutantFiles(tb testing.TB, l *lessons.Lesson, name string) map[string][]byte {
	return mutant(tb, l.ID, name)
}

// BenchmarkGradeClass grades a class of 30 submissions × 8 lessons (see
// class30) in a fresh cache, then grades the unchanged class again with a
// new Grader, as a second `kata grade` would. It reports both times (the
// targets: under 10 minutes, under 10 seconds) and the runs it took:
//
//	go test ./checker/grade -run '^$' -bench GradeClass -benchtime 1x [-class.jobs N]
func BenchmarkGradeClass(b *testing.B) {
	class := filepath.Join(b.TempDir(), "class")
	class30(b, class)
	jobs := *classJobs
	if jobs == 0 {
		jobs = DefaultJobs()
	}
	for range b.N {
		cache := b.TempDir()
		grade := func() (*report.Report, Stats, time.Duration) {
			start := time.Now()
			g, err := New(Options{CacheDir: cache, Jobs: jobs})
			if err != nil {
				b.Fatal(err)
			}
			subs, err := (&Finder{LessonFiles: g.LessonFiles()}).Find([]string{class})
			if err != nil {
				b.Fatal(err)
			}
			if len(subs) != 30 {
				b.Fatalf("%d submissions, want 30", len(subs))
			}
			rep, stats, err := g.Grade(context.Background(), subs, nil)
			if err != nil {
				b.Fatal(err)
			}
			return rep, stats, time.Since(start)
		}
		rep, first, firstTime := grade()
		fullMarksForTheCorrect(b, rep)
		_, again, againTime := grade()
		b.Logf("first: %s (%s with setup)", first, firstTime.Round(time.Second))
		b.Logf("again: %s (%s with setup)", again, againTime.Round(time.Millisecond))
		if again.Runs != 0 {
			b.Errorf("the unchanged class ran %d lessons again", again.Runs)
		}
		b.ReportMetric(firstTime.Seconds(), "first-s")
		b.ReportMetric(againTime.Seconds(), "regrade-s")
		b.ReportMetric(float64(first.Runs), "runs")
		b.ReportMetric(float64(jobs), "jobs")
	}
}

// fullMarksForTheCorrect checks the class's correct submissions scored
// full marks in every lesson: graded as kata grade grades (every test
// under the race detector, one process at a time, the lesson's budget),
// the reference's files and, across the three correct-alt students, every
// lesson's alternates, which the self-check of go test ./... grades as
// kata check does.
func fullMarksForTheCorrect(b *testing.B, rep *report.Report) {
	b.Helper()
	correct := 0
	for _, st := range rep.Students {
		if !strings.HasPrefix(st.Name, "correct-") {
			continue
		}
		correct++
		for _, l := range st.Lessons {
			if l.Score != l.MaxScore {
				b.Errorf("%s: %s scored %d/%d (%s), want full marks", st.Name, l.ID, l.Score, l.MaxScore, l.Status)
			}
		}
	}
	if correct != 6 {
		b.Errorf("%d correct submissions in the report, want 6", correct)
	}
}
