//go:build !race

package main

// maxRSSKiB bounds the memory of the test binary run as ralph_loop.
const maxRSSKiB = 50 << 10
