//go:build unix

package grade

import (
	"errors"
	"syscall"
)

// openNonblock keeps an open of a named pipe from waiting for a writer;
// openNofollow refuses a link as the last element of a path.
const (
	openNonblock = syscall.O_NONBLOCK
	openNofollow = syscall.O_NOFOLLOW
)

// isLinkLoop reports whether err is an open's refusal of a link under
// openNofollow.
func isLinkLoop(err error) bool { return errors.Is(err, syscall.ELOOP) }
