package diagram

import _ "embed"

// Script zooms and pans the timelines of a page: a page that shows them
// includes it once, after them (timeline.js says what it does). It needs
// nothing else, and a page without it still shows each timeline's first
// view.
//
//go:embed timeline.js
var Script string
