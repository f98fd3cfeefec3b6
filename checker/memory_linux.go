package checker

// memoryLimitEnforced says whether MaxMemory works on this system: the
// watchdog reads /proc (sandbox.MemoryOf) five times a second.
const memoryLimitEnforced = true
