package checker

// A grade depends only on what its cache key holds (checker/grade keys the
// go command's settings, GOMAXPROCS and GODEBUG). So of kata's own
// environment a test binary gets only the variables the key holds, and
// every run gets the same time zone and locale whatever kata was started
// with: a test that formats a time or a number reads the same in every
// classroom, and a GORACE or GOTRACEBACK of the grader's (halt_on_error,
// a shorter history, a different dump) cannot change what a run reports.
// The race detector's settings are kata's own (raceEnv).

// passedEnv are the variables of kata's environment a test binary gets,
// if set: how the Go runtime is tuned.
var passedEnv = []string{"GOMAXPROCS", "GODEBUG"}

// pinnedEnv is what every run of a test binary gets, whatever kata's
// environment says.
var pinnedEnv = []string{"TZ=UTC", "LANG=C", "LC_ALL=C"}

// unpassedEnv are the variables a run never takes from kata's environment
// (where, as on Windows, the rest of it is passed on): pinnedEnv's, and
// the runtime's and the race detector's settings that are not keyed.
var unpassedEnv = map[string]bool{
	"TZ": true, "LANG": true, "LC_ALL": true, "LC_CTYPE": true, "LC_MESSAGES": true,
	"GORACE": true, "GOTRACEBACK": true,
}
