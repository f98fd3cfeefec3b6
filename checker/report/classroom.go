package report

import (
	"encoding/base64"
	"encoding/json"
	"strings"
)

// GitHub Classroom's autograding result: what its graders
// (education/autograding-command-grader and its kin) set as their step's
// `result` output, base64-encoded JSON, and what
// education/autograding-grading-reporter reads back from the environment
// variable <STEP-ID>_RESULTS of the step that grades. The reporter adds up
// tests[].score and max_score for the points Classroom records, so one
// step can report a partial score.

// ClassroomResult is the decoded result.
type ClassroomResult struct {
	Version  int             `json:"version"`
	Status   string          `json:"status"` // pass, fail or error
	MaxScore int             `json:"max_score"`
	Tests    []ClassroomTest `json:"tests"`
}

// ClassroomTest is one test of a ClassroomResult.
type ClassroomTest struct {
	Name     string `json:"name"`
	Status   string `json:"status"` // pass, fail or error
	Score    int    `json:"score"`
	Message  string `json:"message"`
	TestCode string `json:"test_code"`
	Filename string `json:"filename"`
	LineNo   int    `json:"line_no"`
	Duration int    `json:"duration"` // milliseconds
}

// Classroom builds the result of lessons graded by command (what the
// student can run to see the same thing). Each lesson's tests count with
// their points. informational grades (the capstone: every lesson again,
// all the student's files together) are reported as one test each worth
// nothing: they show a pass or a failure without counting the points twice.
func Classroom(command string, lessons []LessonGrade, informational []LessonGrade) ClassroomResult {
	res := ClassroomResult{Version: 1, Status: StatusPass, Tests: []ClassroomTest{}}
	worst := func(status string) {
		switch {
		case status == StatusError:
			res.Status = StatusError
		case status == StatusFail && res.Status == StatusPass:
			res.Status = StatusFail
		}
	}
	for _, l := range lessons {
		res.MaxScore += l.MaxScore
		worst(l.Status)
		for _, t := range l.Tests {
			res.Tests = append(res.Tests, ClassroomTest{
				Name:     l.ID + ": " + t.Name,
				Status:   t.Status,
				Score:    t.Score,
				Message:  shorten(Detail(t)),
				TestCode: command + " " + l.ID[:2],
			})
		}
	}
	for _, l := range informational {
		worst(l.Status)
		msg := Fraction(l.Score, l.MaxScore) + " (not counted: every lesson's tests again, with all your files together)"
		if l.Reason != "" {
			msg += "\n" + l.Reason
		}
		res.Tests = append(res.Tests, ClassroomTest{Name: l.ID, Status: l.Status, Message: Clean(msg), TestCode: command})
	}
	return res
}

// EncodeClassroom is the step output: the result as base64 of its JSON.
func EncodeClassroom(res ClassroomResult) (string, error) {
	data, err := json.Marshal(res)
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(data), nil
}

// DecodeClassroom reads a step output back, as the reporter does.
func DecodeClassroom(s string) (ClassroomResult, error) {
	var res ClassroomResult
	data, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil {
		return res, err
	}
	err = json.Unmarshal(data, &res)
	return res, err
}

// shorten bounds a message of the result: the reporter gets it through an
// environment variable, which Linux caps at 128 KiB, and a course has
// about eighty tests; the whole message is in the log above.
func shorten(msg string) string {
	const maxLines, maxRunes = 8, 600
	lines := strings.Split(msg, "\n")
	cut := len(lines) > maxLines
	if cut {
		lines = lines[:maxLines]
	}
	msg = strings.Join(lines, "\n")
	if r := []rune(msg); len(r) > maxRunes {
		msg, cut = string(r[:maxRunes]), true
	}
	if cut {
		msg += "\n... (the whole message is in the log)"
	}
	return msg
}
