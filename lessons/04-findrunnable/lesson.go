// Package findrunnable is lesson 04-findrunnable (being written).
package findrunnable
