// Package ringbuffer is lesson 01: the 256-slot lock-free ring of each P's
// local run queue.
package ringbuffer

import (
	"embed"
	"time"

	"github.com/gmp-kata/gmp-kata/lessons"
)

//go:embed task.md chapter.md hints api.txt testdata
var content embed.FS

func init() {
	lessons.Register(lessons.Content(content, &lessons.Lesson{
		ID:    "01-ringbuffer",
		Title: "The local run queue: a lock-free ring",
		Files: []string{"runq.go"},
		Quiz:  quizKinds,
		Tests: []lessons.Test{
			{Name: "TestL01FIFO", Points: 6, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "runqputtail then runqgethead returns Gs in FIFO order, 0 to 256 of them"},
			{Name: "TestL01WrapAround", Points: 4, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "head and tail keep working when the uint32 counters wrap around"},
			{Name: "TestL01FullRingGoesGlobal", Points: 8, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "a put on a full ring moves the 128 oldest Gs plus the new one to the global queue, in order; nothing if a thief got there first"},
			{Name: "TestL01PutBatch", Points: 6, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "runqputbatch fills the ring in order and leaves the overflow in the queue"},
			{Name: "TestL01GrabOlderHalf", Points: 10, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "runqgrab takes n - n/2 Gs from the head (the oldest), never more, nothing on a stale head; runnext only if asked, the ring again if runnext moved"},
			{Name: "TestL01StealAndDrain", Points: 6, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "runqsteal returns one G and queues the rest on the thief; runqdrain empties a queue in order"},
			{Name: "TestL01Interleavings", Points: 4, Timeout: 30 * time.Second, Kind: lessons.Stress, Serial: true, Guarantee: l01Races,
				About: "an owner and a thief, one atomic operation at a time in orders a controlled scheduler picks: every G comes out exactly once"},
			{Name: "TestL01ConcurrentSteal", Points: 3, Timeout: 30 * time.Second, Kind: lessons.Stress, Guarantee: l01Races,
				About: "an owner and three thieves on real threads, then an owner that refills its full ring the moment a steal makes room: every G comes out exactly once, and each steal takes half, rounded up, of the head and tail the thief read"},
			{Name: "TestL01ControlledSteal", Points: 4, Timeout: 30 * time.Second, Kind: lessons.Stress, Serial: true, Guarantee: l01Races,
				About: "TestL01ConcurrentSteal's owner and three thieves, with its Gs, one atomic operation at a time, switched at random: every G comes out exactly once, each steal takes half, rounded up, of what the thief read, and a steal finds nothing only if the ring was empty at some moment of it"},
			{Name: "TestL01InScheduler", Points: 3, Timeout: 30 * time.Second, Kind: lessons.Stress, Guarantee: l01Races,
				About: "the whole scheduler on 4 Ps runs 3000 Gs, each exactly once"},
			{Name: "TestL01DrainEdges", Points: 5, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "runqdrain of a ring whose head is not 0, of exactly one G, and of a full ring"},
			{Name: "TestL01SlowPathLocks", Points: 4, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "runqputslow puts its batch on the global queue under sched.lock (checked with Config{Debug: true})"},
			{Name: "TestL01StealIntoBusyThief", Points: 5, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "a thief's own queued Gs survive a steal; when the stolen Gs cannot fit, runqsteal panics"},
			{Name: "TestL01GrabRetry", Points: 5, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "runqgrab reads the ring again when runqgrabnext says retry"},
			{Name: "TestL01Randomized", Points: 6, Timeout: 20 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "with RandomizeScheduler, runqputslow and runqputbatch shuffle their batch uniformly, each G once"},
			{Name: "TestL01StealInterleavings", Points: 6, Timeout: 30 * time.Second, Kind: lessons.Stress, Serial: true, Guarantee: l01Races,
				About: "a controlled scheduler races a thief against the owner: runnext only from an empty ring, inconsistent reads retried before anything is copied"},
			{Name: "TestL01Explore", Points: 6, Timeout: 30 * time.Second, Kind: lessons.Stress, Serial: true, Guarantee: l01Races,
				About: "an owner and a thief in EVERY order with at most two preemptions (two thieves: one): no G ever in two places, no ring over 256, every G out exactly once, in an end state the reference reaches"},
			{Name: "TestL01Differential", Points: 9, Timeout: 20 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "on 100 generated states, each ring function does what the reference's does: same results, same rings, counters and global queue, in order"},
		},
	}))
}

// l01Races is the guarantee (lessons.Test.Guarantee) the lesson's race
// tests judge together: one atomic operation at a time in orders a
// controlled scheduler picks, every order up to a bound, and real threads.
const l01Races = "every G comes out of the ring exactly once, a steal takes half, rounded up, of what it read, and finds nothing only in an empty ring, while its owner and thieves race"
