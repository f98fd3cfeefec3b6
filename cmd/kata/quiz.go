package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/gmp-kata/gmp-kata/internal/quiz"
	"github.com/gmp-kata/gmp-kata/lessons"
	"github.com/urfave/cli/v2"
)

// quizCommand asks questions on a lesson whose answers the reference
// computes (see internal/quiz). It needs no workspace: the reference is
// part of kata.
var quizCommand = &cli.Command{
	Name:      "quiz",
	Usage:     "answer questions on a lesson; the reference scheduler computes the answers",
	ArgsUsage: "LESSON",
	Description: "Each question is made from a seed, printed with it so that it can be asked again.\n" +
		"Type the answer and press Enter: kata says whether it is right, and why.",
	Flags: []cli.Flag{
		&cli.Uint64Flag{Name: "seed", Usage: "ask the question seed `N` makes (default: a random one)"},
		&cli.IntFlag{Name: "count", Value: 1, Usage: "ask `K` questions in a row (seeds N, N+1, ...) and give a score"},
		&cli.BoolFlag{Name: "answers", Usage: "print the questions with their answers and explanations, without asking"},
		formatFlag(),
	},
	Action: runQuiz,
}

// quizRecord is one line of --format json: a question (with its answer
// under --answers), an answer typed in the wrong form, the verdict on an
// answer, or the score.
type quizRecord struct {
	Event       string   `json:"event"` // question, invalid, result, score
	Lesson      string   `json:"lesson,omitempty"`
	Seed        *uint64  `json:"seed,omitempty"`
	Kind        string   `json:"kind,omitempty"`
	Number      int      `json:"number,omitempty"`
	Of          int      `json:"of,omitempty"`
	Question    string   `json:"question,omitempty"`
	Choices     []string `json:"choices,omitempty"`
	Expect      string   `json:"expect,omitempty"`
	Given       *string  `json:"given,omitempty"`
	Error       string   `json:"error,omitempty"`
	Right       *bool    `json:"right,omitempty"`
	Answer      string   `json:"answer,omitempty"`
	Explanation string   `json:"explanation,omitempty"`
	Score       *int     `json:"score,omitempty"`
}

func runQuiz(c *cli.Context) error {
	l, err := oneLesson(c)
	if err != nil {
		return err
	}
	asJSON, err := checkFormat(c)
	if err != nil {
		return err
	}
	count := c.Int("count")
	if count < 1 {
		return usageError(fmt.Sprintf("quiz: --count %d: want 1 or more", count))
	}
	if len(l.Quiz) == 0 {
		return usageError(fmt.Sprintf("quiz: lesson %s has no questions (run 'kata list')", l.ID))
	}
	seed := c.Uint64("seed")
	if !c.IsSet("seed") {
		seed = rand.Uint64N(1_000_000) // short enough to retype
	}
	q := &quizzer{
		lesson: l, w: c.App.Writer, json: asJSON, st: styleFor(c.App.Writer),
		enc: json.NewEncoder(c.App.Writer), echo: !typedOnTerminal(c.App.Reader),
	}
	if c.Bool("answers") {
		for i := range count {
			q.show(seed+uint64(i), i+1, count)
		}
		return nil
	}

	// Lines are read on their own goroutine, so that Ctrl-C stops a quiz
	// waiting for an answer.
	lines, done := make(chan string), make(chan struct{})
	defer close(done)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(c.App.Reader)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-done:
				return
			}
		}
	}()
	right := 0
	for i := range count {
		ok, err := q.ask(seed+uint64(i), i+1, count, func() (string, bool) {
			select {
			case line, ok := <-lines:
				return line, ok
			case <-c.Context.Done():
				return "", false
			}
		})
		if c.Context.Err() != nil {
			if !asJSON {
				fmt.Fprintln(c.App.Writer, "\nStopped.") // as kata watch says it
			}
			return nil
		}
		if err != nil {
			return err
		}
		if ok {
			right++
		}
	}
	if count > 1 {
		if asJSON {
			q.enc.Encode(quizRecord{Event: "score", Score: &right, Of: count})
		} else {
			fmt.Fprintf(q.w, "\nScore: %d of %d.\n", right, count)
		}
	}
	if right < count {
		return cli.Exit("", exitFailed)
	}
	return nil
}

// quizzer asks one lesson's questions on w.
type quizzer struct {
	lesson *lessons.Lesson
	w      io.Writer
	json   bool
	st     style
	enc    *json.Encoder
	echo   bool // print each answer read: it was not typed on a terminal
}

// header is the line above a question: which one, and how to get it back.
func (q *quizzer) header(seed uint64, n, of int) string {
	h := q.lesson.ID + ", question"
	if of > 1 {
		h += fmt.Sprintf(" %d of %d", n, of)
	}
	return fmt.Sprintf("%s (kata quiz %s --seed %d)", q.st.bold(h), q.lesson.ID[:2], seed)
}

// question prints question's text and choices.
func (q *quizzer) question(qu quiz.Question) {
	fmt.Fprintln(q.w, wrap(qu.Text, 78))
	for i, ch := range qu.Answer.Choices() {
		fmt.Fprintf(q.w, "  %c) %s\n", 'a'+i, ch)
	}
}

func (q *quizzer) record(seed uint64, kind quiz.Kind, qu quiz.Question, n, of int) quizRecord {
	return quizRecord{
		Event: "question", Lesson: q.lesson.ID, Seed: &seed, Kind: kind.Name, Number: n, Of: of,
		Question: qu.Text, Choices: qu.Answer.Choices(), Expect: qu.Answer.Expect(),
	}
}

// show prints the question seed makes with its answer and explanation.
func (q *quizzer) show(seed uint64, n, of int) {
	kind, qu := quiz.Make(q.lesson.Quiz, seed)
	if q.json {
		rec := q.record(seed, kind, qu, n, of)
		rec.Answer, rec.Explanation = qu.Answer.String(), qu.Explain
		q.enc.Encode(rec)
		return
	}
	if n > 1 {
		fmt.Fprintln(q.w)
	}
	fmt.Fprintln(q.w, q.header(seed, n, of))
	fmt.Fprintln(q.w)
	q.question(qu)
	fmt.Fprintf(q.w, "\n%s %s\n%s\n", q.st.bold("Answer:"), qu.Answer.Long(), wrap(qu.Explain, 78))
}

// ask asks the question seed makes until an answer in the right form
// comes, and says whether it is right. next returns the next line typed,
// or false at the end of the input.
func (q *quizzer) ask(seed uint64, n, of int, next func() (string, bool)) (bool, error) {
	kind, qu := quiz.Make(q.lesson.Quiz, seed)
	if q.json {
		q.enc.Encode(q.record(seed, kind, qu, n, of))
	} else {
		if n > 1 {
			fmt.Fprintln(q.w)
		}
		fmt.Fprintln(q.w, q.header(seed, n, of))
		fmt.Fprintln(q.w)
		q.question(qu)
	}
	for {
		if !q.json {
			fmt.Fprintf(q.w, "\nYour answer (%s): ", qu.Answer.Expect())
		}
		line, ok := next()
		if ok && q.echo && !q.json {
			fmt.Fprintln(q.w, line)
		}
		if !ok {
			return false, usageError(fmt.Sprintf("quiz: no answer: the input ended (to see the answers without answering, run 'kata quiz %s --seed %d --answers')", q.lesson.ID[:2], seed))
		}
		right, err := qu.Answer.Judge(line)
		if err != nil {
			if q.json {
				q.enc.Encode(quizRecord{Event: "invalid", Seed: &seed, Given: &line, Error: err.Error(), Expect: qu.Answer.Expect()})
				continue
			}
			fmt.Fprintf(q.w, "\n%s.\n\n", err)
			q.question(qu)
			continue
		}
		if q.json {
			q.enc.Encode(quizRecord{Event: "result", Seed: &seed, Given: &line, Right: &right,
				Answer: qu.Answer.String(), Explanation: qu.Explain})
			return right, nil
		}
		if right {
			fmt.Fprintf(q.w, "%s\n", q.st.green("Right."))
		} else {
			fmt.Fprintf(q.w, "%s the answer is %s.\n", q.st.red("Wrong:"), qu.Answer.Long())
		}
		fmt.Fprintln(q.w, wrap(qu.Explain, 78))
		return right, nil
	}
}

// typedOnTerminal reports whether r is a terminal, where the learner's
// typing shows as it is typed.
func typedOnTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// wrap breaks each line of text longer than width characters at spaces.
func wrap(text string, width int) string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		var cur []string
		n := 0
		for _, word := range strings.Split(line, " ") {
			w := utf8.RuneCountInString(word)
			if len(cur) > 0 && n+1+w > width {
				out = append(out, strings.Join(cur, " "))
				cur, n = nil, 0
			}
			if len(cur) > 0 {
				n++
			}
			cur, n = append(cur, word), n+w
		}
		out = append(out, strings.Join(cur, " "))
	}
	return strings.Join(out, "\n")
}
