package lessons

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadMutation(t *testing.T) {
	l := &Lesson{ID: "01-x", Mutation: `# comment
minimum score: 92.5%

runqgethead/reread/1 | h → pp.runqhead.Load() | the CAS on the old h fails if the head moved
`}
	min, eq, err := l.ReadMutation()
	require.NoError(t, err)
	assert.InDelta(t, 0.925, min, 1e-9)
	require.Len(t, eq, 1)
	assert.Equal(t, Equivalence{Key: "runqgethead/reread/1", Change: "h → pp.runqhead.Load()",
		Why: "the CAS on the old h fails if the head moved", Line: 4}, eq[0])

	for text, want := range map[string]string{
		"minimum score: lots":          "testdata/mutation.txt:1: want \"minimum score: N%\"",
		"minimum score: 120%":          "testdata/mutation.txt:1: want \"minimum score: N%\"",
		"a/b/1 | x → y":                "testdata/mutation.txt:1: want \"KEY | CHANGE | WHY\"",
		"a/b/1 | x → y | because":      "",
		"a/b/1 | x | y\na/b/1 | x | y": "testdata/mutation.txt:2: a/b/1 listed twice",
	} {
		_, _, err := (&Lesson{ID: "01-x", Mutation: text}).ReadMutation()
		if want == "" {
			assert.NoError(t, err, text)
			continue
		}
		assert.ErrorContains(t, err, want, text)
	}
}
