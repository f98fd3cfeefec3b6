package checker

import "testing"

// TestStandaloneStream folds what test2json, run on a test binary itself,
// writes when the binary dies (cmd/internal/test2json: a test's end is
// held until the next test starts or the package ends, and the package's
// end names the last test seen): a test that printed its result keeps it,
// one that did not never finished.
func TestStandaloneStream(t *testing.T) {
	for _, c := range []struct {
		name   string
		events []string
		want   map[string]string // test → its action, "" if never finished
	}{
		{"dies in a test", []string{
			`{"Action":"run","Test":"TestA"}`,
			`{"Action":"output","Test":"TestA","Output":"--- PASS: TestA (0.00s)\n"}`,
			`{"Action":"pass","Test":"TestA","Elapsed":0}`,
			`{"Action":"run","Test":"TestB"}`,
			`{"Action":"output","Test":"TestB","Output":"panic: boom\n"}`,
			`{"Action":"fail","Test":"TestB","Elapsed":0.1}`,
		}, map[string]string{"TestA": "pass", "TestB": ""}},
		{"dies between tests", []string{
			`{"Action":"run","Test":"TestA"}`,
			`{"Action":"output","Test":"TestA","Output":"--- PASS: TestA (0.00s)\n"}`,
			`{"Action":"output","Test":"TestA","Output":"panic: boom\n"}`,
			`{"Action":"fail","Test":"TestA","Elapsed":0.1}`,
		}, map[string]string{"TestA": "pass"}},
		{"reaches its end", []string{
			`{"Action":"run","Test":"TestA"}`,
			`{"Action":"output","Test":"TestA","Output":"--- FAIL: TestA (0.00s)\n"}`,
			`{"Action":"fail","Test":"TestA","Elapsed":0}`,
			`{"Action":"output","Output":"FAIL\n"}`,
			`{"Action":"fail","Elapsed":0.1}`,
		}, map[string]string{"TestA": "fail"}},
	} {
		s := newStream()
		s.standalone = true
		for _, e := range c.events {
			s.add([]byte(e))
		}
		for name, want := range c.want {
			o := s.tests[name]
			if o == nil || !o.started || o.finished != (want != "") || o.action != want {
				t.Errorf("%s: %s: %+v, want started and finished with %q", c.name, name, o, want)
			}
		}
	}
}
