package workspace

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// progressVersion is the format of progress.json; a file of another
// version is refused rather than misread.
const progressVersion = 1

// Progress is what the learner has done, kept in .kata/progress.json.
type Progress struct {
	Version int                        `json:"version"`
	Lessons map[string]*LessonProgress `json:"lessons"`
}

// LessonProgress is the learner's state in one lesson.
type LessonProgress struct {
	Status    string    `json:"status"` // "", "pass" or "fail"
	Score     int       `json:"score"`
	MaxScore  int       `json:"max_score"`
	Checks    int       `json:"checks"`                 // times checked with kata check
	Saves     int       `json:"watch_checks,omitempty"` // saves that kata watch checked
	HintLevel int       `json:"hint_level"`             // hints seen
	CheckedAt time.Time `json:"checked_at,omitzero"`
	PassedAt  time.Time `json:"passed_at,omitzero"`
}

func newProgress() *Progress {
	return &Progress{Version: progressVersion, Lessons: map[string]*LessonProgress{}}
}

// Lesson returns the progress of lesson id, creating it if needed.
func (p *Progress) Lesson(id string) *LessonProgress {
	lp := p.Lessons[id]
	if lp == nil {
		lp = &LessonProgress{}
		p.Lessons[id] = lp
	}
	return lp
}

// Passed reports whether lesson id has passed (and not been reset since).
func (p *Progress) Passed(id string) bool {
	lp := p.Lessons[id]
	return lp != nil && lp.Status == "pass"
}

// Record stores the result of a check the learner asked for (kata check).
func (lp *LessonProgress) Record(status string, score, max int, at time.Time) {
	lp.Checks++
	lp.result(status, score, max, at)
}

// RecordSave stores the result of a check kata watch made when the
// learner saved: a save is not an attempt, so it is counted apart.
func (lp *LessonProgress) RecordSave(status string, score, max int, at time.Time) {
	lp.Saves++
	lp.result(status, score, max, at)
}

func (lp *LessonProgress) result(status string, score, max int, at time.Time) {
	lp.Status, lp.Score, lp.MaxScore = status, score, max
	lp.CheckedAt = at
	if status == "pass" && lp.PassedAt.IsZero() {
		lp.PassedAt = at
	}
}

// Reset forgets the lesson's result (not the hints seen).
func (lp *LessonProgress) Reset() {
	lp.Status, lp.Score, lp.MaxScore = "", 0, 0
	lp.PassedAt = time.Time{}
}

func loadProgress(dir string) (*Progress, error) {
	data, err := os.ReadFile(filepath.Join(dir, ProgressFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	p := newProgress()
	if err := json.Unmarshal(data, p); err != nil {
		return nil, fmt.Errorf("%s is damaged (%v); fix or delete it (deleting forgets your progress, not your code)", ProgressFile, err)
	}
	if p.Version != progressVersion {
		return nil, fmt.Errorf("%s is version %d; this kata reads version %d (update kata)", ProgressFile, p.Version, progressVersion)
	}
	if p.Lessons == nil {
		p.Lessons = map[string]*LessonProgress{}
	}
	return p, nil
}

// Save writes the progress file atomically (a temporary file renamed into
// place), so that an interrupted kata never leaves it half written.
func (w *Workspace) Save() error {
	data, err := json.MarshalIndent(w.Progress, "", "  ")
	if err != nil {
		return err
	}
	p := filepath.Join(w.Dir, ProgressFile)
	tmp, err := os.CreateTemp(filepath.Dir(p), "progress-*.json")
	if err != nil {
		return fmt.Errorf("workspace: saving progress: %w", err)
	}
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("workspace: saving progress: %w", err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), p)
}
