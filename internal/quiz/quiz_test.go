package quiz

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestJudge(t *testing.T) {
	for _, tc := range []struct {
		answer Answer
		typed  string
		right  bool
		bad    string // the start of the format error, if the form is wrong
	}{
		{Number(76), " 76 ", true, ""},
		{Number(76), "77", false, ""},
		{Number(76), "seventy-six", false, `"seventy-six" is not a number`},
		{ID("P", 2), "P2", true, ""},
		{ID("P", 2), "p2", true, ""},
		{ID("P", 2), "2", true, ""},
		{ID("P", 2), "P3", false, ""},
		{ID("P", 2), "none", false, ""},
		{ID("P", 2), "G2", false, `"G2" is not a P`},
		{ID("P", 2), "P2 P3", false, `"P2 P3" is not a P`},
		{ID("M", -1), "none", true, ""},
		{List("G", 3, 1, 2), "G3 G1 G2", true, ""},
		{List("G", 3, 1, 2), "g3,g1, g2", true, ""},
		{List("G", 3, 1, 2), "3 1 2", true, ""},
		{List("G", 3, 1, 2), "G1 G2 G3", false, ""},
		{List("G", 3, 1, 2), "G3 G1", false, ""},
		{List("G", 3, 1, 2), "G3 then G1", false, `"G3 then G1" is not a list of Gs`},
		{List("G", 3, 1, 2), "", false, `"" is not a list of Gs`},
		{List("G"), "none", true, ""},
		{List("G"), "G1", false, ""},
		{Set("P", 2, 0), "P0 P2", true, ""},
		{Set("P", 2, 0), "P2 P0", true, ""},
		{Set("P", 2, 0), "P2", false, ""},
		{Choice(1, "x", "y", "z"), "b", true, ""},
		{Choice(1, "x", "y", "z"), "B)", true, ""},
		{Choice(1, "x", "y", "z"), "a", false, ""},
		{Choice(1, "x", "y", "z"), "d", false, `"d" is not one of the choices: answer a, b or c`},
		{YesNo(true), "yes", true, ""},
		{YesNo(true), "Y", true, ""},
		{YesNo(true), "no", false, ""},
		{YesNo(false), "n", true, ""},
		{YesNo(false), "maybe", false, `"maybe": answer yes or no`},
	} {
		right, err := tc.answer.Judge(tc.typed)
		switch {
		case tc.bad != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.bad)):
			t.Errorf("%v: Judge(%q) = %v, %v; want the error %q...", tc.answer, tc.typed, right, err, tc.bad)
		case tc.bad == "" && (err != nil || right != tc.right):
			t.Errorf("%v: Judge(%q) = %v, %v; want %v", tc.answer, tc.typed, right, err, tc.right)
		}
	}
}

// TestStringIsRight: what String writes, Judge reads as the right answer,
// in every form.
func TestStringIsRight(t *testing.T) {
	for _, a := range []Answer{
		Number(-3), ID("G", 7), ID("M", -1), List("P", 2, 0, 1), List("G"), Set("G", 9, 4),
		Choice(2, "x", "y", "z"), YesNo(true), YesNo(false),
	} {
		if right, err := a.Judge(a.String()); !right || err != nil {
			t.Errorf("Judge(%q) = %v, %v; want right", a.String(), right, err)
		}
	}
	if got := Choice(1, "x", "y").Long(); got != "b) y" {
		t.Errorf("Long = %q, want \"b) y\"", got)
	}
}

// TestMakeTakesTurns: consecutive seeds go through every kind, and a seed
// makes the same question every time.
func TestMakeTakesTurns(t *testing.T) {
	kind := func(name string) Kind {
		return Kind{Name: name, Make: func(r *rand.Rand) Question {
			return Question{Text: name + " " + strings.Repeat("x", r.IntN(100))}
		}}
	}
	kinds := []Kind{kind("a"), kind("b"), kind("c")}
	for seed := uint64(30); seed < 36; seed++ {
		k, q := Make(kinds, seed)
		if want := kinds[seed%3].Name; k.Name != want {
			t.Errorf("seed %d made a question of kind %s, want %s", seed, k.Name, want)
		}
		if _, again := Make(kinds, seed); again.Text != q.Text {
			t.Errorf("seed %d made %q, then %q", seed, q.Text, again.Text)
		}
		if alone := kinds[seed%3].MakeSeed(seed); alone.Text != q.Text {
			t.Errorf("seed %d made %q, but its kind alone makes %q from it", seed, q.Text, alone.Text)
		}
	}
	_, q1 := Make(kinds, 30)
	_, q2 := Make(kinds, 33)
	if q1.Text == q2.Text {
		t.Errorf("seeds 30 and 33 made the same question %q: the seed must choose the numbers too", q1.Text)
	}
}

func TestCount(t *testing.T) {
	if got := Count(1, "G") + ", " + Count(0, "M") + ", " + Count(3, "P"); got != "1 G, 0 Ms, 3 Ps" {
		t.Errorf("Count: %q", got)
	}
}
