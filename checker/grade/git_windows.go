package grade

// openNonBlocking is nothing on Windows, whose files cannot be named pipes
// (those live in \\.\pipe\, not in a directory kata reads).
const openNonBlocking = 0
