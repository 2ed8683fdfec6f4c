package vision

import (
	"errors"
	"fmt"
	"image"
	"math"
	"os"
	"slices"
	"sort"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/calibration"
	"github.com/dicewatch/dicewatch/vision/internal/cvsafe"
	"github.com/dicewatch/dicewatch/vision/internal/jpegbgr"
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
	// AcrossEdgePx gives the die edge in pixels at an image position
	// across the camera's line of sight, usually
	// calibration.(*Calibration).DieAcrossPx: the width of the picture of
	// a whole flat die (its top and the side faces in sight), which off
	// vertical is larger than ExpectedEdgePx's mean edge. outlineStacked
	// measures a die's outline against it. Nil (or 0 at a position): the
	// expected edge.
	AcrossEdgePx func(x, y float64) float64
	// MinConfidence is the confidence below which a die is reported
	// unreadable (Value 0). Zero means DefaultMinConfidence.
	MinConfidence float64
	// MinFlatness is the footprint's flatness score below which the
	// reader's first looks take a die as not flat. Zero means
	// DefaultMinFlatness. Read's final call (Detection.Flat) is the
	// cocked net's, which takes the score as one of its inputs (see
	// cocknet.go).
	MinFlatness float64
	// NoFaceNet leaves the learned face cue out (see facenet.go): only
	// the pip reader's own looks give values.
	NoFaceNet bool
	// PipSpread is the dice's pip offset from a face's centre along a
	// side, as a share of the edge (the corner pips of a 4 sit at
	// +-PipSpread*edge), part of the die's design as the edge is. With
	// it and an expected edge, the size evidence of a read die of two
	// pips or more comes from its pips (see sizeEvidence). Zero: from
	// the face's outline only.
	PipSpread float64
	// ViewTiltDeg gives how far off vertical the camera sees the table
	// at an image position, in degrees (a calibration's camera pose). A
	// flat die seen at an angle shows side faces as a cocked die does;
	// with it the cocked net's call is cut by the view (see
	// cockCutAt). Nil: not known, the one cut for every die; NaN at a
	// position: not known there, as nil (calibration.ViewTiltDeg gives
	// NaN where the calibration does not fix the view).
	ViewTiltDeg func(x, y float64) float64
	// ViewUp gives the picture of a die's vertical edge at an image
	// position: the image vector, in die edges, from the middle of a
	// flat die's bottom face to the middle of its top face (a camera's
	// pose on the table gives it; its length is the sine of the view's
	// tilt there, zero straight down). With it a read face whose pips,
	// the view undone, are out of square is not flat (see viewCocked).
	// Nil: not known; NaN at a position: not known there.
	ViewUp func(x, y float64) [2]float64
}

// The plausible range of ReaderOptions.PipSpread, the calibration's (see
// calibration.MinPipSpread).
const (
	MinPipSpread = calibration.MinPipSpread
	MaxPipSpread = calibration.MaxPipSpread
)

// CheckPipSpread reports whether s can be a ReaderOptions.PipSpread: zero
// (not given) or within MinPipSpread..MaxPipSpread.
func CheckPipSpread(s float64) error { return calibration.CheckPipSpread(s) }

// shrunkConfidence is the confidence a value needs when the face read is
// under 0.75 of the edge of the region found for it.
const shrunkConfidence = 0.8

// silFaceShare is the least share of the die's outline edge a face read
// must have for the outline to vouch for its place.
const silFaceShare = 0.85

// Defaults for ReaderOptions.
const (
	DefaultMinConfidence = 0.5
	DefaultMinFlatness   = 0.8
)

// readTrace, when set (tests), is called with every detection kept and
// the pip reader's conclusions behind it, before size evidence and sorting.
var readTrace func(d *Detection, fv faceValue, shrunk bool)

// candTrace, when set (tests), is called with every candidate read: its
// footprint, the pip reader's conclusions and whether the face was shrunk.
var candTrace func(blob image.Rectangle, fv faceValue, shrunk bool)

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
	area  areaShrink // the Go INTER_AREA shrink into small
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
	// checked: what the check measured on each value of a frame, by
	// the detection's centre, for framePipCheck; lastPipOff: the
	// layout offset the last check measured.
	checked    map[[2]float64]checkRec
	lastPipOff float64
	// lastColSpread: the check's pip colour spread for the value last
	// checked, for doubtCap.
	lastColSpread float64
	lastLarger    bool
	distBuf       []float32
	cellBuf       []int32
	colBuf        []int32
	gradBuf       []uint8
	colourBuf     []int32
	statBuf       []int32
	ccl           cclScratch
	seen          []int32
	runBuf        []uint16
	ownBuf        []int32
	looks         []look
	// rest: the regions of the last detect's labels (in r.lab, at scale
	// detSc, die edge detEdge there) that restCands looks at again.
	rest      []restComp
	detSc     float64
	detEdge   float64
	restLab   []int32
	restDist  []float32
	restStack []int32
	// specks and pipCands: see detect and pipGroups.
	specks   []speck
	pipCands []candidate
	// Scratch of pipClusterCands: the frame's grey, its local mean (and
	// that at a quarter size),
	// the dark mask, and the mask's labels.
	clGrayM, clSmallM, clMeanM, clMaskM gocv.Mat
	clLab                               []int32
	clStats, clFull                     []int32
	clCCL                               cclScratch

	// held: the values withheld only for a shrunk face's confidence,
	// by the detection's centre, for giveHeld.
	held map[[2]float64]heldValue
	// unreadFaces: the face rectangle and the region's top face of each
	// unread detection, held values included (in the frame's read
	// coordinates), by the detection's centre, for frameSizeLook.
	unreadFaces map[[2]float64][2]candidate
	// unreadReads: the pip reader's read of each unread detection (its
	// cues and whether the face was shrunk), for netLook; net is the
	// face net (nil: none) and ns its buffers.
	unreadReads map[[2]float64]unreadRead
	// weakMiss: the boxes (frame pixels) of the weak candidates that did
	// not read though their face read found a pip blob, without a known
	// die size (see onWeakMiss); lastBlobs: the pip blobs the last
	// readCandidate's face read counted.
	weakMiss  []image.Rectangle
	lastBlobs int
	net       *faceNet
	ns        netScratch
	cs        cockScratch

	// lastVetoLarger2: the veto last withheld a 2 for a larger face's
	// layout around it; vetoNetTwo: the face net read the frame-size
	// square as a 2, and that veto is not asked (netLook).
	lastVetoLarger2 bool
	vetoNetTwo      bool
}

// NewReader returns a Reader with the given options.
func NewReader(opts ReaderOptions) *Reader {
	if opts.MinConfidence == 0 {
		opts.MinConfidence = DefaultMinConfidence
	}
	if opts.MinFlatness == 0 {
		opts.MinFlatness = DefaultMinFlatness
	}
	var net *faceNet
	if !opts.NoFaceNet {
		net, _ = builtinFaceNet() // nil when it did not load: see FaceNetError
	}
	r := &Reader{
		opts:  opts,
		net:   net,
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

		clGrayM:  gocv.NewMat(),
		clSmallM: gocv.NewMat(),
		clMeanM:  gocv.NewMat(),
		clMaskM:  gocv.NewMat(),
	}
	return r
}

// Close releases every Mat the Reader keeps. The Reader must not be used
// afterwards.
func (r *Reader) Close() error {
	for _, m := range []*gocv.Mat{&r.frame, &r.det, &r.small, &r.smed, &r.bg, &r.diff, &r.mask,
		&r.tmp, &r.lab, &r.stats, &r.cent, &r.hier, &r.openK, &r.gmask, &r.gtmp,
		&r.clGrayM, &r.clSmallM, &r.clMeanM, &r.clMaskM} {
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
	if d, ok := jpegbgr.Open(b); ok {
		err := r.decodeJPEG(d)
		w, h := d.W, d.H
		d.Close()
		if err == nil {
			// Decoded straight into r.frame: read it whole, as Read
			// would a copy of it.
			if w <= 0 || h <= 0 {
				return nil, ErrEmptyImage
			}
			if w < 8 || h < 8 {
				return nil, fmt.Errorf("vision: read region %v: too small", image.Rect(0, 0, w, h))
			}
			return r.readFrame(w, h, image.Rect(0, 0, w, h))
		}
	}
	img, err := cvsafe.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrNotImage, path, err)
	}
	defer img.Close()
	return r.Read(img)
}

// decodeJPEG decodes an open JPEG into r.frame (kept between calls).
func (r *Reader) decodeJPEG(d *jpegbgr.Decoder) error {
	if r.frame.Rows() != d.H || r.frame.Cols() != d.W || r.frame.Type() != gocv.MatTypeCV8UC3 || !r.frame.IsContinuous() {
		r.frame.Close()
		r.frame = gocv.NewMatWithSize(d.H, d.W, gocv.MatTypeCV8UC3)
	}
	pix, err := r.frame.DataPtrUint8()
	if err != nil {
		return err
	}
	return d.Read(pix, 3*d.W)
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
	return r.readFrame(img.Cols(), img.Rows(), roi)
}

// readFrame finds and reads the dice in r.frame, the region roi of an
// imgW×imgH frame.
func (r *Reader) readFrame(imgW, imgH int, roi image.Rectangle) ([]Detection, error) {
	// From the options as they are for this read, not as they were when
	// the Reader was made (tests set a Reader's die size for each
	// picture).
	r.face.sizeKnown = r.knownSize()
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
	ocx, ocy := float64(imgW)/2-float64(roi.Min.X), float64(imgH)/2-float64(roi.Min.Y)
	if r.checked == nil {
		r.checked = map[[2]float64]checkRec{}
	}
	clear(r.checked)
	if r.held == nil {
		r.held = map[[2]float64]heldValue{}
	}
	clear(r.held)
	if r.unreadFaces == nil {
		r.unreadFaces = map[[2]float64][2]candidate{}
	}
	clear(r.unreadFaces)
	if r.unreadReads == nil {
		r.unreadReads = map[[2]float64]unreadRead{}
	}
	clear(r.unreadReads)
	r.weakMiss = r.weakMiss[:0]
	// A region too long for one die (see pairEnds), with the index of
	// its own detection in out (-1: none). With cells, the ends are the
	// cells of a part of a cluster too large for one die (see detect),
	// cut along the region's outline.
	type long struct {
		c      candidate
		ends   []candidate
		parent int
		cells  bool
		over   bool
	}
	var longs []long
	looks := r.looks[:0]
	defer func() { r.looks = looks[:0] }()
	var overs []candidate
	var larges []Detection
	for _, c := range cands {
		if c.over {
			overs = append(overs, c)
			continue
		}
		if c.large {
			if d, ok := r.readCandidate(fr, c, roi, ocx, ocy); ok && r.largeRead(d) {
				larges = append(larges, largeEvidence(d))
			}
			continue
		}
		parent := -1
		if d, ok := r.readCandidate(fr, c, roi, ocx, ocy); ok {
			out = append(out, d)
			parent = len(out) - 1
		} else if c.weak && !clusterOff && !weakOff && !r.knownSize() && r.lastBlobs > 0 {
			// A pip or more on it: its pips may read it (onWeakMiss).
			r.weakMiss = append(r.weakMiss, c.box().Add(roi.Min))
		}
		looks = append(looks, look{c, parent})
		if c.cells != nil {
			longs = append(longs, long{c, c.cells, parent, true, false})
		} else if e := pairEnds(c); e != nil {
			longs = append(longs, long{c, e, parent, false, false})
		}
	}
	readOne := false
	for _, d := range out {
		readOne = readOne || d.Value > 0 && d.Confidence > secondLookMaxConf
	}
	if readOne {
		// Dice of the frame's typical size read, so that size is a
		// die's: a region far larger is most often dice pressed
		// together that the cuts did not part (two dice meeting corner
		// to corner, with their shadows, make one blob). It is read at
		// its ends like a long region (see pairEnds): two pips or more
		// at a first look's confidence, on a die-sized square.
		for _, c := range overs {
			if e := pairEnds(c); e != nil {
				longs = append(longs, long{c, e, -1, false, true})
			}
		}
	} else if len(overs) > 0 {
		// No die of the frame's typical size read at a first look's
		// confidence: that size was not a die's (keys, a keyboard's
		// parts, a hub's ports; one of them may pass for a face). The
		// regions far larger are read (weak: kept only when they read),
		// and the dice among them are each other's size evidence.
		n0 := len(out)
		var edges []float64
		for _, c := range overs {
			if d, ok := r.readCandidate(fr, c, roi, ocx, ocy); ok {
				out = append(out, d)
				looks = append(looks, look{c, len(out) - 1})
				edges = append(edges, c.edge)
			}
		}
		if n := len(edges); n > 0 {
			med := append([]float64(nil), edges...)
			sort.Float64s(med)
			for i, ce := range edges {
				out[n0+i].SizeRatio = ce / med[n/2]
			}
		}
	}
	r.readAway(fr, roi, ocx, ocy, out, looks)
	// Such a region holds two dice when two faces read in it: its own
	// and an end's, or two ends'. Ends that read stand in for their
	// region when it did not read. With a known die size, one face
	// alone in a region that did not read is left out: the region is
	// reported as it was found, unread.
	known := r.knownSize()
	drop := map[int]bool{}
	for _, lg := range longs {
		own := lg.parent >= 0 && out[lg.parent].Value > 0
		var found []Detection
		for _, e := range lg.ends {
			// An end's place is a guess: only a first look's value
			// counts (a second look, re-centred or larger, drifts onto
			// the other die, or onto the rest of one larger face), and
			// only two pips or more (one spot anywhere in the square,
			// a glint, a dark seam between two dice, reads as a one).
			// A cell's place follows the region's outline: any value
			// counts.
			e.firstLook = !lg.cells
			d, ok := r.readCandidate(fr, e, roi, ocx, ocy)
			if !ok || (!lg.cells && (d.Value < 2 || d.Confidence <= secondLookMaxConf)) {
				continue
			}
			if covers(out, d, func(i int) bool { return drop[i] || (i == lg.parent && !own) }) || covers(found, d, nil) {
				continue
			}
			found = append(found, d)
		}
		if len(found) == 0 || (!own && len(found) < 2 && (known || lg.cells)) {
			continue
		}
		if !own && len(found) == 1 && !lg.cells {
			// One face read in the region: a die with a long shadow or
			// side faces, a die on another, a cocked die, or a pair
			// whose other face does not read. The region's size and
			// shape stay the die's evidence.
			if !lg.over {
				found[0].SizeRatio = lg.c.sizeRatio
			}
			found[0].Flatness = lg.c.flatness
			found[0].Flat = lg.c.flatness >= r.opts.MinFlatness
			if lg.over {
				// The region is far larger than the frame's dice: a
				// pair whose other die did not read, or one die cocked
				// on others with a side face turned up. The die is
				// reported, its value withheld; its size is the end
				// square's (the frame's typical die), as for a pair
				// whose two faces read: the region's is two dice's.
				// Nothing shows the die lies flat, so it is not
				// called flat, whatever the region's outline measures.
				found[0].Value, found[0].Confidence = 0, 0
				found[0].Flat = false
				found[0].keepNotFlat = true
			}
		}
		if lg.parent >= 0 && !own {
			drop[lg.parent] = true
		}
		out = append(out, found...)
	}
	if len(drop) > 0 {
		kept := out[:0]
		for i, d := range out {
			if !drop[i] {
				kept = append(kept, d)
			}
		}
		out = kept
	}
	// The rest of a cluster once the dice read in it are taken out: a
	// die-sized part there is a die the cuts missed (weak: kept only
	// when it reads). A part that is an unread die's own (each holds
	// the other's centre) is a second look at that die: a value of
	// first-look confidence is its value, at a second look's.
	// Only without a known die size: with one, these parts read a part
	// of a larger face, or a cocked or stacked die's side, more often
	// than a die the cuts missed (generated stills 0..599, calibrated:
	// 22 wrong values without the pass, 37 with it, 8 and 14 of them on
	// clean dice; at the session's start 22 and 7), and the known size
	// already sets the cuts.
	var rest []candidate
	if !known {
		rest = append(r.restCands(out, roi), r.pipCands...)
		if !clusterOff {
			rest = append(rest, r.pipClusterCands(fr, out, roi)...)
		}
	}
	for _, c := range rest {
		// Only a first look counts in a region where nothing read, and
		// on an unread die (see below).
		at := image.Pt(int(c.cx)+roi.Min.X, int(c.cy)+roi.Min.Y)
		c.firstLook = c.unsure || c.nPips > 0 || slices.ContainsFunc(out, func(o Detection) bool { return o.Value == 0 && at.In(o.Box) })
		d, ok := r.readCandidate(fr, c, roi, ocx, ocy)
		if !ok || d.Value == 0 {
			continue
		}
		if c.nPips > 0 && (d.Value != c.nPips || d.Confidence <= secondLookMaxConf) {
			// A pip group's face counts only when it reads as the
			// group's pips, at a first look's confidence.
			continue
		}
		if i := unreadUnder(out, d); c.nPips > 0 && i >= 0 && float64(out[i].Box.Dx()+out[i].Box.Dy())/2 > clusterRegionMax*c.edge {
			// The unread region is far larger than the face: not one
			// die and its side faces but several, or a die and
			// what lies by it; the value would be the region's.
			continue
		}
		if i := unreadUnder(out, d); i >= 0 {
			// A 1 withheld for its pip group takes only that
			// group's value.
			if d.Confidence > secondLookMaxConf && (!out[i].pairOne || c.nPips > 0) {
				o := &out[i]
				o.Value, o.Confidence = d.Value, secondLookMaxConf
				if c.nPips > 0 {
					// A pip group's value is a later look's, as sure as
					// sepLook's: on never-read stills 38000..39999 read
					// without a size it gave four wrong values (a 4 read
					// 2, a 5 read 2 and 3, a 2 read 4) beside its right
					// ones, so it stays under the rules' 0.8.
					o.Confidence = sepConf
				}
				// Its pips are the ones this look counted (the unread
				// read's pip box may bound other marks, or none).
				o.PipBox = d.PipBox
				if restGiveTrace != nil {
					restGiveTrace(o, d.PipBox)
				}
				// The frame's pip check sees the value's layout.
				rec := r.checked[[2]float64{d.CX, d.CY}]
				rec.weak = false
				r.checked[[2]float64{o.CX, o.CY}] = rec
			}
			continue
		}
		if c.nPips > 0 && !covers(out, d, nil) && r.onWeakMiss(d, c.edge) {
			// A die whose body the mask found but whose face did
			// not read there: its pips read it, at a pip group's
			// confidence.
			d.Confidence = min(d.Confidence, sepConf)
			notFlatGroup(&d, r.opts.MinFlatness)
			if weakTrace != nil {
				weakTrace(d)
			}
			out = append(out, d)
			continue
		}
		if c.nPips > 0 || covers(out, d, nil) {
			// A pip group's face is a second look at an unread die
			// only: as a die of its own (the frame's other dice
			// missing it), on the generated stills read without a
			// size it added five phantoms at the rules' confidence
			// (0..599) and took cocked dice as flat.
			continue
		}
		if c.unsure {
			// In a region where nothing else read, as at a long
			// region's ends: a first look's value of two pips or more.
			// The die may be cocked (its face turned from the camera
			// is what kept the region from reading), and its face's
			// place is a guess: it is reported not flat, its value
			// with a second look's confidence.
			if d.Value < 2 || d.Confidence <= secondLookMaxConf {
				continue
			}
			d.Confidence = secondLookMaxConf
			d.Flatness = min(d.Flatness, 0.5*r.opts.MinFlatness)
			d.Flat = false
			d.keepNotFlat = true
		}
		out = append(out, d)
	}
	r.earlyCockLook(fr, out, roi.Min)
	r.giveHeld(fr, out)
	r.frameSizeLook(fr, out, roi)
	r.spotLook(fr, out, roi)
	if spotDiagHook != nil {
		spotDiagHook(r, fr, out, roi)
	}
	r.netLook(fr, out, roi)
	r.sepLook(fr, out, roi)
	r.netSmallLook(fr, out, roi)
	r.mapsAgreeLook(fr, out, roi)
	r.shrunkRedLook(fr, out, roi)
	r.hueLook(fr, out, roi)
	r.lowNetLook(fr, out, roi)
	r.tmplNetLook(fr, out, roi)
	r.oneNetLook(fr, out, roi)
	// A large region's die is one the frame's other dice do not hold
	// (neither holds the other's centre): a look above that found the
	// same die (a die-sized part of the region, read away from it) has
	// it already, and it would be counted twice.
	for _, d := range larges {
		if !covers(out, d, nil) {
			out = append(out, d)
		}
	}
	out = r.framePipCheck(out)
	r.sizeEvidence(out)
	r.cockLook(fr, out, roi.Min)
	r.doubtCap(fr, out)
	r.pipSizes(out)
	r.beyondLook(out)
	openLook(out)
	softLook(out)
	unfoundLook(out)
	r.outlineStacked(out)
	if !known {
		printedLook(out)
		// After doubtCap, which counts a size off the frame's typical
		// footprint as a doubt: the values and their confidences stay
		// as they were.
		relativeSize(out)
		r.partCap(out)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Box.Min.Y != out[j].Box.Min.Y {
			return out[i].Box.Min.Y < out[j].Box.Min.Y
		}
		return out[i].Box.Min.X < out[j].Box.Min.X
	})
	return out, nil
}

// knownSize reports whether the Reader is given the die size (a
// calibration's ExpectedEdgePx, or DiePx) rather than estimating it from
// the image.
func (r *Reader) knownSize() bool {
	return r.opts.ExpectedEdgePx != nil || r.opts.DiePx > 0
}

// readCandidate reads one candidate's face. It reports false for a weak
// candidate that did not read.
func (r *Reader) readCandidate(fr bgrImage, c candidate, roi image.Rectangle, ocx, ocy float64) (Detection, bool) {
	blob, pipsOnly := c.box(), c.pipsOnly
	if trimsToTop(c) {
		// sidesFrom samples the view and the edge map at the die;
		// topFace leaves a square footprint as it is.
		ocx, ocy = r.sidesFrom(c, float64(roi.Min.X), float64(roi.Min.Y), ocx, ocy)
	}
	c = topFace(c, ocx, ocy)
	top := c
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
	// confidence. Unless the die's own outline at full size is about
	// the face's size: then the rest of the region was not die.
	// A part of a cluster too large for one die (it has cells) is like
	// such a region: one face read in it needs as much confidence.
	shrunk := (fv.c.edge < 0.75*c.edge && (fv.silEdge == 0 || fv.c.edge < silFaceShare*fv.silEdge)) || c.cells != nil
	c = fv.c
	d.CX, d.CY = c.cx+float64(roi.Min.X), c.cy+float64(roi.Min.Y)
	d.EdgePx = c.edge
	d.Box = c.box().Add(roi.Min).Intersect(roi)
	d.PipBox = pipBoxIn(fv.pipBox, roi)
	d.Confidence = fv.conf
	d.silEdge = fv.silEdge
	r.lastPipOff, r.lastLarger, r.lastColSpread = 0, false, 0
	r.lastBlobs = fv.blobs
	if candTrace != nil {
		candTrace(blob, fv, shrunk)
	}
	held := false
	var small faceValue
	if fv.value > 0 && fv.conf >= r.opts.MinConfidence && (!shrunk || fv.conf >= shrunkConfidence || !c.weak) && !r.veto(fr, fv, &d) && r.check(fr, fv, &d) {
		if shrunk && fv.conf < shrunkConfidence {
			// Too little confidence for a shrunk face: held for
			// giveHeld, which sees the frame's other faces, unless a
			// large non-pip blob on it tells of pips missed.
			held = !fv.junk
		} else {
			d.Value = fv.value
		}
	} else if c.weak {
		return d, false
	}
	if d.Value == 0 && !held && (fv.value == 0 || fv.conf < r.opts.MinConfidence) {
		// A later look's 1 or 2, held for giveHeld when the read shows
		// the whole face (see smallface.go), or kept for netSmallLook.
		small = r.face.netSmallRead(fv)
		if sv, ok := r.face.smallCandidate(fv); ok && !r.veto(fr, sv, &d) && r.check(fr, sv, &d) {
			h := heldValue{value: sv.value, side: min(sv.c.w, sv.c.h), box: sv.c.box().Add(roi.Min).Intersect(roi),
				rec: checkRec{off: r.lastPipOff, colSpread: r.lastColSpread}, small: &sv, pipBox: pipBoxIn(sv.pipBox, roi)}
			if r.face.smallSil {
				// How far the 2's pips turn from the outline's diagonal.
				h.silTurn = layoutTurn(sv, r.face.smallSilAngle)
			} else {
				h.silTurn = math.NaN()
			}
			if fb, ok := faceAroundPips(fr, blob, sv.pipBox, sv.c.edge); ok && !pipsOnly {
				h.box = fb.Add(roi.Min).Intersect(roi)
			}
			r.held[[2]float64{d.CX, d.CY}] = h
		}
	}
	if d.Value > 0 {
		// The pips read mark the top face's centre: take the face
		// out of the die's footprint around them.
		// (Not on a die found by its pips alone: its body is too
		// like the floor to tell them apart; the face read stays.)
		if fb, ok := faceAroundPips(fr, blob, fv.pipBox, c.edge); ok && !pipsOnly {
			d.Box = fb.Add(roi.Min).Intersect(roi)
		}
		off := r.lastPipOff
		if off == 0 && r.knownSize() && !latOffOff && fv.value >= 2 && fv.lv == fv.value {
			// The check did not find the layout again on the face's
			// colour-distance map (the value was read on another
			// map): the read's own fit gives its offset, for the
			// frame's pip check. Only with a known die size, as that
			// check's spacing cut for 2s and 3s.
			off = fv.lat.scale
		}
		r.checked[[2]float64{d.CX, d.CY}] = checkRec{off: off, weak: c.weak,
			shrunk: shrunk, weakCue: fv.lscore < 1 || fv.nccScore < 1, larger: r.lastLarger,
			colSpread: r.lastColSpread, noRefit: !checkOff && fv.value >= 2 && r.lastPipOff == 0, face: candidate{cx: c.cx, cy: c.cy, w: c.w, h: c.h, angle: c.angle}}
	} else if shrunk {
		// No value, and the face the pip reader settled on is much
		// smaller than the die's footprint: with no pips read to back
		// its place, the footprint's top face is the better box.
		if held {
			// Both sides must be a whole face's: the short one is
			// measured.
			h := heldValue{value: fv.value, side: min(c.w, c.h), box: d.Box, rec: checkRec{off: r.lastPipOff},
				whole: fv.value >= 5 && fv.blobs == fv.value && fv.lv == fv.value && fv.tmpl == fv.value}
			if fb, ok := faceAroundPips(fr, blob, fv.pipBox, c.edge); ok && !pipsOnly {
				h.box = fb.Add(roi.Min).Intersect(roi)
			}
			r.held[[2]float64{d.CX, d.CY}] = h
		}
		d.Box = top.box().Add(roi.Min).Intersect(roi)
	}
	if d.Value == 0 {
		r.unreadFaces[[2]float64{d.CX, d.CY}] = [2]candidate{c, top}
		r.unreadReads[[2]float64{d.CX, d.CY}] = unreadRead{fv: fv, shrunk: shrunk, heldShrunk: held, small: small, smallSil: r.face.smallSil}
	}
	if d.Value > 0 && d.Value == fv.lv {
		d.latReach = fv.lat.major
		if d.latReach == 0 {
			d.latReach = fv.lat.scale
		}
		d.reachValue = d.Value
		d.lat, d.latAngle = fv.lat, fv.c.angle
		// Without the dice's pip spread beyondLook withholds nothing
		// (see there): the count would be measured for nothing.
		if d.Value >= 4 && r.knownSize() && r.opts.PipSpread > 0 && !beyondOff {
			d.beyond, d.beyondOf = beyondPips(fr, &fv.pips, d.Value, fv.body), d.Value
		}
	}
	d.foot = [4]float64{float64(blob.Min.X+blob.Max.X)/2 + float64(roi.Min.X), float64(blob.Min.Y+blob.Max.Y)/2 + float64(roi.Min.Y), d.CX, d.CY}
	if readTrace != nil {
		readTrace(&d, fv, shrunk)
	}
	return d, true
}

// sortedMedian sorts xs in place and returns its median (the mean of the
// two middle values for an even count); xs must not be empty.
func sortedMedian(xs []float64) float64 {
	sort.Float64s(xs)
	return (xs[(len(xs)-1)/2] + xs[len(xs)/2]) / 2
}

// readEdgeMedian is the median face edge of dets' read dice, false with
// fewer than minFrameDice of them.
func readEdgeMedian(dets []Detection) (float64, bool) {
	var es []float64
	for _, d := range dets {
		if d.Value > 0 {
			es = append(es, d.EdgePx)
		}
	}
	if len(es) < minFrameDice {
		return 0, false
	}
	return sortedMedian(es), true
}

// pipBoxIn is a read's pip box (region pixels) in the frame, clipped to
// the region roi; empty when the read counted no pips.
func pipBoxIn(pb, roi image.Rectangle) image.Rectangle {
	if pb.Empty() {
		return image.Rectangle{}
	}
	return pb.Add(roi.Min).Intersect(roi)
}

// heldValue is a value readCandidate withheld only because its face was
// shrunk (see shrunkConfidence), with the box and check record it would
// have had.
type heldValue struct {
	value int
	side  float64 // the face's short side
	box   image.Rectangle
	rec   checkRec
	// whole: a 5 or a 6 with a blob at each of its pips, both cues
	// agreeing. No face holds a 5's or a 6's pips and more, so it is not
	// part of a larger face, whatever its size.
	whole bool
	// small: a later look's 1 or 2 (see smallface.go), given only on a
	// face of about the frame's faces' size with nothing around its pips.
	small   *faceValue
	silTurn float64         // the small's layout turn from the outline (NaN: none)
	pipBox  image.Rectangle // the small's pips, in the frame
}

// giveHeld gives the held values of the frame's unread dice whose face
// is about as large as the faces read in the frame (at least
// heldFaceShare of their median edge, over minFrameDice or more faces).
// A face much smaller than its region is most often part of a larger
// face (a 6 less a row read as a 4, a 3 less a pip as a 2); one as large
// as the frame's other faces is a whole face, and the rest of its region
// was a neighbour or a shadow. Only on a die called flat: the rest of a
// cocked die's region is its side faces, and the face read there may be
// part of its top face or a side. A whole 5 or 6 (heldValue.whole) is
// given at any size, with or without other faces read.
func (r *Reader) giveHeld(fr bgrImage, dets []Detection) {
	if len(r.held) == 0 {
		return
	}
	med, ok := readEdgeMedian(dets)
	if !ok {
		med = math.NaN()
	}
	offMed := r.frameOffMedian(dets)
	for i := range dets {
		d := &dets[i]
		h, ok := r.held[[2]float64{d.CX, d.CY}]
		// Written so that a NaN size holds the value back.
		if !ok || d.Value != 0 || !d.Flat {
			continue
		}
		if h.small != nil {
			if !r.giveSmall(fr, d, h, med, offMed) {
				continue
			}
		} else if !(h.side >= heldFaceShare*med || h.whole) {
			continue
		}
		d.Value, d.Box = h.value, h.box
		if h.small != nil {
			// The pips counted are the later look's, not the first's.
			d.PipBox = h.pipBox
		}
		r.checked[[2]float64{d.CX, d.CY}] = h.rec
	}
}

// heldFaceShare is the least share of the median edge of the frame's
// faces read a held value's face must have.
const heldFaceShare = 0.85

// unreadUnder returns the index of the unread detection of dets that is
// d's die (each holds the other's centre), or -1.
func unreadUnder(dets []Detection, d Detection) int {
	at := image.Pt(int(d.CX), int(d.CY))
	for i, o := range dets {
		if o.Value == 0 && at.In(o.Box) && image.Pt(int(o.CX), int(o.CY)).In(d.Box) {
			return i
		}
	}
	return -1
}

// covers reports whether a detection of dets (but those skip reports
// true for) holds d's centre, or d holds its centre.
func covers(dets []Detection, d Detection, skip func(i int) bool) bool {
	at := image.Pt(int(d.CX), int(d.CY))
	for i, o := range dets {
		if skip != nil && skip(i) {
			continue
		}
		if at.In(o.Box) || image.Pt(int(o.CX), int(o.CY)).In(d.Box) {
			return true
		}
	}
	return false
}

// pairEnds returns, for a region at least pairLong of the image's typical
// die edge long, die-sized squares at its two ends (at its four corners
// when it is that wide too). One die and the side faces it shows are
// never that long: such a region holds two dice pressed together, often
// taken as one larger square. The squares are weak (kept only when they
// read): the pips must show one die's layout in each.
func pairEnds(c candidate) []candidate {
	const pairLong = 1.3
	if c.sizeRatio <= 0 {
		return nil
	}
	est := c.edge / c.sizeRatio
	long, short := math.Max(c.w, c.h), math.Min(c.w, c.h)
	if long < pairLong*est {
		return nil
	}
	ux, uy := math.Cos(c.angle), math.Sin(c.angle)
	if c.h > c.w {
		ux, uy = -uy, ux
	}
	vx, vy := -uy, ux
	e := math.Min(est, short)
	du := (long - e) / 2
	dvs := []float64{0}
	if short >= pairLong*est {
		dv := (short - e) / 2
		dvs = []float64{-dv, dv}
	}
	var out []candidate
	for _, su := range []float64{-du, du} {
		for _, sv := range dvs {
			out = append(out, candidate{
				cx: c.cx + su*ux + sv*vx, cy: c.cy + su*uy + sv*vy,
				w: e, h: e, angle: c.angle, edge: e,
				flatness: 1, sizeRatio: e / est, weak: true,
			})
		}
	}
	return out
}

// frameSizeLook reads each unread die called flat again in a square as
// large as the frame's read faces (their median edge, over minFrameDice
// or more), turned as its face rectangle: on that rectangle's centre as
// it is (no refine), then refined, then on the centre of the region's top
// face. On a dark or marbled body refine often cuts the face short, its
// outer pips then off the patch, and read's larger looks start from that
// rectangle or trim again. Only a 5 or a 6 is given so, with a second
// look's confidence, after the veto and the check: no face holds a 5's or
// a 6's pips and more, while a 3 or a 4 read in a square of the frame's
// size may be part of a larger face (generated stills 0..599 read
// uncalibrated: a cocked 6 read as a 4, a stacked 5 as a 3). A die whose
// value was held for a shrunk face and not given (giveHeld) is read so
// too, and its 5 or 6 must hold the held value's pips (laterAgrees): a 6
// whose face rectangle lost a row reads as a 4 there, held, and as a 6
// in the frame's square (byler_d6: three such 6s). Only without
// a known die size: with one, the square placed on a cocked die took in
// a side face's pips (generated still 1027, calibrated: a cocked 4 read
// as a 6), and the known size already sets the reader's cuts. A square is
// read only where 4 to 7 blobs show on the colour-distance, hue or redness
// map (blobHope, far cheaper than a read; a 5 or a 6 with pips merged or
// one mark more still passes): the look then costs about 0.12 ms of CPU a
// byler photo on average.
func (r *Reader) frameSizeLook(fr bgrImage, dets []Detection, roi image.Rectangle) {
	if len(r.unreadFaces) == 0 || frameSizeOff || r.knownSize() {
		return
	}
	med, ok := readEdgeMedian(dets)
	if !ok {
		return
	}
	s := &r.face
	for i := range dets {
		d := &dets[i]
		cs, ok := r.unreadFaces[[2]float64{d.CX, d.CY}]
		if !ok || !d.laterMay() || !d.Flat {
			continue
		}
		held, isHeld := r.held[[2]float64{d.CX, d.CY}]
		// The square on the face rectangle's centre as it is, then
		// with refine's trim, then on the centre of the region's top
		// face (the face rectangle may have moved off the face).
		face, top := cs[0], cs[1]
		var fv faceValue
		for _, try := range [...]struct {
			cx, cy float64
			keep   bool
		}{{face.cx, face.cy, true}, {face.cx, face.cy, false}, {top.cx, top.cy, true}} {
			c := face
			c.cx, c.cy = try.cx, try.cy
			c.w, c.h, c.edge = med, med, med
			if !s.blobHope(fr, c, 4, 7) {
				continue
			}
			s.keepRect = try.keep
			fv = s.read1(fr, c)
			s.keepRect = false
			if fv.value >= 5 && fv.conf >= retryBelow {
				break
			}
		}
		if fv.value < 5 || fv.conf < retryBelow || (isHeld && !laterAgrees(held.value, fv.value)) {
			continue
		}
		fv.conf = min(fv.conf, secondLookMaxConf)
		if r.giveLater(fr, d, fv, roi) && frameSizeTrace != nil {
			frameSizeTrace(d, fv)
		}
	}
}

// giveLater gives d the value of a look after the first reads (fv, its
// confidence set) when the veto and the check pass: its box and pip box
// become the look's, and the check's measures are kept for the frame's
// later checks as a weak cue's. It reports whether it gave the value.
func (r *Reader) giveLater(fr bgrImage, d *Detection, fv faceValue, roi image.Rectangle) bool {
	return r.giveLaterVeto(fr, d, fv, roi, true)
}

// giveLaterVeto is giveLater, the veto applied only when veto is set (a
// look that measured the veto's evidence its own way: mapsAgreeLook).
func (r *Reader) giveLaterVeto(fr bgrImage, d *Detection, fv faceValue, roi image.Rectangle, veto bool) bool {
	if !d.laterMay() {
		return false
	}
	nd := *d
	nd.Confidence = fv.conf
	if veto && r.veto(fr, fv, &nd) || !r.check(fr, fv, &nd) {
		d.pipsRow = nd.pipsRow
		return false
	}
	d.Value, d.Confidence = fv.value, fv.conf
	d.Box = fv.c.box().Add(roi.Min).Intersect(roi)
	d.PipBox = pipBoxIn(fv.pipBox, roi)
	d.keepChecked(nd)
	r.checked[[2]float64{d.CX, d.CY}] = checkRec{off: r.lastPipOff, colSpread: r.lastColSpread, weakCue: true}
	return true
}

// laterMay reports whether a look after the first reads may give d a
// value: d is unread and the check did not mark it (pipsRow: a layout
// small for the die and for its pips is a part of its face, and so is
// what a later look reads there; pairOne: a 1 read on one of a pip
// group's pips).
func (d *Detection) laterMay() bool {
	return d.Value == 0 && !d.pipsRow && !d.pairOne
}

// keepChecked takes from nd, the copy of d a later look's value was
// checked on, what check measured of that value for the rules that run
// after the frame's looks (printedLook, openLook, softLook): without it
// they judged a later look's value by an earlier value's pips, or not
// at all.
func (d *Detection) keepChecked(nd Detection) {
	d.outlined, d.open, d.soft = nd.outlined, nd.open, nd.soft
}

// frameSizeOff turns frameSizeLook off (for tests).
var frameSizeOff = false

// frameSizeTrace, when set, sees each value frameSizeLook gives.
var frameSizeTrace func(d *Detection, fv faceValue)

// A die resting on another is up to 1.2 times a die's size on the table,
// and its region takes in the lower die's edge and both dice's shadows:
// on the generated stills (seeds 0..599, calibrated with the die's edge
// at each place) such regions measure up to twice the expected edge,
// past detect's 1.6, and two stacked dice in five truly past the stacked
// cut were dropped there unread. With the dice's pip spread known, a
// region of 1.6 to largeMax expected edges (candidate.large) is read,
// and the die kept only when its value has two pips or more whose layout
// reach puts its face at largeMinPips to largeMaxPips of the expected
// edge: a die raised off the table (on another), not a larger thing
// (print, a cocked die's sides) whose spots read as a larger layout.
// largeMinPips is the rules' stacked cut (rules.DefaultStackedSizeRatio):
// a die measured under it in such a region has no stacked evidence to
// give, and kept unread it was one more die for the cocked net to call
// on a region that is not the die's (default 80 stills, calibrated: 6
// more clean dice detected, 3 of them called not flat).
// Such a die is added to the frame's dice after the frame's later looks
// (which take the frame's read dice as evidence: counted among them, a
// die's region read this way had a neighbour's unread 2 given as a 1),
// before the frame's pip check, the size evidence and the cocked look.
//
// The die is kept as evidence only (largeEvidence): its box and its
// size as its pips measure it, value unreadable. A die on another is a
// no roll whatever its value, so the value adds nothing there, and read
// in a region this large (a cocked die's sides, a neighbour, shadows)
// it was wrong once where the normal gates passed it (session 14, held
// out still 2314: a cocked 6 read 2 at 0.59).
//
// Up to 2 expected edges (session 14), stills 0..599 calibrated with the
// local edge: stacked dice truly past the cut detected 102 -> 155, caught
// 80 -> 127; with the nominal edge 121 -> 166 and 80 -> 113. With the
// value withheld a larger region costs no value, and largeMax went to 3
// (regions of the upper die, the lower die's rim and both shadows reach
// 2.6 and more): local edge detected 156 -> 162, caught 127 -> 131, the
// clean dice put past the cut the same (89 of 1463, of 1470). Both with
// largeMinPips at 0.9; at the cut, only the dice it catches are added.
const (
	largeMax     = 3.0
	largeMinPips = 1.12
	largeMaxPips = 1.3
)

// largeOff turns the large regions' read off (tests).
var largeOff bool

// largeRead reports whether a die read in a large region (see
// candidate.large) is kept: see above.
func (r *Reader) largeRead(d Detection) bool {
	if d.Value < 2 || d.latReach <= 0 {
		return false
	}
	e := r.expectedAt(d.CX, d.CY)
	if e <= 0 {
		return false
	}
	s := r.pipRatio(d, e)
	return s >= largeMinPips && s <= largeMaxPips
}

// largeEvidence is a die read in a large region and kept by largeRead,
// as the frame's dice take it: its value withheld (unreadable, so no
// look or rule after can publish it) and its layout reach kept, which
// sizeEvidence turns into the die's size ratio.
func largeEvidence(d Detection) Detection {
	d.Value, d.Confidence = 0, 0
	return d
}

// restGiveTrace, when set, sees each unread detection the rest pass gives
// a value, with the pip box of the look that read it (for tests).
var restGiveTrace func(d *Detection, pips image.Rectangle)
