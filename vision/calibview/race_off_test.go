//go:build !race

package calibview

const raceEnabled = false
