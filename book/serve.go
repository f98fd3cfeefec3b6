package book

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"
)

// A Server serves a book and rebuilds it when a file it was built from
// changes; open pages reload themselves (server-sent events on
// /__reload).
type Server struct {
	opts  Options
	log   io.Writer
	mu    sync.Mutex
	site  *Site
	stamp map[string]time.Time // mod times of the files the site was built from
	subs  map[chan struct{}]bool
}

// NewServer builds the book once; it fails if that build fails.
func NewServer(opts Options, log io.Writer) (*Server, error) {
	opts.LiveReload = true
	s := &Server{opts: opts, log: log, subs: map[chan struct{}]bool{}}
	site, err := Build(opts)
	if err != nil {
		return nil, err
	}
	s.site, s.stamp = site, s.stamps(site.Used)
	return s, nil
}

func (s *Server) stamps(files []string) map[string]time.Time {
	m := make(map[string]time.Time, len(files))
	for _, f := range files {
		if fi, err := fs.Stat(s.opts.Src, f); err == nil {
			m[f] = fi.ModTime()
		} else {
			m[f] = time.Time{}
		}
	}
	return m
}

// changed says whether a file the site was built from has changed since,
// and names it.
func (s *Server) changed() (string, bool) {
	s.mu.Lock()
	stamp := s.stamp
	s.mu.Unlock()
	for f, t := range stamp {
		fi, err := fs.Stat(s.opts.Src, f)
		if err != nil && !t.IsZero() || err == nil && !fi.ModTime().Equal(t) {
			return f, true
		}
	}
	return "", false
}

// Watch polls the source files every interval until ctx is done; on a
// change it rebuilds and tells the open pages to reload. A failed build
// is reported and the last good book stays up.
func (s *Server) Watch(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		f, ok := s.changed()
		if !ok {
			continue
		}
		start := time.Now()
		site, err := Build(s.opts)
		s.mu.Lock()
		if err != nil {
			// Watch the same files, at their new times, so the error is
			// reported once per change.
			s.stamp = s.stamps(keys(s.stamp))
			s.mu.Unlock()
			fmt.Fprintf(s.log, "%s changed; the book does not build:\n%v\n", f, err)
			continue
		}
		s.site, s.stamp = site, s.stamps(site.Used)
		subs := make([]chan struct{}, 0, len(s.subs))
		for c := range s.subs {
			subs = append(subs, c)
		}
		s.mu.Unlock()
		fmt.Fprintf(s.log, "%s changed; rebuilt in %s, reloading %d page(s)\n", f, time.Since(start).Round(time.Millisecond), len(subs))
		for _, c := range subs {
			select {
			case c <- struct{}{}:
			default:
			}
		}
	}
}

func keys(m map[string]time.Time) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// ServeHTTP serves the current build, and /__reload's event stream.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/__reload" {
		s.reload(w, r)
		return
	}
	name := strings.TrimPrefix(path.Clean(r.URL.Path), "/")
	if name == "" {
		name = "index.html"
	}
	s.mu.Lock()
	data, ok := s.site.Files[name]
	s.mu.Unlock()
	if !ok {
		http.Error(w, fmt.Sprintf("404: the book has no page %q", name), http.StatusNotFound)
		return
	}
	if ct := mime.TypeByExtension(path.Ext(name)); ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(data)
}

func (s *Server) reload(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	c := make(chan struct{}, 1)
	s.mu.Lock()
	s.subs[c] = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.subs, c)
		s.mu.Unlock()
	}()
	fmt.Fprint(w, ": connected\n\n")
	flusher.Flush()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-c:
			fmt.Fprint(w, "data: reload\n\n")
			flusher.Flush()
		}
	}
}

// ListenAndServe serves the book on addr until ctx is done, watching its
// files. ready, if not nil, is called with the address listened on.
func (s *Server) ListenAndServe(ctx context.Context, addr string, ready func(addr string)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("book: %w (is another server using the port? choose another with --addr)", err)
	}
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go s.Watch(ctx, 300*time.Millisecond)
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(shut)
		srv.Close()
	}()
	if ready != nil {
		ready(ln.Addr().String())
	}
	if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
		return err
	}
	return nil
}
