package vision

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/vision/internal/cvsafe"
	"github.com/dicewatch/dicewatch/vision/internal/jpegbgr"
)

// TestJPEGBGRExact decodes every photo of both sets with jpegbgr (into
// one reused buffer) and with gocv.IMDecode and compares the pixels; a
// photo with its Exif orientation set to 6 and a file that is not a JPEG
// are left to OpenCV.
func TestJPEGBGRExact(t *testing.T) {
	var pix []byte
	fast := 0
	var exif []byte
	for _, set := range []string{"byler_d6", "matteo_webcam"} {
		ps := loadPhotoSet(t, set)
		for _, name := range ps.images {
			b, err := os.ReadFile(filepath.Join(photoRoot, set, "images", name))
			if err != nil {
				t.Fatal(err)
			}
			if exif == nil && bytes.Contains(b[:min(len(b), 64)], []byte("Exif\x00\x00")) {
				exif = b
			}
			d, ok := jpegbgr.Open(b)
			if !ok {
				continue
			}
			fast++
			if len(pix) < 3*d.W*d.H {
				pix = make([]byte, 3*d.W*d.H)
			}
			err = d.Read(pix, 3*d.W)
			d.Close()
			if err != nil {
				t.Fatalf("%s/%s: %v", set, name, err)
			}
			want, err := gocv.IMDecode(b, gocv.IMReadColor)
			if err != nil {
				t.Fatal(err)
			}
			wp, _ := want.DataPtrUint8()
			same := want.Cols() == d.W && want.Rows() == d.H && want.Type() == gocv.MatTypeCV8UC3 && bytes.Equal(wp, pix[:3*d.W*d.H])
			want.Close()
			if !same {
				t.Fatalf("%s/%s: pixels differ from gocv.IMDecode's", set, name)
			}
		}
	}
	if fast < 500 {
		t.Fatalf("only %d photos decoded by jpegbgr", fast)
	}
	if exif == nil {
		t.Fatal("no photo with Exif")
	}
	// The orientation entry of the first IFD set to 6 (rotate): OpenCV
	// turns the image, so jpegbgr must leave it.
	rot := bytes.Clone(exif)
	i := bytes.Index(rot, []byte("Exif\x00\x00")) + 6
	var bo binary.ByteOrder = binary.BigEndian
	if rot[i] == 'I' {
		bo = binary.LittleEndian
	}
	off := i + int(bo.Uint32(rot[i+4:]))
	n, found := int(bo.Uint16(rot[off:])), false
	for k := 0; k < n; k++ {
		e := rot[off+2+12*k:]
		if bo.Uint16(e) == 0x0112 {
			bo.PutUint16(e[8:], 6)
			found = true
		}
	}
	if !found {
		t.Fatal("no orientation entry")
	}
	if d, ok := jpegbgr.Open(rot); ok {
		d.Close()
		t.Fatal("rotated photo decoded by jpegbgr")
	}
	if d, ok := jpegbgr.Open(exif); !ok {
		t.Fatal("upright photo not decoded by jpegbgr")
	} else {
		d.Close()
	}
	if _, ok := jpegbgr.Open([]byte("\xff\xd8 not a jpeg at all")); ok {
		t.Fatal("garbage decoded")
	}
	// ReadFile on the rotated photo reads what OpenCV's decode gives.
	path := filepath.Join(t.TempDir(), "rot.jpg")
	if err := os.WriteFile(path, rot, 0o644); err != nil {
		t.Fatal(err)
	}
	r := NewReader(ReaderOptions{})
	defer r.Close()
	got, err := r.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img := gocv.IMRead(path, gocv.IMReadColor)
	defer img.Close()
	if img.Cols() == img.Rows() {
		t.Log("square photo: the turn keeps the size")
	}
	want, err := r.Read(img)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("rotated photo: %d dice, OpenCV's decode %d", len(got), len(want))
	}
	for k := range got {
		if got[k].Box != want[k].Box || got[k].Value != want[k].Value {
			t.Fatalf("rotated photo: die %d %v %d, OpenCV's decode %v %d", k, got[k].Box, got[k].Value, want[k].Box, want[k].Value)
		}
	}
}

// TestJPEGHugeHeader: a JPEG whose frame header claims 65500x65500
// pixels is not decoded by jpegbgr (it would allocate 12 GB) and
// ReadFile reports it as not an image, as OpenCV refuses it.
func TestJPEGHugeHeader(t *testing.T) {
	ps := loadPhotoSet(t, "byler_d6")
	b, err := os.ReadFile(filepath.Join(photoRoot, "byler_d6", "images", ps.images[0]))
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := jpegbgr.Open(b); !ok {
		t.Fatal("the unpatched photo is not taken by jpegbgr")
	} else {
		d.Close()
	}
	// The baseline frame header: FF C0, length, precision, height, width.
	i := bytes.Index(b, []byte{0xff, 0xc0})
	if i < 0 || i+9 > len(b) {
		t.Fatal("no SOF0 marker")
	}
	huge := bytes.Clone(b)
	binary.BigEndian.PutUint16(huge[i+5:], 65500)
	binary.BigEndian.PutUint16(huge[i+7:], 65500)
	if d, ok := jpegbgr.Open(huge); ok {
		d.Close()
		t.Fatal("jpegbgr took a 65500x65500 header")
	}
	path := filepath.Join(t.TempDir(), "huge.jpg")
	if err := os.WriteFile(path, huge, 0o644); err != nil {
		t.Fatal(err)
	}
	r := NewReader(ReaderOptions{})
	defer r.Close()
	if _, err := r.ReadFile(path); err == nil {
		t.Fatal("ReadFile read a 65500x65500 JPEG without an error")
	}
}

// TestJPEGTruncatedLikeOpenCV: a photo cut short at several lengths reads
// through ReadFile (where jpegbgr refuses it on libjpeg's warning and
// OpenCV decodes it) exactly as OpenCV's decode and Read read it. libjpeg
// with a memory source fills a cut file's missing rows grey; OpenCV
// stops where the data stops, and the reads differed (at half the file,
// 0 detections against 10).
func TestJPEGTruncatedLikeOpenCV(t *testing.T) {
	ps := loadPhotoSet(t, "byler_d6")
	b, err := os.ReadFile(filepath.Join(photoRoot, "byler_d6", "images", ps.images[0]))
	if err != nil {
		t.Fatal(err)
	}
	r := NewReader(ReaderOptions{})
	defer r.Close()
	dir := t.TempDir()
	for _, share := range []float64{0.2, 0.5, 0.8, 0.95} {
		cut := b[:int(share*float64(len(b)))]
		path := filepath.Join(dir, "cut.jpg")
		if err := os.WriteFile(path, cut, 0o644); err != nil {
			t.Fatal(err)
		}
		got, gerr := r.ReadFile(path)
		img, derr := cvsafe.Decode(cut)
		var want []Detection
		var werr error
		if derr != nil {
			werr = derr
		} else {
			want, werr = r.Read(img)
			img.Close()
		}
		if (gerr == nil) != (werr == nil) {
			t.Errorf("cut at %.0f%%: ReadFile error %v, OpenCV's decode and Read %v", 100*share, gerr, werr)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("cut at %.0f%%: ReadFile gave %d detections, OpenCV's decode and Read %d", 100*share, len(got), len(want))
		}
	}
}

// TestReadFileLikeRead compares ReadFile (which decodes a JPEG straight
// into the reader's frame) with Read on OpenCV's decode of the same file,
// every detection field, on every byler photo, alternating the two on one
// reader.
func TestReadFileLikeRead(t *testing.T) {
	ps := loadPhotoSet(t, "byler_d6")
	r := NewReader(ReaderOptions{})
	defer r.Close()
	for _, name := range ps.images {
		path := filepath.Join(photoRoot, "byler_d6", "images", name)
		got, err := r.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		img := gocv.IMRead(path, gocv.IMReadColor)
		want, err := r.Read(img)
		img.Close()
		if err != nil {
			t.Fatal(err)
		}
		if g, w := fmt.Sprintf("%+v", got), fmt.Sprintf("%+v", want); g != w {
			t.Fatalf("%s: ReadFile %s, Read %s", name, g, w)
		}
	}
}
