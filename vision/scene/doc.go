// Package scene is dicewatch's own generator of table scenes with ground
// truth: whole throw sessions rendered as video for the motion tracker, the
// daemon, the demo and replay, and still scenes for the dice reader's
// accuracy harness. Everything is deterministic from a seed.
//
// # Sessions
//
// A session is a sequence of throws on the landing half of a 12-foot craps
// table (calibration.Craps12Zones) seen by an overhead camera, with idle
// table time between throws. In each throw two red translucent casino dice
// (19 mm, white pips) enter from the shooter's end (the left edge of the
// picture), tumble with motion blur, strike the back wall and roll back to
// rest, or end as the throw's Kind says: off the table over a side rail
// (out of the picture), in the bowl, on the bank, in a rail's chip groove,
// cocked against a chip stack or the back wall, or stacked on the other die.
// The dice then stay still for 0.7 to 0.9 s before the stick reaches in
// (0.3 s) and drags them off the bottom of the picture (0.5 s).
//
//	s, err := scene.NewSession(scene.Config{Seed: 7, Throws: 12})
//	defer s.Close()
//	img := gocv.NewMat()
//	defer img.Close()
//	for k := 0; k < s.Frames(); k++ {
//		ft, err := s.Render(k, &img) // frame k at s.Camera().FrameMS(k)
//		...
//	}
//	truth := s.Truth()          // one ThrowTruth per throw
//	trace := s.SensorEvents()   // sensors.Event, same clock
//	cal := s.Calibration()      // the true camera calibration
//
// Generate renders a session to a directory: session.avi (Motion-JPEG AVI
// at the camera's fps), truth.jsonl (ThrowTruth lines), frames.jsonl
// (FrameTruth lines), sensors.jsonl (sensors.Event lines), calibration.yaml
// and session.json (Manifest). README.md ("The scene generator") describes the formats.
//
// Time: frame k is at floor(k*1000/fps) ms on the stream clock, and sensor
// events use the same clock. A dropped frame (Config.DropRate) repeats the
// previous frame's picture, as a camera that missed an exposure does; it is
// marked in frames.jsonl and listed in session.json.
//
// # Still scenes
//
// Still renders one photo-like scene with its ground truth for the reader:
// dice of several colour schemes, flat, cocked, stacked, against chips and
// walls, under lighting gradients, glare, noise, blur and JPEG artefacts.
//
// # Camera height
//
// Both generators first drew a die resting on another larger than any
// table camera would see it: the stills 1.08 to 1.2 times a die on the
// felt, the sessions 1.16 to 1.2 (and a hopping die 1 + 0.0085 per mm of
// height), which a pinhole camera only 0.13 to 0.28 m over the felt
// shows (ImpliedCameraHeightMM). That draw stays the default, bit for bit
// (TestHistoricalDrawUnchanged). StillOptions.CameraHeightMM (a range
// each still draws a height from) and Config.CameraHeightMM put the
// camera at a height instead: a raised top face is drawn larger by the
// ratio of the depths, (H-e)/(H-e-z) for a face z mm above a lone die's
// (StackedView for a die on a die: 1.034 at 0.6 m, 1.020 at 1 m, 1.013
// at 1.5 m, with 19 mm dice), and moved out from the point under the
// camera by the same factor (parallax: r*z/(H-e-z) for a point r from
// it), its shadow left where it falls from its footprint.
//
// Every gocv.Mat the package makes is closed by its owner; Session.Close
// releases the session's own.
package scene
