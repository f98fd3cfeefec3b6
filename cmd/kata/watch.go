package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/gmp-kata/gmp-kata/checker"
	"github.com/gmp-kata/gmp-kata/lessons"
	"github.com/urfave/cli/v2"
)

var watchCommand = &cli.Command{
	Name:      "watch",
	Usage:     "re-check a lesson every time you save its file, and move on to the next once it passes",
	ArgsUsage: "[LESSON]  (default: your next lesson)",
	Flags: []cli.Flag{
		&cli.DurationFlag{Name: "poll", Value: time.Second, Usage: "also look for changes this often (for file systems that send no events)"},
		&cli.BoolFlag{Name: "no-race", Usage: "grade without the race detector (faster)"},
	},
	Action: runWatch,
}

func runWatch(c *cli.Context) error {
	ws, err := findWorkspace(c)
	if err != nil {
		return err
	}
	var l *lessons.Lesson
	switch c.NArg() {
	case 0:
		if l = nextLesson(ws); l == nil {
			return usageError("watch: every lesson passes; name one to watch")
		}
	case 1:
		if l, err = oneLesson(c); err != nil {
			return err
		}
	default:
		return usageError("watch: one lesson at a time")
	}
	if c.Duration("poll") <= 0 {
		return usageError("watch: --poll must be positive")
	}
	ck, err := checker.New(learnerOptions(c))
	if err != nil {
		return couldNot(err)
	}
	files := ws.LessonFiles(l)
	w := c.App.Writer
	// Every lesson's files: watch moves on to the next lesson once one
	// passes, and then watches its files.
	watched := map[string]bool{}
	for _, ll := range lessons.Default.All() {
		for name := range ws.LessonFiles(ll) {
			watched[name] = true
		}
	}

	// Events when the platform sends them; polling always, for network and
	// container file systems that don't. Whichever sees a change first
	// triggers the check; the content hash decides whether it changed.
	events := make(chan struct{}, 1)
	if fw, err := fsnotify.NewWatcher(); err == nil {
		defer fw.Close()
		// Watch the directory: editors save by renaming a new file over
		// the old one, which a watch on the file itself would lose.
		if err := fw.Add(ws.Dir); err == nil {
			go func() {
				for ev := range fw.Events {
					if watched[filepath.Base(ev.Name)] {
						select {
						case events <- struct{}{}:
						default:
						}
					}
				}
			}()
		}
	}
	poll := time.NewTicker(c.Duration("poll"))
	defer poll.Stop()

	last := ""
	for {
		if sum := hashFiles(files); sum != last {
			last = sum
			fmt.Fprintf(w, "\n%s checking %s ...\n", time.Now().Format("15:04:05"), l.ID)
			live := liveProgress(w, l, false)
			res := ck.LessonWith(c.Context, l, files, checker.CheckOptions{Progress: live.show, Processes: checkProcesses()})
			live.clear()
			if c.Context.Err() != nil {
				fmt.Fprintln(w, "Stopped.") // Ctrl-C mid-check: no grade, and nothing to report
				return nil
			}
			record(ws, l, res, true)
			if err := ws.Save(); err != nil {
				return couldNot(err)
			}
			printLessonResult(w, res, ws, l)
			if res.Status == checker.StatusPass {
				if next := nextLesson(ws); next != nil {
					// On to the next lesson, as rustlings does: its file is
					// checked when saved, not now (it is likely the stub).
					l, files = next, ws.LessonFiles(next)
					last = hashFiles(files)
					fmt.Fprintf(w, "Next lesson: %s (kata task %s). Watching %s; save to check (Ctrl-C to stop).\n", next.ID, next.ID[:2], join(l.Files))
				} else {
					fmt.Fprintln(w, "Every lesson passes. Stop me with Ctrl-C.")
				}
			} else {
				fmt.Fprintf(w, "Watching %s; save to check again (Ctrl-C to stop).\n", join(l.Files))
			}
		}
		select {
		case <-c.Context.Done():
			return nil
		case <-events:
			time.Sleep(100 * time.Millisecond) // let the editor finish writing
		case <-poll.C:
		}
	}
}

// hashFiles is a digest of the files' contents ("" parts for missing ones).
func hashFiles(files map[string]string) string {
	h := sha256.New()
	for _, name := range sortedKeys(files) {
		data, _ := os.ReadFile(files[name])
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(data))
		h.Write(data)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}
