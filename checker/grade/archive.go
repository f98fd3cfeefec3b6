package grade

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// Limits bound what kata reads of one submission.
type Limits struct {
	ArchiveBytes  int64 // the size of an archive file
	UnpackedBytes int64 // an archive's entries together, uncompressed
	Entries       int   // the entries of an archive, or the files of a directory
	FileBytes     int64 // one source file
	Depth         int   // how deep in a directory or archive a workspace may be
	// GitMemory and GitCPU bound each git kata runs on a repository (on
	// Linux: see package proclimit); 0 is DefaultLimits'.
	GitMemory int64
	GitCPU    time.Duration
}

// DefaultLimits are generous for a workspace (a few hundred KiB of Go) and
// tight for an archive bomb. Git reads a workspace's commit in a few MB
// of memory and milliseconds.
var DefaultLimits = Limits{ArchiveBytes: 64 << 20, UnpackedBytes: 256 << 20, Entries: 20000, FileBytes: 1 << 20, Depth: 6,
	GitMemory: 512 << 20, GitCPU: gitTimeout}

// readZip lists a .zip archive. Its limits are checked before Go's zip
// reader parses it (checkZipDirectory); only the entries extract asks for
// are ever decompressed, through the tree's close.
func readZip(file string, listed bool, lim Limits) (t *tree, err error) {
	f, err := openRegular(file, listed)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	if size > lim.ArchiveBytes {
		return nil, fmt.Errorf("the archive is larger than %d MiB", lim.ArchiveBytes>>20)
	}
	dirBytes, err := checkZipDirectory(f, size, lim.Entries)
	if err != nil {
		return nil, err
	}
	// Should Go's reader read more of the directory than the check above
	// counted (the two disagree on where it is), it is stopped.
	br := &budgetReaderAt{r: f, left: dirBytes + zipSlack}
	zr, err := zip.NewReader(br, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		if errors.Is(err, errTooMuch) {
			return nil, fmt.Errorf("not a readable zip archive: its central directory is not where its end record says")
		}
		return nil, fmt.Errorf("not a readable zip archive: %v", err)
	}
	br.left = -1 // the directory is read; each entry's reading has its own limit
	if len(zr.File) > lim.Entries {
		return nil, fmt.Errorf("the archive has more than %d entries", lim.Entries)
	}
	t = newTree()
	t.close = func() { f.Close() }
	var total uint64
	for _, zf := range zr.File {
		name, err := cleanName(zf.Name)
		if err != nil {
			return nil, err
		}
		total += zf.UncompressedSize64
		if total > uint64(lim.UnpackedBytes) || zf.UncompressedSize64 > uint64(lim.UnpackedBytes) {
			return nil, fmt.Errorf("the archive unpacks to more than %d MiB", lim.UnpackedBytes>>20)
		}
		if name == "." {
			continue
		}
		mode := zf.Mode()
		open := func() (io.ReadCloser, error) { return zf.Open() }
		switch {
		case mode.IsDir():
			t.entries[name] = &entry{name: name, dir: true}
		case mode&fs.ModeSymlink != 0:
			t.add(name, &entry{unread: true, size: int64(zf.UncompressedSize64), open: open})
		case !mode.IsRegular():
			t.add(name, &entry{problem: path.Base(name) + " is not a regular file"})
		default:
			t.add(name, &entry{size: int64(zf.UncompressedSize64), open: open})
		}
	}
	return t, nil
}

// The zip format's records and their signatures (APPNOTE.TXT 4.3).
const (
	zipDirHeaderSig   = 0x02014b50 // a central directory record
	zipDirHeaderLen   = 46         // + name, extra field, comment
	zipEndSig         = 0x06054b50 // end of central directory
	zipEndLen         = 22         // + comment
	zipEnd64LocSig    = 0x07064b50 // zip64 end of central directory locator
	zipEnd64LocLen    = 20
	zipEnd64Sig       = 0x06064b50 // zip64 end of central directory
	zipEnd64Len       = 56
	zipMaxRecordBytes = zipDirHeaderLen + 3*0xffff
	// zipSlack is what Go's reader may read beyond the directory kata
	// counted: the end records it looks for in the last 65 KiB, the
	// record it reads to check the directory's offset, and its buffer.
	zipSlack = 66<<10 + zipEnd64LocLen + zipEnd64Len + zipMaxRecordBytes + 64<<10
)

// checkZipDirectory checks a zip's central directory against the entry
// limit before Go's zip reader parses it: that reader reads every record
// up to the first that does not parse, whatever count the archive
// declares (it compares only the count's low 16 bits), and keeps them all:
// 1.4 million records fill 61 MiB and take 339 MB parsed. So: the count
// the end record (or the zip64 end record) declares must be within limit;
// then the records where Go's reader will look are counted, the way it
// reads them, and the counting stops past limit. It returns how many bytes
// of the directory were read.
func checkZipDirectory(r io.ReaderAt, size int64, limit int) (int64, error) {
	notZip := func(why string) error { return fmt.Errorf("not a readable zip archive: %s", why) }
	// The end record, in the last 1 KiB or else the last 65 KiB, as Go's
	// reader looks for it.
	var end []byte
	var endAt int64
	for i, n := range []int64{1024, 65 * 1024} {
		n = min(n, size)
		buf := make([]byte, n)
		if _, err := r.ReadAt(buf, size-n); err != nil && err != io.EOF {
			return 0, err
		}
		if p := findZipEnd(buf); p >= 0 {
			end, endAt = buf[p:], size-n+int64(p)
			break
		}
		if i == 1 || n == size {
			return 0, notZip("zip: not a valid zip file")
		}
	}
	le := binary.LittleEndian
	records, dirSize, dirOffset := uint64(le.Uint16(end[10:])), uint64(le.Uint32(end[12:])), uint64(le.Uint32(end[16:]))
	if records == 0xffff || dirSize == 0xffff || dirOffset == 0xffffffff {
		if loc := endAt - zipEnd64LocLen; loc >= 0 {
			b := make([]byte, zipEnd64LocLen)
			if _, err := r.ReadAt(b, loc); err != nil {
				return 0, notZip(err.Error())
			}
			if le.Uint32(b) == zipEnd64LocSig && le.Uint32(b[4:]) == 0 && le.Uint32(b[16:]) == 1 {
				at := le.Uint64(b[8:])
				e64 := make([]byte, zipEnd64Len)
				if at > uint64(size) {
					return 0, notZip("its zip64 end record is outside it")
				}
				if _, err := r.ReadAt(e64, int64(at)); err != nil {
					return 0, notZip(err.Error())
				}
				if le.Uint32(e64) != zipEnd64Sig {
					return 0, notZip("zip: not a valid zip file")
				}
				records, dirSize, dirOffset, endAt = le.Uint64(e64[32:]), le.Uint64(e64[40:]), le.Uint64(e64[48:]), int64(at)
			}
		}
	}
	if records > uint64(limit) {
		return 0, fmt.Errorf("the archive has more than %d entries (it declares %d)", limit, records)
	}
	if dirSize > uint64(size) || dirOffset > uint64(size) {
		return 0, notZip("its central directory is larger than the archive")
	}
	base := endAt - int64(dirSize) - int64(dirOffset)
	if o := base + int64(dirOffset); o < 0 || o >= size {
		return 0, notZip("zip: not a valid zip file")
	}
	if base > 0 && zipRecordAt(r, int64(dirOffset), size) {
		base = 0 // as Go's reader does: a directory where the offset says, without the prefix
	}
	// Count the records as Go's reader will read them: from the start of
	// the directory, until one does not parse.
	start := base + int64(dirOffset)
	br := bufio.NewReaderSize(io.NewSectionReader(r, start, size-start), 64<<10)
	var read int64
	var hdr [zipDirHeaderLen]byte
	for n := 0; ; n++ {
		if _, err := io.ReadFull(br, hdr[:]); err != nil || le.Uint32(hdr[:]) != zipDirHeaderSig {
			break
		}
		rest := int(le.Uint16(hdr[28:])) + int(le.Uint16(hdr[30:])) + int(le.Uint16(hdr[32:]))
		if k, err := br.Discard(rest); err != nil || k != rest {
			break
		}
		read += int64(zipDirHeaderLen + rest)
		if n+1 > limit {
			return 0, fmt.Errorf("the archive has more than %d entries (though it declares %d)", limit, records)
		}
	}
	return read, nil
}

// findZipEnd returns where the end of central directory record starts in
// b (the end of a file), or -1: the last signature whose comment fits.
func findZipEnd(b []byte) int {
	for i := len(b) - zipEndLen; i >= 0; i-- {
		if binary.LittleEndian.Uint32(b[i:]) == zipEndSig {
			if n := int(binary.LittleEndian.Uint16(b[i+zipEndLen-2:])); i+zipEndLen+n > len(b) {
				return -1
			}
			return i
		}
	}
	return -1
}

// zipRecordAt reports whether a whole central directory record is at off.
func zipRecordAt(r io.ReaderAt, off, size int64) bool {
	var hdr [zipDirHeaderLen]byte
	if off < 0 || off+zipDirHeaderLen > size {
		return false
	}
	if _, err := r.ReadAt(hdr[:], off); err != nil || binary.LittleEndian.Uint32(hdr[:]) != zipDirHeaderSig {
		return false
	}
	rest := int64(binary.LittleEndian.Uint16(hdr[28:])) + int64(binary.LittleEndian.Uint16(hdr[30:])) + int64(binary.LittleEndian.Uint16(hdr[32:]))
	return off+zipDirHeaderLen+rest <= size
}

// budgetReaderAt is an io.ReaderAt that fails with errTooMuch once it has
// read left bytes; a negative left is no limit.
type budgetReaderAt struct {
	r    io.ReaderAt
	left int64
}

func (b *budgetReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if b.left >= 0 {
		if int64(len(p)) > b.left {
			return 0, errTooMuch
		}
		b.left -= int64(len(p))
	}
	return b.r.ReadAt(p, off)
}

// readTarFile lists a .tar, .tar.gz or .tgz archive. A tar can only be
// read in order, so the lesson files are read by reading it a second time
// (the tree's read), skipping to them; both readings stop at the limits.
func readTarFile(file string, listed bool, lim Limits) (*tree, error) {
	// One descriptor for both scans: the file read second is the one
	// scanned first, whatever happens to the name meanwhile.
	f, err := openRegular(file, listed)
	if err != nil {
		return nil, err
	}
	if err := checkSize(f, lim); err != nil {
		f.Close()
		return nil, err
	}
	t := newTree()
	t.close = func() { f.Close() }
	gzipped := !strings.HasSuffix(strings.ToLower(file), ".tar")
	err = scanTarFile(f, gzipped, lim, func(n int, hdr *tar.Header, _ io.Reader) (bool, error) {
		return false, t.addTar(n, hdr)
	})
	if err != nil {
		f.Close()
		return nil, err
	}
	t.read = func(es []*entry, limit int64) {
		want := map[int]*entry{}
		for _, e := range es {
			want[e.index] = e
		}
		err := scanTarFile(f, gzipped, lim, func(n int, hdr *tar.Header, r io.Reader) (bool, error) {
			e := want[n]
			if e == nil {
				return false, nil
			}
			delete(want, n)
			if name, _ := cleanName(hdr.Name); name != e.name {
				e.problem = path.Base(e.name) + " could not be read: the archive changed while kata read it"
			} else {
				data, err := io.ReadAll(io.LimitReader(r, limit+1))
				if errors.Is(err, errTooMuch) {
					return true, err
				}
				e.setContent(data, err, limit)
			}
			return len(want) == 0, nil
		})
		for _, e := range want {
			if err == nil {
				err = errors.New("the archive changed while kata read it")
			}
			e.problem = path.Base(e.name) + " could not be read: " + err.Error()
		}
	}
	return t, nil
}

// scanTarFile scans the tar archive f (gzip-compressed if gzipped) from
// its start.
func scanTarFile(f *os.File, gzipped bool, lim Limits, each func(n int, hdr *tar.Header, r io.Reader) (stop bool, err error)) error {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	var r io.Reader = f
	if gzipped {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return fmt.Errorf("not a readable gzip archive: %v", err)
		}
		defer gz.Close()
		r = gz
	}
	return scanTar(r, lim, each)
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

// scanTar reads a tar stream in order, calling each for every header (n
// counts them; r is the entry's content, to read or not) until each says
// stop. Every byte it unpacks, skipped entries included, counts against
// the limit, and so does every header.
func scanTar(r io.Reader, lim Limits, each func(n int, hdr *tar.Header, r io.Reader) (stop bool, err error)) error {
	tooMuch := fmt.Errorf("the archive unpacks to more than %d MiB", lim.UnpackedBytes>>20)
	tr := tar.NewReader(&limitedReader{r: r, left: lim.UnpackedBytes})
	for n := 0; ; n++ {
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if errors.Is(err, errTooMuch) {
			return tooMuch
		}
		if err != nil && !errors.Is(err, tar.ErrInsecurePath) {
			return fmt.Errorf("not a readable tar archive: %v", err)
		}
		if n >= lim.Entries {
			return fmt.Errorf("the archive has more than %d entries", lim.Entries)
		}
		stop, err := each(n, hdr, tr)
		if errors.Is(err, errTooMuch) {
			return tooMuch
		}
		if err != nil || stop {
			return err
		}
	}
}

// addTar records the nth header of a tar in t.
func (t *tree) addTar(n int, hdr *tar.Header) error {
	name, err := cleanName(hdr.Name)
	if err != nil {
		return err
	}
	if name == "." {
		return nil
	}
	switch hdr.Typeflag {
	case tar.TypeDir:
		t.entries[name] = &entry{name: name, dir: true}
	case tar.TypeSymlink:
		if len(hdr.Linkname) > maxLinkBytes {
			t.add(name, &entry{problem: fmt.Sprintf("%s is a link of %d bytes, longer than any file system's path (at most %d)", path.Base(name), len(hdr.Linkname), maxLinkBytes)})
			break
		}
		t.add(name, &entry{link: hdr.Linkname})
	case tar.TypeLink:
		// A hard link names an earlier entry by its path in the archive;
		// it must be inside, and is that entry.
		target, err := cleanName(hdr.Linkname)
		if err != nil {
			return err
		}
		if e, ok := t.entries[target]; ok {
			t.entries[name] = e
		} else {
			t.add(name, &entry{problem: path.Base(name) + " is a link to an entry the archive does not have"})
		}
	case tar.TypeReg, tar.TypeGNUSparse:
		t.add(name, &entry{size: hdr.Size, index: n})
	case tar.TypeXGlobalHeader, tar.TypeXHeader:
	default:
		t.add(name, &entry{problem: path.Base(name) + " is not a regular file"})
	}
	return nil
}

func checkSize(f *os.File, lim Limits) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.Size() > lim.ArchiveBytes {
		return fmt.Errorf("the archive is larger than %d MiB", lim.ArchiveBytes>>20)
	}
	return nil
}

// walkFS calls fn for each file and directory under dir of fsys (names
// as fs.WalkDir gives them), as fs.WalkDir does, but reads each directory
// a batch of entries at a time, in the order it lists them: fn's error
// (an entry limit's) stops the walk before the rest of a huge directory is
// read, where fs.WalkDir reads and sorts it whole first (a red team's
// directory of 300,000 files took 137 MB of kata's memory before it was
// refused). fn returning fs.SkipDir for a directory skips it. A directory
// that cannot be opened or listed goes to unreadable, whose nil skips it
// and whose error stops the walk.
func walkFS(fsys fs.FS, dir string, fn func(name string, d fs.DirEntry) error, unreadable func(name string, err error) error) error {
	f, err := fsys.Open(dir)
	if err != nil {
		return unreadable(dir, err)
	}
	defer f.Close()
	rd, ok := f.(fs.ReadDirFile)
	if !ok {
		return unreadable(dir, fmt.Errorf("not a directory"))
	}
	for {
		batch, err := rd.ReadDir(256)
		for _, d := range batch {
			name := path.Join(dir, d.Name())
			switch err := fn(name, d); {
			case err == fs.SkipDir:
				continue
			case err != nil:
				return err
			}
			if d.IsDir() {
				if err := walkFS(fsys, name, fn, unreadable); err != nil {
					return err
				}
			}
		}
		switch {
		case err == io.EOF || err == nil && len(batch) == 0:
			return nil
		case err != nil:
			return unreadable(dir, err)
		}
	}
}

// readDir lists a directory; its lesson files are read when extract asks
// for them, through the directory opened once (openSubmissionDir; listed:
// found in a class listing, so it must still be the directory listed). It
// does not follow links to directories; a link to a file is followed only
// if the file is inside the directory.
func readDir(dir string, listed bool, lim Limits) (*tree, error) {
	top, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	root, err := openSubmissionDir(top, listed)
	if err != nil {
		return nil, err
	}
	t := newTree()
	t.close = func() { root.Close() }
	n := 0
	err = walkFS(root.FS(), ".", func(name string, d fs.DirEntry) error {
		p := filepath.Join(top, filepath.FromSlash(name))
		if n++; n > lim.Entries {
			return fmt.Errorf("the directory holds more than %d files", lim.Entries)
		}
		if d.IsDir() {
			if depth(name) > lim.Depth || (skipDir(name) && path.Base(name) != ".kata") || name == ".kata/backup" || strings.HasSuffix(name, "/.kata/backup") {
				return fs.SkipDir
			}
			t.entries[name] = &entry{name: name, dir: true}
			return nil
		}
		e := &entry{name: name, size: -1}
		t.entries[name] = e
		if d.Type()&fs.ModeSymlink != 0 {
			// A link is followed as an archive's is (tree.resolve): its
			// target read once, and only if a lesson file's path goes
			// through it, then joined to the path lexically, inside the
			// submission, at most maxLinkHops links. The file system's
			// own resolution (EvalSymlinks) lstat()s every component of
			// every target, up to 255 links: a red team's links into a 4
			// KB loop cost kata 0.7 s of CPU each. What the path leads to
			// is read through the root, which keeps it inside.
			link, err := os.Readlink(p)
			switch {
			case err != nil:
				e.problem = path.Base(name) + " is a link that could not be read"
			case len(link) > maxLinkBytes:
				e.problem = fmt.Sprintf("%s is a link of %d bytes, longer than any file system's path (at most %d)", path.Base(name), len(link), maxLinkBytes)
			default:
				e.link = link
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			// Not a lesson file: its name is all kata needs, unless a
			// lesson file is a link to it.
			e.open = func() (io.ReadCloser, error) { return openInRoot(root, name) }
			return nil
		}
		base := path.Base(name)
		fi, err := os.Lstat(p)
		switch {
		case err != nil:
			e.problem = base + " could not be read: " + err.Error()
		case !fi.Mode().IsRegular():
			e.problem = base + " is not a regular file"
		default:
			// Read through the root: what the name leads to by then
			// stays inside the submission, and a pipe put in its place
			// is refused, not waited on.
			e.size = fi.Size()
			e.open = func() (io.ReadCloser, error) { return openInRoot(root, name) }
		}
		return nil
	}, func(name string, err error) error {
		if name == "." {
			return err
		}
		return nil // an unreadable corner: what is not read cannot be graded
	})
	if err != nil {
		root.Close()
		return nil, err
	}
	return t, nil
}
