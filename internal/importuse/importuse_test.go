package importuse

import (
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

func TestUsed(t *testing.T) {
	src := `package p

import (
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	str "strings"
	_ "embed"
	"strconv"
)
`
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	code := "func f() int { _ = str.ToUpper(fmt.Sprint(1)); var n atomic.Int32; return rand.IntN(3) + int(n.Load()) }\n" +
		"func strconv() {}" // a function named like a package does not use it
	var got []string
	for _, s := range Used(f.Imports, []byte(code)) {
		got = append(got, Name(s)+" "+s.Path.Value)
	}
	want := `fmt "fmt",rand "math/rand/v2",atomic "sync/atomic",str "strings",_ "embed"`
	if strings.Join(got, ",") != want {
		t.Errorf("Used = %s\nwant   %s", strings.Join(got, ","), want)
	}
	if Used(f.Imports, []byte("func (")) != nil {
		t.Error("code that does not parse: want nil")
	}
}

func TestPathName(t *testing.T) {
	for p, want := range map[string]string{"math/rand/v2": "rand", "fmt": "fmt", "sync/atomic": "atomic", "v2": "v2", "example.com/vx": "vx", "golang.org/x/text/v10": "text"} {
		if got := PathName(p); got != want {
			t.Errorf("PathName(%q) = %q, want %q", p, got, want)
		}
	}
}
