package quiz

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// An Answer is the right answer to a question, in one of a few forms a
// learner can type: a number, an ID (P2), IDs in order (G3 G1 G2) or in
// any order, one of a few choices (b), or yes or no. Judge reads what was
// typed; a text that is not in the form at all is an error that says what
// form to use, so that the question can be asked again.
type Answer struct {
	form    form
	prefix  string  // ID, List, Set: "G", "P" or "M"
	values  []int64 // Number and ID: one; List and Set: the IDs
	choices []string
}

type form int

const (
	formNumber form = iota
	formID
	formList
	formSet
	formChoice
	formYesNo
)

// Number is a whole number.
func Number(n int64) Answer {
	return Answer{form: formNumber, values: []int64{n}}
}

// ID is one G, P or M: prefix is "G", "P" or "M". An id below 0 is
// none.
func ID(prefix string, id int64) Answer {
	if id < 0 {
		return Answer{form: formID, prefix: prefix, values: []int64{}}
	}
	return Answer{form: formID, prefix: prefix, values: []int64{id}}
}

// List is Gs, Ps or Ms in this order ("none" if there are none).
func List(prefix string, ids ...int64) Answer {
	return Answer{form: formList, prefix: prefix, values: ids}
}

// Set is Gs, Ps or Ms in any order ("none" if there are none).
func Set(prefix string, ids ...int64) Answer {
	ids = slices.Clone(ids)
	slices.Sort(ids)
	return Answer{form: formSet, prefix: prefix, values: ids}
}

// Choice is options[right] among options, which are shown as a), b), ...
func Choice(right int, options ...string) Answer {
	if right < 0 || right >= len(options) || len(options) > 26 {
		panic(fmt.Sprintf("quiz: Choice(%d) among %d options", right, len(options)))
	}
	return Answer{form: formChoice, values: []int64{int64(right)}, choices: options}
}

// YesNo is yes (true) or no.
func YesNo(yes bool) Answer {
	v := int64(0)
	if yes {
		v = 1
	}
	return Answer{form: formYesNo, values: []int64{v}}
}

// Choices returns the options of a Choice, nil for any other form.
func (a Answer) Choices() []string {
	return a.choices
}

// String is the answer as a learner would type it: "76", "P2", "G3 G1 G2",
// "none", "b", "yes".
func (a Answer) String() string {
	switch a.form {
	case formNumber:
		return strconv.FormatInt(a.values[0], 10)
	case formChoice:
		return string(rune('a' + a.values[0]))
	case formYesNo:
		if a.values[0] == 1 {
			return "yes"
		}
		return "no"
	}
	if len(a.values) == 0 {
		return "none"
	}
	ids := make([]string, len(a.values))
	for i, v := range a.values {
		ids[i] = a.prefix + strconv.FormatInt(v, 10)
	}
	return strings.Join(ids, " ")
}

// Long is String, with a choice's option spelled out: "b) the global queue".
func (a Answer) Long() string {
	if a.form == formChoice {
		return a.String() + ") " + a.choices[a.values[0]]
	}
	return a.String()
}

// Expect says how to type the answer, for the prompt: "a number", "Gs in
// order, like G3 G1, or none", ...
func (a Answer) Expect() string {
	switch a.form {
	case formNumber:
		return "a number"
	case formID:
		return "a " + a.prefix + ", like " + a.prefix + "2, or none"
	case formList:
		return a.prefix + "s in order, like " + a.prefix + "3 " + a.prefix + "1, or none"
	case formSet:
		return a.prefix + "s in any order, like " + a.prefix + "1 " + a.prefix + "3, or none"
	case formChoice:
		return letters(len(a.choices))
	default:
		return "yes or no"
	}
}

// Judge reads typed, the learner's answer, and says whether it is right.
// It returns an error, saying what to type instead, when typed is not in
// the answer's form at all (a word for a number, a G for a P).
func (a Answer) Judge(typed string) (right bool, err error) {
	s := strings.ToLower(strings.TrimSpace(typed))
	switch a.form {
	case formNumber:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return false, fmt.Errorf("%q is not a number: answer with digits, like 12", typed)
		}
		return n == a.values[0], nil
	case formChoice:
		s = strings.Trim(s, "().")
		if len(s) != 1 || s[0] < 'a' || int(s[0]-'a') >= len(a.choices) {
			return false, fmt.Errorf("%q is not one of the choices: answer %s", typed, letters(len(a.choices)))
		}
		return int64(s[0]-'a') == a.values[0], nil
	case formYesNo:
		switch s {
		case "y", "yes":
			return a.values[0] == 1, nil
		case "n", "no":
			return a.values[0] == 0, nil
		}
		return false, fmt.Errorf("%q: answer yes or no", typed)
	}
	ids, ok := a.readIDs(s)
	switch {
	case a.form == formID && (!ok || len(ids) > 1):
		return false, fmt.Errorf("%q is not a %s: answer like %s2, or none", typed, a.prefix, a.prefix)
	case !ok:
		return false, fmt.Errorf("%q is not a list of %ss: answer like %s3 %s1, or none", typed, a.prefix, a.prefix, a.prefix)
	case a.form == formSet:
		slices.Sort(ids)
	}
	return slices.Equal(ids, a.values), nil
}

// readIDs reads "G3 G1", "g3,g1", "3 1" or "none" (s is in lower case).
func (a Answer) readIDs(s string) ([]int64, bool) {
	if s == "none" || s == "-" {
		return []int64{}, true
	}
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' })
	if len(fields) == 0 {
		return nil, false
	}
	ids := []int64{}
	for _, f := range fields {
		f = strings.TrimPrefix(f, strings.ToLower(a.prefix))
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil || n < 0 {
			return nil, false
		}
		ids = append(ids, n)
	}
	return ids, true
}

// letters is "a, b, c or d" for n = 4.
func letters(n int) string {
	var ls []string
	for i := range n {
		ls = append(ls, string(rune('a'+i)))
	}
	if n == 1 {
		return ls[0]
	}
	return strings.Join(ls[:n-1], ", ") + " or " + ls[n-1]
}
