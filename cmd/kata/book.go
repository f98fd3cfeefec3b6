package main

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"

	gmpkata "github.com/gmp-kata/gmp-kata"
	"github.com/gmp-kata/gmp-kata/book"
	"github.com/urfave/cli/v2"
)

// bookCommand builds the course's book as a static site, or serves it
// with live reload while its chapters are being written.
var bookCommand = &cli.Command{
	Name:  "book",
	Usage: "build or serve the course's book",
	Subcommands: []*cli.Command{
		{
			Name:      "build",
			Usage:     "write the book as a static site (open DIR/index.html in a browser)",
			ArgsUsage: " ",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: "book-site", Usage: "the `DIR` to write the site into"},
				&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of the scenario runs the pictures are drawn from"},
			},
			Action: runBookBuild,
		},
		{
			Name:      "serve",
			Usage:     "serve the book on localhost, rebuilding and reloading the page when a chapter or an included file changes",
			ArgsUsage: " ",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "addr", Value: "127.0.0.1:3000", Usage: "the `HOST:PORT` to listen on"},
				&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of the scenario runs the pictures are drawn from"},
			},
			Action: runBookServe,
		},
	},
}

// bookMarker marks a directory as written by kata book build, and lists
// what it wrote, so that a rebuild may replace it and nothing else.
const bookMarker = ".kata-book"

// bookSource finds the chapters: in the clone of the repository kata is
// run in, so that edits show; anywhere else, the copy kata carries. It
// returns where they come from, to say so.
func bookSource() (book.Options, string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return book.Options{}, "", err
	}
	if root := book.FindRepo(wd); root != "" {
		return book.Options{Src: book.RepoFS(root)}, root, nil
	}
	return book.Options{Src: gmpkata.Book}, "the copy kata carries (run inside a clone of the repository to see your edits)", nil
}

func runBookBuild(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageError(fmt.Sprintf("book build: unexpected %q (the output directory is -o DIR)", c.Args().First()))
	}
	opts, from, err := bookSource()
	if err != nil {
		return couldNot(err)
	}
	opts.Seed = c.Uint64("seed")
	out := c.String("out")
	if err := checkBookDir(out); err != nil {
		return usageError(err.Error())
	}
	start := time.Now()
	site, err := book.Build(opts)
	if err != nil {
		return cli.Exit("the book does not build:\n"+err.Error(), exitFailed)
	}
	if err := writeBook(site, out); err != nil {
		return couldNot(err)
	}
	abs, _ := filepath.Abs(out)
	fmt.Fprintf(c.App.Writer, "wrote %d chapters (%d files) from %s to %s in %s\nopen %s\n", len(site.Chapters), len(site.Files), from, out,
		time.Since(start).Round(time.Millisecond), filepath.Join(abs, "index.html"))
	return nil
}

// checkBookDir refuses to write into a directory that holds files kata
// did not write there.
func checkBookDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("book build: %v", err)
	}
	if len(entries) == 0 {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, bookMarker)); err != nil {
		return fmt.Errorf("book build: %s is not empty and was not written by 'kata book build'; choose another directory with -o DIR", dir)
	}
	return nil
}

// writeBook writes the site into dir and removes the files an earlier
// build wrote there that this one does not have.
func writeBook(site *book.Site, dir string) error {
	old, _ := os.ReadFile(filepath.Join(dir, bookMarker))
	if err := site.Write(dir); err != nil {
		return err
	}
	var names []string
	for name := range site.Files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range strings.Split(string(old), "\n") {
		if name != "" && !slices.Contains(names, name) && filepath.IsLocal(name) {
			os.Remove(filepath.Join(dir, filepath.FromSlash(name)))
		}
	}
	return os.WriteFile(filepath.Join(dir, bookMarker), []byte(strings.Join(names, "\n")+"\n"), 0o644)
}

func runBookServe(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageError(fmt.Sprintf("book serve: unexpected %q (the address is --addr HOST:PORT)", c.Args().First()))
	}
	opts, root, err := bookSource()
	if err != nil {
		return couldNot(err)
	}
	opts.Seed = c.Uint64("seed")
	srv, err := book.NewServer(opts, c.App.ErrWriter)
	if err != nil {
		return cli.Exit("the book does not build:\n"+err.Error(), exitFailed)
	}
	ctx, stop := signal.NotifyContext(c.Context, stopSignals...)
	defer stop()
	return srv.ListenAndServe(ctx, c.String("addr"), func(addr string) {
		fmt.Fprintf(c.App.Writer, "serving the book from %s on http://%s/ (Ctrl-C stops)\nit rebuilds and the page reloads when a chapter or an included file changes\n", root, addr)
	})
}
