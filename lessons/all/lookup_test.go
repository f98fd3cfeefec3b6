package all

import (
	"strings"
	"testing"

	"github.com/gmp-kata/gmp-kata/lessons"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A learner names a lesson the way they think of it: "01", "1", the slug,
// or the whole ID.
func TestLookupNames(t *testing.T) {
	for _, name := range []string{"01-ringbuffer", "01", "1", "ringbuffer", "01-ring"} {
		l, err := lessons.Default.Lookup(name)
		require.NoError(t, err, name)
		assert.Equal(t, "01-ringbuffer", l.ID, name)
	}
	l, err := lessons.Default.Lookup("8")
	require.NoError(t, err)
	assert.Equal(t, "08-procresize", l.ID)
	for _, name := range []string{"0", "9", "10", "", "ring"} {
		_, err := lessons.Default.Lookup(name)
		assert.Error(t, err, name)
	}
	_, err = lessons.Default.Lookup("9")
	assert.EqualError(t, err, `lesson: no lesson "9" (run 'kata list')`)
}

// Every lesson is graded out of 100, so that its score reads as a
// percentage and lessons weigh the same in a class's totals.
func TestEveryLessonTotals100(t *testing.T) {
	for _, l := range lessons.Default.All() {
		total := 0
		for _, tt := range l.Tests {
			total += tt.Points
		}
		assert.Equal(t, 100, total, "%s's tests' points", l.ID)
	}
}

// Tests that score together (lessons.Test.Guarantee) change what a
// learner's points mean, so the task says so: one paragraph that says the
// tests "score together" names every test of the guarantee and no other.
func TestGuaranteesAreInTheTask(t *testing.T) {
	for _, l := range lessons.Default.All() {
		members := map[string][]string{}
		for _, tt := range l.Tests {
			if tt.Guarantee != "" {
				members[tt.Guarantee] = append(members[tt.Guarantee], tt.Name)
			}
		}
		for g, names := range members {
			assert.GreaterOrEqual(t, len(names), 2, "%s: guarantee %q has one test: nothing scores with it", l.ID, g)
			var para string
			for _, p := range strings.Split(l.Task, "\n\n") {
				if strings.Contains(p, "score together") && strings.Contains(p, "`"+names[0]+"`") {
					para = p
				}
			}
			if !assert.NotEmpty(t, para, "%s: no paragraph of the task says that %s score together", l.ID, strings.Join(names, ", ")) {
				continue
			}
			for _, tt := range l.Tests {
				named := strings.Contains(para, "`"+tt.Name+"`")
				assert.Equal(t, tt.Guarantee == g, named, "%s: %s named in the task's paragraph on the tests that score together: %v; shares their guarantee: %v", l.ID, tt.Name, named, tt.Guarantee == g)
			}
		}
	}
}
