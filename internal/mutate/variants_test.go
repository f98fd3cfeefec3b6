package mutate

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const variantsBase = `package main

import "fmt"

type box struct{ n int }

func (b *box) add(k int) { b.n += k }

func twice(x int) int { return 2 * x }

func main() {
	b := &box{}
	b.add(twice(3))
	fmt.Println(b.n)
}
`

// A variant fits only when nothing outside a function body changed but
// plain functions of its own added, and the schemata made of the fitting
// ones run each as it would alone.
func TestFromVariants(t *testing.T) {
	variants := []string{
		// 1: two bodies changed (a method's and a function's): fits.
		strings.NewReplacer("b.n += k", "b.n -= k", "2 * x", "3 * x").Replace(variantsBase),
		// 2: an import added: does not fit.
		strings.Replace(variantsBase, `import "fmt"`, "import (\n\t\"fmt\"\n\t\"os\"\n)", 1) + "\nvar _ = os.Args\n",
		// 3: a signature changed: does not fit.
		strings.Replace(variantsBase, "func twice(x int) int { return 2 * x }", "func twice(x int) int64 { return int64(2 * x) }", 1),
		// 4: a function added before main, which calls it: fits.
		strings.Replace(variantsBase, "func main() {\n\tb := &box{}\n\tb.add(twice(3))",
			"// helper is the mistake's.\nfunc helper() int { return 5 }\n\nfunc main() {\n\tb := &box{}\n\tb.add(twice(helper()))", 1),
		// 5: unchanged: fits, with no edit.
		variantsBase,
		// 6: one body changed: fits.
		strings.Replace(variantsBase, "b.add(twice(3))", "b.add(twice(4))", 1),
		// 7: a function of the same name as 4's added: does not fit (built alone).
		strings.Replace(variantsBase, "b.add(twice(3))", "b.add(helper())", 1) + "\nfunc helper() int { return 1 }\n",
		// 8: a method added: does not fit.
		variantsBase + "\nfunc (b *box) sub(k int) { b.n -= k }\n",
		// 9: a variable added: does not fit.
		variantsBase + "\nvar extra = 1\n",
		// 10: a function of a name the file has, as well as its own: does not fit.
		variantsBase + "\nfunc twice(x int) int { return 2 * x }\n",
	}
	vs := make([][]byte, len(variants))
	for i, v := range variants {
		vs[i] = []byte(v)
	}
	f, fits, err := FromVariants("main.go", []byte(variantsBase), vs)
	require.NoError(t, err)
	assert.Equal(t, []bool{true, false, false, true, true, true, false, false, false, false}, fits)
	ids := map[int]int{}
	for _, m := range f.Mutants {
		ids[m.ID]++
	}
	assert.Equal(t, map[int]int{1: 2, 4: 1, 6: 1}, ids, "mutant ID → functions it changes")

	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	schemata, err := f.Schemata()
	require.NoError(t, err)
	dir := t.TempDir()
	for name, data := range map[string][]byte{"main.go": schemata, "zz_kata_mutant.go": SelectorFile("main"), "go.mod": []byte("module fixture\n\ngo 1.26\n")} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
	}
	cmd := exec.Command("go", "build", "-o", "v.bin", ".")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s\n%s", out, schemata)
	for id, want := range map[int]string{0: "6\n", 1: "-9\n", 4: "10\n", 5: "6\n", 6: "8\n"} {
		cmd := exec.Command(filepath.Join(dir, "v.bin"))
		cmd.Env = append(os.Environ(), EnvVar+"="+itoa(id))
		got, err := cmd.Output()
		require.NoError(t, err)
		assert.Equal(t, want, string(got), "variant %d", id)
	}
}
