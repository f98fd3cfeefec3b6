package all

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gmp-kata/gmp-kata/lessons"
)

// TestMutantsApply checks that every lesson's mutants parse, say what the
// mistake is, and still apply to the reference: a change to solutions/
// that moves the lines a mutant edits must update the mutant too.
func TestMutantsApply(t *testing.T) {
	for _, l := range lessons.Default.All() {
		ref := map[string][]byte{}
		for _, f := range l.Files {
			data, err := os.ReadFile(filepath.Join("../../solutions", f))
			if err != nil {
				t.Fatal(err)
			}
			ref[f] = data
		}
		ms, err := l.ReadMutants()
		if err != nil {
			t.Errorf("%s: %v", l.ID, err)
			continue
		}
		for _, m := range ms {
			out, err := m.Apply(ref)
			if err != nil {
				t.Errorf("%s: %v", l.ID, err)
				continue
			}
			for f, data := range out {
				if string(data) == string(ref[f]) {
					t.Errorf("%s: mutant %s leaves %s unchanged", l.ID, m.Name, f)
				}
			}
		}
	}
}
