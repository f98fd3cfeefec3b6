package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/gmp-kata/gmp-kata/internal/workspace"
	"github.com/gmp-kata/gmp-kata/lessons"
	"github.com/urfave/cli/v2"
)

var listCommand = &cli.Command{
	Name:   "list",
	Usage:  "list the lessons, in order, with your progress",
	Flags:  []cli.Flag{formatFlag()},
	Action: runList,
}

// formatFlag is the --format flag of commands that speak JSON to tools.
func formatFlag() cli.Flag {
	return &cli.StringFlag{Name: "format", Value: "text", Usage: "text or json"}
}

func checkFormat(c *cli.Context) (json bool, err error) {
	switch f := c.String("format"); f {
	case "text":
		return false, nil
	case "json":
		return true, nil
	default:
		return false, usageError(fmt.Sprintf("%s: --format %q: want text or json", c.Command.Name, f))
	}
}

type listEntry struct {
	ID     string   `json:"id"`
	Title  string   `json:"title"`
	Order  int      `json:"order"`
	Files  []string `json:"files"`
	Status string   `json:"status"` // pass, fail, todo
	Score  int      `json:"score"`
	Max    int      `json:"max_score"`
}

func runList(c *cli.Context) error {
	asJSON, err := checkFormat(c)
	if err != nil {
		return err
	}
	// Progress is shown when there is a workspace; the list works without.
	ws, err := workspace.Find(c.String("workspace"))
	if err != nil && !errors.Is(err, workspace.ErrNotFound) {
		return usageError(err.Error())
	}
	var entries []listEntry
	for _, l := range lessons.Default.All() {
		e := listEntry{ID: l.ID, Title: l.Title, Order: l.Order(), Files: l.Files, Status: "todo", Max: l.MaxScore()}
		if ws != nil {
			if lp := ws.Progress.Lessons[l.ID]; lp != nil && lp.Status != "" {
				e.Status, e.Score = lp.Status, lp.Score
			}
		}
		entries = append(entries, e)
	}
	if asJSON {
		enc := json.NewEncoder(c.App.Writer)
		enc.SetIndent("", "  ")
		return enc.Encode(entries)
	}
	st := styleFor(c.App.Writer)
	tw := tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "LESSON\tTITLE\tYOU WRITE\tSTATUS")
	for _, e := range entries {
		status := st.dim("todo")
		switch e.Status {
		case "pass":
			status = st.green(fmt.Sprintf("pass %d/%d", e.Score, e.Max))
		case "fail":
			status = st.red(fmt.Sprintf("fail %d/%d", e.Score, e.Max))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.ID, e.Title, strings.Join(e.Files, ", "), status)
	}
	return tw.Flush()
}

func join(files []string) string {
	return strings.Join(files, ", ")
}
