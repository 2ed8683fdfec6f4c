package cvsafe

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"gocv.io/x/gocv"
)

func encoded(t *testing.T) []byte {
	t.Helper()
	img := gocv.NewMatWithSize(48, 64, gocv.MatTypeCV8UC3)
	defer img.Close()
	img.SetTo(gocv.NewScalar(30, 60, 90, 0))
	buf, err := gocv.IMEncode(gocv.JPEGFileExt, img)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Close()
	return bytes.Clone(buf.GetBytes())
}

// TestDecode: a good JPEG decodes; garbage, nothing, and a header past
// OpenCV's pixel limit (which makes OpenCV throw) give ErrNotImage, the
// last without aborting the test process.
func TestDecode(t *testing.T) {
	good := encoded(t)
	m, err := Decode(good)
	if err != nil {
		t.Fatalf("good JPEG: %v", err)
	}
	if m.Cols() != 64 || m.Rows() != 48 || m.Channels() != 3 {
		t.Errorf("good JPEG decoded %dx%d with %d channels", m.Cols(), m.Rows(), m.Channels())
	}
	m.Close()

	huge := bytes.Clone(good)
	i := bytes.Index(huge, []byte{0xff, 0xc0})
	if i < 0 || i+9 > len(huge) {
		t.Fatal("no SOF0 marker")
	}
	binary.BigEndian.PutUint16(huge[i+5:], 65500)
	binary.BigEndian.PutUint16(huge[i+7:], 65500)
	for name, b := range map[string][]byte{"garbage": []byte("not an image at all"), "empty": nil, "huge header": huge} {
		if m, err := Decode(b); !errors.Is(err, ErrNotImage) {
			if err == nil {
				m.Close()
			}
			t.Errorf("%s: %v, want ErrNotImage", name, err)
		}
	}
	path := filepath.Join(t.TempDir(), "huge.jpg")
	if err := os.WriteFile(path, huge, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(path); !errors.Is(err, ErrNotImage) {
		t.Errorf("huge file: %v, want ErrNotImage", err)
	}
	if _, err := ReadFile(filepath.Join(t.TempDir(), "missing.jpg")); err == nil || errors.Is(err, ErrNotImage) {
		t.Errorf("missing file: %v, want the file error", err)
	}
}
