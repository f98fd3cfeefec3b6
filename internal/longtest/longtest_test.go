package longtest

import (
	"strings"
	"testing"
)

func TestEnabled(t *testing.T) {
	for _, c := range []struct {
		value string
		want  bool
	}{{"", false}, {"0", false}, {"1", !testing.Short()}, {"yes", !testing.Short()}} {
		t.Setenv(Var, c.value)
		if got := Enabled(); got != c.want {
			t.Errorf("%s=%q: Enabled() = %v, want %v", Var, c.value, got, c.want)
		}
		if got := Pick("normal", "long") == "long"; got != c.want {
			t.Errorf("%s=%q: Pick chose long = %v, want %v", Var, c.value, got, c.want)
		}
	}
}

// TestSkipSaysHow: without the switch a long test is skipped, and its
// message names the switch and the test.
func TestSkipSaysHow(t *testing.T) {
	t.Setenv(Var, "")
	t.Run("inner", func(t *testing.T) {
		Skip(t, "soaks for a minute")
		t.Error("Skip returned with the switch off")
	})
	msg := skipMessage(runPattern(t.Name()+"/inner"), "soaks for a minute")
	for _, want := range []string{"it soaks for a minute", "KATA_LONG=1", "-run '^TestSkipSaysHow$/^inner$'"} {
		if !strings.Contains(msg, want) {
			t.Errorf("skip message %q does not say %q", msg, want)
		}
	}
}
