package all

import (
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
