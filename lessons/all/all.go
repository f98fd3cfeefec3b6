// Package all registers every lesson of the course with lessons.Default.
// Adding a lesson is adding its directory and one line here.
package all

import (
	_ "github.com/gmp-kata/gmp-kata/lessons/01-ringbuffer"
	_ "github.com/gmp-kata/gmp-kata/lessons/02-runnext"
	_ "github.com/gmp-kata/gmp-kata/lessons/03-globrunqget"
	_ "github.com/gmp-kata/gmp-kata/lessons/04-findrunnable"
	_ "github.com/gmp-kata/gmp-kata/lessons/05-spinning"
	_ "github.com/gmp-kata/gmp-kata/lessons/06-gopark"
	_ "github.com/gmp-kata/gmp-kata/lessons/07-sysmon"
	_ "github.com/gmp-kata/gmp-kata/lessons/08-procresize"
)
