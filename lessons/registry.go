package lessons

import (
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// A Registry holds lessons by ID. Default is the course's; tests build
// their own with NewRegistry.
type Registry struct {
	mu      sync.RWMutex
	lessons map[string]*Lesson
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{lessons: map[string]*Lesson{}}
}

// Default is the registry lessons register with from their init functions.
var Default = NewRegistry()

// Register adds l to the Default registry. It panics if l is invalid or its
// ID or files are taken: a lesson that cannot be registered is a bug in the
// course, found at start-up.
func Register(l *Lesson) {
	Default.Register(l)
}

var idPattern = regexp.MustCompile(`^[0-9]{2}-[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// Register adds l, after checking it: see Register.
func (r *Registry) Register(l *Lesson) {
	if err := validate(l); err != nil {
		panic("lesson: " + err.Error())
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.lessons[l.ID]; dup {
		panic(fmt.Sprintf("lesson: Register called twice for lesson %q", l.ID))
	}
	for _, other := range r.lessons {
		if other.Order() == l.Order() {
			panic(fmt.Sprintf("lesson: %q and %q have the same number", other.ID, l.ID))
		}
		for _, f := range l.Files {
			if slices.Contains(other.Files, f) {
				panic(fmt.Sprintf("lesson: %q and %q both own %s", other.ID, l.ID, f))
			}
		}
	}
	r.lessons[l.ID] = l
}

func validate(l *Lesson) error {
	switch {
	case l == nil:
		return fmt.Errorf("Register of a nil lesson")
	case !idPattern.MatchString(l.ID):
		return fmt.Errorf("ID %q: want two digits, a dash and a lower-case slug, like \"01-ringbuffer\"", l.ID)
	case l.Title == "":
		return fmt.Errorf("%s: no title", l.ID)
	case len(l.Files) == 0:
		return fmt.Errorf("%s: owns no files", l.ID)
	case strings.TrimSpace(l.Task) == "":
		return fmt.Errorf("%s: no task statement", l.ID)
	case !strings.HasPrefix(l.Chapter, "# "):
		return fmt.Errorf("%s: no chapter: chapter.md must start with the lesson's \"# Title\" (see book/WRITING.md)", l.ID)
	case len(l.Hints) < 3:
		return fmt.Errorf("%s: %d hints, want at least 3 (a nudge, the idea, the near-answer)", l.ID, len(l.Hints))
	case len(l.Tests) == 0:
		return fmt.Errorf("%s: no hidden tests", l.ID)
	case l.Hidden == nil:
		return fmt.Errorf("%s: no hidden test files", l.ID)
	}
	for _, f := range l.Files {
		if strings.ContainsAny(f, `/\`) || !strings.HasSuffix(f, ".go") || strings.HasSuffix(f, "_test.go") {
			return fmt.Errorf("%s: file %q: want the base name of a non-test .go file of solutions/", l.ID, f)
		}
	}
	names := map[string]bool{}
	for _, t := range l.Tests {
		if !strings.HasPrefix(t.Name, "Test") || names[t.Name] {
			return fmt.Errorf("%s: test %q: want a unique Test... function name", l.ID, t.Name)
		}
		names[t.Name] = true
		if t.Points <= 0 || t.Timeout <= 0 {
			return fmt.Errorf("%s: test %s: points and timeout must be positive", l.ID, t.Name)
		}
		switch t.Kind {
		case Exact, Stress, Timing:
		default:
			return fmt.Errorf("%s: test %s: kind %q: want exact, stress or timing", l.ID, t.Name, t.Kind)
		}
	}
	kinds := map[string]bool{}
	for _, k := range l.Quiz {
		if k.Name == "" || k.Make == nil || kinds[k.Name] {
			return fmt.Errorf("%s: quiz kind %q: want a unique name and a Make function", l.ID, k.Name)
		}
		kinds[k.Name] = true
	}
	if hidden, err := fs.Glob(l.Hidden, "*_test.go"); err != nil || len(hidden) == 0 {
		return fmt.Errorf("%s: no *_test.go files among the hidden tests", l.ID)
	}
	return validateBench(l)
}

// validateBench checks that l has at least one benchmark for kata bench,
// named after the lesson: BenchmarkL01... for lesson 01.
func validateBench(l *Lesson) error {
	if l.Bench == nil {
		return fmt.Errorf("%s: no benchmarks (testdata/bench/*_test.go)", l.ID)
	}
	files, err := fs.Glob(l.Bench, "*_test.go")
	if err != nil || len(files) == 0 {
		return fmt.Errorf("%s: no *_test.go files among the benchmarks (testdata/bench)", l.ID)
	}
	prefix := "func BenchmarkL" + l.ID[:2]
	for _, name := range files {
		data, err := fs.ReadFile(l.Bench, name)
		if err != nil {
			return fmt.Errorf("%s: benchmarks: %v", l.ID, err)
		}
		if strings.Contains(string(data), "\n"+prefix) {
			return nil
		}
	}
	return fmt.Errorf("%s: no benchmark function among testdata/bench/*_test.go: want at least one %s...(b *testing.B)", l.ID, prefix)
}

// Lookup returns the lesson with the given ID. A unique prefix ("01",
// "01-ring"), the number without its zero ("1"), or the slug alone
// ("ringbuffer") will do.
func (r *Registry) Lookup(id string) (*Lesson, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	asked := id
	if len(id) == 1 && id[0] >= '1' && id[0] <= '9' {
		id = "0" + id
	}
	if l, ok := r.lessons[id]; ok {
		return l, nil
	}
	var found []*Lesson
	for _, l := range r.lessons {
		if strings.HasPrefix(l.ID, id) || l.ID[3:] == id {
			found = append(found, l)
		}
	}
	if len(found) == 1 && id != "" {
		return found[0], nil
	}
	return nil, fmt.Errorf("lesson: no lesson %q (run 'kata list')", asked)
}

// All returns the lessons in course order.
func (r *Registry) All() []*Lesson {
	r.mu.RLock()
	defer r.mu.RUnlock()
	all := make([]*Lesson, 0, len(r.lessons))
	for _, l := range r.lessons {
		all = append(all, l)
	}
	slices.SortFunc(all, func(a, b *Lesson) int { return strings.Compare(a.ID, b.ID) })
	return all
}

// Owner returns the lesson that owns file (a base name in solutions/), or
// nil.
func (r *Registry) Owner(file string) *Lesson {
	for _, l := range r.All() {
		if slices.Contains(l.Files, file) {
			return l
		}
	}
	return nil
}
