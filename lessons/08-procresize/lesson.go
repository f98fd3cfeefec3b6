// Package procresize is lesson 08: changing the number of Ps (procresize,
// (*p).init, (*p).destroy) with the world stopped.
package procresize

import (
	"embed"
	"time"

	"github.com/gmp-kata/gmp-kata/lessons"
)

//go:embed task.md chapter.md hints api.txt testdata
var content embed.FS

func init() {
	lessons.Register(lessons.Content(content, &lessons.Lesson{
		ID:      "08-procresize",
		Title:   "procresize: changing GOMAXPROCS",
		Files:   []string{"procresize.go"},
		Prereqs: []string{"03-globrunqget"},
		Quiz:    quizKinds,
		Tests: []lessons.Test{
			{Name: "TestL08ShrinkMovesWorkToGlobalHead", Points: 17, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "a destroyed P's runnext and ring go onto the head of the global queue, in run order; it ends _Pdead and empty"},
			{Name: "TestL08ShrinkFreesGs", Points: 10, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "a destroyed P's free Gs move to the global free list; a surviving P keeps its own"},
			{Name: "TestL08SurvivorsGetAnM", Points: 13, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "empty survivors go idle; ones with work are returned with their old M if idle, else another idle M, else none"},
			{Name: "TestL08GrowAndStealOrder", Points: 10, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "growing to 40 Ps and back: allp exactly nprocs, new and revived Ps idle, idlepMask, stealOrder and gomaxprocs"},
			{Name: "TestL08ResizeUnderLoad", Points: 17, Timeout: 60 * time.Second, Kind: lessons.Stress,
				About: "GOMAXPROCS changed over a hundred times, from outside and from a G, under load with Debug on: every G exactly once"},
			{Name: "TestL08Preconditions", Points: 5, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "with Debug, procresize and destroy without sched.lock panic (assertLockHeld) before changing anything; procresize(0) panics"},
			{Name: "TestL08InitFresh", Points: 5, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "(*p).init on a new or dead P: its id and scheduler, _Pgcstop, the seeded random source, its idle bit clear"},
			{Name: "TestL08OldMNotFirstIdle", Points: 5, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "a P with work gets its old M back even when that M is last on the idle list"},
			{Name: "TestL08GrowMaskAndTrace", Points: 5, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "idlepMask grows to (nprocs+31)/32 words and never shrinks; dead Ps revived past allp's capacity; each call emits one EvResize"},
			{Name: "TestL08AllpWritesUnderLock", Points: 5, Timeout: 30 * time.Second, Kind: lessons.Stress,
				About: "a reader holding allpLock, as sysmon's retake does, never sees allp or its slots change under it"},
			{Name: "TestL08Differential", Points: 8, Timeout: 20 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "on 50 generated stopped worlds, procresize does what the reference's does: same Ps with work, idle list, global queue, allp, mask, random sources and steal order"},
		},
	}))
}
