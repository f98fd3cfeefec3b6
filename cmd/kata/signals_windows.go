package main

import "os"

// stopSignals end kata cleanly: on Windows, Ctrl-C and Ctrl-Break.
var stopSignals = []os.Signal{os.Interrupt}
