//go:build race

package calibview

// raceEnabled trims the generated-image matrix under the race detector,
// which makes the pure-Go renderer about ten times slower. The full matrix
// runs in the ordinary `go test ./vision/calibview/`.
const raceEnabled = true
