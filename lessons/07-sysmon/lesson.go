// Package sysmon is lesson 07-sysmon (being written).
package sysmon
