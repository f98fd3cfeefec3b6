package main

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// flagsFirst moves a command's flags ahead of its arguments, so that
// `kata check 01 --format json` means what it says: urfave/cli v2 stops
// reading flags at the first argument. A flag that takes a value keeps it;
// "--" ends the flags as usual.
func flagsFirst(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	// Find the command: the first argument that names one.
	i := 1
	var cmd *cli.Command
	for ; i < len(args); i++ {
		if cmd = app.Command(args[i]); cmd != nil {
			break
		}
		if !strings.HasPrefix(args[i], "-") {
			return args
		}
		if takesValue(app.Flags, args[i]) {
			i++
		}
	}
	if cmd == nil {
		return args
	}
	// Descend into subcommands: `kata book build -o DIR`.
	top := i
	for i+1 < len(args) && len(cmd.Subcommands) > 0 {
		sub := cmd.Command(args[i+1])
		if sub == nil {
			break
		}
		cmd, i = sub, i+1
	}
	rest := args[i+1:]
	var global, flags, positional []string
	for j := 0; j < len(rest); j++ {
		a := rest[j]
		switch {
		case a == "--":
			positional = append(positional, rest[j+1:]...)
			j = len(rest)
		case strings.HasPrefix(a, "-") && a != "-":
			// A flag of the whole app (--workspace) goes before the
			// command; the command's own flags after it.
			to, set := &flags, cmd.Flags
			if isFlag(app.Flags, a) && !isFlag(cmd.Flags, a) {
				to, set = &global, app.Flags
			}
			*to = append(*to, a)
			if takesValue(set, a) && j+1 < len(rest) {
				*to = append(*to, rest[j+1])
				j++
			}
		default:
			positional = append(positional, a)
		}
	}
	out := slices.Clone(args[:top])
	out = append(out, global...)
	out = append(out, args[top:i+1]...)
	out = append(out, flags...)
	if len(positional) > 0 {
		out = append(out, "--")
		out = append(out, positional...)
	}
	return out
}

// takesValue reports whether arg ("--name" or "-n", without "=value") is
// a flag among flags that needs a value.
func takesValue(flags []cli.Flag, arg string) bool {
	name := strings.TrimLeft(arg, "-")
	if strings.Contains(name, "=") {
		return false
	}
	for _, f := range flags {
		if !slices.Contains(f.Names(), name) {
			continue
		}
		if bf, ok := f.(*cli.BoolFlag); ok && bf != nil {
			return false
		}
		return true
	}
	return false
}

// isFlag reports whether arg ("--name", "-n" or "--name=value") names one
// of flags.
func isFlag(flags []cli.Flag, arg string) bool {
	name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "=")
	for _, f := range flags {
		if slices.Contains(f.Names(), name) {
			return true
		}
	}
	return false
}
