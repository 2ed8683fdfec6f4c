package vision

import (
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"gocv.io/x/gocv"
)

// TestUnreadGates lists every matched byler_d6 die Read leaves unread
// (read with the fold nets, as TestAccuracyPhotos) with the gate that
// withholds it: the footprint's flat call the later looks see, a shrunk
// face, the first look's cues, and the face net's
// guess on the face rectangle and on the frame-size square. A tuning
// tool: skipped without DICEWATCH_GATES_DIAG (a file).
func TestUnreadGates(t *testing.T) {
	f := diagFile(t, "DICEWATCH_GATES_DIAG")
	fmt.Fprintln(f, "image\tidx\thalf\ttruth\tgate\tflat\tcockP\tfootprint\tsizeRatio\tkeepNF\tshrunk\theld\tfv\tlv\ttmpl\tblobs\tls\tncc\tsq\tjunk\tsmall\tnetR\tmR\trejR\tnetS\tmS\trejS\tnetOK\tvetoCheck\tspots(size col hue red)")
	ps := loadPhotoSet(t, "byler_d6")
	r := NewReader(ReaderOptions{})
	defer r.Close()
	gates := map[string]int{}
	netRight := map[string]int{}
	readPhotos(t, ps, r, nil, func(i int, name string, img gocv.Mat, dets []Detection) {
		fr := readerFrame(t, r)
		med, medOK := readEdgeMedian(dets)
		forUnreadMatched(r, ps.dice[name], dets, func(p [2]int, g gtDie, d Detection, ur unreadRead, found bool) {
			fv := ur.fv
			gate := ""
			switch {
			case !found:
				gate = "no read kept"
			case d.keepNotFlat:
				gate = "keepNotFlat"
			case d.Flatness < r.opts.MinFlatness && !d.earlyFlat:
				// The later looks read only dice called flat, and
				// until cockLook that call is the footprint's
				// (netLook and sepLook read earlyFlat dice too; the
				// other later looks skip them, and they are counted
				// under the gates below). The nets' final call (the
				// flat column) holds no value back: it only caps a
				// value's confidence.
				gate = "footprint not flat"
			case ur.shrunk:
				gate = "shrunk"
			case fv.c.weak:
				gate = "weak"
			case fv.lv == 0 && fv.blobs == 0:
				gate = "no blobs"
			case fv.lv == 0:
				gate = "no layout"
			case fv.lv != fv.tmpl:
				gate = "disagree"
			case fv.blobs > fv.lv:
				gate = "more blobs"
			case !fv.sq:
				gate = "not square"
			case fv.value > 0 && fv.conf >= r.opts.MinConfidence:
				// The first look's value was confident enough: the
				// veto or the check withheld it.
				gate = firstWithheld(r, fr, fv, d)
			default:
				gate = "cues agree, low conf"
			}
			gates[gate]++
			nv, nm, nrej, sv, sm, srej := 0, 0.0, 0.0, 0, 0.0, 0.0
			if found && r.net != nil {
				pr, rej := r.ns.predictReject(r.net, fr, fv.c)
				nv, _, nm = netTop2(pr)
				nrej = rej
				if e, ok := r.edgeAt(&d, med, medOK); ok {
					sq := fv.c
					sq.w, sq.h, sq.edge = e, e, e
					ps2, rej2 := r.ns.predictReject(r.net, fr, sq)
					sv, _, sm = netTop2(ps2)
					srej = rej2
				}
			}
			spots := "-"
			if cs, ok := r.unreadFaces[[2]float64{d.CX, d.CY}]; ok && medOK {
				face := cs[0]
				fe := (face.w + face.h) / 2
				off := r.frameOffMedian(dets)
				pitch := off * fe / med
				if math.IsNaN(off) || pitch <= 0 {
					pitch = 0.28 * fe
				}
				c := face.square()
				a := pitch / (c.edge * sampleShrink)
				s := &r.face
				s.sample(fr, c)
				s.pipMap()
				spots = fmt.Sprintf("%.2f", fe/med)
				for k := 0; k < 3; k++ {
					okm := true
					switch k {
					case 0:
						s.pipMap()
					case 1:
						s.pipChromaMap()
					case 2:
						okm = s.pipRedMap()
					}
					if !okm {
						spots += " -"
						continue
					}
					sr := s.spotDecode(a)
					if sr.value > 0 && sr.clear() >= spotLead && sr.margin-max(sr.next, 0) >= spotAbsMin {
						spots += fmt.Sprintf(" %d", sr.value)
					} else {
						spots += fmt.Sprintf(" (%d:%.2f)", sr.value, sr.clear())
					}
				}
			}
			verdict := "-"
			if found && fv.sq && fv.lv >= 2 && fv.lv == fv.tmpl && fv.blobs <= fv.lv {
				fv2 := fv
				fv2.value, fv2.conf = fv.lv, netConf
				nd := d
				nd.Confidence = netConf
				switch {
				case r.veto(fr, fv2, &nd):
					verdict = "veto"
				case !r.check(fr, fv2, &nd):
					verdict = "check"
				default:
					verdict = "pass"
				}
			}
			ok := "-"
			if nv == g.value {
				ok = "R"
				netRight[gate]++
			} else if nv != 0 {
				ok = "W"
			}
			if dir := os.Getenv("DICEWATCH_GATES_CROPS"); dir != "" {
				cx, cy := (g.box[0]+g.box[2])/2, (g.box[1]+g.box[3])/2
				h := max(g.box[2]-g.box[0], g.box[3]-g.box[1])
				rc := image.Rect(int(cx-h), int(cy-h), int(cx+h), int(cy+h)).Intersect(image.Rect(0, 0, img.Cols(), img.Rows()))
				sub := img.Region(rc)
				big := gocv.NewMat()
				gocv.Resize(sub, &big, image.Pt(240, 240*rc.Dy()/max(1, rc.Dx())), 0, 0, gocv.InterpolationCubic)
				os.MkdirAll(dir, 0o755)
				gocv.IMWrite(filepath.Join(dir, fmt.Sprintf("%s_%d_t%d.png", name[:len(name)-4], p[0], g.value)), big)
				big.Close()
				sub.Close()
			}
			half := "even"
			if i%2 == 1 {
				half = "odd"
			}
			fmt.Fprintf(f, "%s\t%d\t%s\t%d\t%s\t%v\t%.2f\t%.2f\t%.2f\t%v\t%v\t%v\t%d/%.2f\t%d\t%d\t%d\t%.2f\t%.2f\t%v\t%v\t%d\t%d\t%.2f\t%.2f\t%d\t%.2f\t%.2f\t%s\t%s\t%s\n",
				name, p[0], half, g.value, gate, d.Flat, d.cockP, d.Flatness, d.SizeRatio, d.keepNotFlat, ur.shrunk, ur.heldShrunk,
				fv.value, fv.conf, fv.lv, fv.tmpl, fv.blobs, fv.lscore, fv.nccScore, fv.sq, fv.junk, ur.small.value,
				nv, nm, nrej, sv, sm, srej, ok, verdict, spots)
		})
	})
	var ks []string
	for k := range gates {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return gates[ks[i]] > gates[ks[j]] })
	for _, k := range ks {
		t.Logf("gate %-24s %3d  net right on rect %d", k, gates[k], netRight[k])
	}
}

// firstWithheld names what withheld a first look's value confident
// enough to be given (fv.conf at least the reader's MinConfidence): the
// veto's reason, the consistency check's, or "withheld, other" (neither
// withholds it when asked again after the read: a later rule of the frame
// took it back). It asks the veto and the check again, on the reader's
// scratch, after the read.
func firstWithheld(r *Reader, fr bgrImage, fv faceValue, d Detection) string {
	vr, cr := "", ""
	defer func(v func(*Detection, vetoInfo), c func(*Detection, checkInfo)) { vetoTrace, checkTrace = v, c }(vetoTrace, checkTrace)
	vetoTrace = func(_ *Detection, vi vetoInfo) { vr = vi.reason }
	checkTrace = func(_ *Detection, ci checkInfo) { cr = ci.reason }
	nd := d
	nd.Confidence = fv.conf
	switch {
	case r.veto(fr, fv, &nd):
		return "veto: " + vr
	case !r.check(fr, fv, &nd):
		return "check: " + cr
	}
	return "withheld, other"
}

// forUnreadMatched calls fn for each die of a read photo that is matched
// to a label (by its top-face box) and left unread, with the label's
// and the detection's indices, the label, the detection and the unread
// read the reader kept for it (found false: none).
func forUnreadMatched(r *Reader, truth []gtDie, dets []Detection, fn func(p [2]int, g gtDie, d Detection, ur unreadRead, found bool)) {
	for _, p := range matchBoxes(truth, dets, false) {
		d := dets[p[1]]
		if d.Value != 0 {
			continue
		}
		ur, found := r.unreadReads[[2]float64{d.CX, d.CY}]
		fn(p, truth[p[0]], d, ur, found)
	}
}
