// Package gopark is lesson 06-gopark (being written).
package gopark
