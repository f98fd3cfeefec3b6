package grade

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A testRepo is a real repository made with the git command, for the tests
// of REPO@REF submissions.
type testRepo struct {
	t   testing.TB
	dir string
}

func needGit(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
}

// newRepo makes a repository in dir holding a workspace (the reference's
// files, or files), committed on main.
func newRepo(t testing.TB, dir string, files map[string][]byte) *testRepo {
	t.Helper()
	r := &testRepo{t: t, dir: dir}
	workspace(t, dir, files)
	r.git("init", "-q", "-b", "main")
	r.git("add", "-A")
	r.git("commit", "-q", "-m", "start")
	return r
}

// git runs git in the repository, as its student would: with the test's
// own environment, not kata's.
func (r *testRepo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", r.dir, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	out, err := cmd.CombinedOutput()
	require.NoError(r.t, err, "git %v: %s", args, out)
	return strings.TrimSpace(string(out))
}

// appendConfig adds text to the repository's own .git/config.
func (r *testRepo) appendConfig(text string) {
	r.t.Helper()
	f, err := os.OpenFile(filepath.Join(r.dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(r.t, err)
	_, err = f.WriteString(text)
	require.NoError(r.t, err)
	require.NoError(r.t, f.Close())
}

// shQuote quotes a path for a shell script.
func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// gitSub finds the one submission arg names.
func gitSub(t *testing.T, arg string) *Submission {
	t.Helper()
	subs, err := finder().Find([]string{arg})
	require.NoError(t, err)
	require.Len(t, subs, 1)
	return subs[0]
}

// TestGitPointerToAClassmateIsRefused: mallory's ".git" is a file, a
// "gitdir:" pointer to alice's repository. Followed, it grades alice's
// commit as mallory's.
func TestGitPointerToAClassmateIsRefused(t *testing.T) {
	needGit(t)
	class := filepath.Join(t.TempDir(), "class")
	alices := edit(t, ref(t, "runq.go"), "func runqputtail(", "// alice's own\nfunc runqputtail(")
	newRepo(t, filepath.Join(class, "alice"), map[string][]byte{"runq.go": alices})
	mallory := filepath.Join(class, "mallory")
	workspace(t, mallory, skeletonFrom(t, "01-ringbuffer"))
	require.NoError(t, os.WriteFile(filepath.Join(mallory, ".git"), []byte("gitdir: ../alice/.git\n"), 0o644))

	for _, arg := range []string{mallory + "@main", class + "@main"} {
		subs, err := finder().Find([]string{arg})
		require.NoError(t, err, arg)
		var found *Submission
		for _, s := range subs {
			if s.Name == "mallory" {
				found = s
			}
		}
		require.NotNil(t, found, "%s: mallory must be graded (and refused), not skipped", arg)
		assert.Contains(t, found.Problem, ".git is a file", arg)
		data, _ := found.File("runq.go")
		assert.False(t, strings.Contains(string(data), "alice's own"), "%s: mallory was graded with alice's commit", arg)
	}

	if runtime.GOOS != "windows" {
		// A .git that is a link to alice's is the same attack.
		linker := filepath.Join(class, "linker")
		workspace(t, linker, nil)
		require.NoError(t, os.Symlink(filepath.Join(class, "alice", ".git"), filepath.Join(linker, ".git")))
		s := gitSub(t, linker+"@main")
		assert.Contains(t, s.Problem, ".git is a link")
		data, _ := s.File("runq.go")
		assert.False(t, strings.Contains(string(data), "alice's own"), "graded with alice's commit")
	}
}

// TestGitObjectsFromElsewhereAreRefused: a repository that borrows objects
// from another (objects/info/alternates), or keeps its refs in another
// (commondir), or links its objects or refs there, is refused: what it
// names would be another student's.
func TestGitObjectsFromElsewhereAreRefused(t *testing.T) {
	needGit(t)
	class := filepath.Join(t.TempDir(), "class")
	alices := edit(t, ref(t, "runq.go"), "func runqputtail(", "// alice's own\nfunc runqputtail(")
	alice := newRepo(t, filepath.Join(class, "alice"), map[string][]byte{"runq.go": alices})
	aliceHead := alice.git("rev-parse", "HEAD")

	cases := []struct {
		name    string
		setup   func(dir string)
		problem string
	}{
		{"alternates", func(dir string) {
			info := filepath.Join(dir, ".git", "objects", "info")
			require.NoError(t, os.MkdirAll(info, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(info, "alternates"), []byte(filepath.Join(class, "alice", ".git", "objects")+"\n"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(dir, ".git", "refs", "heads", "main"), []byte(aliceHead+"\n"), 0o644))
		}, "objects/info/alternates"},
		{"commondir", func(dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, ".git", "commondir"), []byte(filepath.Join(class, "alice", ".git")+"\n"), 0o644))
		}, "commondir"},
		{"reftable", func(dir string) {
			// Refs kata cannot read: it says so rather than "no commit".
			require.NoError(t, os.Mkdir(filepath.Join(dir, ".git", "reftable"), 0o755))
		}, "reftable"},
	}
	if runtime.GOOS != "windows" {
		cases = append(cases,
			struct {
				name    string
				setup   func(dir string)
				problem string
			}{"linked-ref", func(dir string) {
				p := filepath.Join(dir, ".git", "refs", "heads", "main")
				require.NoError(t, os.Remove(p))
				require.NoError(t, os.Symlink(filepath.Join(class, "alice", ".git", "refs", "heads", "main"), p))
			}, "is a link"},
			struct {
				name    string
				setup   func(dir string)
				problem string
			}{"linked-objects", func(dir string) {
				p := filepath.Join(dir, ".git", "objects")
				require.NoError(t, os.RemoveAll(p))
				require.NoError(t, os.Symlink(filepath.Join(class, "alice", ".git", "objects"), p))
				require.NoError(t, os.WriteFile(filepath.Join(dir, ".git", "refs", "heads", "main"), []byte(aliceHead+"\n"), 0o644))
			}, "is a link"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(class, "mallory-"+c.name)
			newRepo(t, dir, skeletonFrom(t, "01-ringbuffer"))
			c.setup(dir)
			s := gitSub(t, dir+"@main")
			assert.Contains(t, s.Problem, c.problem)
			data, _ := s.File("runq.go")
			assert.False(t, strings.Contains(string(data), "alice's own"), "graded with alice's commit")
		})
	}
}

// TestGitRunsNothingOfTheRepository: a repository's own .git/config names
// programs git would run: a smudge filter (.gitattributes asks for it on
// every .go file), fsmonitor, an ssh command, hooks, and more of the same
// in a file it includes. Reading the commit must run none of them, and
// must read the lesson files as committed, not as a filter would change
// them.
func TestGitRunsNothingOfTheRepository(t *testing.T) {
	needGit(t)
	if runtime.GOOS == "windows" {
		t.Skip("the hostile config's commands are sh scripts")
	}
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	repo := newRepo(t, filepath.Join(dir, "class", "mallory"), nil)
	require.NoError(t, os.WriteFile(filepath.Join(repo.dir, ".gitattributes"), []byte("*.go filter=evil\n*.json filter=evil\n"), 0o644))
	repo.git("add", ".gitattributes")
	repo.git("commit", "-q", "-m", "attributes")
	// What every command of the config runs: it marks that it ran, and
	// prints what a filter would put in place of each file.
	script := filepath.Join(dir, "evil.sh")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\necho \"$1\" >> "+shQuote(marker)+"\ncat >/dev/null\necho 'package sched // smudged'\n"), 0o755))
	run := func(what string) string { return filepath.ToSlash(script) + " " + what }
	included := filepath.Join(dir, "included.config")
	require.NoError(t, os.WriteFile(included, []byte("[filter \"evil2\"]\n\tsmudge = "+run("included-smudge")+"\n\trequired = true\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(repo.dir, ".git", "hooks"), 0o755))
	for _, hook := range []string{"post-checkout", "pre-auto-gc", "reference-transaction", "post-index-change"} {
		p := filepath.Join(repo.dir, ".git", "hooks", hook)
		require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\necho hook-"+hook+" >> "+shQuote(marker)+"\n"), 0o755))
	}
	repo.appendConfig("[filter \"evil\"]\n\tsmudge = " + run("smudge") + "\n\tclean = cat\n\trequired = true\n" +
		"[core]\n\tfsmonitor = " + run("fsmonitor") + "\n\tsshCommand = " + run("ssh") + "\n\tpager = " + run("pager") + "\n\taskPass = " + run("askpass") +
		"\n\talternateRefsCommand = " + run("alternate-refs") + "\n" +
		"[include]\n\tpath = " + filepath.ToSlash(included) + "\n" +
		"[diff \"evil\"]\n\ttextconv = " + run("textconv") + "\n" +
		"[gc]\n\tauto = 1\n")
	// The repository's own config is live: git archive, as kata used to
	// read a commit, runs the filter.
	repo.git("archive", "-o", filepath.Join(dir, "out.tar"), "HEAD", "runq.go")
	ran, err := os.ReadFile(marker)
	require.NoError(t, err, "the hostile filter did not run even for git archive: the test tests nothing")
	require.Contains(t, string(ran), "smudge")
	require.NoError(t, os.Remove(marker))

	for _, arg := range []string{repo.dir + "@main", filepath.Join(dir, "class") + "@HEAD"} {
		s := gitSub(t, arg)
		require.Empty(t, s.Problem, arg)
		for _, f := range allFiles() {
			data, problem := s.File(f)
			require.Empty(t, problem, "%s %s", arg, f)
			assert.True(t, string(ref(t, f)) == string(data), "%s: %s must be the committed blob, not %.80q", arg, f, data)
		}
	}
	ran, _ = os.ReadFile(marker)
	assert.Empty(t, string(ran), "reading the commit ran the repository's own commands")

	// kata's git does not read the repository's config at all: one git
	// would refuse to work with (a format from the future, a broken line)
	// changes nothing.
	odd := newRepo(t, filepath.Join(dir, "odd"), nil)
	odd.appendConfig("[core]\n\trepositoryformatversion = 99\n[extensions]\n\tnoSuchExtension = true\n[broken\n")
	s := gitSub(t, odd.dir+"@main")
	require.Empty(t, s.Problem)
	data, problem := s.File("runq.go")
	require.Empty(t, problem)
	assert.True(t, string(ref(t, "runq.go")) == string(data))
}

// TestGitRefs: the refs kata resolves itself, as git would: a tag, a
// branch, HEAD, an abbreviated or full commit, a path from one (~1, ^),
// packed refs, an annotated tag, and nothing that is not a commit.
func TestGitRefs(t *testing.T) {
	needGit(t)
	dir := t.TempDir()
	repo := newRepo(t, filepath.Join(dir, "erin"), nil)
	first := repo.git("rev-parse", "HEAD")
	repo.git("tag", "deadline")
	repo.git("tag", "-a", "-m", "annotated", "signed-off")
	second := edit(t, ref(t, "runq.go"), "func runqputtail(", "// second\nfunc runqputtail(")
	require.NoError(t, os.WriteFile(filepath.Join(repo.dir, "runq.go"), second, 0o644))
	repo.git("commit", "-q", "-am", "second")
	repo.git("branch", "late")
	repo.git("pack-refs", "--all")
	third := edit(t, ref(t, "runq.go"), "func runqputtail(", "// third\nfunc runqputtail(")
	require.NoError(t, os.WriteFile(filepath.Join(repo.dir, "runq.go"), third, 0o644))
	repo.git("commit", "-q", "-am", "third") // main is loose again, late packed

	at := func(ref string) (string, string) {
		s := gitSub(t, repo.dir+"@"+ref)
		if s.Problem != "" {
			return "", s.Problem
		}
		data, problem := s.File("runq.go")
		require.Empty(t, problem, ref)
		return string(data), ""
	}
	want := map[string]string{
		"deadline": string(ref(t, "runq.go")), "signed-off": string(ref(t, "runq.go")), first: string(ref(t, "runq.go")),
		first[:10]: string(ref(t, "runq.go")), "main~2": string(ref(t, "runq.go")), "HEAD^^": string(ref(t, "runq.go")),
		"late": string(second), "refs/heads/late": string(second), "main^": string(second),
		"HEAD": string(third), "main": string(third), "heads/main": string(third),
	}
	for r, w := range want {
		got, problem := at(r)
		assert.Empty(t, problem, r)
		assert.True(t, w == got, "@%s: got %.200q", r, got)
	}
	for _, r := range []string{"no-such-tag", "main~9", "HEAD:runq.go", "0000000000000000000000000000000000000000", "main@{0}", "main@{yesterday}"} {
		_, problem := at(r)
		assert.Contains(t, problem, "the repository has no commit", r)
	}
}

// TestGitAmbiguousRefsAreRefused: a ref that names two things is refused,
// not resolved by git's preference (a red team's forgery): a tag named like
// the deadline commit's abbreviated hash, pointing at a later commit, and a
// tag "main" beside the branch main. The full hash, refs/heads/main and
// refs/tags/main still name one commit each.
func TestGitAmbiguousRefsAreRefused(t *testing.T) {
	needGit(t)
	repo := newRepo(t, filepath.Join(t.TempDir(), "mallory"), nil) // the deadline commit: the reference's runq.go
	deadline := repo.git("rev-parse", "HEAD")
	short := repo.git("rev-parse", "--short=7", "HEAD")
	repo.git("checkout", "-q", "--detach")
	later := edit(t, ref(t, "runq.go"), "func runqputtail(", "// later\nfunc runqputtail(")
	require.NoError(t, os.WriteFile(filepath.Join(repo.dir, "runq.go"), later, 0o644))
	repo.git("commit", "-q", "-am", "later")
	repo.git("tag", short)
	repo.git("tag", "main")

	for _, r := range []string{short, "main"} {
		s := gitSub(t, repo.dir+"@"+r)
		assert.Contains(t, s.Problem, "names more than one thing in the repository", r)
	}
	for r, w := range map[string][]byte{deadline: ref(t, "runq.go"), "refs/heads/main": ref(t, "runq.go"), "refs/tags/main": later, "refs/tags/" + short: later} {
		s := gitSub(t, repo.dir+"@"+r)
		require.Empty(t, s.Problem, r)
		data, problem := s.File("runq.go")
		require.Empty(t, problem, r)
		assert.True(t, string(w) == string(data), "@%s: got %.200q", r, data)
	}
}

// TestGitNestingIsBounded: kata walks no deeper into a repository's refs
// and objects than git nests them (a red team's chain of 10,000 directories
// under .git/refs cost kata 65 s and 440 MB, each directory opened from the
// root): a ref 40 directories down, and objects 6 down, are refused with
// the reason; a ref 30 down is read.
func TestGitNestingIsBounded(t *testing.T) {
	needGit(t)
	repo := newRepo(t, filepath.Join(t.TempDir(), "mallory"), nil)
	head := repo.git("rev-parse", "HEAD")
	nest := func(root string, n int) string {
		return filepath.Join(append([]string{root}, slices.Repeat([]string{"d"}, n)...)...)
	}
	refs := filepath.Join(repo.dir, ".git", "refs", "heads")
	require.NoError(t, os.MkdirAll(nest(refs, 30), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(nest(refs, 30), "topic"), []byte(head+"\n"), 0o644))
	s := gitSub(t, repo.dir+"@refs/heads/"+strings.Repeat("d/", 30)+"topic")
	require.Empty(t, s.Problem)

	require.NoError(t, os.MkdirAll(nest(refs, 40), 0o755))
	s = gitSub(t, repo.dir+"@main")
	assert.Contains(t, s.Problem, "its .git/refs nests directories more than 32 deep")
	require.NoError(t, os.RemoveAll(filepath.Join(refs, "d")))

	require.NoError(t, os.MkdirAll(nest(filepath.Join(repo.dir, ".git", "objects", "info"), 6), 0o755))
	s = gitSub(t, repo.dir+"@main")
	assert.Contains(t, s.Problem, "its .git/objects nests directories more than 4 deep")
}

// TestGitLimits: a commit is held to an archive's limits: a lesson file
// over the size limit is refused from its size, without being read; a
// commit of too many files is refused while listing it; a lesson file
// that is a link is followed inside the commit only.
func TestGitLimits(t *testing.T) {
	needGit(t)
	dir := t.TempDir()
	big := newRepo(t, filepath.Join(dir, "big"), map[string][]byte{"runq.go": bigGo(2 << 20)})
	s := gitSub(t, big.dir+"@main")
	require.Empty(t, s.Problem)
	_, problem := s.File("runq.go")
	assert.Equal(t, "runq.go is larger than 1024 KiB (2097152 bytes): not a lesson file", problem)
	data, problem := s.File("park.go")
	assert.Empty(t, problem)
	assert.True(t, string(ref(t, "park.go")) == string(data))

	many := newRepo(t, filepath.Join(dir, "many"), nil)
	for i := range 60 {
		require.NoError(t, os.WriteFile(filepath.Join(many.dir, fmt.Sprintf("pad%02d.txt", i)), []byte("x"), 0o644))
	}
	many.git("add", "-A")
	many.git("commit", "-q", "-m", "many")
	f := finder()
	f.Limits.Entries = 50
	subs, err := f.Find([]string{many.dir + "@main"})
	require.NoError(t, err)
	assert.Contains(t, subs[0].Problem, "the commit has more than 50 files")

	if runtime.GOOS != "windows" {
		links := newRepo(t, filepath.Join(dir, "links"), nil)
		require.NoError(t, os.Remove(filepath.Join(links.dir, "runq.go")))
		require.NoError(t, os.Symlink("../../alice/runq.go", filepath.Join(links.dir, "runq.go")))
		require.NoError(t, os.Rename(filepath.Join(links.dir, "park.go"), filepath.Join(links.dir, "mine.go")))
		require.NoError(t, os.Symlink("mine.go", filepath.Join(links.dir, "park.go")))
		links.git("add", "-A")
		links.git("commit", "-q", "-m", "links")
		s := gitSub(t, links.dir+"@main")
		require.Empty(t, s.Problem)
		_, problem := s.File("runq.go")
		assert.Equal(t, `runq.go is a link to "../../alice/runq.go", outside the submission: submit the file itself`, problem)
		data, problem := s.File("park.go")
		assert.Empty(t, problem)
		assert.True(t, string(ref(t, "park.go")) == string(data), "a link inside the commit is followed")
	}
}

// TestGitIgnoresTheGradersGitSettings: kata's git reads no system or
// global config and takes nothing of kata's environment but PATH: git
// variables that would point it at another repository, another object
// store or extra config, and config files it could not even parse,
// change nothing.
func TestGitIgnoresTheGradersGitSettings(t *testing.T) {
	needGit(t)
	dir := t.TempDir()
	alices := edit(t, ref(t, "runq.go"), "func runqputtail(", "// alice's own\nfunc runqputtail(")
	alice := newRepo(t, filepath.Join(dir, "alice"), map[string][]byte{"runq.go": alices})
	aliceHead := alice.git("rev-parse", "HEAD")
	erin := newRepo(t, filepath.Join(dir, "erin"), nil)
	broken := filepath.Join(dir, "broken.config")
	require.NoError(t, os.WriteFile(broken, []byte("[broken\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".gitconfig"), []byte("[broken\n"), 0o644))
	for k, v := range map[string]string{
		"GIT_CONFIG_GLOBAL":                broken,
		"GIT_CONFIG_SYSTEM":                broken,
		"GIT_CONFIG_NOSYSTEM":              "",
		"HOME":                             dir,
		"XDG_CONFIG_HOME":                  dir,
		"GIT_DIR":                          filepath.Join(alice.dir, ".git"),
		"GIT_WORK_TREE":                    alice.dir,
		"GIT_ALTERNATE_OBJECT_DIRECTORIES": filepath.Join(alice.dir, ".git", "objects"),
		"GIT_CONFIG_COUNT":                 "1",
		"GIT_CONFIG_KEY_0":                 "include.path",
		"GIT_CONFIG_VALUE_0":               broken,
		"GIT_CONFIG_PARAMETERS":            "'include.path'='" + broken + "'",
	} {
		t.Setenv(k, v)
	}
	s := gitSub(t, erin.dir+"@main")
	require.Empty(t, s.Problem)
	data, problem := s.File("runq.go")
	require.Empty(t, problem)
	assert.True(t, string(ref(t, "runq.go")) == string(data), "erin's commit, not alice's")
	// And alice's commit is not reachable from erin's repository through
	// the grader's GIT_ALTERNATE_OBJECT_DIRECTORIES.
	s = gitSub(t, erin.dir+"@"+aliceHead)
	assert.Contains(t, s.Problem, "the repository has no commit")
}

// commitMissingBlob commits, on main, blob (which the repository does not
// hold) as file, and returns the path its loose object would have.
func commitMissingBlob(r *testRepo, blob, file string) string {
	r.t.Helper()
	r.git("update-index", "--cacheinfo", "100644,"+blob+","+file)
	tree := r.git("write-tree", "--missing-ok")
	commit := r.git("commit-tree", tree, "-p", "HEAD", "-m", "take "+file)
	r.git("update-ref", "refs/heads/main", commit)
	dir := filepath.Join(r.dir, ".git", "objects", blob[:2])
	require.NoError(r.t, os.MkdirAll(dir, 0o755))
	return filepath.Join(dir, blob[2:])
}

// TestGitObjectStoreHoldsOnlyFiles: git reads a repository's objects by
// opening files under .git/objects, and follows whatever it finds there.
// A loose object or a pack that is a link into a classmate's repository
// (A11: mallory's commit names bob's blob, and her object file is a link
// to his) grades the classmate's work as hers; a named pipe (A13) blocks
// git until a time limit, on every grade, cached or not. Each is refused,
// at once, with the path it is at; honest repositories (packed, cloned
// from a local path, with a linked hook) are read as before.
func TestGitObjectStoreHoldsOnlyFiles(t *testing.T) {
	needGit(t)
	if runtime.GOOS == "windows" {
		t.Skip("links and named pipes in a repository are Unix files")
	}
	class := filepath.Join(t.TempDir(), "class")
	alices := edit(t, ref(t, "runq.go"), "func runqputtail(", "// alice's own\nfunc runqputtail(")
	alice := newRepo(t, filepath.Join(class, "alice"), map[string][]byte{"runq.go": alices})
	blob := alice.git("rev-parse", "HEAD:runq.go")
	aliceObject := filepath.Join(alice.dir, ".git", "objects", blob[:2], blob[2:])
	require.FileExists(t, aliceObject)

	// mallory commits alice's blob without holding it: her commit names
	// it, her object store lacks it (setup adds it, as a link or a pipe).
	mallory := func(name string) (*testRepo, string) {
		m := newRepo(t, filepath.Join(class, name), skeletonFrom(t, "01-ringbuffer"))
		return m, commitMissingBlob(m, blob, "runq.go")
	}
	notAlices := func(t *testing.T, s *Submission) {
		t.Helper()
		data, _ := s.File("runq.go")
		assert.False(t, strings.Contains(string(data), "alice's own"), "graded with alice's file")
	}

	t.Run("loose-object-link", func(t *testing.T) {
		_, obj := mallory("m-link")
		rel, err := filepath.Rel(filepath.Dir(obj), aliceObject)
		require.NoError(t, err)
		require.NoError(t, os.Symlink(rel, obj))
		s := gitSub(t, filepath.Join(class, "m-link")+"@main")
		assert.Contains(t, s.Problem, ".git/objects/"+blob[:2]+"/"+blob[2:]+" is a link")
		notAlices(t, s)
	})
	t.Run("loose-object-fifo", func(t *testing.T) {
		_, obj := mallory("m-fifo")
		require.NoError(t, mkfifo(obj))
		start := time.Now()
		s := gitSub(t, filepath.Join(class, "m-fifo")+"@main")
		assert.Less(t, time.Since(start), 10*time.Second, "a named pipe held kata up")
		assert.Contains(t, s.Problem, ".git/objects/"+blob[:2]+"/"+blob[2:]+" is a named pipe")
	})
	t.Run("loose-object-socket", func(t *testing.T) {
		_, obj := mallory("m-sock")
		t.Chdir(filepath.Dir(obj)) // a socket's path is short: name it from its directory
		l, err := net.Listen("unix", filepath.Base(obj))
		if err != nil {
			t.Skipf("no Unix socket here: %v", err)
		}
		defer l.Close()
		s := gitSub(t, filepath.Join(class, "m-sock")+"@main")
		assert.Contains(t, s.Problem, " is a socket")
	})
	t.Run("pack-link", func(t *testing.T) {
		// alice packs her objects; mallory links her pack and its index.
		packed := newRepo(t, filepath.Join(class, "alice-packed"), map[string][]byte{"runq.go": alices})
		packed.git("gc", "-q")
		m, _ := mallory("m-pack")
		packs, err := filepath.Glob(filepath.Join(packed.dir, ".git", "objects", "pack", "pack-*"))
		require.NoError(t, err)
		require.NotEmpty(t, packs)
		for _, p := range packs {
			require.NoError(t, os.Symlink(p, filepath.Join(m.dir, ".git", "objects", "pack", filepath.Base(p))))
		}
		s := gitSub(t, m.dir+"@main")
		assert.Contains(t, s.Problem, ".git/objects/pack/pack-")
		assert.Contains(t, s.Problem, " is a link")
		notAlices(t, s)
	})
	t.Run("directory-link", func(t *testing.T) {
		// A loose objects directory that is a link: refused before (the
		// top of objects/ was checked), and still. The directory may hold
		// mallory's commit too (its hash, unlike the blob's and the trees',
		// changes with the clock: a run in a few hundred), so it goes
		// whole: kata meets the link while it copies the objects, before
		// it looks for a commit.
		m, obj := mallory("m-dirlink")
		require.NoError(t, os.RemoveAll(filepath.Dir(obj)))
		require.NoError(t, os.Symlink(filepath.Dir(aliceObject), filepath.Dir(obj)))
		s := gitSub(t, m.dir+"@main")
		assert.Contains(t, s.Problem, ".git/objects/"+blob[:2]+" is a link")
		notAlices(t, s)
	})
	t.Run("http-alternates", func(t *testing.T) {
		m, _ := mallory("m-http")
		info := filepath.Join(m.dir, ".git", "objects", "info")
		require.NoError(t, os.MkdirAll(info, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(info, "http-alternates"), []byte("https://example.invalid/alice.git/objects\n"), 0o644))
		s := gitSub(t, m.dir+"@main")
		assert.Contains(t, s.Problem, "http-alternates")
	})
	t.Run("fifo-ref", func(t *testing.T) {
		m := newRepo(t, filepath.Join(class, "m-fiforef"), nil)
		require.NoError(t, mkfifo(filepath.Join(m.dir, ".git", "refs", "heads", "stuck")))
		start := time.Now()
		s := gitSub(t, m.dir+"@main")
		assert.Less(t, time.Since(start), 10*time.Second, "a named pipe held kata up")
		assert.Contains(t, s.Problem, "refs/heads/stuck")
	})

	honestGitRepos(t, class, alice, alices)
}

// honestGitRepos is TestGitObjectStoreHoldsOnlyFiles's honest part, in
// class beside alice's repository, alice (whose runq.go is alices).
func honestGitRepos(t *testing.T, class string, alice *testRepo, alices []byte) {
	// Honest repositories: packed by git gc, a clone of a local path
	// (whose objects are hard links to the original's), one with a hook
	// that is a link, and one with a linked worktree: all read as before.
	honest := map[string]*testRepo{}
	gc := newRepo(t, filepath.Join(class, "h-gc"), map[string][]byte{"runq.go": alices})
	gc.git("gc", "-q", "--aggressive")
	honest["h-gc"] = gc
	clone := filepath.Join(class, "h-clone")
	alice.git("clone", "-q", alice.dir, clone)
	honest["h-clone"] = &testRepo{t: t, dir: clone}
	hooked := newRepo(t, filepath.Join(class, "h-hook"), map[string][]byte{"runq.go": alices})
	require.NoError(t, os.WriteFile(filepath.Join(hooked.dir, "pre-commit.sh"), []byte("#!/bin/sh\n"), 0o755))
	require.NoError(t, os.Symlink("../../pre-commit.sh", filepath.Join(hooked.dir, ".git", "hooks", "pre-commit")))
	honest["h-hook"] = hooked
	worktrees := newRepo(t, filepath.Join(class, "h-worktree"), map[string][]byte{"runq.go": alices})
	worktrees.git("worktree", "add", "-q", filepath.Join(t.TempDir(), "elsewhere"))
	honest["h-worktree"] = worktrees
	for name, r := range honest {
		s := gitSub(t, r.dir+"@main")
		require.Empty(t, s.Problem, name)
		data, problem := s.File("runq.go")
		require.Empty(t, problem, name)
		assert.True(t, string(alices) == string(data), "%s: got %.100q", name, data)
	}
}
