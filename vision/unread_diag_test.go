package vision

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"gocv.io/x/gocv"
)

// TestUnreadDiag lists every matched byler_d6 die the reader leaves
// unreadable (and every wrong one) with the cue that failed and what the
// face looked like, as tab-separated lines to DICEWATCH_UNREAD_DIAG, and
// sums them by group. With DICEWATCH_UNREAD_CROPS (a directory) it also
// writes mosaics of the dice, by group. It is a tuning tool: skipped
// without DICEWATCH_UNREAD_DIAG.
func TestUnreadDiag(t *testing.T) {
	path := os.Getenv("DICEWATCH_UNREAD_DIAG")
	if path == "" {
		t.Skip("DICEWATCH_UNREAD_DIAG not set")
	}
	set := os.Getenv("DICEWATCH_UNREAD_SET")
	if set == "" {
		set = "byler_d6"
	}
	crops := os.Getenv("DICEWATCH_UNREAD_CROPS")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fmt.Fprintln(f, "image\tidx\ttruth\tread\tconf\treason\tbody\tmedB\tmedG\tmedR\tpeak\tblobs\tpeaks\tlv\tls\ttv\tncc\tjunk\tsq\tedge\tfaceEdge\tgtEdge\tiou\tsharp\tfinal\tgroup\toracle\tangles\tokturns\talign\tlooks")
	ps := loadPhotoSet(t, set)
	r := NewReader(ReaderOptions{})
	defer r.Close()
	counts := map[string]int{}
	groups := map[string]int{}
	bodies := map[string]int{}
	mos := map[string][]gocv.Mat{}
	defer func() {
		for _, ms := range mos {
			for _, m := range ms {
				m.Close()
			}
		}
	}()
	for _, name := range ps.images {
		img := photoImage(t, ps, name)
		dets, infos := diagRead(t, r, img)
		truth := ps.dice[name]
		for _, p := range matchBoxes(truth, dets, set == "matteo_webcam") {
			g, d := truth[p[0]], dets[p[1]]
			if d.Value == g.value {
				continue
			}
			in := infos[p[1]]
			if in.reason != "" {
				fr := readerFrame(t, r)
				in.oracle = append(in.oracle, oracleGT(&r.face, fr, g, in.firstC.angle)...)
			}
			tOK, tBad, gOK, gBad := oracleSummary(in.oracle, g.value)
			group := "map"
			switch {
			case d.Value != 0:
				group = "wrong"
			case in.reason == "shrunk" || in.reason == "veto":
				group = in.reason
			case tOK > 0:
				group = "angle"
			case gOK > 0:
				group = "rect"
			}
			groups[group]++
			reason := in.reason
			if d.Value != 0 {
				reason = "WRONG"
			}
			counts[reason]++
			bodies[in.body]++
			gw := (g.box[2] - g.box[0] + g.box[3] - g.box[1]) / 2
			fmt.Fprintf(f, "%s\t%d\t%d\t%d\t%.2f\t%s\t%s\t%.0f\t%.0f\t%.0f\t%.0f\t%d\t%d\t%d\t%.2f\t%d\t%.2f\t%v\t%v\t%.1f\t%.1f\t%.1f\t%.2f\t%.1f\t%s\t%s\t%d/%d/%d/%d\t%.1f/%.1f\t%s\t%s\t%s\n",
				name, p[0], g.value, d.Value, d.Confidence, reason, in.body, in.med[0], in.med[1], in.med[2], in.peak,
				in.first.blobs, in.peaks, in.first.lv, in.first.lscore, in.first.tmpl, in.first.nccScore, in.first.junk, in.first.sq,
				in.cand.edge, in.final.c.edge, gw, iou(g.box, d.Box), in.sharp, in.finalStr, group, tOK, tBad, gOK, gBad, in.cand.angle*180/math.Pi, in.firstC.angle*180/math.Pi, okTurns(in.oracle, g.value), in.alignNote, in.looks)
			if crops != "" {
				m := diagCrop(img, g, in, fmt.Sprintf("%d %s %d/%d/%d/%d", g.value, shortReason(reason), tOK, tBad, gOK, gBad))
				k := group + "_" + in.body
				mos[k] = append(mos[k], m)
			}
		}
		img.Close()
	}
	var ks []string
	for k := range counts {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return counts[ks[i]] > counts[ks[j]] })
	for _, k := range ks {
		t.Logf("reason %-28s %d", k, counts[k])
	}
	for k, v := range groups {
		t.Logf("group %-10s %d", k, v)
	}
	ks = ks[:0]
	for k := range bodies {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return bodies[ks[i]] > bodies[ks[j]] })
	for _, k := range ks {
		t.Logf("body %-10s %d", k, bodies[k])
	}
	if crops != "" {
		if err := os.MkdirAll(crops, 0o755); err != nil {
			t.Fatal(err)
		}
		for k, ms := range mos {
			writeMosaic(t, filepath.Join(crops, strings.ReplaceAll(k, " ", "-")+".png"), ms)
		}
	}
}

func shortReason(r string) string {
	if len(r) > 10 {
		return r[:10]
	}
	return r
}

// diagInfo is what diagRead found about one detection.
type diagInfo struct {
	cand      candidate // after topFace
	first     faceValue // the colour-distance map's cues on the aligned, refined rectangle
	final     faceValue
	firstC    candidate // the rectangle the first look read
	patch     [faceN * faceN * 3]float64
	dog       [faceN * faceN]float64
	med       [3]float64
	body      string
	peak      float64 // strongest difference of blurs on the first map
	peaks     int
	sharp     float64 // mean absolute Laplacian of the patch's grey levels
	reason    string
	finalStr  string
	oracle    []oracleRead
	alignNote string
	looks     string
	redDog    [faceN * faceN]float64
}

// oracleRead is what read1 gave on a rectangle changed from the first
// look's: turned by turn degrees, or (gt) the label box's centre and size.
type oracleRead struct {
	gt          bool
	turn, scale float64
	value       int
	conf        float64
}

// oracle reads the face on rectangles turned from ca (every 7.5 degrees
// of a quarter turn), and on the label box's place at each of these turns
// (filled in by the caller).
func oracle(s *faceScratch, fr bgrImage, ca candidate) []oracleRead {
	var out []oracleRead
	for k := 1; k < 12; k++ {
		c := ca
		c.angle += float64(k) * 7.5 * math.Pi / 180
		fv := s.read1(fr, c)
		out = append(out, oracleRead{turn: float64(k) * 7.5, scale: 1, value: fv.value, conf: fv.conf})
	}
	return out
}

// oracleGT reads the face on the label box's centre, at every turn of
// 7.5 degrees, the edge the box gives at that turn, times scale.
func oracleGT(s *faceScratch, fr bgrImage, g gtDie, angle0 float64) []oracleRead {
	var out []oracleRead
	for _, sc := range []float64{0.9, 1, 1.1} {
		for k := 0; k < 12; k++ {
			a := angle0 + float64(k)*7.5*math.Pi/180
			ar := math.Remainder(a, math.Pi/2)
			side := ((g.box[2] - g.box[0]) + (g.box[3] - g.box[1])) / 2
			e := sc * side / (math.Abs(math.Cos(ar)) + math.Abs(math.Sin(ar)))
			c := candidate{cx: (g.box[0] + g.box[2]) / 2, cy: (g.box[1] + g.box[3]) / 2, w: e, h: e, edge: e, angle: a}
			fv := s.read1(fr, c)
			out = append(out, oracleRead{gt: true, turn: float64(k) * 7.5, scale: sc, value: fv.value, conf: fv.conf})
		}
	}
	return out
}

// oracleSummary sums oracle reads: how many right and wrong (at
// confidence 0.5) on turned rectangles and on the label's place.
func oracleSummary(os []oracleRead, truth int) (turnOK, turnBad, gtOK, gtBad int) {
	for _, o := range os {
		ok := o.value == truth && o.conf >= 0.5
		bad := o.value != 0 && o.value != truth && o.conf >= 0.5
		switch {
		case o.gt && ok:
			gtOK++
		case o.gt && bad:
			gtBad++
		case ok:
			turnOK++
		case bad:
			turnBad++
		}
	}
	return
}

// detectFrame copies img into r's frame and returns the candidates
// detection finds in the whole of it and the frame as the pip reader sees
// it (valid until r reads again).
func detectFrame(t *testing.T, r *Reader, img gocv.Mat) ([]candidate, bgrImage) {
	t.Helper()
	img.CopyTo(&r.frame)
	cands, err := r.detect(image.Point{})
	if err != nil {
		t.Fatal(err)
	}
	pix, err := r.frame.DataPtrUint8()
	if err != nil {
		t.Fatal(err)
	}
	return cands, bgrImage{pix: pix, w: r.frame.Cols(), h: r.frame.Rows()}
}

// diagRead is ReadRegion on the whole image, keeping per detection what
// the pip reader saw.
func diagRead(t *testing.T, r *Reader, img gocv.Mat) ([]Detection, []diagInfo) {
	t.Helper()
	cands, fr := detectFrame(t, r, img)
	ocx, ocy := float64(img.Cols())/2, float64(img.Rows())/2
	var out []Detection
	var infos []diagInfo
	s := &r.face
	for _, c := range cands {
		c = topFace(c, ocx, ocy)
		var in diagInfo
		in.cand = c
		d := Detection{CX: c.cx, CY: c.cy, EdgePx: c.edge, Flatness: c.flatness, SizeRatio: c.sizeRatio}
		fv := s.read(fr, c)
		in.final = fv
		shrunk := fv.c.edge < 0.75*c.edge && (fv.silEdge == 0 || fv.c.edge < silFaceShare*fv.silEdge) // as ReadRegion
		vetoed := false
		if fv.value > 0 && fv.conf >= r.opts.MinConfidence && (!shrunk || fv.conf >= shrunkConfidence) {
			vetoed = r.veto(fr, fv, &d)
		}
		c2 := fv.c
		d.CX, d.CY, d.EdgePx = c2.cx, c2.cy, c2.edge
		d.Box = c2.box().Intersect(image.Rect(0, 0, fr.w, fr.h))
		d.PipBox = fv.pipBox
		d.Confidence = fv.conf
		switch {
		case fv.value > 0 && fv.conf >= r.opts.MinConfidence && shrunk && fv.conf < shrunkConfidence:
			in.reason = "shrunk"
		case vetoed:
			in.reason = "veto"
		case fv.value > 0 && fv.conf >= r.opts.MinConfidence:
			d.Value = fv.value
		}
		if d.Value == 0 && c.weak {
			continue
		}
		// The first look's cues, on the colour-distance map only.
		ca := alignAngle(fr, c)
		cs, silOK := s.silhouette(fr, c)
		if silOK {
			ca = c
			ca.angle = cs.angle
		}
		{
			c45 := c
			c45.angle += math.Pi / 4
			if silOK {
				in.alignNote = "sil"
			} else if a45 := alignAngle(fr, c45); a45.angle == c45.angle && ca.angle == c.angle {
				in.alignNote = "nodir"
			} else {
				in.alignNote = fmt.Sprintf("dir%.1f", math.Remainder(ca.angle, math.Pi/2)*180/math.Pi)
			}
		}
		s.sample(fr, ca)
		s.pipMap()
		if rc, ok := s.refine(ca); ok {
			ca = rc
			s.sample(fr, ca)
			s.pipMap()
		}
		in.med = s.med
		in.body = bodyClass(s.med)
		in.sharp = patchSharpness(&s.patch)
		in.first = s.cues(ca)
		in.firstC = ca
		in.patch = s.patch
		in.dog = s.dog
		for y := faceMargin; y < faceN-faceMargin; y++ {
			for x := faceMargin; x < faceN-faceMargin; x++ {
				in.peak = max(in.peak, s.dog[y*faceN+x])
			}
		}
		in.peaks = len(s.peaks())
		look := func(name string, m func() bool) {
			s.sample(fr, ca)
			s.pipMap()
			if !m() {
				in.looks += name + ":- "
				return
			}
			fv := s.cues(ca)
			in.looks += fmt.Sprintf("%s:v%d/c%.2f/b%d/lv%d/tv%d/ls%.2f/n%.2f/j%v/e%.2f ", name, fv.value, fv.conf, fv.blobs, fv.lv, fv.tmpl, fv.lscore, fv.nccScore, fv.junk, fv.empty)
			if name == "red" {
				in.redDog = s.dog
			}
		}
		look("col", s.pipColourMap)
		look("hue", func() bool { s.pipChromaMap(); return true })
		look("red", s.pipRedMap)
		if in.reason == "" && d.Value == 0 {
			fa := in.first
			switch {
			case fa.lv == 0 && fa.blobs == 0:
				in.reason = "no blobs"
			case fa.lv == 0:
				in.reason = "no layout"
			case fa.lv != fa.tmpl:
				in.reason = "disagree"
			case !fa.sq:
				in.reason = "low conf: not square"
			case fa.junk:
				in.reason = "low conf: junk"
			case fa.lscore < 0.5 && fa.nccScore < 0.5:
				in.reason = "low conf: both"
			case fa.lscore < 0.5:
				in.reason = "low conf: layout"
			case fa.nccScore < 0.5:
				in.reason = "low conf: template"
			default:
				in.reason = "first look ok, lost later"
			}
		}
		if in.reason != "" {
			in.oracle = oracle(s, fr, ca)
		}
		in.finalStr = fmt.Sprintf("v%d/c%.2f/b%d/lv%d/tv%d/ls%.2f/ncc%.2f", fv.value, fv.conf, fv.blobs, fv.lv, fv.tmpl, fv.lscore, fv.nccScore)
		out = append(out, d)
		infos = append(infos, in)
	}
	return out, infos
}

// bodyClass names a body colour (BGR median).
func bodyClass(m [3]float64) string {
	b, g, r := m[0], m[1], m[2]
	hi, lo := max(b, g, r), min(b, g, r)
	switch {
	case hi < 70:
		return "dark"
	case hi-lo < 40 && lo > 150:
		return "white"
	case hi-lo < 40:
		return "grey"
	case r == hi && r-max(b, g) > 40:
		return "red"
	case b == hi:
		return "blue"
	case g == hi:
		return "green"
	default:
		return "yellow"
	}
}

// patchSharpness is the mean absolute 4-neighbour Laplacian of the
// patch's grey levels over its inner part.
func patchSharpness(p *[faceN * faceN * 3]float64) float64 {
	g := func(x, y int) float64 {
		i := (y*faceN + x) * 3
		return (p[i] + p[i+1] + p[i+2]) / 3
	}
	var sum float64
	n := 0
	for y := faceMargin; y < faceN-faceMargin; y++ {
		for x := faceMargin; x < faceN-faceMargin; x++ {
			sum += math.Abs(4*g(x, y) - g(x-1, y) - g(x+1, y) - g(x, y-1) - g(x, y+1))
			n++
		}
	}
	return sum / float64(n)
}

// diagCrop is a tile for a labelled die: a crop around it (label box
// green, the first look's rectangle orange, the final one magenta), the
// first look's patch and its difference of blurs, and a caption.
func diagCrop(img gocv.Mat, g gtDie, in diagInfo, caption string) gocv.Mat {
	cx, cy := (g.box[0]+g.box[2])/2, (g.box[1]+g.box[3])/2
	half := 0.8 * max(g.box[2]-g.box[0], g.box[3]-g.box[1])
	roi := image.Rect(int(cx-half), int(cy-half), int(cx+half), int(cy+half)).Intersect(image.Rect(0, 0, img.Cols(), img.Rows()))
	sub := img.Region(roi)
	cl := sub.Clone()
	sub.Close()
	const n = 128
	sc := float64(n) / float64(max(roi.Dx(), roi.Dy()))
	out := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(0, 0, 0, 0), n+14, n+3*64+6, gocv.MatTypeCV8UC3)
	rs := gocv.NewMat()
	gocv.Resize(cl, &rs, image.Pt(int(float64(roi.Dx())*sc), int(float64(roi.Dy())*sc)), 0, 0, gocv.InterpolationLinear)
	cl.Close()
	dst := out.Region(image.Rect(0, 0, rs.Cols(), rs.Rows()))
	rs.CopyTo(&dst)
	dst.Close()
	rs.Close()
	pt := func(x, y float64) image.Point {
		return image.Pt(int((x-float64(roi.Min.X))*sc), int((y-float64(roi.Min.Y))*sc))
	}
	gocv.Rectangle(&out, image.Rectangle{pt(g.box[0], g.box[1]), pt(g.box[2], g.box[3])}, color.RGBA{0, 255, 0, 0}, 1)
	poly := func(c candidate, col color.RGBA) {
		co, si := math.Cos(c.angle), math.Sin(c.angle)
		var ps []image.Point
		for _, k := range [][2]float64{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
			u, v := k[0]*c.w/2, k[1]*c.h/2
			ps = append(ps, pt(c.cx+u*co-v*si, c.cy+u*si+v*co))
		}
		for i := range ps {
			gocv.Line(&out, ps[i], ps[(i+1)%4], col, 1)
		}
	}
	poly(in.firstC, color.RGBA{255, 160, 0, 0})
	poly(in.final.c, color.RGBA{255, 0, 255, 0})
	// Patch and difference of blurs, twice their size.
	peak := 1.0
	for _, v := range in.dog {
		peak = max(peak, v)
	}
	rpeak := 1.0
	for _, v := range in.redDog {
		rpeak = max(rpeak, v)
	}
	for y := 0; y < faceN; y++ {
		for x := 0; x < faceN; x++ {
			i := y*faceN + x
			dv := uint8(clamp(255*in.dog[i]/peak, 0, 255))
			rv := uint8(clamp(255*in.redDog[i]/rpeak, 0, 255))
			for dy := 0; dy < 2; dy++ {
				for dx := 0; dx < 2; dx++ {
					for ch := 0; ch < 3; ch++ {
						out.SetUCharAt(2*y+dy, (n+2+2*x+dx)*3+ch, uint8(in.patch[3*i+ch]))
						out.SetUCharAt(2*y+dy, (n+66+2*x+dx)*3+ch, dv)
						out.SetUCharAt(2*y+dy, (n+130+2*x+dx)*3+ch, rv)
					}
				}
			}
		}
	}
	gocv.PutText(&out, caption, image.Pt(1, n+11), gocv.FontHersheyPlain, 0.8, color.RGBA{255, 255, 255, 0}, 1)
	gocv.PutText(&out, fmt.Sprintf("b%d lv%d tv%d", in.first.blobs, in.first.lv, in.first.tmpl), image.Pt(n+2, 80), gocv.FontHersheyPlain, 0.8, color.RGBA{255, 255, 255, 0}, 1)
	gocv.PutText(&out, fmt.Sprintf("pk%.0f rpk%.0f", in.peak, rpeak), image.Pt(n+2, 96), gocv.FontHersheyPlain, 0.8, color.RGBA{255, 255, 255, 0}, 1)
	return out
}

// writeMosaic tiles equal-sized crops, ten a row.
func writeMosaic(t *testing.T, path string, ms []gocv.Mat) {
	const cols = 4
	cw, ch := ms[0].Cols(), ms[0].Rows()
	rows := (len(ms) + cols - 1) / cols
	out := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(40, 40, 40, 0), rows*(ch+2), cols*(cw+2), gocv.MatTypeCV8UC3)
	defer out.Close()
	for i, m := range ms {
		x, y := (i%cols)*(cw+2), (i/cols)*(ch+2)
		dst := out.Region(image.Rect(x, y, x+cw, y+ch))
		m.CopyTo(&dst)
		dst.Close()
	}
	if !gocv.IMWrite(path, out) {
		t.Fatalf("cannot write %s", path)
	}
}

// okTurns lists the turns at which the oracle read the truth (+) or a
// wrong value (-), on the first look's rectangle.
func okTurns(os []oracleRead, truth int) string {
	var b strings.Builder
	for _, o := range os {
		if o.gt || o.conf < 0.5 || o.value == 0 {
			continue
		}
		if o.value == truth {
			fmt.Fprintf(&b, "+%.0f ", o.turn)
		} else {
			fmt.Fprintf(&b, "-%.0f(%d) ", o.turn, o.value)
		}
	}
	return b.String()
}

// TestUnreadOne prints what alignAngle measures on the candidates of one
// image (DICEWATCH_UNREAD_ONE, a byler_d6 file name).
func TestUnreadOne(t *testing.T) {
	name := os.Getenv("DICEWATCH_UNREAD_ONE")
	if name == "" {
		t.Skip("DICEWATCH_UNREAD_ONE not set")
	}
	img := gocv.IMRead(filepath.Join(photoRoot, "byler_d6", "images", name), gocv.IMReadColor)
	defer img.Close()
	r := NewReader(ReaderOptions{})
	defer r.Close()
	cands, fr := detectFrame(t, r, img)
	for _, c := range cands {
		c = topFace(c, 320, 320)
		bb := c.box()
		co, si := math.Cos(c.angle), math.Sin(c.angle)
		var sc, ss, sm float64
		for y := max(bb.Min.Y, 1); y < min(bb.Max.Y, fr.h-1); y++ {
			for x := max(bb.Min.X, 1); x < min(bb.Max.X, fr.w-1); x++ {
				dx, dy := float64(x)+0.5-c.cx, float64(y)+0.5-c.cy
				if u, v := dx*co+dy*si, -dx*si+dy*co; math.Abs(u) > 0.6*c.w || math.Abs(v) > 0.6*c.h {
					continue
				}
				g := func(x, y int) float64 {
					i := (y*fr.w + x) * 3
					return float64(fr.pix[i]) + float64(fr.pix[i+1]) + float64(fr.pix[i+2])
				}
				gx, gy := g(x+1, y)-g(x-1, y), g(x, y+1)-g(x, y-1)
				m2 := gx*gx + gy*gy
				if m2 == 0 {
					continue
				}
				c2, s2 := (gx*gx-gy*gy)/m2, 2*gx*gy/m2
				m := math.Sqrt(m2)
				sc += m * (c2*c2 - s2*s2)
				ss += m * 2 * c2 * s2
				sm += m
			}
		}
		t.Logf("cand (%.0f,%.0f) w %.1f h %.1f angle %.1f: ratio %.3f dir %.1f -> aligned %.1f", c.cx, c.cy, c.w, c.h,
			c.angle*180/math.Pi, math.Hypot(sc, ss)/sm, math.Atan2(ss, sc)/4*180/math.Pi, alignAngle(fr, c).angle*180/math.Pi)
	}
}

// TestSilFill prints, for every matched labelled die of a set
// (DICEWATCH_SILFILL), the silhouette's fill and whether the reader's
// value is right.
func TestSilFill(t *testing.T) {
	set := os.Getenv("DICEWATCH_SILFILL")
	if set == "" {
		t.Skip("DICEWATCH_SILFILL not set")
	}
	ps := loadPhotoSet(t, set)
	r := NewReader(ReaderOptions{})
	defer r.Close()
	for _, name := range ps.images {
		img := gocv.IMRead(filepath.Join(photoRoot, ps.name, "images", name), gocv.IMReadColor)
		dets, infos := diagRead(t, r, img)
		fr := readerFrame(t, r)
		for _, p := range matchBoxes(ps.dice[name], dets, set == "matteo_webcam") {
			g, d := ps.dice[name][p[0]], dets[p[1]]
			cs, ok := r.face.silhouette(fr, infos[p[1]].cand)
			st := "unread"
			if d.Value == g.value {
				st = "right"
			} else if d.Value != 0 {
				st = "wrong"
			}
			c0 := infos[p[1]].cand
			fmt.Printf("SIL\t%s\t%v\t%.3f\t%.2f\t%s\t%.0f,%.0f e%.1f a%.1f -> %.0f,%.0f e%.1f a%.1f w%.1f h%.1f\n", st, ok, 0.0, cs.edge/c0.edge, name,
				c0.cx, c0.cy, c0.edge, c0.angle*180/math.Pi, cs.cx, cs.cy, cs.edge, cs.angle*180/math.Pi, cs.w, cs.h)
		}
		img.Close()
	}
}

// TestLookStats prints, for every matched byler_d6 die and each pip map
// (colour distance, colour direction, hue, redness), the cues on the
// reader's first rectangle: truth, layout and template values, their
// scores and the emptySpots ratio. Skipped without DICEWATCH_LOOKSTATS.
func TestLookStats(t *testing.T) {
	set := os.Getenv("DICEWATCH_LOOKSTATS")
	if set == "" {
		t.Skip("DICEWATCH_LOOKSTATS not set")
	}
	ps := loadPhotoSet(t, set)
	r := NewReader(ReaderOptions{})
	defer r.Close()
	s := &r.face
	for _, name := range ps.images {
		img := gocv.IMRead(filepath.Join(photoRoot, ps.name, "images", name), gocv.IMReadColor)
		dets, infos := diagRead(t, r, img)
		fr := readerFrame(t, r)
		for _, p := range matchBoxes(ps.dice[name], dets, set == "matteo_webcam") {
			g, d := ps.dice[name][p[0]], dets[p[1]]
			ca := infos[p[1]].firstC
			for _, m := range []struct {
				name string
				f    func() bool
			}{
				{"dist", func() bool { return true }},
				{"col", s.pipColourMap},
				{"hue", func() bool { s.pipChromaMap(); return true }},
				{"red", s.pipRedMap},
			} {
				s.sample(fr, ca)
				s.pipMap()
				if !m.f() {
					continue
				}
				fv := s.cues(ca)
				fmt.Printf("LOOK\t%s\t%d\t%d\t%s\t%d\t%d\t%d\t%.2f\t%.2f\t%.2f\t%v\t%v\n", name, g.value, d.Value, m.name, fv.blobs, fv.lv, fv.tmpl, fv.lscore, fv.nccScore, fv.empty, fv.junk, fv.sq)
			}
		}
		img.Close()
	}
}
