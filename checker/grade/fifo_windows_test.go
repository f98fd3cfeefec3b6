package grade

import "errors"

// mkfifo fails: Windows has no named pipes among its files.
func mkfifo(p string) error { return errors.New("no named pipes among Windows files") }
