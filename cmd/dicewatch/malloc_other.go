//go:build !linux

package main

// oneShotMalloc does nothing here: the malloc tuning (malloc_linux.go) is
// glibc's, and the product runs on Linux.
func oneShotMalloc() {}
