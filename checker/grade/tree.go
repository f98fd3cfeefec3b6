package grade

import (
	"fmt"
	"io"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A tree is what kata knows of a submission's files, whatever they came
// in: a directory, an archive, a git commit. Paths are slash-separated,
// relative to the top of the submission, and clean. A tree is listed
// first (names, kinds, sizes: enough to find the workspace in it), and
// only then are the files kata needs read: the lesson files of the
// workspace found, and the links on the way to them. Nothing else of a
// submission is ever read, and nothing of a tree is ever written to disk
// under its own name.
type tree struct {
	entries map[string]*entry
	// read reads the content of es, at most limit bytes each: it sets
	// each one's data, or its problem. Sources that can open an entry on
	// its own (a directory, a zip) leave it nil and set entry.open.
	read func(es []*entry, limit int64)
	// close releases what the tree holds open (a zip file), if not nil.
	close func()
}

// An entry is one file, directory or link of a tree.
type entry struct {
	name string // its path in the tree
	dir  bool
	link string // a link's target, as written in the archive ("" if not a link)
	// unread marks a link whose target is its content (a zip's, a git
	// commit's), read only if a lesson file's path goes through it.
	unread bool
	size   int64 // the size the source declares; -1 if it declares none
	data   []byte
	loaded bool // data is the content
	// problem says why the file cannot be used (too large, a link out of
	// the submission, not a regular file); "" if it can.
	problem string
	// Where the content is, for the source's reader.
	open  func() (io.ReadCloser, error) // a directory's file, a zip's entry
	index int                           // a tar entry's place in the stream
	oid   string                        // a git blob
}

func newTree() *tree {
	return &tree{entries: map[string]*entry{}}
}

// add records e (a file or a link) under name; a second entry of the same
// name makes the name unusable.
func (t *tree) add(name string, e *entry) {
	e.name = name
	if prev, dup := t.entries[name]; dup && !prev.dir {
		prev.problem = path.Base(name) + " appears twice in the archive"
		return
	}
	t.entries[name] = e
}

// fetch reads the content of es, at most limit bytes each. An entry whose
// source declares more is refused without being read; one that turns out
// longer than it declared is cut at the limit and refused.
func (t *tree) fetch(es []*entry, limit int64) {
	var todo []*entry
	for _, e := range es {
		switch {
		case e.loaded || e.problem != "":
		case e.size > limit:
			e.problem = tooLarge(path.Base(e.name), e.size, limit)
		default:
			todo = append(todo, e)
		}
	}
	if len(todo) == 0 {
		return
	}
	if t.read != nil {
		t.read(todo, limit)
		return
	}
	for _, e := range todo {
		if e.open == nil {
			e.problem = path.Base(e.name) + " could not be read"
			continue
		}
		rc, err := e.open()
		if err != nil {
			e.problem = path.Base(e.name) + " could not be read: " + err.Error()
			continue
		}
		data, err := io.ReadAll(io.LimitReader(rc, limit+1))
		rc.Close()
		e.setContent(data, err, limit)
	}
}

// setContent records what reading e gave: at most limit bytes, or why not.
func (e *entry) setContent(data []byte, err error, limit int64) {
	switch {
	case err != nil:
		e.problem = path.Base(e.name) + " could not be read: " + err.Error()
	case int64(len(data)) > limit:
		e.problem = tooLarge(path.Base(e.name), int64(len(data)), limit)
	default:
		e.data, e.loaded = data, true
	}
}

func tooLarge(name string, size, limit int64) string {
	return fmt.Sprintf("%s is larger than %d KiB (%d bytes): not a lesson file", name, limit>>10, size)
}

// markers are files that show where a workspace's top is.
const (
	progressMarker = ".kata/progress.json"
	modMarker      = "go.mod"
)

// skipDir reports whether a directory of a submission is never looked in
// for a workspace: version control, kata's own state (backups hold old
// copies of lesson files), macOS archive noise, dependencies, virtual
// environments, editors' and build tools' own (a fourteenth red team
// noted an honest workspace with a Python .venv refused for its size).
func skipDir(name string) bool {
	switch path.Base(name) {
	case ".git", ".hg", ".svn", ".kata", "__MACOSX", "node_modules", "vendor",
		".venv", "venv", "__pycache__", ".idea", ".vscode", "target":
		return true
	}
	return false
}

// root finds the top of the workspace in t: the directory holding
// .kata/progress.json; failing that, the shallowest directory holding a
// lesson file (and go.mod, if several do). It returns "." for the top of
// the tree, or a problem saying why there is no single workspace.
func (t *tree) root(lessonFiles []string) (string, string) {
	byDepth := func(dirs []string) []string {
		slices.SortFunc(dirs, func(a, b string) int {
			if d := depth(a) - depth(b); d != 0 {
				return d
			}
			return strings.Compare(a, b)
		})
		// Keep the shallowest only.
		var out []string
		for _, d := range dirs {
			if len(out) == 0 || depth(d) == depth(out[0]) {
				out = append(out, d)
			}
		}
		return out
	}
	var marked, withLesson, withMod []string
	seen := map[string]bool{}
	wrap := t.wrapper()
	for name, e := range t.entries {
		if e.dir || hidden(strings.TrimPrefix(name, wrap)) {
			continue
		}
		dir := path.Dir(name)
		switch {
		case isMarker(name):
			marked = append(marked, path.Dir(dir))
		case slices.Contains(lessonFiles, path.Base(name)):
			if !seen[dir] {
				seen[dir] = true
				withLesson = append(withLesson, dir)
				if _, ok := t.entries[path.Join(dir, modMarker)]; ok {
					withMod = append(withMod, dir)
				}
			}
		}
	}
	for _, set := range [][]string{marked, withMod, withLesson} {
		if len(set) == 0 {
			continue
		}
		top := byDepth(set)
		if len(top) > 1 {
			return "", fmt.Sprintf("holds %d workspaces (%s); submit one", len(top), listSome(top, 3))
		}
		return top[0], ""
	}
	return "", fmt.Sprintf("holds none of the lesson files (%s): is it a kata workspace?", listSome(lessonFiles, 3))
}

// wrapper is "target/" when every entry of t sits in one folder, target,
// as in an archive made of a folder (zip -r frank.zip target): that
// folder's name is the archive's, not a directory of the workspace, and
// skipDir does not apply to it (a twenty-first red team's honest
// workspace zipped in target/ or vendor/ was graded 0). macOS's
// __MACOSX beside it does not count; version control's and kata's own
// folders are never a wrapper.
func (t *tree) wrapper() string {
	top := ""
	for name := range t.entries {
		first, _, _ := strings.Cut(name, "/")
		switch {
		case first == "__MACOSX":
		case top == "":
			top = first
		case first != top:
			return ""
		}
	}
	switch top {
	case "", ".git", ".hg", ".svn", ".kata", "__MACOSX":
		return ""
	}
	return top + "/"
}

// hidden reports whether name is inside a directory root never looks in
// (the .kata holding a workspace's progress marker aside). It looks at
// each directory of the path once, in one pass: walking up with path.Dir,
// which copies what is left of the path at every step, cost a path n
// levels deep n² (a 30 KB .tar.gz of paths 500,000 levels deep held kata
// for minutes before anyone was graded).
func hidden(name string) bool {
	dir := path.Dir(name)
	if isMarker(name) {
		dir = path.Dir(dir)
	}
	if dir == "." || dir == "/" {
		return false
	}
	for rest := dir; rest != ""; {
		elem, after, _ := strings.Cut(rest, "/")
		if skipDir(elem) {
			return true
		}
		rest = after
	}
	return false
}

// isMarker reports whether name is a workspace's .kata/progress.json.
func isMarker(name string) bool {
	return name == progressMarker || strings.HasSuffix(name, "/"+progressMarker)
}

func depth(dir string) int {
	if dir == "." {
		return 0
	}
	return strings.Count(dir, "/") + 1
}

// maxLinkHops bounds how many links kata follows to reach a file, and
// maxLinkBytes the target of one.
const (
	maxLinkHops  = 8
	maxLinkBytes = 4096
)

// resolve follows name (a path in t) through links that stay inside the
// tree, reading a link's target only when the path goes through it, and
// returns the file's entry, or a problem that names the file as the
// student knows it (shown).
func (t *tree) resolve(name, shown string) (*entry, string) {
	for hop := 0; ; hop++ {
		e, ok := t.entries[name]
		switch {
		case !ok:
			return nil, "no " + shown + " in the submission"
		case e.problem != "":
			return nil, e.problem
		case e.dir:
			return nil, shown + " is a directory, not a file"
		case e.unread:
			t.fetch([]*entry{e}, maxLinkBytes)
			if e.problem != "" {
				e.problem = path.Base(e.name) + " is a link that could not be read"
				return nil, e.problem
			}
			e.link, e.data, e.loaded, e.unread = string(e.data), nil, false, false
			if e.link == "" {
				e.problem = path.Base(e.name) + " is a link to nothing"
				return nil, e.problem
			}
		}
		if e.link == "" {
			return e, ""
		}
		if hop == maxLinkHops {
			return nil, shown + " is a chain of more than 8 links"
		}
		target := e.link
		if path.IsAbs(target) || strings.Contains(target, `\`) || isVolume(target) {
			return nil, fmt.Sprintf("%s is a link to %q, outside the submission: submit the file itself", shown, e.link)
		}
		target = path.Join(path.Dir(name), target)
		if target == ".." || strings.HasPrefix(target, "../") {
			return nil, fmt.Sprintf("%s is a link to %q, outside the submission: submit the file itself", shown, e.link)
		}
		name = target
	}
}

// isVolume reports whether p starts with a Windows drive letter.
func isVolume(p string) bool {
	return len(p) >= 2 && p[1] == ':' && ((p[0] >= 'a' && p[0] <= 'z') || (p[0] >= 'A' && p[0] <= 'Z'))
}

// maxPathBytes bounds an entry's path in an archive or a commit: PATH_MAX
// of Linux (macOS's is 1024, Windows' 260 or 32,767 UTF-16 units). It
// bounds the depth of a path too (at most 2,048 levels), and so the work
// of everything kata does with one.
const maxPathBytes = 4096

// firstBytes returns s's first n bytes, cut at a character's start.
func firstBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// cleanName checks an archive entry's name and returns it cleaned:
// slash-separated, relative, and inside the archive. An absolute name, a
// drive letter, a ".." that climbs out (zip-slip) or a path longer than
// maxPathBytes is an error.
func cleanName(name string) (string, error) {
	if len(name) > maxPathBytes {
		return "", fmt.Errorf("entry %s… has a path of %d bytes; no file system kata runs on has paths longer than %d bytes, so this is no workspace: submit the workspace as it is on disk",
			strconv.Quote(firstBytes(name, 40)), len(name), maxPathBytes)
	}
	n := strings.ReplaceAll(name, `\`, "/")
	if strings.HasPrefix(n, "/") || isVolume(n) || strings.ContainsRune(n, 0) {
		return "", fmt.Errorf("entry %q has an absolute path", name)
	}
	n = path.Clean(n)
	if n == ".." || strings.HasPrefix(n, "../") {
		return "", fmt.Errorf("entry %q points outside the archive (zip-slip)", name)
	}
	return n, nil
}

// listSome joins up to n items, saying how many more there are.
func listSome(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:n], ", ") + fmt.Sprintf(" and %d more", len(items)-n)
}
