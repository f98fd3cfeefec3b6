package sched

import (
	"runtime"
	"slices"
	"testing"
	"time"
)

// The Lab's own promises: it never starts a real M and never hangs, where
// the scheduler would park or sleep for real. Its decisions are the
// reference's, checked through the quiz (lessons/*/quiz_test.go).

func TestLabFindRunnableParksWithoutHanging(t *testing.T) {
	lab := NewLab(2)
	lab.Hold(0)
	done := make(chan bool)
	go func() {
		_, _, parked := lab.FindRunnable(0)
		done <- parked
	}()
	select {
	case parked := <-done:
		if !parked {
			t.Fatal("FindRunnable with no work anywhere did not report that the M parked")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("FindRunnable with no work anywhere hung")
	}
}

func TestLabFindRunnableFindsWork(t *testing.T) {
	lab := NewLab(2)
	lab.Hold(0)
	lab.Runqput(0, 7, false)
	if g, inherit, parked := lab.FindRunnable(0); g != 7 || inherit || parked {
		t.Fatalf("FindRunnable = G%d, %v, parked %v; want G7 from the ring, a new time slice", g, inherit, parked)
	}
}

func TestLabStartsNoRealM(t *testing.T) {
	lab := NewLab(3)
	lab.Run(0, 1)
	before := runtime.NumGoroutine()
	if p := lab.Wakep(); p < 0 {
		t.Fatal("Wakep with two idle Ps handed neither to one of the Lab's idle Ms")
	}
	time.Sleep(50 * time.Millisecond)
	if after := runtime.NumGoroutine(); after > before {
		t.Fatalf("Wakep started %d goroutines: a real M, which would run the Lab's Gs", after-before)
	}
	if lab.Nmspinning() != 1 {
		t.Fatalf("nmspinning = %d after wakep started a spinner, want 1", lab.Nmspinning())
	}
}

func TestLabSysmonStopsBeforeDeepSleep(t *testing.T) {
	lab := NewLab(1)
	lab.Run(0, 1)
	sleeps := lab.Sysmon(3, func(round int) {
		if round == 2 {
			lab.Park(0, true) // P0 stays held; sysmon keeps going
		}
	})
	if len(sleeps) != 3 {
		t.Fatalf("Sysmon(3) slept %v, want 3 sleeps", sleeps)
	}
	idle := NewLab(2) // every P idle: sysmon would sleep deeply, for real
	done := make(chan []int64)
	go func() { done <- idle.Sysmon(5, nil) }()
	select {
	case sleeps := <-done:
		if len(sleeps) != 1 {
			t.Fatalf("Sysmon with every P idle slept %v; want it to stop after its first sleep", sleeps)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Sysmon with every P idle went into its deep sleep")
	}
}

func TestLabStopTheWorldAndResize(t *testing.T) {
	lab := NewLab(3)
	lab.Hold(0)
	lab.Hold(2)
	lab.Runqput(2, 5, false)
	lab.StopTheWorld()
	if ms := lab.IdleMs(); !slices.Equal(ms, []int64{1, 0}) {
		t.Fatalf("after StopTheWorld the idle Ms are %v, want [1 0]: M1 (P2's) parked last", ms)
	}
	if work := lab.Procresize(2); len(work) != 0 {
		t.Fatalf("Procresize(2) returned Ps with work %v; P2's G should have gone to the global queue", work)
	}
	if g := lab.Global(); !slices.Equal(g, []int64{5}) {
		t.Fatalf("global queue = %v, want [5]", g)
	}
}
