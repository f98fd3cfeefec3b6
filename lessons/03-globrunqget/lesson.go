// Package globrunqget is lesson 03: the global run queue, shared by every P
// under sched.lock.
package globrunqget

import (
	"embed"
	"time"

	"github.com/gmp-kata/gmp-kata/lessons"
)

//go:embed task.md chapter.md hints api.txt testdata
var content embed.FS

func init() {
	lessons.Register(lessons.Content(content, &lessons.Lesson{
		ID:      "03-globrunqget",
		Title:   "The global run queue",
		Files:   []string{"globrunq.go"},
		Prereqs: []string{"01-ringbuffer"},
		Quiz:    quizKinds,
		Tests: []lessons.Test{
			{Name: "TestL03FIFO", Points: 10, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "globrunqput and globrunqget make a first-in, first-out queue, reusable once emptied"},
			{Name: "TestL03PutHead", Points: 10, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "globrunqputhead puts a G in front of everything, and keeps the tail right on an empty queue"},
			{Name: "TestL03PutBatch", Points: 10, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "globrunqputbatch appends a batch at the tail, in order, and empties the batch"},
			{Name: "TestL03GetOne", Points: 5, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "globrunqget takes exactly one G, the head, whatever the queue's length and gomaxprocs"},
			{Name: "TestL03GetBatch", Points: 16, Timeout: 20 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "globrunqgetbatch(n) takes min(n, size, size/gomaxprocs+1) Gs from the head, in order, for every size up to 300"},
			{Name: "TestL03SizeHint", Points: 12, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "every operation keeps sched.runq's size hint (read without the lock by findRunnable) equal to its size"},
			{Name: "TestL03GoschedAllRun", Points: 12, Timeout: 30 * time.Second, Kind: lessons.Stress,
				About: "on 1 P and on 4, 300 Gs each yield 20 times through the global queue and finish exactly once"},
			{Name: "TestL03DrainFair", Points: 10, Timeout: 30 * time.Second, Kind: lessons.Stress,
				About: "1000 Gs started from outside wait on the global queue; 4 Ps drain it and each G starts exactly once"},
			{Name: "TestL03AssertLockFirst", Points: 5, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "with Config.Debug, each function called without sched.lock panics (assertLockHeld) before it touches the queue"},
			{Name: "TestL03Differential", Points: 10, Timeout: 20 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "on 80 generated states, the global queue's methods do what the reference's do: same Gs and batches, in order, same size, sizeHint and trace, the lock kept"},
		},
	}))
}
