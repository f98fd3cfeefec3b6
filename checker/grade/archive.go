package grade

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Limits bound what kata reads of one submission.
type Limits struct {
	ArchiveBytes  int64 // the size of an archive file
	UnpackedBytes int64 // an archive's entries together, uncompressed
	Entries       int   // the entries of an archive, or the files of a directory
	FileBytes     int64 // one source file
	Depth         int   // how deep in a directory or archive a workspace may be
}

// DefaultLimits are generous for a workspace (a few hundred KiB of Go) and
// tight for an archive bomb.
var DefaultLimits = Limits{ArchiveBytes: 64 << 20, UnpackedBytes: 256 << 20, Entries: 20000, FileBytes: 1 << 20, Depth: 6}

// keep reports whether kata keeps the content of a file: Go sources, which
// a lesson file (or a link to one) may be.
func keep(name string) bool {
	return strings.HasSuffix(name, ".go")
}

// add records a file of an archive in t, reading it from open if kata
// keeps it.
func (t *tree) add(name string, size int64, open func() (io.Reader, error), lim Limits) error {
	e := &entry{}
	if keep(name) {
		if _, dup := t.entries[name]; dup {
			e.problem = path.Base(name) + " appears twice in the archive"
		} else if size > lim.FileBytes {
			e.problem = tooLarge(path.Base(name), size, lim.FileBytes)
		} else {
			r, err := open()
			if err != nil {
				e.problem = path.Base(name) + " could not be read from the archive: " + err.Error()
			} else {
				data, err := io.ReadAll(io.LimitReader(r, lim.FileBytes+1))
				switch {
				case errors.Is(err, errTooMuch):
					return err
				case err != nil:
					e.problem = path.Base(name) + " could not be read from the archive: " + err.Error()
				case int64(len(data)) > lim.FileBytes:
					e.problem = tooLarge(path.Base(name), int64(len(data)), lim.FileBytes)
				default:
					e.data = data
				}
			}
		}
	}
	t.entries[name] = e
	return nil
}

func tooLarge(name string, size, limit int64) string {
	return fmt.Sprintf("%s is larger than %d KiB (%d bytes): not a lesson file", name, limit>>10, size)
}

// readZip reads a .zip archive.
func readZip(file string, lim Limits) (*tree, error) {
	if err := checkSize(file, lim); err != nil {
		return nil, err
	}
	zr, err := zip.OpenReader(file)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, fmt.Errorf("not a readable zip archive: %v", err)
	}
	defer zr.Close()
	if len(zr.File) > lim.Entries {
		return nil, fmt.Errorf("the archive has more than %d entries", lim.Entries)
	}
	t := newTree()
	var total int64
	for _, f := range zr.File {
		name, err := cleanName(f.Name)
		if err != nil {
			return nil, err
		}
		total += int64(f.UncompressedSize64)
		if total > lim.UnpackedBytes || f.UncompressedSize64 > uint64(lim.UnpackedBytes) {
			return nil, fmt.Errorf("the archive unpacks to more than %d MiB", lim.UnpackedBytes>>20)
		}
		if name == "." {
			continue
		}
		mode := f.Mode()
		switch {
		case mode.IsDir():
			t.entries[name] = &entry{dir: true}
		case mode&fs.ModeSymlink != 0:
			r, err := f.Open()
			if err != nil {
				t.entries[name] = &entry{problem: path.Base(name) + " is a link that could not be read"}
				continue
			}
			target, _ := io.ReadAll(io.LimitReader(r, 4096))
			r.Close()
			t.entries[name] = &entry{link: string(target)}
		case !mode.IsRegular():
			t.entries[name] = &entry{problem: path.Base(name) + " is not a regular file"}
		default:
			var rc io.ReadCloser
			err := t.add(name, int64(f.UncompressedSize64), func() (io.Reader, error) {
				var err error
				rc, err = f.Open()
				return rc, err
			}, lim)
			if rc != nil {
				rc.Close()
			}
			if err != nil {
				return nil, err
			}
		}
	}
	return t, nil
}

// readTarFile reads a .tar, .tar.gz or .tgz archive.
func readTarFile(file string, lim Limits) (*tree, error) {
	if err := checkSize(file, lim); err != nil {
		return nil, err
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if !strings.HasSuffix(strings.ToLower(file), ".tar") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("not a readable gzip archive: %v", err)
		}
		defer gz.Close()
		r = gz
	}
	return readTar(r, lim)
}

// errTooMuch is what a limitedReader returns past its limit.
var errTooMuch = errors.New("too much data")

// limitedReader is io.LimitReader that fails, rather than ends, at its
// limit: an archive that unpacks past the limit is refused, not cut.
type limitedReader struct {
	r    io.Reader
	left int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, errTooMuch
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

// readTar reads a tar stream: every byte it unpacks, skipped entries
// included, counts against the limit.
func readTar(r io.Reader, lim Limits) (*tree, error) {
	lr := &limitedReader{r: r, left: lim.UnpackedBytes}
	tr := tar.NewReader(lr)
	t := newTree()
	for n := 0; ; n++ {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if errors.Is(err, errTooMuch) {
			return nil, fmt.Errorf("the archive unpacks to more than %d MiB", lim.UnpackedBytes>>20)
		}
		if err != nil && !errors.Is(err, tar.ErrInsecurePath) {
			return nil, fmt.Errorf("not a readable tar archive: %v", err)
		}
		if n >= lim.Entries {
			return nil, fmt.Errorf("the archive has more than %d entries", lim.Entries)
		}
		name, err := cleanName(hdr.Name)
		if err != nil {
			return nil, err
		}
		if name == "." {
			continue
		}
		switch hdr.Typeflag {
		case tar.TypeDir:
			t.entries[name] = &entry{dir: true}
		case tar.TypeSymlink:
			t.entries[name] = &entry{link: hdr.Linkname}
		case tar.TypeLink:
			// A hard link names an earlier entry by its path in the
			// archive; it must be inside, and is that entry's content.
			target, err := cleanName(hdr.Linkname)
			if err != nil {
				return nil, err
			}
			if e, ok := t.entries[target]; ok {
				c := *e
				t.entries[name] = &c
			} else {
				t.entries[name] = &entry{problem: path.Base(name) + " is a link to an entry the archive does not have"}
			}
		case tar.TypeReg, tar.TypeGNUSparse:
			if err := t.add(name, hdr.Size, func() (io.Reader, error) { return tr, nil }, lim); err != nil {
				return nil, fmt.Errorf("the archive unpacks to more than %d MiB", lim.UnpackedBytes>>20)
			}
		case tar.TypeXGlobalHeader, tar.TypeXHeader:
		default:
			t.entries[name] = &entry{problem: path.Base(name) + " is not a regular file"}
		}
	}
	return t, nil
}

func checkSize(file string, lim Limits) error {
	fi, err := os.Stat(file)
	if err != nil {
		return err
	}
	if fi.Size() > lim.ArchiveBytes {
		return fmt.Errorf("the archive is larger than %d MiB", lim.ArchiveBytes>>20)
	}
	return nil
}

// readDir reads a directory. It does not follow links to directories; a
// link to a file is followed only if the file is inside the directory.
func readDir(dir string, lim Limits) (*tree, error) {
	top, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(top)
	if err != nil {
		return nil, err
	}
	t := newTree()
	n := 0
	err = filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == top {
				return err
			}
			return nil // an unreadable corner: what is not read cannot be graded
		}
		rel, _ := filepath.Rel(top, p)
		name := filepath.ToSlash(rel)
		if name == "." {
			return nil
		}
		if n++; n > lim.Entries {
			return fmt.Errorf("the directory holds more than %d files", lim.Entries)
		}
		if d.IsDir() {
			if depth(name) > lim.Depth || (skipDir(name) && path.Base(name) != ".kata") || name == ".kata/backup" || strings.HasSuffix(name, "/.kata/backup") {
				return fs.SkipDir
			}
			t.entries[name] = &entry{dir: true}
			return nil
		}
		e := &entry{}
		t.entries[name] = e
		if !keep(name) {
			return nil
		}
		base := path.Base(name)
		target := p
		if d.Type()&fs.ModeSymlink != 0 {
			link, _ := os.Readlink(p)
			resolved, err := filepath.EvalSymlinks(p)
			if err != nil {
				e.problem = fmt.Sprintf("%s is a link to %q, which does not exist", base, link)
				return nil
			}
			if r, err := filepath.Rel(real, resolved); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
				e.problem = fmt.Sprintf("%s is a link to %q, outside the submission: submit the file itself", base, link)
				return nil
			}
			target = resolved
		}
		fi, err := os.Stat(target)
		switch {
		case err != nil:
			e.problem = base + " could not be read: " + err.Error()
		case !fi.Mode().IsRegular():
			e.problem = base + " is not a regular file"
		case fi.Size() > lim.FileBytes:
			e.problem = tooLarge(base, fi.Size(), lim.FileBytes)
		default:
			f, err := os.Open(target)
			if err != nil {
				e.problem = base + " could not be read: " + err.Error()
				return nil
			}
			data, err := io.ReadAll(io.LimitReader(f, lim.FileBytes+1))
			f.Close()
			switch {
			case err != nil:
				e.problem = base + " could not be read: " + err.Error()
			case int64(len(data)) > lim.FileBytes:
				e.problem = tooLarge(base, int64(len(data)), lim.FileBytes)
			default:
				e.data = data
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}
