package vet

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// deepRunq is the reference's runq.go with imports the rules refuse and
// an expression nested deeper than go/parser allows (the red team's A01:
// the compiler has no such limit). Only its imports can be read.
func deepRunq(t testing.TB, imports ...string) string {
	t.Helper()
	src := runq(t)
	if len(imports) > 0 {
		src = withImports(t, src, imports...)
	}
	const depth = 100_010
	deep := "var deepNesting = " + strings.Repeat("(", depth) + "1" + strings.Repeat(")", depth) + "\n"
	return edit(t, src, "\nfunc runqputtail(", "\n"+deep+"\nfunc runqputtail(")
}

// TestFailsClosed: a file the vetter cannot read whole is refused, never
// passed (A01: it used to return no problem at all, and the file went on
// to the compiler, which reads it). Its imports are still checked; what
// the vetter could not read is one problem of its own, with where and why.
func TestFailsClosed(t *testing.T) {
	v := courseVetter(t)
	for _, tc := range []struct {
		name string
		src  func(t testing.TB) string
		want []string // rule:part of the message
	}{
		{"nested too deep, forbidden imports", func(t testing.TB) string { return deepRunq(t, `"os"`, `"debug/elf"`) },
			[]string{`import:import "os" is not allowed`, `import:import "debug/elf" is not allowed`}},
		{"nested too deep", func(t testing.TB) string { return deepRunq(t) },
			[]string{"syntax:exceeded max nesting depth"}},
		{"a syntax error", func(t testing.TB) string {
			return edit(t, runq(t), "func runqputtail(pp *p, gp *g) {", "func runqputtail(pp *p, gp *g) {\n\tif {")
		}, []string{"syntax:"}},
		{"a syntax error in the imports", func(t testing.TB) string {
			return edit(t, runq(t), `import "sync/atomic"`, `import "sync/atomic`)
		}, []string{"syntax:"}},
		{"a type error", func(t testing.TB) string {
			return edit(t, runq(t), "func runqputtail(pp *p, gp *g) {", "func runqputtail(pp *p, gp *g) {\n\tundefinedThing()")
		}, []string{"types:undefined: undefinedThing"}},
		{"a rule broken beside a type error", func(t testing.TB) string {
			return edit(t, runq(t), "\nfunc runqputtail(", "\nfunc init() { undefinedThing() }\n\nfunc runqputtail(")
		}, []string{"init:may not declare an init function"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			probs, err := v.Sources(map[string][]byte{"runq.go": []byte(tc.src(t))})
			if err != nil {
				t.Fatal(err)
			}
			wantProblems(t, probs, "runq.go", tc.want)
		})
	}
}

// TestSizeLimit: a lesson file larger than MaxFileSize is refused, and
// Files does not read it whole to find out (A28's 8 MiB of empty lines
// cost kata 270 MB and 31 s). A file just under the limit is vetted.
func TestSizeLimit(t *testing.T) {
	v := courseVetter(t)
	const limit = 256 << 10
	src := runq(t)
	under := src + strings.Repeat("\n", limit-len(src))
	probs, err := v.Sources(map[string][]byte{"runq.go": []byte(under)})
	if err != nil || len(probs) != 0 {
		t.Fatalf("a file of %d bytes: %v %v, want it vetted and passed", len(under), probs, err)
	}
	over := under + "\n"
	probs, err = v.Sources(map[string][]byte{"runq.go": []byte(over)})
	if err != nil {
		t.Fatal(err)
	}
	if len(probs) != 1 || probs[0].Rule != "size" || probs[0].String() != "runq.go: is larger than 256 KiB, the most a lesson file may be: make it smaller" {
		t.Fatalf("a file of %d bytes: %q, want one problem of rule size", len(over), probs)
	}

	// 256 MiB, sparse: reading it whole would cost as much memory.
	big := filepath.Join(t.TempDir(), "runq.go")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(src); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(256 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	probs, err = v.Files(map[string]string{"runq.go": big})
	if err != nil {
		t.Fatal(err)
	}
	if len(probs) != 1 || probs[0].Rule != "size" {
		t.Fatalf("a file of 256 MiB: %q, want one problem of rule size", probs)
	}
}

// TestConstantStringsAreMeasuredNotBuilt: a constant doubled forty
// times, and used without len (which would make the type checker build
// it), costs the type checker nothing, and the vetter measures it from
// its parts without building it either: it is refused as past the data
// budget, in the vetter's own process, allocating about what an honest
// file does (a seventh red team's made the vetter build 550 MiB). A
// conversion and a group's repeated expression are measured the same way.
func TestConstantStringsAreMeasuredNotBuilt(t *testing.T) {
	v := courseVetter(t)
	allocated := func(src string) (uint64, []Problem) {
		t.Helper()
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		probs, err := v.Sources(map[string][]byte{"runq.go": []byte(src)})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		return after.TotalAlloc - before.TotalAlloc, probs
	}
	honest, probs := allocated(runq(t))
	if len(probs) != 0 {
		t.Fatalf("the reference's runq.go: %v", probs)
	}
	doubled := "const s0 = \"xxxxxxxx\"\n"
	for i := 1; i <= 40; i++ {
		doubled += fmt.Sprintf("const s%d = s%d + (s%d)\n", i, i-1, i-1)
	}
	for name, decls := range map[string]string{
		"doubled":               doubled + "var _ = s40\n",
		"converted":             doubled + "type name string\n\nconst named = name(s40)\n\nvar _ = named\n",
		"repeated in its group": doubled + "const (\n\tg0 = s40 + \"\"\n\tg1\n)\n\nvar _ = g1\n",
	} {
		t.Run(name, func(t *testing.T) {
			bytes, probs := allocated(edit(t, runq(t), "\nfunc runqputtail(", "\n"+decls+"\nfunc runqputtail("))
			wantProblems(t, probs, "runq.go", []string{"large:a constant string of 1.0 MiB brings the data this file spells past 1 MiB"})
			if bytes > 2*honest+(16<<20) {
				t.Errorf("vetting it allocated %d MiB, the honest file %d MiB: the constant was built", bytes>>20, honest>>20)
			}
		})
	}
}

// Bombs: lesson files whose type-checking takes time and memory
// exponential in their size, each a way of its own.
func bombs() map[string]func(t testing.TB) string {
	at := func(decls string) func(t testing.TB) string {
		return func(t testing.TB) string {
			return edit(t, runq(t), "\nfunc runqputtail(", "\n"+decls+"\nfunc runqputtail(")
		}
	}
	aliases := "type ab0 = struct{ l, r int }\n"
	strs := "const s0 = \"xxxxxxxx\"\n"
	for i := 1; i <= 40; i++ {
		aliases += fmt.Sprintf("type ab%d = struct{ l, r ab%d }\n", i, i-1)
		strs += fmt.Sprintf("const s%d = s%d + s%d\n", i, i-1, i-1)
	}
	return map[string]func(t testing.TB) string{
		// The red team's A25: a generic call nested, its type doubled at
		// each level.
		"generic calls": at(`type rtPair[A, B any] struct {
	a A
	b B
}

func rtMk[T any](x T) rtPair[T, T] { return rtPair[T, T]{x, x} }

func rtBomb() { _ = ` + strings.Repeat("rtMk(", 32) + "0" + strings.Repeat(")", 32) + ` }
`),
		// No generic declaration of its own: aliases, each twice the one
		// before, spelt out by an instance of a standard generic type.
		"aliases": at(aliases + "\nvar abPtr atomic.Pointer[ab40]\n"),
		// No type at all: a constant string doubled 40 times.
		"constant strings": at(strs + "\nvar sLen = len(s40)\n"),
	}
}

var (
	remoteOnce sync.Once
	remote     *Remote
	remoteErr  error
)

// courseRemote is a Remote of the course, within tight limits.
func courseRemote(t testing.TB) *Remote {
	t.Helper()
	remoteOnce.Do(func() {
		remote, remoteErr = NewRemote(courseConfig(t), Limits{Memory: 256 << 20, Timeout: time.Minute})
	})
	if remoteErr != nil {
		t.Fatal(remoteErr)
	}
	return remote
}

// TestRemoteGivesUp: a file whose type-checking runs out of memory or
// time is refused with one problem, which says so, and costs kata's own
// process nothing; the child that gave up is gone (no process left), and
// the next file is vetted by a new one.
func TestRemoteGivesUp(t *testing.T) {
	r := courseRemote(t)
	honest := map[string][]byte{"runq.go": []byte(runq(t))}
	for name, src := range bombs() {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			probs, err := r.Sources(context.Background(), map[string][]byte{"runq.go": []byte(src(t))})
			if err != nil {
				t.Fatal(err)
			}
			took := time.Since(start)
			want := "runq.go: the type checker gave up: it used more than 256 MiB of memory: "
			if len(probs) != 1 || probs[0].Rule != RuleGaveUp || !strings.HasPrefix(probs[0].String(), want) {
				t.Fatalf("%q, want one problem starting %q", probs, want)
			}
			t.Logf("refused in %s", took.Round(time.Millisecond))
			r.mu.Lock()
			idle := len(r.idle)
			r.mu.Unlock()
			if idle != 0 {
				t.Errorf("%d children idle, want none: the one that gave up is gone", idle)
			}
			if probs, err := r.Sources(context.Background(), honest); err != nil || len(probs) != 0 {
				t.Errorf("the reference, after: %q %v", probs, err)
			}
		})
	}

	// Out of time: the same bomb, with memory to spare.
	slow, err := NewRemote(courseConfig(t), Limits{Memory: 4 << 30, Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	probs, err := slow.Sources(context.Background(), map[string][]byte{"runq.go": []byte(bombs()["generic calls"](t))})
	if err != nil {
		t.Fatal(err)
	}
	if want := "runq.go: the type checker gave up: it took more than 300ms: "; len(probs) != 1 || !strings.HasPrefix(probs[0].String(), want) {
		t.Fatalf("%q, want one problem starting %q", probs, want)
	}
	// Given up on while kata waits: ctx ends the vetting.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := slow.Sources(ctx, map[string][]byte{"runq.go": []byte(bombs()["generic calls"](t))}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("with a context that ends: %v", err)
	}
}

// TestRemoteVetsAsVetter: a Remote finds what a Vetter finds, problem for
// problem, in every rule case, and in files vetted at once.
func TestRemoteVetsAsVetter(t *testing.T) {
	v, r := courseVetter(t), courseRemote(t)
	check := func(t *testing.T, files map[string][]byte) {
		t.Helper()
		want, err := v.Sources(files)
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.Sources(context.Background(), files)
		if err != nil {
			t.Fatal(err)
		}
		show := func(probs []Problem) string {
			var s []string
			for _, p := range probs {
				s = append(s, p.String()+" ["+p.Rule+"]")
			}
			return strings.Join(s, "\n")
		}
		if show(got) != show(want) {
			t.Errorf("the Remote found\n%s\nthe Vetter\n%s", show(got), show(want))
		}
	}
	for _, tc := range ruleCases() {
		t.Run(tc.name, func(t *testing.T) { check(t, map[string][]byte{tc.file: []byte(tc.src(t))}) })
	}
	t.Run("at once", func(t *testing.T) {
		var wg sync.WaitGroup
		for _, tc := range ruleCases()[:4] {
			wg.Go(func() { check(t, map[string][]byte{tc.file: []byte(tc.src(t))}) })
		}
		wg.Wait()
	})
	t.Run("too large", func(t *testing.T) {
		check(t, map[string][]byte{"runq.go": []byte(runq(t) + strings.Repeat("\n", MaxFileSize))})
	})
}

// TestLongMessagesAreCut: a problem's message can name a type, and a
// type's name can be exponential in the file's size: here 2^16 pairs,
// in an error of go/types. Every message is at most MaxMessage bytes.
func TestLongMessagesAreCut(t *testing.T) {
	v := courseVetter(t)
	src := edit(t, runq(t), "\nfunc runqputtail(", `
type rtPair[A, B any] struct {
	a A
	b B
}

func rtMk[T any](x T) rtPair[T, T] { return rtPair[T, T]{x, x} }

func rtWide() int { return `+strings.Repeat("rtMk(", 10)+"0"+strings.Repeat(")", 10)+` }

func runqputtail(`)
	probs, err := v.Sources(map[string][]byte{"runq.go": []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	if len(probs) != 1 || probs[0].Rule != RuleTypes || len(probs[0].Msg) > MaxMessage+len("…") || !strings.HasSuffix(probs[0].Msg, "…") ||
		!strings.HasPrefix(probs[0].Msg, "go/types refuses it (cannot use rtMk(") {
		t.Fatalf("%d problems, the first %.200q... (%d bytes): want one of rule types, cut", len(probs), probs[0].Msg, len(probs[0].Msg))
	}
}

// TestNewRemoteSaysWhy: a Remote whose Vetter cannot be made fails as New
// does, with New's error.
func TestNewRemoteSaysWhy(t *testing.T) {
	_, err := NewRemote(Config{Reference: map[string][]byte{"a.go": []byte("package sched\n\nfunc {")}}, Limits{})
	if err == nil || !strings.HasPrefix(err.Error(), "vet: the reference's a.go: ") {
		t.Fatalf("%v, want New's error", err)
	}
}
