package grade

// Windows has no named pipes in its file system to wait on, and Go's
// open there takes no flag that refuses a link: openRegular looks at the
// path with Lstat first instead (a race a determined writer can still win).
const (
	openNonblock = 0
	openNofollow = 0
)

func isLinkLoop(err error) bool { return false }
