//go:build !linux

package main

// releaseStartupPages does nothing outside Linux (see startup_linux.go).
func releaseStartupPages() {}
