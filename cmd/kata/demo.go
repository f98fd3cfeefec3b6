package main

import "github.com/urfave/cli/v2"

// demoCommand runs a scenario on the reference scheduler and prints what
// each P did.
var demoCommand = &cli.Command{
	Name:  "demo",
	Usage: "run a scenario on the reference scheduler and show what each P did",
	Action: func(c *cli.Context) error {
		return cli.Exit("demo: not written yet", exitCouldNot)
	},
}
