package calibration

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"sort"
)

// LearnDieColours learns the die body and pip colour ranges from a still
// with dice on the layout. boxes are the dice top faces in image pixels.
// Inside each box the brighter-or-darker majority is the body and the
// minority the pips (split at the Otsu threshold of the value channel).
// The ranges keep the 2nd..98th percentiles of each channel, widened by a
// margin, so a stray pixel does not stretch them.
func LearnDieColours(img image.Image, boxes []image.Rectangle) (body, pips ColourRange, err error) {
	var hsv [][3]float64
	for _, b := range boxes {
		b = b.Intersect(img.Bounds())
		// Stay off the box edge, where the table shows through.
		in := b.Inset(max(1, b.Dx()/10))
		for y := in.Min.Y; y < in.Max.Y; y++ {
			for x := in.Min.X; x < in.Max.X; x++ {
				hsv = append(hsv, toHSV(img.At(x, y)))
			}
		}
	}
	if len(hsv) < 20 {
		return body, pips, fmt.Errorf("calibration: learn die colours: %d pixels in the boxes, need at least 20", len(hsv))
	}
	var hist [256]int
	for _, p := range hsv {
		hist[int(p[2])]++
	}
	t := otsu(hist[:])
	var lo, hi [][3]float64
	for _, p := range hsv {
		if p[2] > t {
			hi = append(hi, p)
		} else {
			lo = append(lo, p)
		}
	}
	if len(lo) == 0 || len(hi) == 0 {
		return body, pips, fmt.Errorf("calibration: learn die colours: the boxes show one colour, no pips")
	}
	bodyPx, pipPx := hi, lo
	if len(lo) > len(hi) {
		bodyPx, pipPx = lo, hi
	}
	return colourRange(bodyPx), colourRange(pipPx), nil
}

// Contains reports whether an HSV colour (OpenCV scale) is in the range.
func (r ColourRange) Contains(hsv [3]float64) bool {
	for k := 1; k < 3; k++ {
		if hsv[k] < r.HSVMin[k] || hsv[k] > r.HSVMax[k] {
			return false
		}
	}
	if r.HSVMin[0] <= r.HSVMax[0] {
		return hsv[0] >= r.HSVMin[0] && hsv[0] <= r.HSVMax[0]
	}
	return hsv[0] >= r.HSVMin[0] || hsv[0] <= r.HSVMax[0]
}

func colourRange(px [][3]float64) ColourRange {
	var r ColourRange
	margin := [3]float64{8, 30, 30}
	limit := [3]float64{180, 255, 255}
	for k := 0; k < 3; k++ {
		v := make([]float64, len(px))
		for i, p := range px {
			v[i] = p[k]
		}
		sort.Float64s(v)
		lo := v[len(v)*2/100]
		hi := v[len(v)-1-len(v)*2/100]
		if k == 0 {
			// Hue is circular: if the widest gap is not at the ends, the
			// range wraps through 0.
			lo, hi = hueSpan(v)
			if lo > hi {
				r.HSVMin[0] = math.Mod(lo-margin[0]+180, 180)
				r.HSVMax[0] = math.Mod(hi+margin[0], 180)
				continue
			}
		}
		r.HSVMin[k] = math.Max(0, lo-margin[k])
		r.HSVMax[k] = math.Min(limit[k], hi+margin[k])
	}
	// Hue means nothing for greys and whites: accept any hue when the
	// colour is nearly unsaturated.
	if r.HSVMin[0] <= r.HSVMax[0] && r.HSVMax[0]-r.HSVMin[0] >= 180-2*margin[0] || r.HSVMax[1] < 60 {
		r.HSVMin[0], r.HSVMax[0] = 0, 180
	}
	return r
}

// hueSpan returns the shortest circular hue interval holding the sorted
// hues: it starts after the widest gap.
func hueSpan(v []float64) (lo, hi float64) {
	gap, at := v[0]+180-v[len(v)-1], 0
	for i := 1; i < len(v); i++ {
		if g := v[i] - v[i-1]; g > gap {
			gap, at = g, i
		}
	}
	if at == 0 {
		return v[0], v[len(v)-1]
	}
	return v[at], v[at-1]
}

func otsu(hist []int) float64 {
	var total, sum float64
	for i, h := range hist {
		total += float64(h)
		sum += float64(i * h)
	}
	var wB, sumB, best float64
	t := 0
	for i, h := range hist {
		wB += float64(h)
		if wB == 0 {
			continue
		}
		wF := total - wB
		if wF == 0 {
			break
		}
		sumB += float64(i * h)
		mB, mF := sumB/wB, (sum-sumB)/wF
		if v := wB * wF * (mB - mF) * (mB - mF); v > best {
			best, t = v, i
		}
	}
	return float64(t)
}

// toHSV converts to HSV on OpenCV's 8-bit scale (H 0..180).
func toHSV(c color.Color) [3]float64 {
	r16, g16, b16, _ := c.RGBA()
	r, g, b := float64(r16>>8), float64(g16>>8), float64(b16>>8)
	mx := math.Max(r, math.Max(g, b))
	mn := math.Min(r, math.Min(g, b))
	v := mx
	s := 0.0
	if mx > 0 {
		s = (mx - mn) / mx * 255
	}
	h := 0.0
	if d := mx - mn; d > 0 {
		switch mx {
		case r:
			h = 60 * (g - b) / d
		case g:
			h = 120 + 60*(b-r)/d
		default:
			h = 240 + 60*(r-g)/d
		}
		if h < 0 {
			h += 360
		}
	}
	return [3]float64{h / 2, s, v}
}
