// Package globrunqget is lesson 03-globrunqget (being written).
package globrunqget
