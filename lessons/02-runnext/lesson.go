// Package runnext is lesson 02-runnext (being written).
package runnext
