package vision

import (
	"encoding/gob"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/dicewatch/dicewatch/vision/scene"
	"gocv.io/x/gocv"
)

// netDie is one labelled die the reader found, with what the face net
// needs: the pip reader's cues and the patches around its face.
type netDie struct {
	Set    string // "byler_d6" or "still"
	Image  int    // byler: index in the sorted images; stills: the seed
	Mode   string // stills: "cal" or "plain"
	Group  string // stills: stillGroup; byler: "clean"
	Truth  int
	Read   int // the reader's final value (0: unreadable)
	Flat   bool
	Shrunk bool
	Weak   bool
	Lv     int // the pip reader's cues: layout, template, blob count
	Tmpl   int
	Blobs  int
	Conf   float64
	Rect   [netIn]float32   // the patch on the reader's face rectangle
	Square [netIn]float32   // the patch on a square of the frame's die size
	Jitter [][netIn]float32 // patches around it, for training
}

// netCollect reads one frame and appends its matched dice.
func netCollect(out []netDie, r *Reader, img gocv.Mat, match func([]Detection) [][2]int, truth func(i int) (int, string),
	base netDie, jitter int, rng *rand.Rand, ns *netScratch) ([]netDie, error) {
	seen, untrace := traceReads()
	defer untrace()
	dets, err := r.Read(img)
	if err != nil {
		return out, err
	}
	med, ok := readEdgeMedian(dets)
	pix, _ := img.DataPtrUint8()
	fr := bgrImage{pix: pix, w: img.Cols(), h: img.Rows()}
	for _, p := range match(dets) {
		d := dets[p[1]]
		rc, found := seen[[2]float64{d.CX, d.CY}]
		if !found {
			continue
		}
		nd := base
		nd.Truth, nd.Group = truth(p[0])
		nd.Read, nd.Flat, nd.Shrunk, nd.Weak = d.Value, d.Flat, rc.shrunk, rc.fv.c.weak
		nd.Lv, nd.Tmpl, nd.Blobs, nd.Conf = rc.fv.lv, rc.fv.tmpl, rc.fv.blobs, rc.fv.conf
		c := rc.fv.c
		ns.netInput(fr, c, nd.Rect[:])
		sq := c
		if ok {
			sq.w, sq.h, sq.edge = med, med, med
		}
		ns.netInput(fr, sq, nd.Square[:])
		for k := 0; k < jitter; k++ {
			cj := c
			if k%3 == 2 {
				cj = sq
			}
			cj.cx += rng.NormFloat64() * 0.06 * c.edge
			cj.cy += rng.NormFloat64() * 0.06 * c.edge
			sc := 1 + rng.NormFloat64()*0.06
			cj.w *= sc
			cj.h *= sc * (1 + rng.NormFloat64()*0.03)
			cj.angle += rng.NormFloat64() * 0.08
			var x [netIn]float32
			ns.netInput(fr, cj, x[:])
			nd.Jitter = append(nd.Jitter, x)
		}
		out = append(out, nd)
	}
	return out, nil
}

// collectBylerNet reads every labelled byler image (uncalibrated, as the
// harness does) and returns its matched dice.
func collectBylerNet(t testing.TB, jitter int) []netDie {
	ps := loadPhotoSet(t, "byler_d6")
	r := NewReader(ReaderOptions{NoFaceNet: true})
	defer r.Close()
	var ns netScratch
	rng := rand.New(rand.NewPCG(7, 11))
	var out []netDie
	for i, name := range ps.images {
		img := photoImage(t, ps, name)
		truth := ps.dice[name]
		var err error
		out, err = netCollect(out, r, img, func(dets []Detection) [][2]int { return matchBoxes(truth, dets, false) },
			func(k int) (int, string) { return truth[k].value, "clean" },
			netDie{Set: ps.name, Image: i}, jitter, rng, &ns)
		img.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// collectStillsNet reads stills first..first+n-1 in both modes and
// returns their matched dice (every group; only dice with a value).
func collectStillsNet(t testing.TB, first int64, n, jitter int) []netDie {
	plain := NewReader(ReaderOptions{NoFaceNet: true})
	defer plain.Close()
	cal := NewReader(ReaderOptions{DiePx: 1, NoFaceNet: true})
	defer cal.Close()
	var ns netScratch
	rng := rand.New(rand.NewPCG(uint64(first), 13))
	var out []netDie
	for seed := first; seed < first+int64(n); seed++ {
		img, tr, err := scene.Still(seed, scene.StillOptions{})
		if err != nil {
			t.Fatal(err)
		}
		coverByStacked(tr.Dice)
		for _, mode := range []string{"cal", "plain"} {
			r := plain
			if mode == "cal" {
				cal.opts.DiePx = tr.EdgePx
				r = cal
			}
			out, err = netCollect(out, r, img, func(dets []Detection) [][2]int { return matchStill(tr.Dice, dets) },
				func(k int) (int, string) { return tr.Dice[k].Value, stillGroup(tr.Dice[k]) },
				netDie{Set: "still", Image: int(seed), Mode: mode}, jitter, rng, &ns)
			if err != nil {
				img.Close()
				t.Fatal(err)
			}
		}
		img.Close()
	}
	return out
}

// cachedNetDice loads dice gathered before from path, or gathers them
// with get and saves them there (path empty: no cache).
func cachedNetDice(t testing.TB, path string, get func() []netDie) []netDie {
	if path != "" {
		if f, err := os.Open(path); err == nil {
			defer f.Close()
			var out []netDie
			if err := gob.NewDecoder(f).Decode(&out); err == nil {
				return out
			}
		}
	}
	out := get()
	if path != "" {
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := gob.NewEncoder(f).Encode(out); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// netFolds is the number of folds of the byler set: image i (in the
// sorted list) is in fold i % netFolds.
const netFolds = 5

// netTrainDefaults are the training settings of the fold nets and the
// shipped net.
var netTrainDefaults = netTrainOptions{C1: 8, C2: 16, Hidden: 48, Epochs: 6, Rate: 2e-3, Decay: 1e-4}

// netTrainSet is every sample of the dice (their own two patches and
// their jitter) for which keep holds; clean flat dice only.
func netTrainSet(dice []netDie, keep func(d *netDie) bool) []netSample {
	var out []netSample
	for i := range dice {
		d := &dice[i]
		if d.Group != "clean" || !keep(d) {
			continue
		}
		for _, x := range d.Jitter {
			out = append(out, netSample{x: x, value: d.Truth})
		}
		out = append(out, netSample{x: d.Rect, value: d.Truth}, netSample{x: d.Square, value: d.Truth})
	}
	return out
}

func envInt(t testing.TB, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatalf("%s=%q: want a number", name, v)
	}
	return n
}

// netTableReject is the most reject probability netCueTable's looser
// rule allows (DICEWATCH_NET_REJECT, in hundredths, sets it).
var netTableReject = 0.1

// netCueTable logs, for the dice the reader left unread, how many the
// net reads right and wrong at several margins, alone and with a pip
// cue (layout, template or blob count) reading the same face.
func netCueTable(t testing.TB, label string, dice []netDie, probs [][2][6]float32, rejects [][2]float64, pick func(d *netDie) bool) {
	for _, m := range []float64{0.5, 0.7, 0.8, 0.9, 0.95, 0.98} {
		var n, right, wrong, cueRight, cueWrong, lvRight, lvWrong, bothRight, bothWrong, ruleRight, ruleWrong int
		var oneRight, oneWrong int
		byTruth := map[int][2]int{}
		for i := range dice {
			d := &dice[i]
			if d.Read != 0 || !pick(d) {
				continue
			}
			n++
			v, _, mg := netTop2(probs[i][0])
			vs, _, mgs := netTop2(probs[i][1])
			if mg < m {
				continue
			}
			ok := v == d.Truth
			count := func(r, w *int) {
				if ok {
					*r++
				} else {
					*w++
				}
			}
			count(&right, &wrong)
			if v == d.Lv || v == d.Tmpl || v == d.Blobs {
				count(&cueRight, &cueWrong)
			}
			if v == d.Lv && v == d.Tmpl {
				count(&lvRight, &lvWrong)
			}
			if vs == v && mgs >= m && (v == d.Lv || v == d.Tmpl || v == d.Blobs) {
				count(&bothRight, &bothWrong)
			}
			if vs == v && mgs >= m && v == d.Lv && v == d.Tmpl && d.Blobs <= v && v >= 2 && d.Flat && !d.Shrunk && !d.Weak {
				count(&ruleRight, &ruleWrong)
			}
			// A looser rule: the net on both patches, not the reject
			// output, and one pip cue.
			if vs == v && mgs >= m && (v == d.Lv || v == d.Tmpl || v == d.Blobs) && d.Blobs <= v && v >= 2 && d.Flat && !d.Shrunk && !d.Weak &&
				max(rejects[i][0], rejects[i][1]) < netTableReject {
				count(&oneRight, &oneWrong)
				bt := byTruth[d.Truth]
				if ok {
					bt[0]++
				} else {
					bt[1]++
				}
				byTruth[d.Truth] = bt
			}
		}
		var bt []string
		for v := 1; v <= 6; v++ {
			if c, ok := byTruth[v]; ok {
				bt = append(bt, fmt.Sprintf("%d:%d/%d", v, c[0], c[1]))
			}
		}
		t.Logf("%s margin>=%.2f: unread %d; net right %d wrong %d; +any pip cue %d/%d; +layout and template %d/%d; +square agrees and a cue %d/%d; net, square, layout and template agree (netLook before its square-rectangle test, the veto and the checks) %d/%d; net and square (reject<%.2f) and one cue, flat, 2..6 %d/%d by truth %v",
			label, m, n, right, wrong, cueRight, cueWrong, lvRight, lvWrong, bothRight, bothWrong, ruleRight, ruleWrong, netTableReject, oneRight, oneWrong, bt)
	}
}

// TestFaceNetTable trains the face net five-fold by byler image (each
// fold's net also learns from generated stills 20000.. that are never
// evaluated) and logs what it reads on the dice the reader leaves
// unread: byler (each image read by the net that never saw it) and
// stills DICEWATCH_STILL_FIRST.. (DICEWATCH_STILLS, by a net trained on
// every byler die and the training stills). DICEWATCH_NET_TABLE=1 runs
// it; DICEWATCH_NET_CACHE names a directory to keep the gathered dice
// in; DICEWATCH_NET_TRAIN_STILLS sets how many training stills.
func TestFaceNetTable(t *testing.T) {
	if os.Getenv("DICEWATCH_NET_TABLE") == "" {
		t.Skip("DICEWATCH_NET_TABLE not set")
	}
	netTableReject = float64(envInt(t, "DICEWATCH_NET_REJECT", 10)) / 100
	path := netCachePath()
	byler, train := netTrainData(t, path)
	first, n := stillFirst(t), stillCount(t, 600)
	eval := cachedNetDice(t, path(fmt.Sprintf("eval%d_%d.gob", first, n)), func() []netDie { return collectStillsNet(t, first, n, 0) })
	t.Logf("byler %d dice, training stills %d dice, evaluation stills %d dice", len(byler), len(train), len(eval))
	nets := trainNets(t, byler, train, path)
	predict := func(dice []netDie, netOf func(d *netDie) *faceNet) ([][2][6]float32, [][2]float64) {
		out := make([][2][6]float32, len(dice))
		rej := make([][2]float64, len(dice))
		var x [netIn]float32
		acts := map[*faceNet]*netAct{}
		for i := range dice {
			n := netOf(&dice[i])
			a := acts[n]
			if a == nil {
				a = newNetAct(n)
				acts[n] = a
			}
			out[i][0], rej[i][0] = n.predictTurnsReject(dice[i].Rect[:], x[:], a)
			out[i][1], rej[i][1] = n.predictTurnsReject(dice[i].Square[:], x[:], a)
		}
		return out, rej
	}
	bp, br := predict(byler, func(d *netDie) *faceNet { return nets[d.Image%netFolds] })
	var right, all int
	for i, d := range byler {
		if v, _ := netTop(bp[i][0]); v == d.Truth {
			right++
		}
		all++
	}
	t.Logf("byler: the net alone (cross-validated) reads %d of %d detected dice right (%.2f%%)", right, all, 100*float64(right)/float64(all))
	netCueTable(t, "byler", byler, bp, br, func(*netDie) bool { return true })
	netCueTable(t, "byler even", byler, bp, br, func(d *netDie) bool { return d.Image%2 == 0 })
	netCueTable(t, "byler odd", byler, bp, br, func(d *netDie) bool { return d.Image%2 == 1 })
	sp, sr := predict(eval, func(*netDie) *faceNet { return nets[netFolds] })
	for _, mode := range []string{"cal", "plain"} {
		for _, g := range stillGroups {
			netCueTable(t, "stills "+mode+" "+g, eval, sp, sr, func(d *netDie) bool { return d.Mode == mode && d.Group == g })
		}
		netCueTable(t, "stills "+mode+" flat other", eval, sp, sr, func(d *netDie) bool { return d.Mode == mode && d.Group != "clean" && d.Flat })
	}
}

// netTrainData gathers the training dice: every byler die and the dice
// of stills netTrainFirst.. (DICEWATCH_NET_TRAIN_FIRST moves the start;
// DICEWATCH_NET_TRAIN_STILLS of them, 600
// unless set), kept at path(name) when path gives a name.
func netTrainData(t testing.TB, path func(string) string) (byler, train []netDie) {
	nTrain := envInt(t, "DICEWATCH_NET_TRAIN_STILLS", netTrainStills)
	first := envInt(t, "DICEWATCH_NET_TRAIN_FIRST", netTrainFirst)
	if first < netTrainFirst || first+nTrain > netTrainEnd {
		t.Fatalf("training stills %d..%d: the face net may learn only from stills %d..%d", first, first+nTrain-1, netTrainFirst, netTrainEnd-1)
	}
	name := fmt.Sprintf("train%d.gob", nTrain)
	if first != netTrainFirst {
		name = fmt.Sprintf("train%d_%d.gob", first, nTrain)
	}
	byler = cachedNetDice(t, path("byler.gob"), func() []netDie { return collectBylerNet(t, netJitter) })
	train = cachedNetDice(t, path(name), func() []netDie { return collectStillsNet(t, int64(first), nTrain, netStillJitter) })
	return byler, train
}

// trainNets trains the byler fold nets (0..netFolds-1: fold f's on every
// byler die outside fold f and the training stills) and the shipped net
// (index netFolds: every byler die and the training stills), two at a
// time. A net kept at path("net<f>.bin") is loaded instead, and each net
// trained is kept there (path giving "": nothing kept).
func trainNets(t testing.TB, byler, train []netDie, path func(string) string) []*faceNet {
	stillSamples := netTrainSet(train, func(*netDie) bool { return true })
	o := netTrainDefaults
	o.Epochs = envInt(t, "DICEWATCH_NET_EPOCHS", o.Epochs)
	nets := make([]*faceNet, netFolds+1)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for f := 0; f <= netFolds; f++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			p := path(fmt.Sprintf("net%d.bin", f))
			if b, err := os.ReadFile(p); err == nil && p != "" {
				if n, err := unmarshalFaceNet(b); err == nil {
					nets[f] = n
					return
				}
			}
			samples := append(netTrainSet(byler, func(d *netDie) bool { return d.Image%netFolds != f }), stillSamples...)
			oo := o
			oo.Seed = uint64(f + 1)
			nets[f] = trainFaceNet(samples, oo)
			if p != "" {
				if err := os.WriteFile(p, nets[f].marshal(), 0o644); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	return nets
}

// TestTrainFaceNet trains the shipped face net (vision/facenet.bin) and
// the byler fold nets (testdata/facenet/byler_fold*.bin), which the photo
// harness reads each byler image with so that no image is read by a net
// that learnt from it:
//
//	DICEWATCH_NET_TRAIN=1 go test -count=1 -run TrainFaceNet -v -timeout 120m ./vision/
//
// It reads every byler image and generated stills 20000..20599 in both
// modes (never evaluation stills), then trains six nets, two at a time:
// about 20 minutes on two idle cores. It is deterministic.
// DICEWATCH_NET_CACHE names a directory to keep the gathered dice and the
// nets in (a net found there is not trained again).
func TestTrainFaceNet(t *testing.T) {
	if os.Getenv("DICEWATCH_NET_TRAIN") == "" {
		t.Skip("DICEWATCH_NET_TRAIN not set")
	}
	path := netCachePath()
	byler, train := netTrainData(t, path)
	nets := trainNets(t, byler, train, path)
	if err := os.MkdirAll(filepath.Dir(netFoldPath(0)), 0o755); err != nil {
		t.Fatal(err)
	}
	for f := 0; f < netFolds; f++ {
		if err := os.WriteFile(netFoldPath(f), nets[f].marshal(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile("facenet.bin", nets[netFolds].marshal(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("trained on %d byler dice and %d still dice: %d fold nets and the shipped net", len(byler), len(train), netFolds)
}

// netTrainStills is how many generated stills from netTrainFirst on the
// nets learn from.
const netTrainStills = 600

// netJitter and netStillJitter: how many patches around each die, moved,
// scaled and turned a little, join its own two in training.
const (
	netJitter      = 6
	netStillJitter = 2
)

// netTrainFirst is the first generated still the net trains on; stills
// from it on are never evaluation stills.
const netTrainFirst = 20000

// netTrainEnd is one past the last generated still the face net may
// learn from (DICEWATCH_NET_TRAIN_FIRST and DICEWATCH_NET_TRAIN_STILLS
// pick a range inside netTrainFirst..netTrainEnd-1).
const netTrainEnd = 22000

// netFoldPath is where byler fold f's net is kept.
func netFoldPath(f int) string {
	return filepath.Join("..", "testdata", "facenet", fmt.Sprintf("byler_fold%d.bin", f))
}

// heldOutNets maps each image of a set the shipped face net learnt from
// (byler_d6) to the fold net trained without it (image i of the sorted
// set is in fold i % netFolds); nil for other sets and for a Reader
// without the net.
func heldOutNets(t testing.TB, set string, r *Reader) map[string]*faceNet {
	if set != "byler_d6" || r.net == nil {
		return nil
	}
	var folds []*faceNet
	for f := 0; f < netFolds; f++ {
		b, err := os.ReadFile(netFoldPath(f))
		if err != nil {
			t.Fatal(err)
		}
		n, err := unmarshalFaceNet(b)
		if err != nil {
			t.Fatalf("%s: %v", netFoldPath(f), err)
		}
		folds = append(folds, n)
	}
	out := map[string]*faceNet{}
	for i, name := range loadPhotoSet(t, set).images {
		out[name] = folds[i%netFolds]
	}
	return out
}

// TestNetLookDump logs every value netLook gives on the stills
// DICEWATCH_STILL_FIRST.. (DICEWATCH_STILLS) in both modes, with the truth
// and what the rule saw. DICEWATCH_NET_DUMP=1 runs it.
func TestNetLookDump(t *testing.T) {
	if os.Getenv("DICEWATCH_NET_DUMP") == "" {
		t.Skip("DICEWATCH_NET_DUMP not set")
	}
	seen := map[[2]float64]faceValue{}
	netTrace = func(d *Detection, fv faceValue) { seen[[2]float64{d.CX, d.CY}] = fv }
	defer func() { netTrace = nil }()
	readStills(t, func() { clear(seen) }, func(seed int64, mode string, img gocv.Mat, tr scene.StillTruth, dets []Detection) {
		for _, p := range matchStill(tr.Dice, dets) {
			g, d := tr.Dice[p[0]], dets[p[1]]
			fv, ok := seen[[2]float64{d.CX, d.CY}]
			if !ok {
				continue
			}
			t.Logf("seed %d %s %s truth %d read %d conf %.2f flatness %.3f lv %d tmpl %d blobs %d sq %v aspect %.3f edge %.1f/%.1f lscore %.2f ncc %.2f junk %v empty %.2f",
				seed, mode, stillGroup(g), g.Value, d.Value, d.Confidence, d.Flatness, fv.lv, fv.tmpl, fv.blobs, fv.sq,
				min(fv.c.w, fv.c.h)/max(fv.c.w, fv.c.h), fv.c.edge, tr.EdgePx, fv.lscore, fv.nccScore, fv.junk, fv.empty)
		}
	})
}

// netCachePath maps a file name into the directory DICEWATCH_NET_CACHE
// names ("" when it is not set: nothing is cached).
func netCachePath() func(name string) string {
	cache := os.Getenv("DICEWATCH_NET_CACHE")
	return func(name string) string {
		if cache == "" {
			return ""
		}
		return filepath.Join(cache, name)
	}
}
