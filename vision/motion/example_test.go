package motion_test

import (
	"fmt"
	"image"
	"image/color"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/vision/motion"
)

// A die slides in from the left edge, stops, and sits still: the tracker
// reports its first appearance, then the at-rest frame once nothing has
// moved for the settle window. A stick reaching in afterwards is the
// collection, not a new throw.
func Example() {
	tr := motion.New(motion.Config{DiePx: 12, SettleMS: 200})
	defer tr.Close()
	frame := gocv.NewMatWithSize(240, 320, gocv.MatTypeCV8UC3)
	defer frame.Close()
	draw := func(dieX int, stick bool) {
		frame.SetTo(gocv.NewScalar(50, 115, 45, 0)) // felt
		if dieX > -12 {
			gocv.Rectangle(&frame, image.Rect(dieX, 100, dieX+12, 112), color.RGBA{200, 30, 38, 0}, -1)
		}
		if stick {
			gocv.Rectangle(&frame, image.Rect(150, 130, 160, 240), color.RGBA{120, 80, 40, 0}, -1)
		}
	}
	path := []int{-20, -20, 0, 40, 75, 100, 115, 122, 125, 125}
	for k := 0; k < 34; k++ {
		x := path[min(k, len(path)-1)]
		stick := k >= 22 && k < 26
		if k >= 24 {
			x = -100 // the stick took the die
		}
		draw(x, stick)
		r := tr.Update(frame, int64(k)*40)
		switch {
		case r.Started:
			fmt.Printf("frame %d: throw started, die %d appeared\n", r.Frame, r.Appeared[0])
		case r.AtRest != nil:
			fmt.Printf("frame %d: at rest at %d ms (last change seen at %d ms, still since %d ms), %d die\n",
				r.Frame, r.AtRest.AtMS, r.AtRest.LastMotionMS, r.AtRest.StillSinceMS, len(r.AtRest.Dice))
		case r.Clear:
			fmt.Printf("frame %d: table clear, phase %s\n", r.Frame, r.Phase)
		}
	}
	// Output:
	// frame 2: throw started, die 0 appeared
	// frame 12: at rest at 480 ms (last change seen at 320 ms, still since 280 ms), 1 die
	// frame 30: table clear, phase idle
}
