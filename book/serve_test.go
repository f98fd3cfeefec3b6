package book

import (
	"bufio"
	"context"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmp-kata/gmp-kata/lessons"
	"github.com/stretchr/testify/require"
)

// TestServeRebuildsAndReloads serves a copy of the mini book on a real
// port, changes a chapter and an included file, and checks that an open
// page is told to reload and the server then serves the new text.
func TestServeRebuildsAndReloads(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS("testdata/mini")))
	opts := Options{Src: os.DirFS(dir), Lessons: []*lessons.Lesson{{ID: "01-first", Title: "The first lesson"}}}
	srv, err := NewServer(opts, io.Discard)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addrc := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- srv.ListenAndServe(ctx, "127.0.0.1:0", func(a string) { addrc <- a }) }()
	base := "http://" + <-addrc

	get := func(path string) string {
		resp, err := http.Get(base + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, path)
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return string(body)
	}
	page := get("/notes.html")
	require.Contains(t, page, `new EventSource("/__reload")`, "served pages carry the reload script")
	require.Contains(t, get("/"), "Front page")

	resp, err := http.Get(base + "/__reload")
	require.NoError(t, err)
	defer resp.Body.Close()
	events := bufio.NewReader(resp.Body)
	line, err := events.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, ": connected\n", line)

	waitReload := func(what string) {
		got := make(chan string, 1)
		go func() {
			for {
				line, err := events.ReadString('\n')
				if err != nil {
					got <- "error: " + err.Error()
					return
				}
				if strings.HasPrefix(line, "data:") {
					got <- line
					return
				}
			}
		}()
		select {
		case line := <-got:
			require.Equal(t, "data: reload\n", line, what)
		case <-time.After(10 * time.Second):
			t.Fatalf("no reload event within 10s after %s", what)
		}
	}
	touch := func(name, text string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		// a later mod time, even on file systems with coarse clocks
		later := time.Now().Add(2 * time.Second)
		require.NoError(t, os.Chtimes(p, later, later))
	}

	touch("book/src/notes.md", "# Notes\n\nRewritten while serving.\n\n```go\n{{#include code/sample.go}}\n```\n")
	waitReload("a chapter changed")
	require.Contains(t, get("/notes.html"), "Rewritten while serving.")

	data, err := fs.ReadFile(os.DirFS(dir), "code/sample.go")
	require.NoError(t, err)
	touch("code/sample.go", strings.Replace(string(data), "A Ring is a toy.", "A Ring is a changed toy.", 1))
	waitReload("an included file changed")
	require.Contains(t, get("/notes.html"), "A Ring is a changed toy.")

	// A broken chapter keeps the last good book up.
	touch("book/src/notes.md", "# Notes\n\n[broken](nowhere.md)\n")
	time.Sleep(time.Second)
	require.Contains(t, get("/notes.html"), "A Ring is a changed toy.", "a failed rebuild must leave the last good book up")

	resp404, err := http.Get(base + "/nope.html")
	require.NoError(t, err)
	resp404.Body.Close()
	require.Equal(t, http.StatusNotFound, resp404.StatusCode)

	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("the server did not stop when its context was cancelled")
	}
}
