package checker

// memoryLimitEnforced says whether MaxMemory works on this system: on
// Windows the watchdog has no cheap way to add up a process tree's memory
// (a job object would do it; kata does not make one yet).
const memoryLimitEnforced = false
