package grade

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// A class directory is read while students may still write to it (a
// shared upload folder, a synced drive). What kata listed may be swapped
// before it is read: a directory for a link to the instructor's files, an
// archive for a named pipe whose open never returns (a red team hung kata
// that way, past Ctrl-C, and had it read a planted secret as a lesson
// file). So each submission is opened once, without following a link if
// it was found in a class listing, without waiting on a pipe, and checked
// to be what was listed (a regular file, or the very directory) on the
// descriptor kata then reads through.

// errChanged is why a submission swapped after kata listed it is refused.
var errChanged = errors.New("it changed while kata read it (a link or another directory took the listed one's place): hand it in again, and grade when nobody writes to the class's directory")

// openRegular opens file for reading, refusing anything but a regular
// file: a named pipe or a device is refused without being waited on. With
// listed (the file was found in a class listing), a link is refused too.
func openRegular(file string, listed bool) (*os.File, error) {
	flags := os.O_RDONLY | openNonblock
	if listed {
		flags |= openNofollow
		if openNofollow == 0 { // Windows: no flag refuses a link, so look first
			if fi, err := os.Lstat(file); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
				return nil, errChanged
			}
		}
	}
	f, err := os.OpenFile(file, flags, 0)
	if err != nil {
		if listed && isLinkLoop(err) {
			return nil, errChanged
		}
		return nil, err
	}
	return regular(f)
}

// regular returns f if it is a regular file, or closes it and says what
// it is.
func regular(f *os.File) (*os.File, error) {
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("not a regular file (%s)", fi.Mode().Type())
	}
	return f, nil
}

// openSubmissionDir opens dir as a root kata reads the submission
// through: every file is opened relative to it, links followed only
// inside it. With listed, dir must still be the directory that was listed,
// not a link (os.OpenRoot follows one).
func openSubmissionDir(dir string, listed bool) (*os.Root, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	if listed {
		li, err := os.Lstat(dir)
		ri, err2 := root.Stat(".")
		if err != nil || err2 != nil || li.Mode()&fs.ModeSymlink != 0 || !os.SameFile(li, ri) {
			root.Close()
			return nil, errChanged
		}
	}
	return root, nil
}

// openInRoot opens name (slash-separated) in root for reading, as
// openRegular does: a regular file, not waited on.
func openInRoot(root *os.Root, name string) (*os.File, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, err
	}
	return regular(f)
}
