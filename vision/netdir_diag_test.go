package vision

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"gocv.io/x/gocv"
)

// foldNetsFrom loads the fold nets net0.bin..net4.bin of a training
// run's output (tools/facenet/train.py's names) from dir.
func foldNetsFrom(t testing.TB, dir string) []*faceNet {
	var nets []*faceNet
	for f := 0; f < netFolds; f++ {
		p := filepath.Join(dir, fmt.Sprintf("net%d.bin", f))
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		n, err := unmarshalFaceNet(b)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		nets = append(nets, n)
	}
	return nets
}

// TestNetDirUnread judges freshly trained face nets on the byler_d6
// dice the reader leaves unread, before any of them is kept: the reader
// reads as TestAccuracyPhotos does (the shipped fold nets), and for each
// die matched to a label and left unread the fold net of
// DICEWATCH_NET_DIR that never saw its image (net<i%5>.bin) reads the
// face rectangle and the square of the frame's die size. The table
// (DICEWATCH_NETDIR_DIAG) gives the face, margin and reject probability
// on each patch beside the pip reader's cues; the log counts the dice
// where the net is sure (the same face on both patches, margin at least
// DICEWATCH_NETDIR_MARGIN, default netMinMargin, reject under
// netMaxReject), right and wrong, and among them those where a pip cue
// (layout, template or blob count) reads the net's face too: what a rule
// keeping two independent cues could give at most.
func TestNetDirUnread(t *testing.T) {
	dir := os.Getenv("DICEWATCH_NET_DIR")
	if dir == "" {
		t.Skip("DICEWATCH_NET_DIR not set")
	}
	f := diagFile(t, "DICEWATCH_NETDIR_DIAG")
	margin := netMinMargin
	if s := os.Getenv("DICEWATCH_NETDIR_MARGIN"); s != "" {
		if _, err := fmt.Sscan(s, &margin); err != nil {
			t.Fatal(err)
		}
	}
	nets := foldNetsFrom(t, dir)
	fmt.Fprintln(f, "image\tidx\thalf\ttruth\tflat\tflatness\tcockP\tshrunk\tfv\tlv\ttmpl\tblobs\tsq\tweak\tnetR\tmR\trejR\tnetS\tmS\trejS\tsure\tcue")
	ps := loadPhotoSet(t, "byler_d6")
	r := NewReader(ReaderOptions{})
	defer r.Close()
	var ns netScratch
	count := map[string]int{}
	readPhotos(t, ps, r, nil, func(i int, name string, img gocv.Mat, dets []Detection) {
		fr := readerFrame(t, r)
		med, medOK := readEdgeMedian(dets)
		n := nets[i%netFolds]
		half := "even"
		if i%2 == 1 {
			half = "odd"
		}
		forUnreadMatched(r, ps.dice[name], dets, func(p [2]int, g gtDie, d Detection, ur unreadRead, found bool) {
			if !found {
				return
			}
			fv := ur.fv
			pr, rej := ns.predictReject(n, fr, fv.c)
			v, _, m := netTop2(pr)
			qv, qm, qrej := 0, 0.0, 0.0
			if e, ok := r.edgeAt(&d, med, medOK); ok {
				sq := fv.c
				sq.w, sq.h, sq.edge = e, e, e
				ps2, rej2 := ns.predictReject(n, fr, sq)
				qv, _, qm = netTop2(ps2)
				qrej = rej2
			}
			sure, cue := "-", "-"
			if v == qv && min(m, qm) >= margin && max(rej, qrej) < netMaxReject {
				sure = "wrong"
				if v == g.value {
					sure = "right"
				}
				count[half+" sure "+sure]++
				if v == fv.lv || v == fv.tmpl || v == fv.blobs {
					cue = "agrees"
					count[half+" sure "+sure+", a cue agrees"]++
				}
			}
			fmt.Fprintf(f, "%s\t%d\t%s\t%d\t%v\t%.2f\t%.2f\t%v\t%d/%.2f\t%d\t%d\t%d\t%v\t%v\t%d\t%.2f\t%.2f\t%d\t%.2f\t%.2f\t%s\t%s\n",
				name, p[0], half, g.value, d.Flat, d.Flatness, d.cockP, ur.shrunk, fv.value, fv.conf, fv.lv, fv.tmpl, fv.blobs,
				fv.sq, fv.c.weak, v, m, rej, qv, qm, qrej, sure, cue)
		})
	})
	t.Logf("margin %.2f on both patches, reject under %.1f: %v", margin, netMaxReject, count)
}
