package vision

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// netGroupCode numbers the still groups for the exported dice (byler's
// dice are "clean").
func netGroupCode(g string) int32 {
	if i := slices.Index(stillGroups, g); i >= 0 {
		return int32(i)
	}
	return -1
}

// netExportFields names the columns of an exported die's record.
var netExportFields = []string{"image", "cal", "group", "truth", "read", "flat", "shrunk", "weak", "lv", "tmpl", "blobs", "patches"}

// exportNetDice writes dice to dir/name.meta (one little-endian int32
// record of netExportFields a die) and dir/name.x (float32 patches: each
// die's face rectangle, its square, then its jitter patches).
func exportNetDice(t testing.TB, dir, name string, dice []netDie) {
	meta, err := os.Create(filepath.Join(dir, name+".meta"))
	if err != nil {
		t.Fatal(err)
	}
	defer meta.Close()
	xs, err := os.Create(filepath.Join(dir, name+".x"))
	if err != nil {
		t.Fatal(err)
	}
	defer xs.Close()
	mw, xw := bufio.NewWriter(meta), bufio.NewWriter(xs)
	b2i := func(b bool) int32 {
		if b {
			return 1
		}
		return 0
	}
	for i := range dice {
		d := &dice[i]
		rec := []int32{int32(d.Image), b2i(d.Mode == "cal"), netGroupCode(d.Group), int32(d.Truth), int32(d.Read),
			b2i(d.Flat), b2i(d.Shrunk), b2i(d.Weak), int32(d.Lv), int32(d.Tmpl), int32(d.Blobs), int32(2 + len(d.Jitter))}
		if err := binary.Write(mw, binary.LittleEndian, rec); err != nil {
			t.Fatal(err)
		}
		binary.Write(xw, binary.LittleEndian, d.Rect[:])
		binary.Write(xw, binary.LittleEndian, d.Square[:])
		for k := range d.Jitter {
			binary.Write(xw, binary.LittleEndian, d.Jitter[k][:])
		}
	}
	if err := mw.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := xw.Flush(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d dice", name, len(dice))
}

// TestFaceNetExport writes the face net's gathered dice (byler, the
// training stills and the evaluation stills, as TestFaceNetTable gathers
// them) for tools/facenet/train.py: DICEWATCH_NET_EXPORT names the
// directory, DICEWATCH_NET_CACHE the gathered dice's cache.
func TestFaceNetExport(t *testing.T) {
	dir := os.Getenv("DICEWATCH_NET_EXPORT")
	if dir == "" {
		t.Skip("DICEWATCH_NET_EXPORT not set")
	}
	path := netCachePath()
	byler, train := netTrainData(t, path)
	first, n := stillFirst(t), stillCount(t, 600)
	eval := cachedNetDice(t, path(fmt.Sprintf("eval%d_%d.gob", first, n)), func() []netDie { return collectStillsNet(t, first, n, 0) })
	exportNetDice(t, dir, "byler", byler)
	exportNetDice(t, dir, "train", train)
	exportNetDice(t, dir, "eval", eval)
}
