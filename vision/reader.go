package vision

import (
	"errors"
	"fmt"
	"image"
	"os"
	"sort"

	"gocv.io/x/gocv"
)

// ReaderOptions configures a Reader. The zero value reads an uncalibrated
// image, estimating the die size from the image itself.
type ReaderOptions struct {
	// DiePx is a fixed expected die edge in pixels (0: not fixed).
	DiePx float64
	// ExpectedEdgePx gives the expected die edge in pixels at an image
	// position, usually calibration.(*Calibration).DiePx. It wins over
	// DiePx. Nil: use DiePx, or estimate from the image.
	ExpectedEdgePx func(x, y float64) float64
	// MinConfidence is the confidence below which a die is reported
	// unreadable (Value 0). Zero means DefaultMinConfidence.
	MinConfidence float64
	// MinFlatness is the flatness score below which a die is reported as
	// not flat. Zero means DefaultMinFlatness.
	MinFlatness float64
}

// shrunkConfidence is the confidence a value needs when the face read is
// under 0.75 of the edge of the region found for it.
const shrunkConfidence = 0.8

// Defaults for ReaderOptions.
const (
	DefaultMinConfidence = 0.5
	DefaultMinFlatness   = 0.8
)

// readTrace, when set (tests), is called with every detection kept and
// the pip reader's conclusions behind it, before size evidence and sorting.
var readTrace func(d *Detection, fv faceValue, shrunk bool)

// ErrNotImage is returned by ReadFile for a file that is not an image.
var ErrNotImage = errors.New("vision: not an image")

// ErrEmptyImage is returned when Read is given an empty or non-BGR image.
var ErrEmptyImage = errors.New("vision: empty or non-BGR image")

// Reader finds dice in frames and reads their top faces. It keeps its
// working Mats between frames; it is not safe for concurrent use. Close
// releases them.
type Reader struct {
	opts ReaderOptions

	frame gocv.Mat // continuous BGR copy of the frame or region
	det   gocv.Mat // frame scaled for segmentation
	small gocv.Mat
	smed  gocv.Mat
	bg    gocv.Mat
	diff  gocv.Mat
	mask  gocv.Mat
	tmp   gocv.Mat
	lab   gocv.Mat
	stats gocv.Mat
	cent  gocv.Mat
	hier  gocv.Mat

	closeK  gocv.Mat
	closeKs int
	openK   gocv.Mat
	gmask   gocv.Mat
	gtmp    gocv.Mat

	face faceScratch
	// lastPipOff: the layout offset the last check measured; offs, weak
	// and withheld: per detection of a frame, for framePipCheck.
	lastPipOff float64
	offs       []float64
	weak       []bool
	withheld   []bool
	distBuf    []float32
	cellBuf    []int32
	gradBuf    []uint8
	colourBuf  []int32
	seen       []int32
	runBuf     []uint16
	ownBuf     []int32
}

// NewReader returns a Reader with the given options.
func NewReader(opts ReaderOptions) *Reader {
	if opts.MinConfidence == 0 {
		opts.MinConfidence = DefaultMinConfidence
	}
	if opts.MinFlatness == 0 {
		opts.MinFlatness = DefaultMinFlatness
	}
	return &Reader{
		opts:  opts,
		frame: gocv.NewMat(),
		det:   gocv.NewMat(),
		small: gocv.NewMat(),
		smed:  gocv.NewMat(),
		bg:    gocv.NewMat(),
		diff:  gocv.NewMat(),
		mask:  gocv.NewMat(),
		tmp:   gocv.NewMat(),
		lab:   gocv.NewMat(),
		stats: gocv.NewMat(),
		cent:  gocv.NewMat(),
		hier:  gocv.NewMat(),
		openK: gocv.GetStructuringElement(gocv.MorphEllipse, image.Pt(3, 3)),
		gmask: gocv.NewMat(),
		gtmp:  gocv.NewMat(),
	}
}

// Close releases every Mat the Reader keeps. The Reader must not be used
// afterwards.
func (r *Reader) Close() error {
	for _, m := range []*gocv.Mat{&r.frame, &r.det, &r.small, &r.smed, &r.bg, &r.diff, &r.mask,
		&r.tmp, &r.lab, &r.stats, &r.cent, &r.hier, &r.openK, &r.gmask, &r.gtmp} {
		if err := m.Close(); err != nil {
			return fmt.Errorf("vision: close reader: %w", err)
		}
	}
	if r.closeKs > 0 {
		r.closeKs = 0
		if err := r.closeK.Close(); err != nil {
			return fmt.Errorf("vision: close reader: %w", err)
		}
	}
	return nil
}

// ReadFile decodes an image file (JPEG, PNG, ...) and reads it.
func (r *Reader) ReadFile(path string) ([]Detection, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("vision: read image: %w", err)
	}
	img, err := gocv.IMDecode(b, gocv.IMReadColor)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrNotImage, path, err)
	}
	defer img.Close()
	if img.Empty() {
		return nil, fmt.Errorf("%w: %s", ErrNotImage, path)
	}
	return r.Read(img)
}

// Read finds and reads every die in a BGR frame.
func (r *Reader) Read(img gocv.Mat) ([]Detection, error) {
	if img.Empty() {
		return nil, ErrEmptyImage
	}
	return r.ReadRegion(img, image.Rect(0, 0, img.Cols(), img.Rows()))
}

// ReadRegion finds and reads the dice inside roi of a BGR frame (used on
// at-rest frames around the dice that moved). Boxes and centres are in
// whole-frame pixels.
func (r *Reader) ReadRegion(img gocv.Mat, roi image.Rectangle) ([]Detection, error) {
	if img.Empty() || img.Type() != gocv.MatTypeCV8UC3 {
		return nil, ErrEmptyImage
	}
	roi = roi.Intersect(image.Rect(0, 0, img.Cols(), img.Rows()))
	if roi.Dx() < 8 || roi.Dy() < 8 {
		return nil, fmt.Errorf("vision: read region %v: too small", roi)
	}
	sub := img.Region(roi)
	sub.CopyTo(&r.frame)
	if err := sub.Close(); err != nil {
		return nil, fmt.Errorf("vision: read region: %w", err)
	}
	cands, err := r.detect(roi.Min)
	if err != nil {
		return nil, err
	}
	pix, err := r.frame.DataPtrUint8()
	if err != nil {
		return nil, fmt.Errorf("vision: read frame data: %w", err)
	}
	fr := bgrImage{pix: pix, w: r.frame.Cols(), h: r.frame.Rows()}
	out := make([]Detection, 0, len(cands))
	// Optical centre, in region pixels, assumed at the frame centre.
	ocx, ocy := float64(img.Cols())/2-float64(roi.Min.X), float64(img.Rows())/2-float64(roi.Min.Y)
	r.offs, r.weak = r.offs[:0], r.weak[:0]
	for _, c := range cands {
		blob := c.box()
		c = topFace(c, ocx, ocy)
		d := Detection{
			CX:        c.cx + float64(roi.Min.X),
			CY:        c.cy + float64(roi.Min.Y),
			EdgePx:    c.edge,
			Flatness:  c.flatness,
			SizeRatio: c.sizeRatio,
		}
		d.Flat = d.Flatness >= r.opts.MinFlatness
		fv := r.face.read(fr, c)
		// A face much smaller than the region found for it: the region
		// held more than this face (a neighbour, a shadow, side faces),
		// so the face's place is less sure and its value needs more
		// confidence.
		shrunk := fv.c.edge < 0.75*c.edge
		c = fv.c
		d.CX, d.CY = c.cx+float64(roi.Min.X), c.cy+float64(roi.Min.Y)
		d.EdgePx = c.edge
		d.Box = c.box().Add(roi.Min).Intersect(roi)
		if !fv.pipBox.Empty() {
			d.PipBox = fv.pipBox.Add(roi.Min).Intersect(roi)
		}
		d.Confidence = fv.conf
		r.lastPipOff = 0
		if fv.value > 0 && fv.conf >= r.opts.MinConfidence && (!shrunk || fv.conf >= shrunkConfidence) && !r.veto(fr, fv, &d) && r.check(fr, fv, &d) {
			d.Value = fv.value
		} else if c.weak {
			continue
		}
		if d.Value > 0 {
			// The pips read mark the top face's centre: take the face
			// out of the die's footprint around them.
			if fb, ok := faceAroundPips(fr, blob, fv.pipBox, c.edge); ok {
				d.Box = fb.Add(roi.Min).Intersect(roi)
			}
		}
		r.offs = append(r.offs, r.lastPipOff)
		r.weak = append(r.weak, c.weak)
		if readTrace != nil {
			readTrace(&d, fv, shrunk)
		}
		out = append(out, d)
	}
	// A weak candidate whose value the frame's check withholds is
	// dropped, as above.
	r.withheld = append(r.withheld[:0], make([]bool, len(out))...)
	r.framePipCheck(out, r.offs, r.withheld)
	kept := out[:0]
	for i, d := range out {
		if !(r.withheld[i] && r.weak[i]) {
			kept = append(kept, d)
		}
	}
	out = kept
	r.sizeEvidence(out)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Box.Min.Y != out[j].Box.Min.Y {
			return out[i].Box.Min.Y < out[j].Box.Min.Y
		}
		return out[i].Box.Min.X < out[j].Box.Min.X
	})
	return out, nil
}
