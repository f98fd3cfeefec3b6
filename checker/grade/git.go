package grade

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gmp-kata/gmp-kata/checker/proclimit"
)

// Reading a submission's commit without running anything of the
// submission's, and without reading anything outside it.
//
// A repository is more than its objects: its .git/config can name programs
// that git runs (a smudge filter that .gitattributes applies to every file
// git archive or a checkout writes out, fsmonitor, hooks, ssh and pager
// commands, a credential helper), include other files, and borrow objects
// or refs from another repository (objects/info/alternates, commondir, a
// .git that is a "gitdir:" pointer or a link). And git opens whatever it
// finds under .git/objects: a loose object or a pack that is a link into a
// classmate's repository is read as this one's, and a named pipe there
// blocks git until it is killed. kata therefore never runs git in the
// submission's repository. It
//
//   - reads the repository only through an os.Root opened on the
//     submission's directory, so that no path it opens, and no link on the
//     way to one, leads out of the submission, even if the repository
//     changes while kata reads it;
//   - refuses a .git that is a file or a link, a commondir, a reftable,
//     objects/info/alternates and http-alternates, and, anywhere under
//     .git/objects and .git/refs, and as HEAD or packed-refs, anything but
//     a regular file or a directory (a link, a named pipe, a socket, a
//     device), with the path it found it at;
//   - reads the refs itself (HEAD, the loose refs, packed-refs), as plain
//     files of the submission's .git, opened without blocking;
//   - copies the object store (the loose objects and the packs; at most
//     Limits.Entries files and Limits.UnpackedBytes bytes) into a fresh
//     bare repository of its own, made for this submission, whose config
//     kata writes and whose refs are the ones it read: git reads only
//     kata's copy, never the submission's config, refs or objects;
//   - runs only plumbing that applies no filter and runs no hook: git
//     rev-parse (the commit a ref names), git ls-tree (the commit's files),
//     git cat-file --batch-check and --batch (the lesson files' blobs, as
//     committed), each within gitTimeout and, on Linux, within
//     Limits.GitMemory of memory and Limits.GitCPU of CPU time
//     (package proclimit: a tree object that inflates to gigabytes makes
//     git fail, not grow), with a bound on what kata reads of its output;
//   - in an environment of its own: no system or global config
//     (GIT_CONFIG_NOSYSTEM, GIT_CONFIG_GLOBAL=/dev/null, an empty HOME and
//     XDG_CONFIG_HOME), no system attributes, no replace refs, no commit
//     graph, hooks off, no prompt, no lazy fetch, and nothing else of
//     kata's environment but PATH.
//
// What it does not look at: the rest of .git (hooks, config, logs, the
// index, info/, worktrees/, modules/), which nothing kata runs reads, so a
// link there (a hook linked from the work tree, as some projects do)
// changes nothing and is not refused. Nor does it judge where an object
// came from: an object file with other hard links (as every object of a
// clone of a local path has) holds the bytes a copy would, and is copied
// like any other.

// gitTimeout bounds one git command on kata's copy of a repository: a few
// milliseconds for a workspace's, far longer than any honest one needs.
const gitTimeout = 20 * time.Second

// maxRefBytes bounds a loose ref or HEAD, and maxPackedRefs packed-refs.
const (
	maxRefBytes   = 4096
	maxPackedRefs = 16 << 20
)

// fromGit reads the repository dir at ref: the commit's tree, through the
// same checks as an archive's. The working tree, and anything not
// committed, is not looked at.
func (f *Finder) fromGit(dir, ref string) *Submission {
	s := &Submission{Name: baseName(dir), Source: dir + "@" + ref}
	r, err := openGit(dir, f.Limits)
	if err != nil {
		s.Problem = "unsafe or unreadable repository: " + err.Error()
		return s
	}
	defer r.close()
	commit, err := r.commit(ref)
	var limit *gitLimitError
	switch {
	case errors.As(err, &limit):
		s.Problem = "unsafe or unreadable repository: " + err.Error()
		return s
	case errors.Is(err, errAmbiguousRef):
		s.Problem = fmt.Sprintf("%q names more than one thing in the repository (a tag and a branch, or a tag that looks like an abbreviated commit hash): grade it at the commit's full hash, or at refs/heads/%s or refs/tags/%s", ref, ref, ref)
		return s
	case err != nil:
		s.Problem = fmt.Sprintf("the repository has no commit %q", ref)
		return s
	}
	t, err := r.tree(commit, f.Limits)
	if err != nil {
		s.Problem = "unsafe or unreadable commit: " + err.Error()
		return s
	}
	f.extract(s, t)
	return s
}

// A gitRepo is a submission's repository, read through a bare repository
// of kata's own holding a copy of its objects.
type gitRepo struct {
	tmp    string // kata's: the bare repository and an empty home
	env    []string
	limits proclimit.Limits // each git's
	peak   int64            // the largest resident size a git reached, where known
}

// openGit checks the repository in dir, reads its refs, and makes kata's
// bare repository for it, with a copy of its objects.
func openGit(dir string, lim Limits) (*gitRepo, error) {
	if lim == (Limits{}) {
		lim = DefaultLimits
	}
	top, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer top.Close()
	fi, err := top.Lstat(".git")
	switch {
	case err != nil:
		return nil, err
	case fi.Mode()&fs.ModeSymlink != 0:
		target, _ := top.Readlink(".git")
		return nil, fmt.Errorf(".git is a link (to %q): kata reads only a repository inside the submission; grade a clone", target)
	case fi.Mode().IsRegular():
		return nil, errors.New(".git is a file (a pointer to a repository elsewhere, as a worktree's or a submodule's is): kata reads only a repository inside the submission; grade a clone")
	case !fi.IsDir():
		return nil, fmt.Errorf(".git is %s, not a directory", kindOf(fi.Mode()))
	}
	// Everything below is read through git: it cannot lead out of the
	// submission's directory, links or not.
	git, err := top.OpenRoot(".git")
	if err != nil {
		return nil, err
	}
	defer git.Close()
	for _, p := range []struct{ name, why string }{
		{"commondir", "keeps its refs and objects in another repository (commondir, a worktree's)"},
		{"objects/info/alternates", "borrows objects from another repository (objects/info/alternates); grade a clone made with --no-shared"},
		{"objects/info/http-alternates", "borrows objects from elsewhere (objects/info/http-alternates)"},
		{"reftable", "keeps its refs in the reftable format, which kata does not read; grade a clone made with refs as files"},
	} {
		if _, err := git.Lstat(p.name); err == nil {
			return nil, fmt.Errorf("the repository %s", p.why)
		}
	}
	// The object directories, and the refs, must be the repository's own.
	for _, d := range []string{"objects", "objects/pack", "refs"} {
		fi, err := git.Lstat(d)
		switch {
		case errors.Is(err, fs.ErrNotExist) && d != "objects":
		case err != nil:
			return nil, fmt.Errorf("its .git/%s could not be read: %v", d, err)
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := git.Readlink(d)
			return nil, fmt.Errorf("its .git/%s is a link (to %q): kata follows no link in a repository", d, target)
		case !fi.IsDir():
			return nil, fmt.Errorf("its .git/%s is %s, not a directory", d, kindOf(fi.Mode()))
		}
	}
	refs, head, err := readRefs(git)
	if err != nil {
		return nil, err
	}
	format := "sha1"
	for _, h := range refs {
		if len(h) == 64 {
			format = "sha256"
		}
	}
	if len(head) == 64 {
		format = "sha256"
	}

	tmp, err := os.MkdirTemp("", "kata-git-")
	if err != nil {
		return nil, err
	}
	r := &gitRepo{tmp: tmp, limits: lim.git()}
	if err := r.makeBare(refs, head, format); err != nil {
		r.close()
		return nil, err
	}
	if err := copyObjects(git, filepath.Join(r.bare(), "objects"), lim); err != nil {
		r.close()
		return nil, err
	}
	return r, nil
}

// copyObjects copies the object store of the repository git (its loose
// objects and packs: every file under objects/ but objects/info/) to dst.
// Anything there that is not a regular file or a directory is refused
// with its path, and so is a store of more than lim.Entries files or
// lim.UnpackedBytes bytes. Files are opened through git (no link out of
// the submission), without blocking (a named pipe put in place of a file
// after kata looked is seen for what it is, not waited on), and copied up
// to the size they had when opened.
func copyObjects(git *os.Root, dst string, lim Limits) error {
	count, total := 0, int64(0)
	return walkFS(git.FS(), "objects", func(name string, d fs.DirEntry) error {
		if count++; count > lim.Entries {
			return fmt.Errorf("its .git/objects holds more than %d files: grade a clone (git gc packs them)", lim.Entries)
		}
		mode := d.Type()
		switch {
		case mode&fs.ModeSymlink != 0:
			target, _ := git.Readlink(name)
			return fmt.Errorf("its .git/%s is a link (to %q): kata follows no link in a repository", name, target)
		case !d.IsDir() && !mode.IsRegular():
			return fmt.Errorf("its .git/%s is %s, not a file: kata reads only files in a repository", name, kindOf(mode))
		case d.IsDir() && nestsDeeper(name, maxObjectDepth):
			return fmt.Errorf("its .git/objects nests directories more than %d deep, deeper than git does: grade a clone", maxObjectDepth)
		case name == "objects/info" || strings.HasPrefix(name, "objects/info/"):
			return nil // looked at, not copied: the commit graph, the list of packs
		case d.IsDir():
			return os.MkdirAll(filepath.Join(dst, filepath.FromSlash(strings.TrimPrefix(name, "objects"))), 0o700)
		}
		in, err := git.OpenFile(name, os.O_RDONLY|openNonBlocking, 0)
		if err != nil {
			return fmt.Errorf("its .git/%s could not be read: %v", name, err)
		}
		defer in.Close()
		fi, err := in.Stat()
		if err != nil {
			return fmt.Errorf("its .git/%s could not be read: %v", name, err)
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("its .git/%s is %s, not a file: kata reads only files in a repository", name, kindOf(fi.Mode()))
		}
		if total += fi.Size(); total > lim.UnpackedBytes {
			return fmt.Errorf("its objects take more than %d MiB: grade a shallow clone", lim.UnpackedBytes>>20)
		}
		out, err := os.OpenFile(filepath.Join(dst, filepath.FromSlash(strings.TrimPrefix(name, "objects"))), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return err
		}
		_, err = io.CopyN(out, in, fi.Size())
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("its .git/%s could not be copied: %v", name, err)
		}
		return nil
	}, unreadableGit)
}

// kindOf names what a file that is not a regular file or a directory is.
func kindOf(mode fs.FileMode) string {
	switch {
	case mode&fs.ModeSymlink != 0:
		return "a link"
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeDevice != 0:
		return "a device"
	case mode.IsDir():
		return "a directory"
	case mode.IsRegular():
		return "a file"
	}
	return "a special file"
}

// bare is kata's bare repository.
func (r *gitRepo) bare() string { return filepath.Join(r.tmp, "repo.git") }

func (r *gitRepo) close() {
	os.RemoveAll(r.tmp)
}

// makeBare writes kata's bare repository: its config, HEAD and refs, and
// the environment git runs in.
func (r *gitRepo) makeBare(refs map[string]string, head, format string) error {
	bare, home := r.bare(), filepath.Join(r.tmp, "home")
	for _, d := range []string{home, filepath.Join(bare, "objects"), filepath.Join(bare, "refs")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	config := "[core]\n\trepositoryformatversion = 0\n\tbare = true\n"
	if format == "sha256" {
		config = "[core]\n\trepositoryformatversion = 1\n\tbare = true\n[extensions]\n\tobjectformat = sha256\n"
	}
	var packed strings.Builder
	packed.WriteString("# pack-refs with: peeled \n")
	for _, name := range sortedNames(refs) {
		fmt.Fprintf(&packed, "%s %s\n", refs[name], name)
	}
	files := map[string]string{"config": config, "HEAD": head + "\n", "packed-refs": packed.String()}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(bare, name), []byte(data), 0o600); err != nil {
			return err
		}
	}
	r.env = []string{
		"GIT_DIR=" + bare,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=" + os.DevNull,
		"GIT_ATTR_NOSYSTEM=1",
		"GIT_NO_REPLACE_OBJECTS=1",
		"GIT_NO_LAZY_FETCH=1",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_OPTIONAL_LOCKS=0",
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + home,
		"LC_ALL=C",
	}
	keep := []string{"PATH"}
	if runtime.GOOS == "windows" {
		keep = append(keep, "SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "COMSPEC", "PATHEXT", "TEMP", "TMP")
		r.env = append(r.env, "USERPROFILE="+home)
	}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if slices.Contains(keep, strings.ToUpper(name)) {
			r.env = append(r.env, kv)
		}
	}
	return nil
}

// git is a git command in kata's bare repository, killed after
// gitTimeout; call cancel once it has been waited for.
func (r *gitRepo) git(args ...string) (cmd *exec.Cmd, cancel context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	cmd = proclimit.CommandContext(ctx, "git", append([]string{
		"-c", "core.hooksPath=" + os.DevNull, "-c", "core.fsmonitor=false", "-c", "core.commitGraph=false",
		"-c", "core.multiPackIndex=false", "-c", "protocol.allow=never", "--no-replace-objects",
		// Within its memory limit: packs mapped a little at a time, and a
		// small cache of delta bases (git's defaults: 1 GiB windows, 96 MiB).
		"-c", "core.packedGitWindowSize=16m", "-c", "core.packedGitLimit=64m", "-c", "core.deltaBaseCacheLimit=16m",
	}, args...)...)
	cmd.Env = r.env
	cmd.Dir = r.tmp
	cmd.WaitDelay = time.Second
	return cmd, cancel
}

// commit returns the commit ref names (a branch, a tag, HEAD, a commit,
// abbreviated or not, and a path from one: main~2, v1^). A ref that names
// two things is refused (errAmbiguousRef), not resolved by git's order of
// preference: a tag named like the deadline commit's abbreviated hash, or
// a tag "main" beside the branch main, would otherwise be graded in its
// place (git prefers a ref to an abbreviated hash, and a tag to a branch).
func (r *gitRepo) commit(ref string) (string, error) {
	// Not --quiet: it silences the warning that says a name is ambiguous.
	cmd, cancel := r.git("-c", "core.warnAmbiguousRefs=true", "rev-parse", "--verify", ref+"^{commit}")
	defer cancel()
	out, stderr := &cappedBuffer{max: 4096}, &cappedBuffer{max: maxGitStderr}
	cmd.Stdout, cmd.Stderr = out, stderr
	if err := r.start(cmd); err != nil {
		return "", err
	}
	err := r.wait(cmd)
	switch {
	case out.over:
		return "", fmt.Errorf("git wrote more than %d bytes, more than it does for any repository kata reads", out.max)
	case err != nil:
		if lerr := r.overLimit(cmd, stderr.String()); lerr != nil {
			return "", lerr
		}
		return "", fmt.Errorf("git: %v: %s", err, strings.TrimSpace(stderr.String()))
	case strings.Contains(stderr.String(), "is ambiguous"):
		return "", errAmbiguousRef
	}
	return strings.TrimSpace(out.String()), nil
}

// errAmbiguousRef is commit's error for a ref that names two things.
var errAmbiguousRef = errors.New("ambiguous ref")

// tree lists the commit's files (git ls-tree), within the entry limit.
// Their content is read only when extract asks for it (readBlobs), and a
// link's target only when a lesson file's path goes through it.
func (r *gitRepo) tree(commit string, lim Limits) (*tree, error) {
	cmd, cancel := r.git("ls-tree", "-r", "-t", "-z", "--full-tree", commit)
	defer cancel()
	stderr := &cappedBuffer{max: maxGitStderr}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := r.start(cmd); err != nil {
		return nil, err
	}
	t := newTree()
	t.read = r.readBlobs
	err = r.listTree(t, bufio.NewReader(&limitedReader{r: out, left: lim.ArchiveBytes}), lim)
	if err != nil {
		cmd.Process.Kill()
	}
	waitErr := r.wait(cmd)
	switch {
	case errors.Is(err, errTooMuch):
		return nil, fmt.Errorf("its list of files is longer than %d MiB", lim.ArchiveBytes>>20)
	case waitErr != nil && r.overLimit(cmd, stderr.String()) != nil:
		return nil, r.overLimit(cmd, stderr.String())
	case err != nil:
		return nil, err
	case waitErr != nil:
		return nil, fmt.Errorf("git ls-tree: %s", strings.TrimSpace(stderr.String()))
	}
	return t, nil
}

// listTree reads git ls-tree -z's records ("MODE TYPE OID\tPATH\0") into t.
func (r *gitRepo) listTree(t *tree, br *bufio.Reader, lim Limits) error {
	for n := 0; ; n++ {
		rec, err := br.ReadString(0)
		if err == io.EOF && rec == "" {
			return nil
		}
		if err != nil {
			return err
		}
		if n >= lim.Entries {
			return fmt.Errorf("the commit has more than %d files", lim.Entries)
		}
		meta, p, ok := strings.Cut(strings.TrimSuffix(rec, "\x00"), "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 3 {
			return fmt.Errorf("git ls-tree wrote %q", rec)
		}
		mode, oid := fields[0], fields[2]
		name, err := cleanName(p)
		if err != nil {
			return err
		}
		if name == "." {
			continue
		}
		switch mode {
		case "040000":
			t.entries[name] = &entry{name: name, dir: true}
		case "120000":
			t.add(name, &entry{unread: true, size: -1, oid: oid})
		case "100644", "100755", "100664":
			t.add(name, &entry{size: -1, oid: oid})
		case "160000":
			t.add(name, &entry{problem: path.Base(name) + " is a submodule (another repository's commit), not a file"})
		default:
			t.add(name, &entry{problem: path.Base(name) + " is not a regular file"})
		}
	}
}

// readBlobs reads the blobs of es, at most limit bytes each: their sizes
// first (git cat-file --batch-check), then the content of those within
// the limit (git cat-file --batch), exactly as committed.
func (r *gitRepo) readBlobs(es []*entry, limit int64) {
	fail := func(es []*entry, why string) {
		for _, e := range es {
			if e.problem == "" && !e.loaded {
				e.problem = path.Base(e.name) + " could not be read: " + why
			}
		}
	}
	byOID := map[string][]*entry{}
	var oids []string
	for _, e := range es {
		if byOID[e.oid] == nil {
			oids = append(oids, e.oid)
		}
		byOID[e.oid] = append(byOID[e.oid], e)
	}
	// Sizes.
	cmd, cancel := r.git("cat-file", "--batch-check")
	defer cancel()
	cmd.Stdin = strings.NewReader(strings.Join(oids, "\n") + "\n")
	out, err := r.output(cmd, int64(len(oids))*(64+1+6+1+20+1))
	if err != nil {
		fail(es, err.Error())
		return
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(oids) {
		fail(es, "git cat-file answered for "+strconv.Itoa(len(lines))+" objects of "+strconv.Itoa(len(oids)))
		return
	}
	var fetch []string
	for i, line := range lines {
		f := strings.Fields(line)
		switch {
		case len(f) != 3 || f[0] != oids[i]:
			fail(byOID[oids[i]], "the object is missing")
		case f[1] != "blob":
			fail(byOID[oids[i]], "it is a "+f[1]+", not a file")
		default:
			size, err := strconv.ParseInt(f[2], 10, 64)
			if err != nil || size > limit {
				for _, e := range byOID[oids[i]] {
					e.problem = tooLarge(path.Base(e.name), size, limit)
				}
				continue
			}
			fetch = append(fetch, oids[i])
		}
	}
	if len(fetch) == 0 {
		return
	}
	// Content.
	cmd, cancel2 := r.git("cat-file", "--batch")
	defer cancel2()
	cmd.Stdin = strings.NewReader(strings.Join(fetch, "\n") + "\n")
	stderr := &cappedBuffer{max: maxGitStderr}
	cmd.Stderr = stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		fail(es, err.Error())
		return
	}
	if err := r.start(cmd); err != nil {
		fail(es, err.Error())
		return
	}
	br := bufio.NewReader(&limitedReader{r: pipe, left: int64(len(fetch)) * (limit + 256)})
	read := 0
	for _, oid := range fetch {
		header, err := br.ReadString('\n')
		f := strings.Fields(header)
		if err != nil || len(f) != 3 || f[0] != oid || f[1] != "blob" {
			break
		}
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || size > limit {
			break // it said otherwise a moment ago: stop reading
		}
		data := make([]byte, size+1)
		if _, err := io.ReadFull(br, data); err != nil || data[size] != '\n' {
			break
		}
		for _, e := range byOID[oid] {
			e.data, e.loaded = data[:size], true
		}
		read++
	}
	if read < len(fetch) {
		cmd.Process.Kill()
	}
	if r.wait(cmd) != nil {
		if err := r.overLimit(cmd, stderr.String()); err != nil {
			fail(es, err.Error())
		}
	}
	fail(es, "git cat-file --batch did not give it")
}

// maxRefDepth and maxObjectDepth bound how deep kata walks a repository's
// refs and objects: git's own nest a few levels (refs/heads/team/topic,
// objects/pack/pack-1.idx, objects/info/commit-graphs/graph-1.graph),
// and each directory walked through an os.Root is opened from the root, a
// step per level: a red team's refs, a chain of 10,000 directories, cost
// kata 65 s and 440 MB before anyone was graded.
const maxRefDepth, maxObjectDepth = 32, 4

// nestsDeeper reports whether name, a directory the walk of a
// repository's refs or objects reached, is more than max levels below it.
func nestsDeeper(name string, max int) bool {
	return strings.Count(name, "/") > max
}

// unreadableGit is the error of a walk of a repository's .git that could
// not read the directory name.
func unreadableGit(name string, err error) error {
	return fmt.Errorf("its .git/%s could not be read: %v", name, err)
}

// readRefs reads a repository's refs the way git does, as files of its
// .git (git, a root there): the loose refs under refs/, packed-refs, and
// HEAD. It returns every ref that names an object (symbolic refs resolved)
// and HEAD (a symbolic "ref: refs/heads/main", or an object). Names that
// git itself would refuse are left out; a link, or anything else that is
// not a file or a directory, anywhere among them is refused.
func readRefs(git *os.Root) (map[string]string, string, error) {
	refs := map[string]string{}
	symbolic := map[string]string{}
	// packed-refs, then loose refs over them.
	if data, err := readSmall(git, "packed-refs", maxPackedRefs); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if line == "" || line[0] == '#' || line[0] == '^' {
				continue
			}
			oid, name, ok := strings.Cut(strings.TrimSpace(line), " ")
			if ok && isOID(oid) && validRefName(name) {
				refs[name] = oid
			}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, "", err
	}
	count := 0
	err := walkFS(git.FS(), "refs", func(name string, d fs.DirEntry) error {
		if count++; count > DefaultLimits.Entries {
			return fmt.Errorf("it has more than %d refs", DefaultLimits.Entries)
		}
		switch mode := d.Type(); {
		case mode&fs.ModeSymlink != 0:
			target, _ := git.Readlink(name)
			return fmt.Errorf("its .git/%s is a link (to %q): kata follows no link in a repository", name, target)
		case d.IsDir() && nestsDeeper(name, maxRefDepth):
			return fmt.Errorf("its .git/refs nests directories more than %d deep, deeper than any ref git makes: grade a clone", maxRefDepth)
		case d.IsDir():
			return nil
		case !mode.IsRegular():
			return fmt.Errorf("its .git/%s is %s, not a file: kata reads only files in a repository", name, kindOf(mode))
		}
		if !validRefName(name) {
			return nil
		}
		data, err := readSmall(git, name, maxRefBytes)
		if err != nil {
			return err
		}
		v := strings.TrimSpace(string(data))
		if target, ok := strings.CutPrefix(v, "ref: "); ok && validRefName(target) {
			symbolic[name] = target
		} else if isOID(v) {
			refs[name] = v
		}
		return nil
	}, func(name string, err error) error {
		if errors.Is(err, fs.ErrNotExist) && name == "refs" {
			return nil
		}
		return unreadableGit(name, err)
	})
	if err != nil {
		return nil, "", err
	}
	for name, target := range symbolic {
		for range 5 {
			if next, ok := symbolic[target]; ok {
				target = next
			}
		}
		if oid, ok := refs[target]; ok {
			refs[name] = oid
		}
	}
	data, err := readSmall(git, "HEAD", maxRefBytes)
	if err != nil {
		return nil, "", err
	}
	head := strings.TrimSpace(string(data))
	if target, ok := strings.CutPrefix(head, "ref: "); ok && validRefName(target) {
		head = "ref: " + target
	} else if !isOID(head) {
		return nil, "", errors.New("its HEAD is neither a ref nor a commit")
	}
	return refs, head, nil
}

// readSmall reads name, a regular file (not a link, nor a named pipe) of
// git (a root at a repository's .git) of at most limit bytes. It opens the
// file without blocking, and checks what it opened: a file swapped for a
// pipe after Lstat is refused, not waited on.
func readSmall(git *os.Root, name string, limit int64) ([]byte, error) {
	fi, err := git.Lstat(name)
	if err != nil {
		return nil, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, _ := git.Readlink(name)
		return nil, fmt.Errorf("its .git/%s is a link (to %q): kata follows no link in a repository", name, target)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("its .git/%s is %s, not a file: kata reads only files in a repository", name, kindOf(fi.Mode()))
	}
	f, err := git.OpenFile(name, os.O_RDONLY|openNonBlocking, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("its .git/%s is %s, not a file: kata reads only files in a repository", name, kindOf(fi.Mode()))
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("its .git/%s is larger than %d bytes: not a ref", name, limit)
	}
	return io.ReadAll(io.LimitReader(f, limit))
}

// isOID reports whether s is a full object name, SHA-1 or SHA-256.
func isOID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !(s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'f') {
			return false
		}
	}
	return true
}

// validRefName reports whether name is a ref under refs/ as git's
// check-ref-format accepts it: no control characters, spaces or
// ~^:?*[\, no "..", "@{" or "//", no component starting with "." or
// ending in ".lock", not ending in "/" or ".".
func validRefName(name string) bool {
	if !strings.HasPrefix(name, "refs/") || strings.Contains(name, "..") || strings.Contains(name, "@{") ||
		strings.Contains(name, "//") || strings.HasSuffix(name, "/") || strings.HasSuffix(name, ".") {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c < 0x20 || c == 0x7f || strings.IndexByte(" ~^:?*[\\", c) >= 0 {
			return false
		}
	}
	for _, c := range strings.Split(name, "/") {
		if c == "" || strings.HasPrefix(c, ".") || strings.HasSuffix(c, ".lock") {
			return false
		}
	}
	return true
}
