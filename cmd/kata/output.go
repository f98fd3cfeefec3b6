package main

import (
	"io"
	"os"
)

// A style colours terminal output, unless NO_COLOR is set or the output is
// not a terminal.
type style struct {
	color bool
}

func styleFor(w io.Writer) style {
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return style{}
	}
	return style{color: isTerminal(w)}
}

func (s style) wrap(code, text string) string {
	if !s.color {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

func (s style) green(t string) string { return s.wrap("32", t) }
func (s style) red(t string) string   { return s.wrap("31", t) }
func (s style) bold(t string) string  { return s.wrap("1", t) }
func (s style) dim(t string) string   { return s.wrap("2", t) }
