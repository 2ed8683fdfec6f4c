package vision

import (
	"image"
	"math/rand/v2"
	"testing"
	"unsafe"

	"gocv.io/x/gocv"
)

// pixDiffDirect is pixDiff with its brightness term divided out per
// pixel, as first written.
func pixDiffDirect(f, b []uint8) (uint8, int32) {
	pb, pg, pr := int32(f[0]), int32(f[1]), int32(f[2])
	bb, bg, br := int32(b[0]), int32(b[1]), int32(b[2])
	pm, bm := int32(uint32(pb+pg+pr)/3), int32(uint32(bb+bg+br)/3)
	dm := pm - bm
	m := abs32(pb-bb-dm) + abs32(pg-bg-dm) + abs32(pr-br-dm)
	if bm > 0 {
		switch a := 256 * pm; {
		case a < 150*bm:
			m = max(m, (150-a/bm)*2)
		case a >= 281*bm:
			m = max(m, (a/bm-280)*2)
		}
	}
	return uint8(min(m, 255)), pm
}

// diffMask and pixDiff, with their table of the brightness term, must
// give exactly what the division gives: every pair of grey levels, then
// random colours.
func TestDiffMaskMatchesDivision(t *testing.T) {
	const grey = 256 * 256
	n := grey + 200000
	fpix, bpix := make([]uint8, 3*n), make([]uint8, 3*n)
	for i := 0; i < grey; i++ {
		for c := 0; c < 3; c++ {
			fpix[3*i+c], bpix[3*i+c] = uint8(i>>8), uint8(i)
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 3 * grey; i < 3*n; i++ {
		fpix[i], bpix[i] = uint8(rng.IntN(256)), uint8(rng.IntN(256))
	}
	withKernels(t, func() { diffMaskMatches(t, fpix, bpix, n) })
}

func diffMaskMatches(t *testing.T, fpix, bpix []uint8, n int) {
	// Whole, and cut to lengths that leave a tail for the Go loop.
	for _, k := range []int{n, n - 5, 13, 7} {
		mpix, gray := make([]uint8, k), make([]uint8, k)
		thr := diffMask(fpix[:3*k], bpix[:3*k], mpix, gray)
		var hist [256]int
		for i := 0; i < k; i++ {
			m, pm := pixDiffDirect(fpix[3*i:3*i+3], bpix[3*i:3*i+3])
			hist[m]++
			if mpix[i] != m || int32(gray[i]) != pm {
				t.Fatalf("pixel %d of %d (%v on %v): diffMask %d grey %d, direct %d grey %d",
					i, k, fpix[3*i:3*i+3], bpix[3*i:3*i+3], mpix[i], gray[i], m, pm)
			}
			if m2, pm2 := pixDiff(fpix[3*i:3*i+3], bpix[3*i:3*i+3]); m2 != m || pm2 != pm {
				t.Fatalf("pixel %d: pixDiff %d grey %d, direct %d grey %d", i, m2, pm2, m, pm)
			}
		}
		if want := diffThreshold(&hist, k); thr != want {
			t.Fatalf("%d pixels: diffMask threshold %d, direct %d", k, thr, want)
		}
	}
}

// addOutlinedByLabels is addOutlined as first written: every region of
// the outline mask labelled with ConnectedComponentsWithStats.
func addOutlinedByLabels(r *Reader, gray []uint8, w, h, holeMax, minArea int) error {
	r.tmp.CopyTo(&r.gmask)
	gpix, err := r.gmask.DataPtrUint8()
	if err != nil {
		return err
	}
	gradMask(gray, gpix, w, h, r.gradBuf[w*h:2*w*h])
	gocv.MorphologyEx(r.gmask, &r.gtmp, gocv.MorphClose, r.closeK)
	if err := fillMatHoles(&r.gtmp, &r.hier, holeMax); err != nil {
		return err
	}
	gocv.MorphologyEx(r.gtmp, &r.gmask, gocv.MorphOpen, r.openK)
	glab := gocv.NewMat()
	defer glab.Close()
	n := gocv.ConnectedComponentsWithStats(r.gmask, &glab, &r.stats, &r.cent)
	lb, err := glab.DataPtrUint8()
	if err != nil {
		return err
	}
	lab := unsafe.Slice((*int32)(unsafe.Pointer(&lb[0])), w*h)
	sb, err := r.stats.DataPtrUint8()
	if err != nil {
		return err
	}
	stats := unsafe.Slice((*int32)(unsafe.Pointer(&sb[0])), 5*n)
	tpix, err := r.tmp.DataPtrUint8()
	if err != nil {
		return err
	}
	colour := make([]int32, n)
	for i, l := range lab {
		if tpix[i] != 0 {
			colour[l]++
		}
	}
	md := min(w, h) / 2
	add := make([]bool, n)
	for i := 1; i < n; i++ {
		area := stats[5*i+4]
		add[i] = int(area) >= minArea && int(stats[5*i+2]) <= md && int(stats[5*i+3]) <= md && 5*colour[i] < 4*area
	}
	for i, l := range lab {
		if add[l] && tpix[i] == 0 {
			tpix[i] = 128
		}
	}
	return nil
}

// addOutlined's flood of the regions that reach outside the colour mask
// must add exactly the pixels that labelling every region adds.
func TestAddOutlinedMatchesLabels(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const w, h = 160, 120
	added := 0
	for iter := 0; iter < 60; iter++ {
		// A noisy floor with square dice: some differ in colour (in the
		// colour mask whole), some only in brightness (only their pips
		// and a few shaded pixels in the colour mask).
		gray := make([]uint8, w*h)
		mask := make([]uint8, w*h)
		for i := range gray {
			gray[i] = uint8(120 + rng.IntN(9))
		}
		for d := 0; d < 3+rng.IntN(10); d++ {
			x0, y0, s := rng.IntN(w), rng.IntN(h), 6+rng.IntN(30)
			g, coloured := uint8(60+rng.IntN(140)), rng.IntN(2) == 0
			for y := y0; y < min(h, y0+s); y++ {
				for x := x0; x < min(w, x0+s); x++ {
					gray[y*w+x] = g + uint8(rng.IntN(5))
					if coloured || rng.IntN(6) == 0 {
						mask[y*w+x] = 255
					}
				}
			}
		}
		results := make([][]uint8, 2)
		for k := range results {
			r := NewReader(ReaderOptions{})
			r.closeK = gocv.GetStructuringElement(gocv.MorphEllipse, image.Pt(5, 5))
			r.closeKs = 5
			r.gradBuf = make([]uint8, 2*w*h)
			copy(r.gradBuf, gray)
			m, err := gocv.NewMatFromBytes(h, w, gocv.MatTypeCV8U, mask)
			if err != nil {
				t.Fatal(err)
			}
			m.CopyTo(&r.tmp)
			m.Close()
			minArea := 10 + iter%30
			if k == 0 {
				err = r.addOutlined(r.gradBuf[:w*h], w, h, 150, minArea)
			} else {
				err = addOutlinedByLabels(r, r.gradBuf[:w*h], w, h, 150, minArea)
			}
			if err != nil {
				t.Fatal(err)
			}
			out, err := r.tmp.DataPtrUint8()
			if err != nil {
				t.Fatal(err)
			}
			results[k] = append([]uint8(nil), out...)
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
		}
		for i := range results[0] {
			if results[0][i] != results[1][i] {
				t.Fatalf("iteration %d, pixel (%d, %d): flood gives %d, labels give %d", iter, i%w, i/w, results[0][i], results[1][i])
			}
			if results[1][i] == 128 {
				added++
			}
		}
	}
	if added == 0 {
		t.Fatal("no region was added: the comparison proves nothing")
	}
	t.Logf("%d outline pixels added over 60 scenes", added)
}

// diffSampled and gradMask must give what their direct loops give:
// pixDiff at each even pixel with one histogram, and one histogram of
// the brightness edges. Odd sizes check the ends of rows.
func TestSampledKernelsExact(t *testing.T) {
	withKernels(t, func() { sampledKernelsExact(t) })
}

func sampledKernelsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for k, sz := range [][2]int{{37, 23}, {64, 48}, {101, 3}, {38, 24}, {65, 49}} {
		w, h := sz[0], sz[1]
		// The last two: columns that alternate between noise and a flat
		// floor, so a histogram of only some columns gives another
		// threshold.
		striped := k >= 3
		fpix, bpix := make([]uint8, 3*w*h), make([]uint8, 3*w*h)
		for i := range fpix {
			// A floor of similar colours with some strong outliers, so
			// the threshold falls inside the histogram.
			fpix[i], bpix[i] = uint8(100+rng.IntN(30)), uint8(100+rng.IntN(30))
			if striped {
				fpix[i] = bpix[i] + uint8(rng.IntN(3))
			}
			if rng.IntN(10) == 0 || striped && (i/3)%w%4 == 2 {
				fpix[i] = uint8(rng.IntN(256))
			}
		}
		got, want := make([]uint8, w*h), make([]uint8, w*h)
		for i := range got {
			got[i], want[i] = 7, 7
		}
		thr := diffSampled(fpix, bpix, w, h, got)
		var hist [256]int
		n := 0
		for y := 0; y < h; y += 2 {
			for x := 0; x < w; x += 2 {
				i := y*w + x
				m, _ := pixDiffDirect(fpix[3*i:3*i+3], bpix[3*i:3*i+3])
				want[i] = m
				hist[m]++
				n++
			}
		}
		if wantThr := diffThreshold(&hist, n); thr != wantThr {
			t.Fatalf("%dx%d: diffSampled threshold %d, direct %d", w, h, thr, wantThr)
		}
		if string(got) != string(want) {
			t.Fatalf("%dx%d: diffSampled differs from the direct loop", w, h)
		}

		gray := make([]uint8, w*h)
		for i := range gray {
			gray[i] = uint8(120 + rng.IntN(20))
			if striped {
				gray[i] = 120
			}
			if rng.IntN(8) == 0 || striped && i%w%2 == 1 {
				gray[i] = uint8(rng.IntN(256))
			}
		}
		for i := range got {
			got[i], want[i] = 0, 0
		}
		gradMask(gray, got, w, h, make([]uint8, w*h))
		var ghist [256]int
		d := make([]uint8, w*h)
		for y := 1; y < h-1; y++ {
			for x := 1; x < w-1; x++ {
				i := y*w + x
				v := abs32(int32(gray[i+1])-int32(gray[i-1])) + abs32(int32(gray[i+w])-int32(gray[i-w]))
				d[i] = uint8(min(v, 255))
				ghist[d[i]]++
			}
		}
		gthr := uint8(clamp(float64(percentile(ghist[:], (w-2)*(h-2), 0.5))*3+30, 12, 80))
		marked := 0
		for y := 1; y < h-1; y++ {
			for x := 1; x < w-1; x++ {
				if d[y*w+x] > gthr {
					want[y*w+x] = 255
					marked++
				}
			}
		}
		if h > 2 && marked == 0 {
			t.Fatalf("%dx%d: no edge marked: the comparison proves nothing", w, h)
		}
		if string(got) != string(want) {
			t.Fatalf("%dx%d: gradMask differs from the direct loop", w, h)
		}
	}
}
