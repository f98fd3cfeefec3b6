// Package all registers every lesson of the course with lessons.Default.
// Adding a lesson is adding its directory and one line here.
package all

import (
	_ "github.com/gmp-kata/gmp-kata/lessons/01-ringbuffer"
)
