package vision

import (
	"bufio"
	"encoding/binary"
	"image"
	"math"
	"os"
	"testing"

	"gocv.io/x/gocv"
)

// cockGeom is one way to sample the cocked net's patch: side samples a
// side over span die edges, the body set by the centre square of core
// samples a side, and chans channels (luminance, colour distance from the
// body, then the chromaticity's distance from the body's).
type cockGeom struct {
	name  string
	side  int
	span  float64
	core  int
	chans int
}

// cockSampleG samples the patch of g around (cx, cy) into x (chans
// planes of side x side), as cockInput samples a net's patch of that
// geometry.
func cockSampleG(s *cockScratch, fr bgrImage, cx, cy, edge float64, g cockGeom, x []float32) {
	sh := cockShape{side: g.side, chans: g.chans, spanMilli: int(math.Round(g.span * 1000)), core: g.core}
	s.cockInput(sh, fr, cx, cy, edge, x)
}

var cockWideGeoms = []cockGeom{
	{"16s2c3", 16, 2, 6, 3},
	{"24s3c3", 24, 3, 6, 3},
	{"32s4c3", 32, 4, 6, 3},
	{"24s2c3", 24, 2, 9, 3},
}

// TestCockWideExport writes, for every detection the cocked net ran on,
// the patch of each of cockWideGeoms (one file each, PATH.NAME), the two
// scalars and the same ten meta columns as TestCockNetExport.
func TestCockWideExport(t *testing.T) {
	path := os.Getenv("DICEWATCH_COCKWIDE_EXPORT")
	if path == "" {
		t.Skip("DICEWATCH_COCKWIDE_EXPORT not set")
	}
	b2f := func(b bool) float32 {
		if b {
			return 1
		}
		return 0
	}
	type seenW struct {
		rows [][]float32
		flat bool
	}
	var ws []*bufio.Writer
	for _, g := range cockWideGeoms {
		f, err := os.Create(path + "." + g.name)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		w := bufio.NewWriter(f)
		defer w.Flush()
		ws = append(ws, w)
	}
	var seen map[[2]float64]seenW
	mism := 0
	cs := new(cockScratch)
	cockTraceFrame = func(d Detection, x []float32, fr bgrImage, off image.Point, edge float64) {
		var s seenW
		s.flat = d.Flat
		for _, g := range cockWideGeoms {
			row := make([]float32, g.side*g.side*g.chans+cockExtra)
			cockSampleG(cs, fr, d.CX-float64(off.X), d.CY-float64(off.Y), edge, g, row)
			row[len(row)-2], row[len(row)-1] = x[len(x)-2], x[len(x)-1]
			s.rows = append(s.rows, row)
		}
		if s.rows[0][0] != x[0] || s.rows[0][300] != x[300] {
			mism++
		}
		seen[[2]float64{d.CX, d.CY}] = s
	}
	defer func() { cockTraceFrame = nil }()
	rows := 0
	cockExportStills(t, func(r *Reader, img gocv.Mat) ([]Detection, error) {
		seen = map[[2]float64]seenW{}
		return r.Read(img)
	}, func(d Detection, meta [cockMeta]float32) {
		s, ok := seen[[2]float64{d.CX, d.CY}]
		if !ok {
			return // the net did not run on it
		}
		meta[6] = b2f(s.flat)
		for k, w := range ws {
			if err := binary.Write(w, binary.LittleEndian, s.rows[k]); err != nil {
				t.Fatal(err)
			}
			if err := binary.Write(w, binary.LittleEndian, meta[:]); err != nil {
				t.Fatal(err)
			}
		}
		rows++
	})
	t.Logf("%d rows; first geometry differs from the net's input on %d", rows, mism)
}
