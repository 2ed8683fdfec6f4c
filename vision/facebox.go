package vision

import (
	"image"
	"math"
)

// faceAroundPips is the box of a die's top face, found around the pips
// read on it: pips is their box, blob the die's segmented box (loose) and
// edge the face's size as the pip reader measured it, all in frame
// pixels. It reports false when it cannot tell; the caller then keeps its
// box.
//
// A face's pip layout is symmetric about the face's centre, so the pips'
// box is centred on the face. The die's footprint (the pixels that stand
// out from the floor around it) holds the top face and, in an angled
// view, the side faces turned to the camera; a shadow may lie beside it
// too. The top face's image is near symmetric about its centre (a die is
// small against its distance from the camera), while side faces and
// shadows reach out on one side only. So on each axis the face reaches as
// far from its centre as the nearer end of the footprint's run through
// that centre. In a straight-down view the footprint is near symmetric
// and the box is the die's footprint. A run ends where the pixels no
// longer stand out from the floor's own texture, so the box takes in the
// die's blurred outline.
func faceAroundPips(fr bgrImage, blob, pips image.Rectangle, edge float64) (image.Rectangle, bool) {
	reg := blob.Inset(-4).Intersect(image.Rect(0, 0, fr.w, fr.h))
	if pips.Empty() || reg.Dx() < 8 || reg.Dy() < 8 || edge < 6 {
		return image.Rectangle{}, false
	}
	cx, cy := float64(pips.Min.X+pips.Max.X)/2, float64(pips.Min.Y+pips.Max.Y)/2
	ix, iy := int(cx), int(cy)
	if !image.Pt(ix, iy).In(reg) {
		return image.Rectangle{}, false
	}
	px := func(x, y int) []uint8 {
		o := (y*fr.w + x) * 3
		return fr.pix[o : o+3 : o+3]
	}
	// The body's colour: per-channel median of a square about the centre
	// (a pip there is a minority of it).
	var bh [3][256]int32
	n := 0
	r0 := max(2, int(0.25*edge))
	for y := max(iy-r0, reg.Min.Y); y < min(iy+r0, reg.Max.Y); y++ {
		for x := max(ix-r0, reg.Min.X); x < min(ix+r0, reg.Max.X); x++ {
			p := px(x, y)
			bh[0][p[0]]++
			bh[1][p[1]]++
			bh[2][p[2]]++
			n++
		}
	}
	if n < 9 {
		return image.Rectangle{}, false
	}
	body := [3]int{histMedian(&bh[0], n), histMedian(&bh[1], n), histMedian(&bh[2], n)}
	// The floor's colour: per-channel median on the region's rim, two
	// pixels wide (the region is wider than the die's footprint).
	rim := func(f func(p []uint8)) {
		for y := reg.Min.Y; y < reg.Max.Y; y++ {
			if y < reg.Min.Y+2 || y >= reg.Max.Y-2 {
				for x := reg.Min.X; x < reg.Max.X; x++ {
					f(px(x, y))
				}
				continue
			}
			for _, x := range [4]int{reg.Min.X, reg.Min.X + 1, reg.Max.X - 2, reg.Max.X - 1} {
				f(px(x, y))
			}
		}
	}
	var fh [3][256]int32
	n = 0
	rim(func(p []uint8) {
		fh[0][p[0]]++
		fh[1][p[1]]++
		fh[2][p[2]]++
		n++
	})
	floor := [3]int{histMedian(&fh[0], n), histMedian(&fh[1], n), histMedian(&fh[2], n)}
	dist := func(p []uint8) int {
		return iabs(int(p[0])-floor[0]) + iabs(int(p[1])-floor[1]) + iabs(int(p[2])-floor[2])
	}
	contrast := iabs(body[0]-floor[0]) + iabs(body[1]-floor[1]) + iabs(body[2]-floor[2])
	if contrast < 30 {
		return image.Rectangle{}, false // die and floor alike
	}
	// The floor's texture (wood grain, print, noise): a pixel stands out
	// from the floor when it differs from the floor's colour by more than
	// most rim pixels do (and by a tenth of the die's contrast at least).
	var dh [3*255 + 1]int32
	rim(func(p []uint8) { dh[dist(p)]++ })
	thr := contrast / 10
	for v, acc := 0, int32(0); v < len(dh); v++ {
		if acc += dh[v]; 10*int(acc) >= 7*n {
			thr = max(thr, v)
			break
		}
	}
	band := max(2, int(0.15*edge))
	// A pip the walk crosses (pale pips on a dark die can look like the
	// floor) breaks the footprint for up to a pip's width; the floor
	// beyond the die runs on.
	gap := max(2, int(math.Round(0.18*edge)))
	// reach walks from the centre along one axis and returns how far the
	// footprint reaches: most of a band across the axis stands out.
	reach := func(dx, dy int) float64 {
		last := 0
		for s := 1; s-last <= gap; s++ {
			x, y := ix+s*dx, iy+s*dy
			if !image.Pt(x, y).In(reg) {
				break
			}
			// The band across the axis, clipped to the region.
			tlo, thi := -band, band
			if dy == 0 {
				tlo, thi = max(tlo, reg.Min.Y-y), min(thi, reg.Max.Y-1-y)
			} else {
				tlo, thi = max(tlo, reg.Min.X-x), min(thi, reg.Max.X-1-x)
			}
			stride := 3 * (iabs(dy) + iabs(dx)*fr.w)
			o := 3*(y*fr.w+x) + tlo*stride
			in, strong, tot := 0, 0, thi-tlo+1
			for t := tlo; t <= thi; t, o = t+1, o+stride {
				p := fr.pix[o : o+3 : o+3]
				if v := iabs(int(p[0])-floor[0]) + iabs(int(p[1])-floor[1]) + iabs(int(p[2])-floor[2]); v > thr {
					in++
					if 2*v > contrast {
						strong++
					}
				}
			}
			// Past a gap (a pip of the floor's colour) the run goes on
			// only into pixels more than halfway from the floor's colour
			// to the die's: the body beyond the pip, not a lighter
			// streak of floor beside the die.
			if 2*in >= tot && (s == last+1 || 2*strong >= tot) {
				last = s
			}
		}
		return float64(last) + 0.5
	}
	hx := math.Min(reach(-1, 0), reach(1, 0))
	hy := math.Min(reach(0, -1), reach(0, 1))
	// A face seen up to 60 degrees off its normal is under twice as long
	// as it is wide.
	if hx < 0.2*edge || hy < 0.2*edge || hx > 2*hy || hy > 2*hx {
		return image.Rectangle{}, false
	}
	fb := image.Rect(int(math.Floor(cx-hx)), int(math.Floor(cy-hy)), int(math.Ceil(cx+hx)), int(math.Ceil(cy+hy)))
	// The face holds its pips: a box that cuts them stopped short inside
	// the face.
	if !pips.In(fb) {
		return image.Rectangle{}, false
	}
	return fb, true
}

// histMedian is the median of the n values counted in h.
func histMedian(h *[256]int32, n int) int {
	acc := int32(0)
	for v := range h {
		if acc += h[v]; 2*int(acc) > n {
			return v
		}
	}
	return 255
}

func iabs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
