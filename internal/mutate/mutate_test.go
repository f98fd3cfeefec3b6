package mutate

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gmp-kata/gmp-kata/internal/longtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func fixture(t *testing.T) *File {
	t.Helper()
	src, err := os.ReadFile("testdata/fixture.go")
	require.NoError(t, err)
	f, err := Generate("fixture.go", src)
	require.NoError(t, err)
	return f
}

func byKey(f *File) map[string]*Mutant {
	out := map[string]*Mutant{}
	for _, m := range f.Mutants {
		out[m.Key] = m
	}
	return out
}

// Each operator makes the mistake it is named for, at the place it names.
func TestOperators(t *testing.T) {
	f := fixture(t)
	ms := byKey(f)
	cases := []struct{ key, old, new string }{
		{"ring.take/cas-to-store/1", "r.head.CompareAndSwap(h, h+1)", "r.head.Store(h+1)"},
		{"ring.take/cas-check-then-store/1", "r.head.CompareAndSwap(h, h+1)", "if r.head.Load() == h { r.head.Store(h+1) }"},
		{"ring.take/cas-ignore-result/1", "r.head.CompareAndSwap(h, h+1)", "r.head.CompareAndSwap(h, h+1) (result ignored)"},
		{"ring.take/drop-retry/1", "for {", "for range 1 {"},
		{"ring.take/drop-retry/2", "continue", "(nothing)"},
		{"ring.take/reread/1", "h", "r.head.Load()"},
		{"ring.take/flip-compare/1", "t-h == 0", "t-h != 0"},
		{"ring.take/drop-not/1", "!r.head.CompareAndSwap(h, h+1)", "r.head.CompareAndSwap(h, h+1)"},
		{"ring.add/drop-lock/1", "r.mu.Lock() … r.mu.Unlock()", "(nothing)"},
		{"ring.add/swap/1", "r.mu.Lock(); r.n += k", "r.n += k; r.mu.Lock()"},
		{"ring.add/drop/2", "r.n += k", "(nothing)"},
		{"clamp/flip-compare/1", "v < lo", "v <= lo"},
		{"clamp/flip-compare/2", "v < lo", "v >= lo"},
		{"clamp/and-or/1", "v > hi && hi >= 0", "v > hi || hi >= 0"},
		{"clamp/constant/1", "0", "1"},
		{"clamp/negate-if/1", "v < lo", "!(v < lo)"},
	}
	for _, c := range cases {
		m, ok := ms[c.key]
		if !assert.True(t, ok, "no mutant %s", c.key) {
			continue
		}
		assert.Equal(t, c.old, m.Old, c.key)
		assert.Equal(t, c.new, m.New, c.key)
	}
	for _, m := range f.Mutants {
		assert.NotEqual(t, "given", m.Func, "a //kata:given function was mutated: %s", m)
		assert.NotContains(t, m.Old, "panic", "%s", m)
	}
	// A constant -1 below zero is not made.
	_, ok := ms["clamp/constant/2"]
	assert.False(t, ok, "0 - 1 made a negative literal")
}

// Check drops the mutants that do not compile and keeps the rest.
func TestCheckDropsWhatDoesNotCompile(t *testing.T) {
	f := fixture(t)
	made := len(f.Mutants)
	p, err := NewPackage(nil)
	require.NoError(t, err)
	dropped, err := p.Check(f)
	require.NoError(t, err)
	assert.Equal(t, made, dropped+len(f.Mutants))
	for i, m := range f.Mutants {
		assert.Equal(t, i+1, m.ID)
		assert.NoError(t, p.Compiles(f.Name, f.Apply(m)), "%s was kept", m)
	}
	// drop-retry/1 turns the endless loop into one pass: take then falls
	// off its end without a return, which does not compile.
	_, kept := byKey(f)["ring.take/drop-retry/1"]
	assert.False(t, kept, "a mutant that does not compile was kept")
}

// The schemata, run with KATA_MUTANT=N, behave as mutant N compiled on
// its own, and with 0 as the original: the dispatch is the mutant, no
// more and no less.
func TestSchemataRunsEachMutant(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	f := fixture(t)
	p, err := NewPackage(nil)
	require.NoError(t, err)
	_, err = p.Check(f)
	require.NoError(t, err)
	schemata, err := f.Schemata()
	require.NoError(t, err)

	build := func(files map[string][]byte) string {
		dir := t.TempDir()
		files["go.mod"] = []byte("module fixture\n\ngo 1.26\n")
		for name, data := range files {
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
		}
		bin := filepath.Join(dir, "fixture.bin")
		cmd := exec.Command("go", "build", "-o", bin, ".")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return bin
	}
	// run returns what bin printed, and how it ended: a crash's traceback
	// names the functions the schemata renamed, so only its first line is
	// compared.
	run := func(bin string, env ...string) string {
		cmd := exec.Command(bin)
		cmd.Env = append(os.Environ(), env...)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			first, _, _ := strings.Cut(errOut.String(), "\n")
			return out.String() + "exit: " + err.Error() + ": " + first
		}
		return out.String()
	}
	meta := build(map[string][]byte{"fixture.go": schemata, "zz_kata_mutant.go": SelectorFile("main")})
	orig := build(map[string][]byte{"fixture.go": f.Src})
	assert.Equal(t, run(orig), run(meta, EnvVar+"=0"))
	assert.Equal(t, "true true 2 2 5\n3 0 2 7 2\n", run(meta))

	ms := f.Mutants
	switch {
	case testing.Short():
		ms = ms[:5]
	case !longtest.Enabled():
		ms = firstOfEach(ms)
		t.Logf("%d of the fixture's %d mutants, the first of each operator in each function (each is a build); %s=1 runs every one", len(ms), len(f.Mutants), longtest.Var)
	}
	differ := 0
	for _, m := range ms {
		want := run(build(map[string][]byte{"fixture.go": f.Apply(m)}))
		got := run(meta, EnvVar+"="+itoa(m.ID))
		assert.Equal(t, want, got, "%s", m)
		if want != run(orig) {
			differ++
		}
	}
	assert.Positive(t, differ, "no mutant changed what the fixture prints")
}

func itoa(n int) string { return strconv.Itoa(n) }

// firstOfEach keeps the first mutant of each operator in each function:
// every operator, and every function the operators reach, in a third of
// the builds.
func firstOfEach(ms []*Mutant) []*Mutant {
	seen := map[[2]string]bool{}
	var out []*Mutant
	for _, m := range ms {
		if k := [2]string{m.Func, m.Op}; !seen[k] {
			seen[k] = true
			out = append(out, m)
		}
	}
	return out
}
