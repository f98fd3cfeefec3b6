package lessons

import (
	"slices"
	"testing"
)

// TestParseAPI: both sections count, comments and blank lines do not, and
// the names come out sorted, each once; APISection keeps one section.
func TestParseAPI(t *testing.T) {
	text := `# header: [generated] and [reviewed] in a comment do not start a section
[generated]
p.runq
g  # a comment after a name

[reviewed]
runqempty  # why
g
`
	if got, want := ParseAPI(text), []string{"g", "p.runq", "runqempty"}; !slices.Equal(got, want) {
		t.Errorf("ParseAPI = %q, want %q", got, want)
	}
	if got, want := APISection(text, APIGenerated), []string{"p.runq", "g"}; !slices.Equal(got, want) {
		t.Errorf("generated section = %q, want %q", got, want)
	}
	if got, want := APISection(text, APIReviewed), []string{"runqempty", "g"}; !slices.Equal(got, want) {
		t.Errorf("reviewed section = %q, want %q", got, want)
	}
}
