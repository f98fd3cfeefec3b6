// Package procresize is lesson 08-procresize (being written).
package procresize
