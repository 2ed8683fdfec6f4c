package vision

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/dicewatch/dicewatch/vision/scene"
	"gocv.io/x/gocv"
)

// ttaDie is one die the reader left unread (or, for the base rates, read),
// with the face net's output under each test-time variant on its face
// rectangle and on the frame-size square.
type ttaDie struct {
	set         string
	image       int
	truth, read int
	ur          unreadRead
	sized       bool
	p           [][2][6]float32 // by variant: rectangle, square
	rej         [][2]float64
}

// ttaVariant is one way to read a patch: crops of the candidate (shift in
// the rectangle's sides along its axes, scale) and the turns of each.
type ttaVariant struct {
	name   string
	crops  [][3]float64 // du, dv (fractions of w, h), scale
	turns  []int
	passes int
	// best: the crop whose (turn-averaged) output has the widest margin,
	// not the average over crops; detCentre: crops around the
	// detection's centre instead of the face rectangle's.
	best, detCentre bool
	// oracle (diagnosis only: it looks at the truth): the crop that reads
	// the truth with the widest margin when one does, else the widest;
	// an upper bound on what a better rectangle could give.
	oracle bool
}

func ttaVariants() []ttaVariant {
	all := []int{0, 1, 2, 3, 4, 5, 6, 7}
	shift := func(f float64, scales ...float64) [][3]float64 {
		var out [][3]float64
		for _, s := range scales {
			out = append(out, [3]float64{0, 0, s})
			if f > 0 {
				out = append(out, [3]float64{f, 0, s}, [3]float64{-f, 0, s}, [3]float64{0, f, s}, [3]float64{0, -f, s})
			}
		}
		return out
	}
	vs := []ttaVariant{
		{name: "base2", crops: shift(0, 1), turns: netTurnOrder[:2]},
		{name: "turns8", crops: shift(0, 1), turns: all},
		{name: "scale3x2", crops: shift(0, 0.9, 1, 1.12), turns: netTurnOrder[:2]},
		{name: "scale3x8", crops: shift(0, 0.9, 1, 1.12), turns: all},
		{name: "shift.06x2", crops: shift(0.06, 1), turns: netTurnOrder[:2]},
		{name: "shift.06s3x2", crops: shift(0.06, 0.92, 1, 1.1), turns: netTurnOrder[:2]},
		{name: "shift.1s3x2", crops: shift(0.1, 0.92, 1, 1.1), turns: netTurnOrder[:2]},
		{name: "best.08s3x2", crops: shift(0.08, 0.9, 1, 1.12), turns: netTurnOrder[:2], best: true},
		{name: "best.15s4x2", crops: append(shift(0.15, 0.85, 1, 1.15, 1.3), shift(0.08, 1)...), turns: netTurnOrder[:2], best: true},
		{name: "scale1.25x2", crops: shift(0, 1.25), turns: netTurnOrder[:2]},
		{name: "scale0.85x2", crops: shift(0, 0.85), turns: netTurnOrder[:2]},
		{name: "oracle.08s3x2", crops: shift(0.08, 0.9, 1, 1.12), turns: netTurnOrder[:2], oracle: true},
		{name: "oracle.15s4x2", crops: append(shift(0.15, 0.85, 1, 1.15, 1.3), shift(0.08, 1)...), turns: netTurnOrder[:2], oracle: true},
		{name: "det2", crops: shift(0, 1), turns: netTurnOrder[:2], detCentre: true},
	}
	if only := os.Getenv("DICEWATCH_TTA_VARIANTS"); only != "" {
		var keep []ttaVariant
		for _, v := range vs {
			if strings.Contains(","+only+",", ","+v.name+",") {
				keep = append(keep, v)
			}
		}
		vs = keep
	}
	for i := range vs {
		vs[i].passes = len(vs[i].crops) * len(vs[i].turns)
	}
	return vs
}

// ttaPredict averages the net's softmax (and reject) over v's crops and
// turns of c.
func ttaPredict(ns *netScratch, n *faceNet, fr bgrImage, c candidate, v ttaVariant, truth int) ([6]float32, float64) {
	if ns.a == nil || ns.net != n {
		ns.a, ns.net = newNetAct(n), n
	}
	var avg [6]float32
	var rej float64
	co, si := math.Cos(c.angle), math.Sin(c.angle)
	k := float32(len(v.crops) * len(v.turns))
	if v.best || v.oracle {
		bm := -1.0
		var bp [6]float32
		var br float64
		for _, cr := range v.crops {
			w := v
			w.best, w.oracle, w.crops = false, false, [][3]float64{cr}
			p, r := ttaPredict(ns, n, fr, c, w, truth)
			top, _, m := netTop2(p)
			if v.oracle && top == truth {
				m += 10
			}
			if m > bm {
				bm, bp, br = m, p, r
			}
		}
		return bp, br
	}
	for _, cr := range v.crops {
		cj := c
		cj.cx += cr[0]*c.w*co - cr[1]*c.h*si
		cj.cy += cr[0]*c.w*si + cr[1]*c.h*co
		cj.w *= cr[2]
		cj.h *= cr[2]
		ns.netInput(fr, cj, ns.x[:])
		for _, t := range v.turns {
			turnInput(ns.x[:], ns.t[:], t)
			n.forward(ns.t[:], ns.a)
			for j := range avg {
				avg[j] += ns.a.p[j] / k
			}
			if n.nout > 6 {
				rej += float64(ns.a.p[6]) / float64(k)
			}
		}
	}
	return avg, rej
}

// ttaCollect reads the frame's dice after a Read: every matched die's
// variants (pairs: truth index, detection index).
func ttaCollect(out []ttaDie, r *Reader, set string, image int, dets []Detection, pairs [][2]int, truth func(i int) int, vs []ttaVariant, all bool) []ttaDie {
	pix, _ := r.frame.DataPtrUint8()
	fr := bgrImage{pix: pix, w: r.frame.Cols(), h: r.frame.Rows()}
	med, ok := readEdgeMedian(dets)
	for _, p := range pairs {
		d := dets[p[1]]
		ur, found := r.unreadReads[[2]float64{d.CX, d.CY}]
		if !found && !all {
			continue
		}
		if d.Value != 0 && !all || !d.Flat {
			continue
		}
		if !found || ur.fv.lv == 0 && ur.fv.c.w == 0 {
			continue
		}
		td := ttaDie{set: set, image: image, truth: truth(p[0]), read: d.Value, ur: ur}
		edge, sized := r.edgeAt(&d, med, ok)
		td.sized = sized
		sq := ur.fv.c
		if sized {
			sq.w, sq.h, sq.edge = edge, edge, edge
		}
		for _, v := range vs {
			rc, sc := ur.fv.c, sq
			if v.detCentre {
				rc.cx, rc.cy, sc.cx, sc.cy = d.CX, d.CY, d.CX, d.CY
			}
			a, ra := ttaPredict(&r.ns, r.net, fr, rc, v, td.truth)
			b, rb := ttaPredict(&r.ns, r.net, fr, sc, v, td.truth)
			td.p = append(td.p, [2][6]float32{a, b})
			td.rej = append(td.rej, [2]float64{ra, rb})
		}
		out = append(out, td)
	}
	return out
}

// ttaTable logs, for each variant, how often the net is right at its best
// guess on the unread dice and the right/wrong counts at several margins
// alone, on both patches, and under netLook-like cue gates.
func ttaTable(t *testing.T, label string, dice []ttaDie, vs []ttaVariant, pick func(d *ttaDie) bool) {
	for vi, v := range vs {
		var n, best int
		var lines []string
		for _, m := range []float64{0.5, 0.7, 0.8, 0.9} {
			var a, b, c, e, s, sm [2]int
			for i := range dice {
				d := &dice[i]
				if !pick(d) {
					continue
				}
				fv := d.ur.fv
				v1, _, m1 := netTop2(d.p[vi][0])
				v2, _, m2 := netTop2(d.p[vi][1])
				w := 0
				if v1 != d.truth {
					w = 1
				}
				if m == 0.5 {
					n++
					if w == 0 {
						best++
					}
				}
				if m1 < m {
					continue
				}
				a[w]++
				if !(v2 == v1 && m2 >= m && d.sized) {
					continue
				}
				b[w]++
				rej := max(d.rej[vi][0], d.rej[vi][1])
				gate := d.ur.fv.c.weak || d.ur.shrunk || !fv.sq
				if !gate && v1 >= 2 && rej < netMaxReject && v1 == fv.lv && v1 == fv.tmpl && fv.blobs <= v1 {
					c[w]++
					if m == 0.7 {
						b1, _, bm1 := netTop2(d.p[0][0])
						b2, _, bm2 := netTop2(d.p[0][1])
						t.Logf("  %s %s %s img %d truth %d net %d m %.2f/%.2f rej %.2f; base %d %.2f / %d %.2f; lv %d tmpl %d blobs %d lscore %.2f ncc %.2f at (%.0f,%.0f)", label, v.name, d.set, d.image, d.truth, v1, m1, m2, rej, b1, bm1, b2, bm2, fv.lv, fv.tmpl, fv.blobs, fv.lscore, fv.nccScore, fv.c.cx, fv.c.cy)
					}
				}
				if !gate && v1 >= 2 && rej < netMaxReject && (v1 == fv.lv || v1 == fv.blobs) && fv.lv <= v1 && fv.tmpl <= v1 && fv.blobs <= v1 {
					e[w]++
				}
				if !gate && v1 >= 2 && rej < netMaxReject && fv.lv <= v1 && fv.tmpl <= v1 && fv.blobs <= v1 {
					s[w]++
				}
				if !gate && v1 <= 2 && rej < netMaxReject && fv.lv <= v1 && fv.tmpl <= v1 && fv.blobs <= v1 {
					sm[w]++
				}
			}
			lines = append(lines, fmt.Sprintf("m%.1f alone %d/%d both %d/%d lv+tmpl %d/%d lvOrBlobs %d/%d noLarger %d/%d small %d/%d", m, a[0], a[1], b[0], b[1], c[0], c[1], e[0], e[1], s[0], s[1], sm[0], sm[1]))
		}
		t.Logf("%s %s (%d passes): n %d best right %d (%.1f%%) | %s", label, v.name, v.passes, n, best, 100*float64(best)/max(1, float64(n)), strings.Join(lines, " | "))
	}
}

// TestTTADiag: the face net under test-time variants on the dice the
// reader leaves unread: byler (fold nets), and generated stills
// (DICEWATCH_STILL_FIRST, DICEWATCH_STILLS) in both modes.
// DICEWATCH_TTA_DIAG=1 runs it.
func TestTTADiag(t *testing.T) {
	if os.Getenv("DICEWATCH_TTA_DIAG") == "" {
		t.Skip("DICEWATCH_TTA_DIAG not set")
	}
	vs := ttaVariants()
	ps := loadPhotoSet(t, "byler_d6")
	r := NewReader(ReaderOptions{})
	defer r.Close()
	var byler []ttaDie
	readPhotos(t, ps, r, nil, func(i int, name string, _ gocv.Mat, dets []Detection) {
		truth := ps.dice[name]
		byler = ttaCollect(byler, r, "byler", i, dets, matchBoxes(truth, dets, false), func(k int) int { return truth[k].value }, vs, false)
	})
	ttaTable(t, "byler", byler, vs, func(*ttaDie) bool { return true })
	ttaTable(t, "byler even", byler, vs, func(d *ttaDie) bool { return d.image%2 == 0 })
	ttaTable(t, "byler odd", byler, vs, func(d *ttaDie) bool { return d.image%2 == 1 })
	if os.Getenv("DICEWATCH_STILLS") == "" {
		return
	}
	var st []ttaDie
	readStillsR(t, func() {}, func(r *Reader, seed int64, mode string, img gocv.Mat, tr scene.StillTruth, dets []Detection) {
		pairs := matchStill(tr.Dice, dets)
		var keep [][2]int
		for _, p := range pairs {
			if stillGroup(tr.Dice[p[0]]) == "clean" || dets[p[1]].Flat {
				keep = append(keep, p)
			}
		}
		st = ttaCollect(st, r, mode+" "+fmt.Sprint(seed), int(seed), dets, keep, func(k int) int {
			if stillGroup(tr.Dice[k]) != "clean" {
				return -tr.Dice[k].Value // never right: a not-clean die must stay unread
			}
			return tr.Dice[k].Value
		}, vs, false)
	})
	for _, mode := range []string{"cal", "plain"} {
		ttaTable(t, "stills "+mode, st, vs, func(d *ttaDie) bool { return strings.HasPrefix(d.set, mode) })
	}
}
