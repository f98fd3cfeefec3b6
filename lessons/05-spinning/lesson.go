// Package spinning is lesson 05-spinning (being written).
package spinning
