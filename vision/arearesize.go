package vision

import (
	"image"
	"math"

	"gocv.io/x/gocv"
)

// OpenCV's INTER_AREA shrink of an 8-bit 3-channel image by a non-integer
// factor (its generic resizeArea path), in Go. Each output is summed in
// OpenCV's order and precision (float32: a row's pixels times their
// weights across each output column, then those row sums times the row
// weights down each output row, then rounded half to even), so the result
// is bit-identical (TestAreaShrinkExact compares it with gocv.Resize on
// many sizes). It is faster because each source row is summed once (OpenCV
// sums a row shared by two output rows twice) and three output columns
// are summed side by side.

// areaEntry is one term of an output pixel's sum: source index, weight.
type areaEntry struct {
	si    int
	alpha float32
}

// areaCell is the run of terms for one output column or row.
type areaCell struct {
	k0, k1 int // entries [k0, k1)
}

// areaTab is OpenCV's computeResizeAreaTab (in pixels, not channels),
// grouped by output position.
func areaTab(ssize, dsize int, scale float64, tab []areaEntry, cells []areaCell) ([]areaEntry, []areaCell) {
	tab, cells = tab[:0], cells[:0]
	for dx := 0; dx < dsize; dx++ {
		fsx1 := float64(dx) * scale
		fsx2 := fsx1 + scale
		cellWidth := math.Min(scale, float64(ssize)-fsx1)
		sx1, sx2 := int(math.Ceil(fsx1)), int(math.Floor(fsx2))
		sx2 = min(sx2, ssize-1)
		sx1 = min(sx1, sx2)
		k0 := len(tab)
		if float64(sx1)-fsx1 > 1e-3 {
			tab = append(tab, areaEntry{sx1 - 1, float32((float64(sx1) - fsx1) / cellWidth)})
		}
		for sx := sx1; sx < sx2; sx++ {
			tab = append(tab, areaEntry{sx, float32(1.0 / cellWidth)})
		}
		if fsx2-float64(sx2) > 1e-3 {
			tab = append(tab, areaEntry{sx2, float32(math.Min(math.Min(fsx2-float64(sx2), 1), cellWidth) / cellWidth)})
		}
		cells = append(cells, areaCell{k0, len(tab)})
	}
	return tab, cells
}

// areaShrink holds the tables and row buffers between calls.
type areaShrink struct {
	sw, sh, dw, dh int
	xtab, ytab     []areaEntry
	xcells, ycells []areaCell
	hrow, sum      []float32
	// rowF holds four source rows as float32 (and a float to spare after
	// each) for the AVX2 row sums.
	rowF []float32
}

// areaUsable is whether OpenCV would take its generic area path for this
// shrink of a continuous 8UC3 Mat (not the integer-factor fast path).
func areaUsable(src gocv.Mat, dw, dh int) bool {
	if src.Type() != gocv.MatTypeCV8UC3 || !src.IsContinuous() || dw <= 0 || dh <= 0 {
		return false
	}
	sx, sy := 1/(float64(dw)/float64(src.Cols())), 1/(float64(dh)/float64(src.Rows()))
	if sx < 1 || sy < 1 {
		return false
	}
	ix, iy := math.Round(sx), math.Round(sy)
	return !(math.Abs(sx-ix) < 2.220446049250313e-16 && math.Abs(sy-iy) < 2.220446049250313e-16)
}

// resizeArea is gocv.Resize(src, dst, (dw, dh), 0, 0, InterpolationArea),
// done in Go where it is the generic area shrink of an 8UC3 image.
func (a *areaShrink) resizeArea(src gocv.Mat, dst *gocv.Mat, dw, dh int) error {
	if !areaUsable(src, dw, dh) {
		gocv.Resize(src, dst, image.Pt(dw, dh), 0, 0, gocv.InterpolationArea)
		return nil
	}
	sw, sh := src.Cols(), src.Rows()
	spix, err := src.DataPtrUint8()
	if err != nil || len(spix) < 3*sw*sh {
		return errBadMat
	}
	if dst.Rows() != dh || dst.Cols() != dw || dst.Type() != gocv.MatTypeCV8UC3 || !dst.IsContinuous() {
		dst.Close()
		*dst = gocv.NewMatWithSize(dh, dw, gocv.MatTypeCV8UC3)
	}
	dpix, err := dst.DataPtrUint8()
	if err != nil || len(dpix) < 3*dw*dh {
		return errBadMat
	}
	if a.sw != sw || a.sh != sh || a.dw != dw || a.dh != dh {
		a.xtab, a.xcells = areaTab(sw, dw, 1/(float64(dw)/float64(sw)), a.xtab, a.xcells)
		a.ytab, a.ycells = areaTab(sh, dh, 1/(float64(dh)/float64(sh)), a.ytab, a.ycells)
		a.sw, a.sh, a.dw, a.dh = sw, sh, dw, dh
		a.hrow = make([]float32, 3*dw*sh)
		a.sum = make([]float32, 3*dw)
		a.rowF = make([]float32, 4*(3*sw+1))
	}
	var rowF []float32
	if useSIMD && 3*sw >= 8 {
		rowF = a.rowF
	}
	areaShrink3(spix[:3*sw*sh], sw, dpix[:3*dw*dh], dw, a.xtab, a.xcells, a.ytab, a.ycells, a.hrow, a.sum, rowF)
	return nil
}

// areaShrink3 is the shrink on 3-channel pixel slices. hrow holds every
// source row's sums (3*dw floats a row); sum one output row's. With rowF
// (4*(3*sw+1) floats; AVX2, 3*sw >= 8) the row sums run on AVX2
// (areaRow4, areaRow2), else in Go (areaRows3): the same sums in the
// same order.
func areaShrink3(spix []uint8, sw int, dpix []uint8, dw int, xtab []areaEntry, xcells []areaCell,
	ytab []areaEntry, ycells []areaCell, hrow, sum, rowF []float32) {
	sh, n := len(spix)/(3*sw), 3*dw
	hrow, sum = hrow[:sh*n], sum[:n]
	y := 0
	if rowF != nil && len(xcells) > 0 && len(xtab) > 0 {
		m := 3*sw + 1
		var f, hp [4]*float32
		for i := range 4 {
			rowF[(i+1)*m-1] = 0 // the float to spare
			f[i] = &rowF[i*m]
		}
		// Four rows at a time, then two, then the last alone (both
		// halves of areaRow2 the same row).
		for ; y+3 < sh; y += 4 {
			for i := range 4 {
				rowToF32(spix[3*(y+i)*sw:3*(y+i+1)*sw], rowF[i*m:(i+1)*m-1])
				hp[i] = &hrow[(y+i)*n]
			}
			areaRow4(&f, &xtab[0], &xcells[0], len(xcells), &hp)
		}
		for ; y < sh; y += 2 {
			y1 := min(y+1, sh-1)
			rowToF32(spix[3*y*sw:3*(y+1)*sw], rowF[:m-1])
			rowToF32(spix[3*y1*sw:3*(y1+1)*sw], rowF[m:2*m-1])
			areaRow2(f[0], f[1], &xtab[0], &xcells[0], len(xcells), &hrow[y*n], &hrow[y1*n])
		}
	}
	for ; y+1 < sh; y += 2 {
		areaRows3(spix[3*y*sw:3*(y+1)*sw], spix[3*(y+1)*sw:3*(y+2)*sw], xtab, xcells, hrow[y*n:(y+1)*n], hrow[(y+1)*n:(y+2)*n])
	}
	if y < sh {
		areaRows3(spix[3*y*sw:3*(y+1)*sw], spix[3*y*sw:3*(y+1)*sw], xtab, xcells, hrow[y*n:(y+1)*n], hrow[y*n:(y+1)*n])
	}
	for dy, yc := range ycells {
		for j := yc.k0; j < yc.k1; j++ {
			sy, beta := ytab[j].si, ytab[j].alpha
			h := hrow[sy*n : (sy+1)*n]
			if j == yc.k0 {
				for i, v := range h {
					sum[i] = float32(beta * v)
				}
			} else {
				for i, v := range h {
					sum[i] = float32(sum[i] + float32(beta*v))
				}
			}
		}
		d := dpix[3*dy*dw : 3*(dy+1)*dw]
		for i, v := range sum {
			d[i] = satRound8(v)
		}
	}
}

// rowToF32 is f[i] = float32(row[i]), on AVX2 eight at a time (len(row)
// >= 8).
func rowToF32(row []uint8, f []float32) {
	n := len(row) &^ 7
	f = f[:len(row)]
	u8ToF32(&row[0], n, &f[0])
	for i := n; i < len(row); i++ {
		f[i] = u8f[row[i]]
	}
}

// u8f is float32(i) for each byte value (a load is cheaper than a
// conversion).
var u8f = func() (t [256]float32) {
	for i := range t {
		t[i] = float32(i)
	}
	return
}()

// areaRows3 sums two source rows across each output column, side by side
// (six independent sums).
func areaRows3(s, t []uint8, xtab []areaEntry, xcells []areaCell, hs, ht []float32) {
	s, t = s[:len(t)], t[:len(s)]
	for dx, c := range xcells {
		var b0, b1, b2, c0, c1, c2 float32
		for _, e := range xtab[c.k0:c.k1] {
			i, a := 3*e.si, e.alpha
			p, q := s[i:i+3:i+3], t[i:i+3:i+3]
			b0 = float32(b0 + float32(u8f[p[0]]*a))
			b1 = float32(b1 + float32(u8f[p[1]]*a))
			b2 = float32(b2 + float32(u8f[p[2]]*a))
			c0 = float32(c0 + float32(u8f[q[0]]*a))
			c1 = float32(c1 + float32(u8f[q[1]]*a))
			c2 = float32(c2 + float32(u8f[q[2]]*a))
		}
		h, g := hs[3*dx:3*dx+3:3*dx+3], ht[3*dx:3*dx+3:3*dx+3]
		h[0], h[1], h[2] = b0, b1, b2
		g[0], g[1], g[2] = c0, c1, c2
	}
}

// satRound8 is OpenCV's saturate_cast<uchar>(float): round half to even,
// then clamp.
func satRound8(v float32) uint8 {
	r := math.RoundToEven(float64(v))
	switch {
	case r <= 0:
		return 0
	case r >= 255:
		return 255
	}
	return uint8(r)
}
