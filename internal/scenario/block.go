package scenario

import "time"

// blockFor blocks the calling thread for ms milliseconds, as a system call
// would.
func blockFor(ms int) {
	time.Sleep(time.Duration(ms) * time.Millisecond)
}
